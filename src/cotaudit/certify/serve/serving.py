"""Certified serving (Algorithm 3, C-74 … C-86): k grounding votes, the agreement rule (S1),
source checks of the agreed facts at query scope (S2), derivation and derived-mode certification
(S3, in :mod:`.serving`), an explicit abstention otherwise, and an optional fallback whose answer
is always labelled UNCERTIFIED.

:func:`serve` is the entry point; the named presets of C-85 (``POLICIES``) and the agreement
rule are :mod:`.agreement`. The raw solver
(policy ``raw``) bypasses the gate and agreement on purpose, as the baseline the admission replay
compares against; its answers carry no certificate and are never a :class:`ServeResult` with
status CERTIFIED.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from cotaudit.certify.core.errors import ComputationCap
from cotaudit.certify.engine.evaluation import evaluate
from cotaudit.certify.engine.facts import Source
from cotaudit.certify.gate.decision import GateDecision, parse_proposal
from cotaudit.certify.lang.parse import parse_literal
from cotaudit.certify.lang.syntax import Fact, Unit
from cotaudit.certify.serve.agreement import (
    NO_CHECK_ID,
    POLICIES,
    Agreement,
    NoSourceCheck,
    Policy,
    VoteSummary,
    agree,
    vote_keys,
)
from cotaudit.certify.serve.votes import Grounder, ProposedFact, QueryInput, Vote
from cotaudit.certify.sources.records import Evidence
from cotaudit.certify.state.query import AbstainReason, AnswerKind, QueryResult, ServeStatus, run_query

if TYPE_CHECKING:
    from cotaudit.certify.interface.model import Interface
    from cotaudit.certify.state.machine import CertState


@dataclass
class ServeResult:
    """C-83. ``answer`` is set only by a certified (or cached) answer; a fallback's text is in
    ``fallback_answer`` and never in ``answer``."""

    query_id: str
    status: ServeStatus
    answer: str | None
    answer_kind: AnswerKind | None
    certificate: dict[str, Any] | None
    abstain_reason: AbstainReason | None
    detail: str
    gate_decisions: list[GateDecision]
    votes: list[VoteSummary]
    agreement: Agreement | None
    fallback_answer: str | None
    kernel_version: int
    log_seq: int | None
    timings: dict[str, float]
    tokens_total: int
    policy: str
    flags: list[str] = field(default_factory=list)
    overlay: dict[int, Unit] = field(default_factory=dict)

    @property
    def served(self) -> str | None:
        """What the policy hands the user: the certified answer, else the labelled fallback."""
        return self.answer if self.answer is not None else self.fallback_answer

    def to_json(self, timings: bool = False) -> dict[str, Any]:
        out = {
            "query_id": self.query_id,
            "policy": self.policy,
            "status": self.status.value,
            "answer": self.answer,
            "answer_kind": None if self.answer_kind is None else self.answer_kind.value,
            "certificate_sha256": None if self.certificate is None else self.certificate.get("sha256"),
            "depth": None if self.certificate is None else self.certificate.get("depth"),
            "abstain_reason": None if self.abstain_reason is None else self.abstain_reason.value,
            "detail": self.detail,
            "fallback_answer": self.fallback_answer,
            "uncertified": self.status is ServeStatus.UNCERTIFIED_FALLBACK,
            "flags": list(self.flags),
            "gate": [d.to_json() for d in self.gate_decisions],
            "votes": [v.to_json() for v in self.votes],
            "agreement": None if self.agreement is None else self.agreement.to_json(),
            "kernel_version": self.kernel_version,
            "log_seq": self.log_seq,
            "tokens_total": self.tokens_total,
        }
        if timings:  # wall times are not deterministic: only on request
            out["timings"] = {k: round(v, 6) for k, v in sorted(self.timings.items())}
        return out


@dataclass
class CostLedger:
    """Tokens, grounding calls and summed call seconds per policy (C-87)."""

    rows: dict[str, dict[str, float]] = field(default_factory=dict)

    def add(self, policy: str, votes: Sequence[VoteSummary], checker_seconds: float = 0.0) -> None:
        row = self.rows.setdefault(policy, {"calls": 0, "tokens": 0, "seconds": 0.0, "queries": 0})
        row["queries"] += 1
        row["calls"] += len(votes)
        row["tokens"] += sum(v.tokens for v in votes)
        row["seconds"] += sum(v.seconds for v in votes) + checker_seconds

    def to_json(self) -> dict[str, Any]:
        return {
            p: {k: (round(v, 6) if isinstance(v, float) else v) for k, v in sorted(r.items())}
            for p, r in sorted(self.rows.items())
        }


def _other_evidence(state: CertState, agreement: Agreement) -> str | None:
    """``evidence_policy: all`` (C-76): the evidence of every agreeing vote after the first must
    also pass the query-scope source check (the first vote's evidence goes through the gate in
    S2). Returns why one does not, or None. Identical evidence is checked once."""
    from cotaudit.certify.sources.records import run_checker

    def ident(f: ProposedFact) -> tuple[str, str | None]:
        return f.literal, None if f.evidence is None else f.evidence.sha256

    seen = {ident(f) for f in agreement.facts}
    for vote, facts in zip(agreement.supporters[1:], agreement.support[1:], strict=True):
        for f in facts:
            if ident(f) in seen:
                continue
            seen.add(ident(f))
            unit = parse_proposal(f.literal)
            if not isinstance(unit, Fact):
                continue  # the gate rejects non-facts in S2 anyway
            try:
                checker = state.checkers.resolve(state.config.checkers.choice(unit, "query"))
            except KeyError as exc:
                return f"vote {vote}: {exc.args[0]}"
            r = run_checker(
                checker, unit, f.evidence or Evidence(None), state.records, state.interface,
                state.config.checker_timeout_s,
            )  # fmt: skip
            if r.verdict != "SUPPORTED":
                return f"vote {vote}'s evidence for {f.literal}: {r.verdict} ({r.reason})"
    return None


def _grounded(
    grounder: Grounder, q: QueryInput, interface: Interface, k: int
) -> tuple[list[Vote], str | None, float]:
    start = time.perf_counter()
    votes: list[Vote] = []
    for i in range(k):
        try:
            votes.append(grounder.ground(q, interface, i))
        except Exception as exc:  # a grounder failure is an abstention, never a crash
            return votes, f"{type(exc).__name__}: {exc}", time.perf_counter() - start
    return votes, None, time.perf_counter() - start


def _with_policy_checkers(state: CertState, policy: Policy) -> Any:
    """Swap the query-scope checker for none/1 under ablation policies; returns the old config."""
    old = state.config
    if not policy.source_check:
        if NO_CHECK_ID not in state.checkers.ids():
            state.checkers.register(NoSourceCheck())
        checkers = replace(old.checkers, query=NO_CHECK_ID, predicates={})
        state.config = replace(old, checkers=checkers)
    return old


def _abstained(
    q: QueryInput, state: CertState, policy: str, reason: AbstainReason, detail: str
) -> ServeResult:
    return ServeResult(
        q.query_id,
        ServeStatus.ABSTAINED,
        None,
        None,
        None,
        reason,
        detail,
        [],
        [],
        None,
        None,
        state.version,
        None,
        {},
        0,
        policy,
    )


def serve(
    state: CertState,
    q: QueryInput,
    grounder: Grounder | None = None,
    *,
    policy: str | Policy = "native",
    fallback: Callable[[QueryInput], str] | None = None,
    ledger: CostLedger | None = None,
    delta: int | None = None,
    on_reject: str | None = None,
) -> ServeResult:
    """Answer ``q`` under ``policy`` (C-74 … C-85); see the module docstring."""
    pol = POLICIES[policy] if isinstance(policy, str) else policy
    if pol.raw:
        raise ValueError("policy raw has no certified result: use raw_answer()")
    k = pol.votes or state.config.votes
    used = state.store.conn.execute("SELECT 1 FROM queries WHERE query_id=?", (q.query_id,)).fetchone()
    if used is not None:  # the audit log keys queries by id: a reused id is a caller error
        raise ValueError(f"query id {q.query_id!r} was already served by this state")
    t0 = time.perf_counter()
    if q.text is None or grounder is None:  # C-81: kernel-only query
        qr = run_query(state, q.target, query_id=q.query_id, answer_space=q.answer_space, delta=delta)
        result = _from_query(qr, pol.name, [], None, {"serve": time.perf_counter() - t0})
    else:
        for rec in q.records:
            if state.records.record(rec.record_id) is None:
                state.add_record(rec)
        votes, error, ground_s = _grounded(grounder, q, state.interface, k)
        if error is not None:
            result = _abstained(q, state, pol.name, AbstainReason.GROUNDER_ERROR, error)
            result.timings = {"ground": ground_s}
        elif state.config.agreement == "answers":
            result = _serve_answers(state, q, votes, k, pol, delta, on_reject)
        else:
            agreement, summaries = agree(votes, k)
            if agreement.reason is not None:
                result = _abstained(q, state, pol.name, agreement.reason, agreement.detail)
                result.votes, result.agreement = summaries, agreement
            else:
                facts = [(f.literal, f.evidence) for f in agreement.facts]
                old = _with_policy_checkers(state, pol)
                try:
                    why = _other_evidence(state, agreement) if state.config.evidence_policy == "all" else None
                    qr = None
                    if why is None:
                        qr = run_query(
                            state,
                            q.target,
                            facts=facts,
                            query_id=q.query_id,
                            answer_space=q.answer_space,
                            delta=delta,
                            on_reject=on_reject,
                        )
                finally:
                    state.config = old
                if qr is None:
                    result = _abstained(q, state, pol.name, AbstainReason.SOURCE_CHECK_FAILED, str(why))
                    result.votes, result.agreement = summaries, agreement
                else:
                    result = _from_query(qr, pol.name, summaries, agreement, {})
            result.timings["ground"] = ground_s
            result.tokens_total = sum(v.tokens for v in votes)
        result.timings["serve"] = time.perf_counter() - t0
    if result.status is ServeStatus.ABSTAINED and (pol.fallback or fallback is not None) and fallback:
        result.fallback_answer = str(fallback(q))
        result.status = ServeStatus.UNCERTIFIED_FALLBACK  # C-82: keeps the abstention reason
    if ledger is not None:
        ledger.add(pol.name, result.votes)
    return result


def _from_query(
    qr: QueryResult,
    policy: str,
    votes: list[VoteSummary],
    agreement: Agreement | None,
    timings: dict[str, float],
) -> ServeResult:
    return ServeResult(
        qr.query_id,
        qr.status,
        qr.answer,
        qr.answer_kind,
        qr.certificate,
        qr.abstain_reason,
        qr.detail,
        list(qr.gate_decisions),
        votes,
        agreement,
        None,
        qr.kernel_version,
        qr.log_seq,
        timings,
        0,
        policy,
        list(qr.flags),
        dict(qr.overlay),
    )


def _serve_answers(
    state: CertState,
    q: QueryInput,
    votes: list[Vote],
    k: int,
    pol: Policy,
    delta: int | None,
    on_reject: str | None,
) -> ServeResult:
    """C-76 mode ``answers`` (Lemma 1): each valid vote is served alone; a strict majority of
    the k votes must certify the same answer; the lowest-index such vote gives the certificate."""
    per_vote: list[QueryResult | None] = []
    summaries: list[VoteSummary] = []
    old = _with_policy_checkers(state, pol)
    try:
        for i, v in enumerate(votes):
            got = vote_keys(v)
            if isinstance(got, str):
                summaries.append(VoteSummary(i, False, [], got, v.tokens, v.seconds))
                per_vote.append(None)
                continue
            summaries.append(VoteSummary(i, True, got[0], None, v.tokens, v.seconds))
            facts = [(f.literal, f.evidence) for f in got[1]]
            per_vote.append(
                run_query(
                    state,
                    q.target,
                    facts=facts,
                    query_id=f"{q.query_id}#v{i}",
                    answer_space=q.answer_space,
                    delta=delta,
                    on_reject=on_reject,
                )
            )
    finally:
        state.config = old
    if all(r is None for r in per_vote):
        res = _abstained(q, state, pol.name, AbstainReason.ALL_VOTES_INVALID, f"0 of {k} votes valid")
        res.votes = summaries
        return res
    answers: dict[str, list[int]] = {}
    for i, r in enumerate(per_vote):
        if r is not None and r.status in (ServeStatus.CERTIFIED, ServeStatus.CACHED) and r.answer is not None:
            answers.setdefault(r.answer, []).append(i)
    win = [(a, ix) for a, ix in answers.items() if 2 * len(ix) > k]
    if not win:
        detail = "no answer certified by a strict majority: " + (
            ", ".join(f"{a}: {len(ix)}" for a, ix in sorted(answers.items())) or "none certified"
        )
        res = _abstained(q, state, pol.name, AbstainReason.NO_AGREEMENT, detail)
        res.votes = summaries
        return res
    _, idx = win[0]
    chosen = per_vote[idx[0]]
    assert chosen is not None
    res = _from_query(chosen, pol.name, summaries, Agreement([], [], idx), {})
    res.query_id = q.query_id
    return res


@dataclass
class RawResult:
    """The raw solver's answer: no gate, no agreement, no certificate (C-85 ``raw``)."""

    query_id: str
    answer: str | None
    accepted_writes: list[str]
    detail: str = ""


