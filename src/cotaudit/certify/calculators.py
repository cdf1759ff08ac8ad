"""Registered pure functions of computed rules (C-8): Decimal arithmetic, no I/O.

A calc rule ``bmi(C, V) :- weight(C, W), height(C, H) {V = bmi@1(W, H)}.`` fires when its body
matches; ``V`` is the value of the registered function ``bmi`` version ``1`` on the input
constants. A domain error (a non-number input, division by zero) derives nothing. The
independent checker recomputes the function, so every function here must be deterministic.

Part 1 ships ``bmi@1``; the MedCalc calculators of §13.3 register themselves with
:func:`register` the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Context, Decimal, InvalidOperation

from cotaudit.certify.syntax import Const, canonical_number

CONTEXT = Context(prec=28, rounding=ROUND_HALF_EVEN)
QUANTUM = Decimal("0.00001")


class CalcDomainError(ValueError):
    """The inputs are outside the function's domain: nothing is derived."""


@dataclass(frozen=True, slots=True)
class CalcOutcome:
    """The output constant and the named intermediate values (canonical decimal strings)."""

    output: Const
    intermediates: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Calculator:
    fn: str
    version: str
    arity: int
    compute: Callable[[Sequence[Decimal]], CalcOutcome]


_REGISTRY: dict[tuple[str, str], Calculator] = {}


def register(calc: Calculator) -> Calculator:
    """Register ``calc`` (replacing an earlier registration of the same fn@version)."""
    _REGISTRY[(calc.fn, calc.version)] = calc
    return calc


def lookup(fn: str, version: str) -> Calculator | None:
    return _REGISTRY.get((fn, version))


def run(fn: str, version: str, inputs: Sequence[Const]) -> CalcOutcome:
    """Apply fn@version to constant inputs; :class:`CalcDomainError` on any domain problem."""
    calc = lookup(fn, version)
    if calc is None:
        raise CalcDomainError(f"unknown calculator {fn}@{version}")
    if len(inputs) != calc.arity:
        raise CalcDomainError(f"{fn}@{version} takes {calc.arity} inputs, got {len(inputs)}")
    values: list[Decimal] = []
    for c in inputs:
        if c.kind != "num":
            raise CalcDomainError(f"{fn}@{version}: input {c.text()} is not a number")
        values.append(Decimal(c.value))
    try:
        return calc.compute(values)
    except CalcDomainError as exc:
        raise CalcDomainError(f"{fn}@{version}: {exc}") from None
    except (InvalidOperation, ZeroDivisionError, ArithmeticError) as exc:
        raise CalcDomainError(f"{fn}@{version}: {type(exc).__name__}") from None


def decimal_const(value: Decimal) -> Const:
    """A computed value quantised to 5 decimals (half-even) as a canonical number constant."""
    return Const("num", canonical_number(str(value.quantize(QUANTUM, context=CONTEXT))))


def _bmi(values: Sequence[Decimal]) -> CalcOutcome:
    weight, height_cm = values
    if height_cm <= 0 or weight <= 0:
        raise CalcDomainError("weight and height must be positive")
    metres = CONTEXT.divide(height_cm, Decimal(100))
    bmi = CONTEXT.divide(weight, CONTEXT.multiply(metres, metres))
    return CalcOutcome(decimal_const(bmi), {"height_m": canonical_number(str(metres))})


register(Calculator("bmi", "1", 2, _bmi))
