"""The solver core (V-11 … V-17): KB entries with tag literals, the ENT / CON / SAT checks,
per-step budgets and deterministic support minimisation.

This module is the only caller of :meth:`Z3Session.check` (a test greps for it); the Z3 calls
themselves live in :mod:`cotaudit.vericot.smt`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any

from cotaudit.vericot.smt import Z3_VERSION, RawCheck, Z3Session

__all__ = ["Z3_VERSION", "CheckRecord", "Entry", "KBSession"]


@dataclass
class Entry:
    """One assertion the session knows: a premise or a step (V-12)."""

    id: str
    kind: str  # "premise" | "step"
    source: str  # "context" | "commonsense" | "step"
    text: str
    smt: str  # canonical assertion text
    term: Any
    tag: int
    step_index: int | None = None
    assumed: bool = False
    taint: frozenset[int] = frozenset()
    origin: str = "input"
    committed_at_step: int | None = None


@dataclass
class CheckRecord:
    """One check (V-13): kind, result, reason for ``unknown``, the raw core (entry ids), time."""

    kind: str
    result: str
    reason_unknown: str | None = None
    core: list[str] = field(default_factory=list)
    ms: float = 0.0
    premise: str | None = None
    goal: Any = None  # the pushed formula, kept for minimisation; not reported
    ids: tuple[str, ...] = ()  # the active set of the check; not reported
    z3_reason: str | None = None  # Z3's own reason_unknown; volatile, reported with timings only

    def to_dict(self, timings: bool = False) -> dict[str, Any]:
        """The reported record. ``reason_unknown`` is a stable category (smt.UNKNOWN_REASONS);
        Z3's own text varies between runs near a timeout, so it appears only with ``timings``."""
        d: dict[str, Any] = {"kind": self.kind, "result": self.result}
        if self.premise is not None:
            d["premise"] = self.premise
        if self.result == "unknown":
            d["reason_unknown"] = self.reason_unknown
            if timings:
                d["z3_reason"] = self.z3_reason
        return d