def raw_answer(state: CertState, q: QueryInput, grounder: Grounder, vote: int = 0) -> RawResult:
    """Every proposed fact of one vote goes straight into the executor (the "raw solver")."""
    try:
        v = grounder.ground(q, state.interface, vote)
    except Exception as exc:
        return RawResult(q.query_id, None, [], f"grounder error: {type(exc).__name__}: {exc}")
    if not v.valid or v.facts is None:
        return RawResult(q.query_id, None, [], v.error or "invalid vote")
    overlay: list[Source] = []
    base = 1_000_000_000
    for i, f in enumerate(v.facts):
        unit = parse_proposal(f.literal)
        if isinstance(unit, GateDecision):
            continue  # not even a unit: the executor cannot take it
        overlay.append(Source(base + i, unit, "query"))
    try:
        closure = evaluate(state.kernel_sources(), overlay, limits=state.limits)
    except ComputationCap as exc:
        return RawResult(q.query_id, None, [s.unit.head.text() for s in overlay], f"computation cap: {exc}")
    lit = parse_literal(q.target)
    if closure.contains(lit):
        answer = "true" if q.answer_space == "tfu" else "yes"
    elif q.answer_space == "tfu" and closure.contains(lit.complement()):
        answer = "false"
    else:
        answer = "unknown" if q.answer_space == "tfu" else "no"
    return RawResult(q.query_id, answer, [s.unit.head.text() for s in overlay])


def verbalise(result: ServeResult | QueryResult) -> str:
    """C-84: a deterministic sentence over the certificate; an abstention says why."""
    if result.answer is None:
        reason = None if result.abstain_reason is None else result.abstain_reason.value
        head = "Uncertified" if result.status is ServeStatus.UNCERTIFIED_FALLBACK else "Abstained"
        return f"{head}: {reason}" + (f" ({result.detail})" if result.detail else "")
    cert = result.certificate or {}
    word = {"yes": "Yes", "no": "No", "true": "True", "false": "False", "unknown": "Unknown"}.get(
        result.answer, result.answer
    )
    if cert.get("kind") == "closure":
        return f"{word}: {cert.get('target', '')} is not derivable from the kernel [closed world]"
    steps = []
    for node in cert.get("nodes", []):
        edge = node.get("edge")
        if edge:
            steps.append(f"{node['fact']} [{edge.get('rule') or edge.get('fn', '')}]")
    return f"{word}: " + "; ".join(steps) if steps else f"{word}: {cert.get('conclusion', '')}"


__all__ = ["CostLedger", "RawResult", "ServeResult", "raw_answer", "serve", "verbalise"]
