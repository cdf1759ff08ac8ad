"""Baselines and agreement statistics for the evaluation harness.

- :class:`LLMMethod`: the te harness's M3 / M4 (TE-55), a language model judging each trace
  through :mod:`cotaudit.frontends.te_verify`, three votes at temperature 0, majority;
- :func:`trivial`: the Type-6 paper's model-free Trivial baseline — statement count,
  connective density, adjacent-statement repetition rate and type-token ratio, a 0–5 scalar,
  and a hard fail on too-short or connective-free traces;
- :func:`kappa` (Cohen's κ on hard-fail flags) and :func:`spearman` (ρ on 0–5 scalars, with
  SciPy) and :func:`agreement`, their pairwise table over any set of methods.
"""

from __future__ import annotations

import importlib.util
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations, pairwise
from typing import TYPE_CHECKING, Any, Literal

from cotaudit import stats
from cotaudit.eval.model import EvalItem, Method, Outcome, Results

if TYPE_CHECKING:
    from cotaudit.llm.client import LLMClient

LLM_ABSTAIN = "LLM_ABSTAIN"  # the code of an outcome whose votes were all invalid or failed
LLM_VOTES = 3  # TE-55: three requests at temperature 0, majority vote


class LLMMethod:
    """M3 / M4: a language model verifies the trace (:mod:`cotaudit.frontends.te_verify`).

    Each outcome is the majority of :data:`LLM_VOTES` validated verdicts. A judgement with no
    valid vote is not flagged and carries the code ``LLM_ABSTAIN`` (its reasons are in the
    report's ``llm`` section), so abstentions are counted, never silently read as "clean".
    Without a client the method is *not configured* and never runs.
    """

    deterministic = False

    def __init__(
        self,
        name: str,
        description: str,
        client: LLMClient | None = None,
        reason: str | None = None,
        votes: int = LLM_VOTES,
    ) -> None:
        self.name = name
        self.description = description
        self.client = client
        self.reason = reason
        self.votes = votes
        self.abstentions: dict[tuple[str, int], str] = {}

    def unavailable(self) -> str | None:
        if self.client is None:
            return f"not configured: {self.reason or 'no language model (see docs/llm.md)'}"
        if importlib.util.find_spec("pydantic") is None:
            return "not available: pydantic is missing (pip install 'cotaudit[llm]')"
        return None

    def run(self, item: EvalItem, run: int) -> Outcome:
        if self.client is None:  # pragma: no cover - unavailable() guards it
            raise RuntimeError(self.unavailable())
        from cotaudit.frontends.te_verify import judge

        start = time.perf_counter()
        kind: Literal["M3", "M4"] = "M3" if self.name == "M3" else "M4"
        result = judge(
            self.client, kind, item.text, run=run, votes=self.votes, tag=f"{self.name} {item.id} r{run}"
        )
        seconds = time.perf_counter() - start
        if result.status == "abstain":
            self.abstentions[(item.id, run)] = result.reason or "no valid vote"
            return Outcome(self.name, item.id, run, False, ((None, LLM_ABSTAIN),), seconds)
        errors = ((result.line, f"LLM_{self.name}"),) if result.flagged else ()
        return Outcome(self.name, item.id, run, result.flagged, errors, seconds)


def llm_summary(results: Results, chosen: Sequence[Method]) -> dict[str, Any]:
    """Per LLM method: votes, abstentions (from the outcomes, so resumed logs count too) and
    the reasons this process saw; plus the client's configuration and call log."""
    out: dict[str, Any] = {}
    client: LLMClient | None = None
    for m in chosen:
        if not isinstance(m, LLMMethod) or m.unavailable() is not None:
            continue
        client = m.client
        outcomes = [o for (name, _, _), o in results.outcomes.items() if name == m.name]
        abstained = [o for o in outcomes if LLM_ABSTAIN in o.codes()]
        out[m.name] = {
            "votes": m.votes,
            "outcomes": len(outcomes),
            "abstained": len(abstained),
            "abstained_run0": sum(1 for o in abstained if o.run == 0),
            "abstentions": [
                {"item": i, "run": r, "reason": why} for (i, r), why in sorted(m.abstentions.items())[:20]
            ],
        }
    if client is not None:
        out["client"] = client.describe()
        out["calls"] = client.log.summary()
    return out


def llm_markdown(report: dict[str, Any]) -> str:
    """A short Markdown section on the LLM baselines (configuration, abstentions, calls)."""
    llm = report.get("llm") or {}
    if not llm:
        return ""
    lines = ["## LLM baselines (M3, M4)", ""]
    client = llm.get("client", {})
    if client:
        lines.append(
            f"Model `{client.get('model')}`, cache mode `{client.get('mode')}`, JSON mode "
            f"`{client.get('json_mode')}`; {LLM_VOTES} votes at temperature 0 per judgement, majority."
        )
        lines.append("")
    for name in ("M3", "M4"):
        if name in llm:
            m = llm[name]
            lines.append(
                f"- {name}: {m['abstained']} of {m['outcomes']} judgements abstained (no valid vote)."
            )
    calls = llm.get("calls")
    if calls:
        lines.append(
            f"- calls: {calls['calls']} ({calls['cache_hits']} from the cache), {calls['reasks']} re-asks, "
            f"{calls['invalid_answers']} answers invalid after re-asks, {calls['errors']} failed requests."
        )
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- Trivial