class KBSession:
    """The KB of one trace: entries, the active set, checks and budgets."""

    def __init__(self, timeout_ms: int = 2000, rlimit: int | None = None, max_core_checks: int = 64) -> None:
        self.z3 = Z3Session(timeout_ms, rlimit)
        self.timeout_ms = timeout_ms
        self.max_core_checks = max_core_checks
        self.entries: dict[str, Entry] = {}
        self.by_tag: list[Entry] = []
        self.active: list[str] = []  # KB, in commit order
        self._active_set: set[str] = set()
        self._budget_ms: float | None = None
        self.budget_exhausted = False
        self.step_ms = 0.0
        self.deadline: float | None = None  # the trace's wall budget, on the monotonic clock

    # ------------------------------------------------------------------ entries

    def add_entry(
        self, entry_id: str, kind: str, source: str, text: str, smt: str, term: Any, **kw: Any
    ) -> Entry:
        tag = self.z3.new_tag(term)
        e = Entry(entry_id, kind, source, text, smt, term, tag, **kw)
        self.entries[entry_id] = e
        self.by_tag.append(e)
        return e

    def activate(self, entry_id: str) -> None:
        if entry_id not in self._active_set:
            self._active_set.add(entry_id)
            self.active.append(entry_id)

    def is_active(self, entry_id: str) -> bool:
        return entry_id in self._active_set

    def order(self, ids: list[str] | set[str]) -> list[str]:
        """``ids`` in KB insertion (tag) order."""
        return sorted(ids, key=lambda i: self.entries[i].tag)

    # ------------------------------------------------------------------ budget

    def start_step(self, budget_ms: int) -> None:
        # V-15 is a *solver* budget: what the step's checks have spent, not wall-clock time, so
        # that waiting for a language model (formalisation, premises, judge) does not use it up.
        self._budget_ms = float(budget_ms)
        self.budget_exhausted = False
        self.step_ms = 0.0

    def end_step(self) -> None:
        self._budget_ms = None

    def out_of_time(self) -> bool:
        """Whether the trace's wall budget is spent (no deadline: never)."""
        return self.deadline is not None and time.monotonic() >= self.deadline

    def _remaining_ms(self) -> int | None:
        """What the next check may spend: the tighter of the step's solver budget and the
        trace's wall budget (``None``: neither is set)."""
        left: float | None = None
        if self._budget_ms is not None:
            left = self._budget_ms - self.step_ms
        if self.deadline is not None:
            wall = (self.deadline - time.monotonic()) * 1000.0
            left = wall if left is None else min(left, wall)
        return None if left is None else int(left)

    # ------------------------------------------------------------------ checks

    def _raw(self, ids: list[str], goal: Any | None) -> RawCheck:
        remaining = self._remaining_ms()
        if remaining is not None and remaining <= 0:
            self.budget_exhausted = True
            return RawCheck("unknown", "budget_exhausted", (), 0.0)
        timeout = self.timeout_ms if remaining is None else min(self.timeout_ms, remaining)
        raw = self.z3.check([self.entries[i].tag for i in ids], goal, timeout)
        self.step_ms += raw.ms
        if raw.reason_unknown == "timeout" and timeout < self.timeout_ms:
            # the budget, not the solver timeout, cut this check short
            self.budget_exhausted = True
            raw = replace(raw, reason_unknown="budget_exhausted")
        return raw

    def _record(
        self, kind: str, raw: RawCheck, goal: Any | None, ids: list[str], premise: str | None = None
    ) -> CheckRecord:
        core = [self.by_tag[t].id for t in raw.core]
        return CheckRecord(
            kind, raw.result, raw.reason_unknown, core, raw.ms, premise, goal, tuple(ids), raw.z3_reason
        )

    def ent(self, ids: list[str], term: Any, kind: str = "ent") -> CheckRecord:
        """ENT(Σ, φ) = check(Σ ∧ ¬φ); ``unsat`` means Σ entails φ."""
        goal = self.z3.neg(term)
        return self._record(kind, self._raw(ids, goal), goal, ids)

    def con(self, ids: list[str], term: Any, negation: Any | None = None, kind: str = "con") -> CheckRecord:
        """CON(Σ, φ) = check(Σ ∧ φ), or ENT(Σ, N) with a denial N (V-19); ``unsat`` refutes φ."""
        goal = term if negation is None else self.z3.neg(negation)
        return self._record(kind, self._raw(ids, goal), goal, ids)

    def sat(self, ids: list[str], kind: str = "sat", premise: str | None = None) -> CheckRecord:
        """SAT(Σ) = check(Σ)."""
        return self._record(kind, self._raw(ids, None), None, ids, premise)

    def _latest_restatements(self, rec: CheckRecord) -> list[str]:
        """The core with each entry replaced by the latest entry of the check that has the same
        canonical formula [ours]: a step that restates a premise is what later steps rely on."""
        latest: dict[str, str] = {}
        for i in self.order(list(rec.ids)):
            latest[self.entries[i].smt] = i
        return sorted(
            {latest.get(self.entries[i].smt, i) for i in rec.core}, key=lambda i: self.entries[i].tag
        )

    def minimize(self, rec: CheckRecord) -> tuple[list[str], bool]:
        """Deletion-minimise the unsat core of ``rec`` in KB insertion order (V-16).

        Returns the support and whether it is certainly minimal (a check that returns
        ``unknown`` keeps its entry and clears the flag; so does running out of checks).
        """
        support = self.order(self._latest_restatements(rec))
        minimal = True
        checks = 0
        if len(support) <= 1:
            return support, True  # a non-empty goal/KB check cannot be unsat on nothing (V-20 ran first)
        for entry_id in list(support):
            if entry_id not in support:
                continue
            if checks >= self.max_core_checks:
                minimal = False
                break
            trial = [i for i in support if i != entry_id]
            raw = self._raw(trial, rec.goal)
            checks += 1
            if raw.result == "unsat":
                core = {self.by_tag[t].id for t in raw.core}
                support = [i for i in trial if i in core]
            elif raw.result == "unknown":
                minimal = False
        return support, minimal
