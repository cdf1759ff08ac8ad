"""Kernel: the deletion scan, Ess and order sensitivity (certify.md §8, C-45 … C-49).

``kernel_scan(S)`` walks S in the canonical order ≺ — sort key (order_rank, key), order ranks
being lists of ints and strings with ints before strings — and removes every unit derivable
from the rest *at that moment* (the oracle of :mod:`cotaudit.certify.kernel.oracle`). Every removal is
justified by a found derivation, so Cn(A ∪ R) = Cn(S) whatever k is; a bound k only makes the
scan find less. ``essential(S)`` tests each unit against S \\ {s} independently. Under
``negation: naf`` the Skolem test is unsound and a unit is redundant iff the stratified model
of Γ \\ {s} equals that of Γ (flag ``naf_model_equality``).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from cotaudit.certify.core.errors import ComputationCap, ResourceCap
from cotaudit.certify.engine.evaluation import evaluate
from cotaudit.certify.engine.facts import Source
from cotaudit.certify.engine.limits import EvalLimits
from cotaudit.certify.kernel.oracle import (
    CHECK_STEPS_PER_CAP,
    Answer,
    Check,
    Gamma,
    Ranks,
    compute_ranks,
    derivable,
)
from cotaudit.certify.lang.syntax import Fact, Literal, Rule, Unit
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


def _until(limits: EvalLimits, deadline: float) -> EvalLimits:
    """``limits`` with the time left before the scan's ``deadline``; :class:`ResourceCap` once
    it has passed (the scan is then abstained as a whole, never finished differently)."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise ResourceCap(f"kernel scan exceeded its time bound of {limits.timeout_s} s", {}, "time")
    return replace(limits, timeout_s=left)


def _model(
    units: Sequence[Source], cap: int, limits: EvalLimits, max_steps: int | None = None
) -> tuple[frozenset[Literal], int] | None:
    """The model of ``units`` and the join steps it took; ``None`` past a work bound (facts,
    ``max_steps``). Time and memory raise :class:`ResourceCap`."""
    try:
        bound = replace(limits, max_facts=cap + len(units), max_join_steps=max_steps)
        closure = evaluate(list(units), limits=bound)
    except ResourceCap:
        raise
    except ComputationCap:
        return None
    return frozenset(closure.store.literal(f) for f in range(len(closure))), int(closure.stats["join_steps"])


def kernel_scan(
    units: Sequence[Source],
    *,
    order: Mapping[int, OrderRank] | None = None,
    k: int | None = None,
    cap: int = 100_000,
    naf: bool = False,
    limits: EvalLimits | None = None,
) -> KernelResult:
    """The deletion scan (C-46); see :func:`_kernel_scan`."""
    lim = limits or EvalLimits()
    with _as_a_whole("kernel scan", lim):
        return _kernel_scan(units, order=order, k=k, cap=cap, naf=naf, limits=lim)


@contextlib.contextmanager
def _as_a_whole(what: str, lim: EvalLimits) -> Iterator[None]:
    """A :class:`ResourceCap` from inside, restated for the whole computation with the configured
    bound: an inner evaluation's own timeout is the time *left*, a figure no report may carry."""
    try:
        yield
    except ResourceCap as exc:
        if exc.bound == "time":
            raise ResourceCap(f"{what} exceeded its time bound of {lim.timeout_s:g} s", {}, "time") from None
        raise ResourceCap(f"{what}: {exc.what}", {}, exc.bound) from None


def _kernel_scan(
    units: Sequence[Source],
    *,
    order: Mapping[int, OrderRank] | None = None,
    k: int | None = None,
    cap: int = 100_000,
    naf: bool = False,
    limits: EvalLimits | None = None,
) -> KernelResult:
    """The deletion scan (C-46). ``order`` maps unit id → order_rank (default [unit id]).

    Which units go to J depends only on S, the order, ``k`` and ``cap``: a check that meets a
    work bound (``cap``, the per-check join steps) is CAPPED — the unit is retained, which keeps
    Cn(K) = Cn(S) — on every machine alike (C-26). ``limits`` (default C-25's) bound the time and
    memory of the scan *as a whole* (``limits.timeout_s`` for all of it): past them the scan
    raises :class:`ResourceCap` and its caller abstains from the whole operation — a slower
    machine never gets a different kernel."""
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
        ref = _model(ordered, cap, _until(lim, deadline))
        # each check may take twice the reference's join steps (and at least the oracle's bound)
        steps = None if ref is None else max(CHECK_STEPS_PER_CAP * cap, 2 * ref[1])
        for s in ordered:
            checkpoint()
            rest = gamma.sources(s.unit_id)
            got = _model(rest, cap, _until(lim, deadline), steps) if ref is not None else None
            if got is None:
                capped.append(s.unit_id)
            elif ref is not None and got[0] == ref[0]:
                gamma.remove(s.unit_id)
                J.append(s.unit_id)
                just[s.unit_id] = Justification(s.unit_id, s.unit.head, (), "model-equality")
    else:
        ranks: Ranks | None = compute_ranks(ordered, cap, _until(lim, deadline)) if k is None else None
        for s in ordered:
            checkpoint()
            check = derivable(
                s.unit_id, gamma, k=k, cap=cap, ranks=ranks, limits=_until(lim, deadline), deadline=deadline
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
    units: Sequence[Source],
    *,
    k: int | None = None,
    cap: int = 100_000,
    naf: bool = False,
    limits: EvalLimits | None = None,
) -> tuple[list[int], list[int]]:
    """Ess(S) (C-49); see :func:`_essential`."""
    lim = limits or EvalLimits()
    with _as_a_whole("essential-set computation", lim):
        return _essential(units, k=k, cap=cap, naf=naf, limits=lim)


def _essential(
    units: Sequence[Source],
    *,
    k: int | None = None,
    cap: int = 100_000,
    naf: bool = False,
    limits: EvalLimits | None = None,
) -> tuple[list[int], list[int]]:
    """Ess(S) = {s : s ∉ Cn_k(S \\ {s})} (C-49), and the units whose check was CAPPED.

    Bounded like :func:`kernel_scan`: work bounds decide CAPPED, time and memory (``limits``,
    for the whole computation) raise :class:`ResourceCap`."""
    lim = limits or EvalLimits()
    deadline = time.monotonic() + lim.timeout_s
    gamma = Gamma(list(units))
    ess: list[int] = []
    capped: list[int] = []
    if naf:
        ref = _model(units, cap, _until(lim, deadline))
        steps = None if ref is None else max(CHECK_STEPS_PER_CAP * cap, 2 * ref[1])
        for s in units:
            checkpoint()
            got = (
                _model(gamma.sources(s.unit_id), cap, _until(lim, deadline), steps)
                if ref is not None
                else None
            )
            if got is None:
                capped.append(s.unit_id)
            elif ref is not None and got[0] != ref[0]:
                ess.append(s.unit_id)
        return sorted(ess), sorted(capped)
    ranks = compute_ranks(list(units), cap, _until(lim, deadline)) if k is None else None
    for s in units:
        checkpoint()
        check: Check = derivable(
            s.unit_id, gamma, k=k, cap=cap, ranks=ranks, limits=_until(lim, deadline), deadline=deadline
        )
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