# Discourse connectives that mark an inferential or contrastive step ("and" is too common to tell).
_CONNECTIVES = frozenset(
    [
        "so",
        "therefore",
        "thus",
        "hence",
        "because",
        "since",
        "if",
        "then",
        "but",
        "however",
        "although",
        "though",
        "unless",
        "consequently",
        "otherwise",
        "whereas",
        "implies",
        "means",
        "assume",
        "suppose",
        "wait",
    ]
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[a-z0-9']+")
MIN_STATEMENTS = 3
REPEAT_JACCARD = 0.8


@dataclass(frozen=True, slots=True)
class TrivialResult:
    """The four signals, the 0–5 scalar and the hard-fail flag."""

    statements: int
    connective_density: float
    repetition_rate: float
    type_token_ratio: float
    score: float
    hard_fail: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "statements": self.statements,
            "connective_density": round(self.connective_density, 6),
            "repetition_rate": round(self.repetition_rate, 6),
            "type_token_ratio": round(self.type_token_ratio, 6),
            "score": round(self.score, 6),
            "hard_fail": self.hard_fail,
        }


def statements(text: str) -> list[str]:
    """Sentences and lines of a raw trace, blank ones dropped."""
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


def trivial(text: str) -> TrivialResult:
    """The Trivial baseline on a raw trace (deterministic; no model).

    connective density = share of statements with a connective; repetition rate = share of
    adjacent statement pairs whose word sets overlap by Jaccard >= 0.8; type-token ratio over
    all words. Score = 5 x the mean of min(1, statements / 20), min(1, density / 0.5),
    1 - repetition and the type-token ratio. Hard fail: fewer than 3 statements, or none with
    a connective.
    """
    sents = statements(text)
    words = [_WORD.findall(s.lower()) for s in sents]
    n = len(sents)
    density = sum(1 for w in words if _CONNECTIVES.intersection(w)) / n if n else 0.0
    pairs = list(pairwise(words))
    repeated = sum(1 for a, b in pairs if _jaccard(set(a), set(b)) >= REPEAT_JACCARD)
    repetition = repeated / len(pairs) if pairs else 0.0
    tokens = [t for w in words for t in w]
    ttr = len(set(tokens)) / len(tokens) if tokens else 0.0
    parts = (min(1.0, n / 20), min(1.0, density / 0.5), 1.0 - repetition, ttr)
    score = 5.0 * sum(parts) / len(parts)
    return TrivialResult(n, density, repetition, ttr, score, n < MIN_STATEMENTS or density == 0.0)


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


# --------------------------------------------------------------------------- agreement


def kappa(a: Sequence[bool | None], b: Sequence[bool | None]) -> float | None:
    """Cohen's κ on the items both methods decided (``None`` = abstained); ``None`` if no item."""
    pairs = [(x, y) for x, y in zip(a, b, strict=True) if x is not None and y is not None]
    if not pairs:
        return None
    return stats.cohen_kappa([x for x, _ in pairs], [y for _, y in pairs])


def spearman(a: Sequence[float | None], b: Sequence[float | None]) -> float | None:
    """Spearman's ρ on the items both methods scored; ``None`` with < 3 items or a constant side."""
    pairs = [(x, y) for x, y in zip(a, b, strict=True) if x is not None and y is not None]
    if len(pairs) < 3 or len({x for x, _ in pairs}) < 2 or len({y for _, y in pairs}) < 2:
        return None
    from scipy.stats import spearmanr

    rho = float(spearmanr([x for x, _ in pairs], [y for _, y in pairs]).statistic)
    return round(rho, 6)


@dataclass(frozen=True, slots=True)
class MethodScores:
    """One method's per-item hard-fail flags and 0–5 scalars (``None`` where it abstained)."""

    hard_fail: Sequence[bool | None]
    score: Sequence[float | None]


def agreement(methods: Mapping[str, MethodScores]) -> list[dict[str, Any]]:
    """κ on hard-fail and ρ on scalars for every pair of methods, with the items each used."""
    rows = []
    for (na, a), (nb, b) in combinations(methods.items(), 2):
        both = sum(
            1 for x, y in zip(a.hard_fail, b.hard_fail, strict=True) if x is not None and y is not None
        )
        k = kappa(a.hard_fail, b.hard_fail)
        rows.append(
            {
                "pair": f"{na}-{nb}",
                "kappa_hard_fail": None if k is None else round(k, 6) + 0.0,  # no -0.0
                "spearman_score": spearman(a.score, b.score),
                "items": both,
            }
        )
    return rows
