"""The serving policies (C-85) and the agreement rule S1 (C-75, C-76) over k grounding votes.

:data:`POLICIES` are the named presets; :func:`agree` keeps the facts a quorum of valid votes
proposed, or says why there is no agreement. :mod:`.serving` runs a query with them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from cotaudit.certify.gate.decision import GateDecision, parse_proposal
from cotaudit.certify.lang.syntax import Fact, Unit
from cotaudit.certify.serve.votes import ProposedFact, Vote
from cotaudit.certify.sources.records import CheckResult, Evidence, RecordStore
from cotaudit.certify.state.query import AbstainReason

if TYPE_CHECKING:
    from cotaudit.certify.interface.model import Interface


NO_CHECK_ID = "none/1"


class NoSourceCheck:
    """The checker of the ``solver_1vote`` and ``agreement_only`` ablations: type and whitelist
    checks still run in the gate, but no source is consulted. Its id is logged with every unit it
    passes, so a reader sees that nothing checked the source."""

    id = NO_CHECK_ID
    version = "1"
    inline = True

    def check(
        self, unit: Unit, evidence: Evidence, records: RecordStore, interface: Interface
    ) -> CheckResult:
        return CheckResult("SUPPORTED", "no source check (ablation policy)")


@dataclass(frozen=True)
class Policy:
    """C-85. ``votes=None`` takes the state's config; ``source_check=False`` uses none/1."""

    name: str
    votes: int | None = None
    source_check: bool = True
    raw: bool = False
    fallback: bool = False


POLICIES: dict[str, Policy] = {
    "raw": Policy("raw", votes=1, source_check=False, raw=True),
    "solver_1vote": Policy("solver_1vote", votes=1, source_check=False),
    "agreement_only": Policy("agreement_only", votes=2, source_check=False),
    "native": Policy("native"),  # k from the config (default 2)
}
for _name in ("solver_1vote", "agreement_only", "native"):
    POLICIES[_name + "+fallback"] = replace(POLICIES[_name], name=_name + "+fallback", fallback=True)


def replace_votes(policy: Policy, k: int) -> Policy:
    """The same policy with k votes (e.g. the one-vote ablation of a preset)."""
    if k < 1:
        raise ValueError("k must be ≥ 1")
    return replace(policy, votes=k)


@dataclass
class VoteSummary:
    index: int
    valid: bool
    keys: list[str]
    error: str | None
    tokens: int
    seconds: float

    def to_json(self) -> dict[str, Any]:
        return {
            "vote": self.index,
            "valid": self.valid,
            "facts": list(self.keys),
            "error": self.error,
            "tokens": self.tokens,
            "seconds": round(self.seconds, 6),
        }


@dataclass
class Agreement:
    """S1's outcome: the agreed facts (with the chosen evidence) or the abstention reason."""

    facts: list[ProposedFact]
    keys: list[str]
    supporters: list[int]
    reason: AbstainReason | None = None
    detail: str = ""
    # every supporting vote's facts in key order (the evidence ``evidence_policy: all`` checks)
    support: list[list[ProposedFact]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "facts": list(self.keys),
            "supporters": list(self.supporters),
            "reason": None if self.reason is None else self.reason.value,
            "detail": self.detail,
        }


def vote_keys(vote: Vote) -> tuple[list[str], list[ProposedFact]] | str:
    """Canonical keys of a vote's facts (sorted, deduplicated), or why the vote is invalid."""
    if not vote.valid or vote.facts is None:
        return vote.error or "invalid vote"
    by_key: dict[str, ProposedFact] = {}
    for f in vote.facts:
        unit = parse_proposal(f.literal)
        if isinstance(unit, GateDecision):
            return f"parse failure: {f.literal!r}: {unit.detail.get('message', unit.reason)}"
        if not isinstance(unit, Fact):
            by_key.setdefault("r:" + f.literal, f)  # a proposed rule: the gate rejects it in S2
            continue
        by_key.setdefault(unit.key, f)
    keys = sorted(by_key)
    return keys, [by_key[k] for k in keys]


def agree(votes: Sequence[Vote], k: int) -> tuple[Agreement, list[VoteSummary]]:
    """C-76 mode ``facts``: the fact set proposed identically by a strict majority of all k."""
    summaries: list[VoteSummary] = []
    parsed: list[tuple[list[str], list[ProposedFact]] | None] = []
    for i, v in enumerate(votes):
        got = vote_keys(v)
        if isinstance(got, str):
            summaries.append(VoteSummary(i, False, [], got, v.tokens, v.seconds))
            parsed.append(None)
        else:
            summaries.append(VoteSummary(i, True, got[0], None, v.tokens, v.seconds))
            parsed.append(got)
    if all(p is None for p in parsed):
        return Agreement([], [], [], AbstainReason.ALL_VOTES_INVALID, f"0 of {k} votes valid"), summaries
    groups: dict[tuple[str, ...], list[int]] = {}
    for i, p in enumerate(parsed):
        if p is not None:
            groups.setdefault(tuple(p[0]), []).append(i)
    best = max(groups.items(), key=lambda kv: (len(kv[1]), -kv[1][0]))
    if 2 * len(best[1]) <= k:
        sizes = sorted((len(v) for v in groups.values()), reverse=True)
        detail = (
            f"largest identical fact set has {sizes[0]} of {k} votes (strict majority needs {k // 2 + 1})"
        )
        return Agreement([], [], [], AbstainReason.NO_AGREEMENT, detail), summaries
    support = [p[1] for i in best[1] if (p := parsed[i]) is not None]
    return Agreement(support[0], list(best[0]), best[1], support=support), summaries
