"""Kernel: the deletion scan, Ess and order sensitivity (certify.md §8, C-45 … C-49).

``kernel_scan(S)`` walks S in the canonical order ≺ — sort key (order_rank, key), order ranks
being lists of ints and strings with ints before strings — and removes every unit derivable
from the rest *at that moment* (the oracle of :mod:`cotaudit.certify.oracle`). Every removal is
justified by a found derivation, so Cn(A ∪ R) = Cn(S) whatever k is; a bound k only makes the
scan find less. ``essential(S)`` tests each unit against S \\ {s} independently. Under
``negation: naf`` the Skolem test is unsound and a unit is redundant iff the stratified model
of Γ \\ {s} equals that of Γ (flag ``naf_model_equality``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from cotaudit.certify.closure import Source
from cotaudit.certify.engine import EvalLimits, evaluate
from cotaudit.certify.errors import ComputationCap
from cotaudit.certify.oracle import Answer, Check, Gamma, Ranks, compute_ranks, derivable
from cotaudit.certify.syntax import Fact, Literal, Rule, Unit
from cotaudit.limits import checkpoint

OrderRank = Sequence[int | str]


def order_key(rank: OrderRank, unit: Unit) -> tuple[tuple[tuple[int, Any], ...], str]:
    """(order_rank with ints before strings, key): the sort key of ≺ (C-45)."""
    parts = tuple((0, x) if isinstance(x, int) else (1, str(x)) for x in rank)
    return (parts, unit.key)


@dataclass(frozen=True, slots=True)
class Justification:
    """Why a J unit was removed: the goal derived, the temporaries and the oracle's method."""

    unit_id: int
    goal: Literal
    temporaries: tuple[Literal, ...]
    method: str


@dataclass
class KernelResult:
    """A = kernel facts, R = kernel rules, J = redundant units in removal order (unit ids)."""

    A: list[int]
    R: list[int]
    J: list[int]
    justifications: dict[int, Justification] = field(default_factory=dict)
    capped: list[int] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def K(self) -> list[int]:
        return sorted(self.A + self.R)


def _sorted(units: Sequence[Source], order: Mapping[int, OrderRank] | None) -> list[Source]:
    return sorted(units, key=lambda s: order_key((order or {}).get(s.unit_id, [s.unit_id]), s.unit))


def _until(limits: EvalLimits, deadline: float) -> EvalLimits | None:
    """``limits`` with the time left before ``deadline`` (``None`` once it has passed)."""
    left = deadline - time.monotonic()
    return replace(limits, timeout_s=left) if left > 0 else None


def _model(units: Sequence[Source], cap: int, limits: EvalLimits | None = None) -> frozenset[Literal] | None:
    try:
        closure = evaluate(list(units), limits=replace(limits or EvalLimits(), max_facts=cap + len(units)))
    except ComputationCap:
        return None
    return frozenset(closure.store.literal(f) for f in range(len(closure)))


def kernel_scan(
    units: Sequence[Source],
    *,
    order: Mapping[int, OrderRank] | None = None,
    k: int | None = None,
    cap: int = 100_000,
    naf: bool = False,
    limits: EvalLimits | None = None,
) -> KernelResult:
    """The deletion scan (C-46). ``order`` maps unit id → order_rank (default [unit id]).

    ``limits`` (default C-25's) bound every evaluation of the scan, and the scan as a whole gets
    ``limits.timeout_s``: a unit whose check meets the deadline is CAPPED — retained, which
    keeps Cn(K) = Cn(S) — and so is every unit after it, unchecked."""
    start = time.perf_counter()
    lim = limits or EvalLimits()
    deadline = time.monotonic() + lim.timeout_s
    ordered = _sorted(units, order)
    gamma = Gamma(ordered)
    J: list[int] = []
    just: dict[int, Justification] = {}
    capped: list[int] = []
    flags: list[str] = []
    if naf:
        flags.append("naf_model_equality")
        reference = _model(ordered, cap, _until(lim, deadline))
        for s in ordered:
            checkpoint()
            rest = [x for x in gamma.sources(s.unit_id)]
            left = _until(lim, deadline)
            model = _model(rest, cap, left) if reference is not None and left is not None else None
            if model is None:
                capped.append(s.unit_id)
            elif model == reference:
                gamma.remove(s.unit_id)
                J.append(s.unit_id)
                just[s.unit_id] = Justification(s.unit_id, s.unit.head, (), "model-equality")
    else:
        ranks: Ranks | None = compute_ranks(ordered, cap, _until(lim, deadline)) if k is None else None
        for s in ordered:
            checkpoint()
            left = _until(lim, deadline)
            if left is None:
                capped.append(s.unit_id)
                continue
            check = derivable(
                s.unit_id, gamma, k=k, cap=cap, ranks=ranks, slice_s=min(10.0, left.timeout_s), limits=left
            )
            if check.answer is Answer.YES:
                gamma.remove(s.unit_id)
                J.append(s.unit_id)
                just[s.unit_id] = Justification(s.unit_id, check.goal, check.temporaries, check.method)
            elif check.answer is Answer.CAPPED:
                capped.append(s.unit_id)
    A = sorted(uid for uid, u in gamma.units.items() if isinstance(u, Fact))
    R = sorted(uid for uid, u in gamma.units.items() if isinstance(u, Rule))
    return KernelResult(A, R, J, just, capped, flags, round(time.perf_counter() - start, 6))


def essential(
    units: Sequence[Source], *, k: int | None = None, cap: int = 100_000, naf: bool = False
) -> tuple[list[int], list[int]]:
    """Ess(S) = {s : s ∉ Cn_k(S \\ {s})} (C-49), and the units whose check was CAPPED."""
    gamma = Gamma(list(units))
    ess: list[int] = []
    capped: list[int] = []
    if naf:
        reference = _model(units, cap)
        for s in units:
            checkpoint()
            model = _model(gamma.sources(s.unit_id), cap) if reference is not None else None
            if model is None:
                capped.append(s.unit_id)
            elif model != reference:
                ess.append(s.unit_id)
        return sorted(ess), sorted(capped)
    ranks = compute_ranks(list(units), cap) if k is None else None
    for s in units:
        checkpoint()
        check: Check = derivable(s.unit_id, gamma, k=k, cap=cap, ranks=ranks)
        if check.answer is Answer.NO:
            ess.append(s.unit_id)
        elif check.answer is Answer.CAPPED:
            capped.append(s.unit_id)
            ess.append(s.unit_id)  # not shown derivable: counted essential (conservative)
    return sorted(ess), sorted(capped)


@dataclass(frozen=True)
class OrderReport:
    """|A Δ Ess| and its members (Algorithm 4 line 6)."""

    ess: list[int]
    delta: list[int]


def order_sensitivity(result: KernelResult, ess: Sequence[int]) -> OrderReport:
    kernel = set(result.K)
    e = set(ess)
    return OrderReport(sorted(e), sorted(kernel ^ e))
