"""Judging premises (V-27): two deterministic pre-checks no judge can override, then a judge.

``DeterministicJudge`` accepts context premises that pass the evidence check and commonsense
premises whose canonical SMT is allow-listed; ``AcceptAll`` serves ablations. An LLM judge is
supplied by the front end (``cotaudit.frontends.vericot_llm``) through the same protocol.
Judging fails closed: a premise without a verdict is rejected.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from cotaudit.vericot.schema import Context
from cotaudit.vericot.smtlib import SmtError, Vocabulary, parse_field, tokenize


@dataclass(frozen=True, slots=True)
class JudgeItem:
    """A premise as the judge sees it."""

    id: str
    text: str
    source: str
    evidence: str | None
    smt: str


@dataclass(frozen=True, slots=True)
class Verdict:
    premise_id: str
    accept: bool
    reason: str
    by: str  # "precheck" | "judge"


class Judge(Protocol):
    def judge(self, context: Context, step_text: str, items: list[JudgeItem]) -> list[Verdict]: ...


def _norm(text: str) -> str:
    t = " ".join(text.casefold().split())
    return t[:-1] if t.endswith(".") else t


def context_text(context: Context) -> str:
    """Question, documents and history joined by newlines, normalised for evidence search."""
    parts = [context.question, *(d.text for d in context.documents), *(t.content for t in context.history)]
    return _norm("\n".join(parts))


def individuals(smt: str, vocab: Vocabulary) -> list[str]:
    """0-ary constants of declared (non-builtin) sorts that ``smt`` mentions."""
    try:
        tokens = tokenize(smt)
    except SmtError:
        return []
    found: list[str] = []
    for tok in tokens:
        d = vocab.decls.get(tok)
        if d is not None and d.args == () and d.ret not in ("Bool", "Int", "Real") and tok not in found:
            found.append(tok)
    return found


def precheck(item: JudgeItem, ctx_text: str, vocab: Vocabulary, no_individuals: bool) -> Verdict | None:
    """The deterministic pre-checks; a rejecting :class:`Verdict`, or ``None`` if both pass."""
    if item.source == "context":
        quote = _norm(item.evidence if item.evidence is not None else item.text)
        if not quote or quote not in ctx_text:
            return Verdict(item.id, False, "evidence_not_found", "precheck")
    elif no_individuals:
        names = individuals(item.smt, vocab)
        if names:
            return Verdict(item.id, False, "commonsense_mentions_individual", "precheck")
    return None


def canonical_assertions(text: str) -> str | None:
    """The canonical form of an assertion field, or ``None`` if it is not one."""
    try:
        return " ".join(parse_field(text, assertions=True).asserts)
    except SmtError:
        return None


def default_allowlist() -> list[str]:
    """The shipped allowlist file (``commonsense_allowlist.txt``), canonical form."""
    text = (Path(__file__).parent / "commonsense_allowlist.txt").read_text(encoding="utf-8")
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith(";")]
    return [c for c in (canonical_assertions(ln) for ln in lines) if c is not None]


class DeterministicJudge:
    """Offline judge: context premises that passed the pre-check; allow-listed commonsense
    (the shipped file plus ``extra``)."""

    name = "deterministic"

    def __init__(self, extra: Iterable[str] = (), *, use_default: bool = True) -> None:
        entries = [*(default_allowlist() if use_default else []), *extra]
        self.allowlist = frozenset(c for c in (canonical_assertions(e) for e in entries) if c is not None)

    def judge(self, context: Context, step_text: str, items: list[JudgeItem]) -> list[Verdict]:
        out = []
        for it in items:
            if it.source == "context":
                out.append(Verdict(it.id, True, "grounded_in_context", "judge"))
            elif it.smt in self.allowlist:
                out.append(Verdict(it.id, True, "acceptable_commonsense", "judge"))
            else:
                out.append(Verdict(it.id, False, "commonsense_not_allowlisted", "judge"))
        return out


class AcceptAll:
    """Accept every premise (ablations)."""

    name = "accept_all"

    def judge(self, context: Context, step_text: str, items: list[JudgeItem]) -> list[Verdict]:
        return [Verdict(it.id, True, "accept_all", "judge") for it in items]


def run_judge(judge: Judge, context: Context, step_text: str, items: list[JudgeItem]) -> dict[str, Verdict]:
    """Verdicts by premise id; a missing or duplicated id, or a crash, is a rejection."""
    if not items:
        return {}
    try:
        verdicts = judge.judge(context, step_text, items)
    except Exception as exc:  # fail closed on any judge failure
        reason = re.sub(r"\s+", " ", f"judge failed: {type(exc).__name__}")
        return {it.id: Verdict(it.id, False, reason, "judge") for it in items}
    counts: dict[str, int] = {}
    for v in verdicts:
        counts[v.premise_id] = counts.get(v.premise_id, 0) + 1
    out: dict[str, Verdict] = {}
    for it in items:
        mine = [v for v in verdicts if v.premise_id == it.id]
        if counts.get(it.id, 0) != 1:
            out[it.id] = Verdict(it.id, False, "no_verdict" if not mine else "duplicate_verdict", "judge")
        else:
            out[it.id] = mine[0]
    return out
