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

from cotaudit.certify.lang.syntax import Const, canonical_number
from cotaudit.errors import CotauditError

CONTEXT = Context(prec=28, rounding=ROUND_HALF_EVEN)
QUANTUM = Decimal("0.00001")


class CalcDomainError(CotauditError, ValueError):
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


# ---------------------------------------------------------------- the MedCalc calculators (C-104)
def _q(value: Decimal) -> str:
    return canonical_number(str(value.quantize(QUANTUM, context=CONTEXT)))


def _positive(*values: Decimal) -> None:
    if any(v <= 0 for v in values):
        raise CalcDomainError("inputs must be positive")


def _map(values: Sequence[Decimal]) -> CalcOutcome:
    """MedCalc id 5: 2/3·DBP + 1/3·SBP."""
    sbp, dbp = values
    _positive(sbp, dbp)
    two_thirds = CONTEXT.divide(Decimal(2), Decimal(3))
    one_third = CONTEXT.divide(Decimal(1), Decimal(3))
    out = CONTEXT.add(CONTEXT.multiply(two_thirds, dbp), CONTEXT.multiply(one_third, sbp))
    return CalcOutcome(decimal_const(out), {})


def _crcl(values: Sequence[Decimal]) -> CalcOutcome:
    """MedCalc id 2 (Cockcroft-Gault with the adjusted-weight rule of the Verified reference)."""
    age, female, weight, height, scr = values
    _positive(weight, height, scr)
    if female not in (0, 1) or age < 0:
        raise CalcDomainError("female must be 0 or 1 and age ≥ 0")
    metres = CONTEXT.divide(height, Decimal(100))
    bmi = CONTEXT.divide(weight, CONTEXT.multiply(metres, metres))
    base = Decimal("45.5") if female == 1 else Decimal(50)
    inches_over = CONTEXT.subtract(CONTEXT.divide(height, Decimal("2.54")), Decimal(60))
    ibw = CONTEXT.add(base, CONTEXT.multiply(Decimal("2.3"), inches_over))
    if bmi < Decimal("18.5"):
        klass, adjusted = "underweight", weight
    elif bmi <= Decimal("24.9"):
        klass, adjusted = "normal", min(ibw, weight)
    else:
        klass = "overweight"
        adjusted = CONTEXT.add(ibw, CONTEXT.multiply(Decimal("0.4"), CONTEXT.subtract(weight, ibw)))
    num = CONTEXT.multiply(CONTEXT.subtract(Decimal(140), age), adjusted)
    if female == 1:
        num = CONTEXT.multiply(num, Decimal("0.85"))
    out = CONTEXT.divide(num, CONTEXT.multiply(Decimal(72), scr))
    inter = {"bmi": _q(bmi), "weight_class": klass, "ibw": _q(ibw), "adjusted_weight": _q(adjusted)}
    return CalcOutcome(decimal_const(out), inter)


def _chads(values: Sequence[Decimal]) -> CalcOutcome:
    """MedCalc id 4: CHA₂DS₂-VASc (booleans are 0/1)."""
    age, female, chf, htn, stroke, tia, te, vasc, dm = values
    if any(v not in (0, 1) for v in values[1:]) or age < 0:
        raise CalcDomainError("criteria must be 0 or 1 and age ≥ 0")
    points = {
        "age": 2 if age >= 75 else 1 if age >= 65 else 0,
        "sex": int(female),
        "chf": int(chf),
        "hypertension": int(htn),
        "stroke_tia_thromboembolism": 2 if (stroke or tia or te) else 0,
        "vascular_disease": int(vasc),
        "diabetes": int(dm),
    }
    total = sum(points.values())
    return CalcOutcome(Const("num", str(total)), {k: str(v) for k, v in sorted(points.items())})


def _ca_corr(values: Sequence[Decimal]) -> CalcOutcome:
    """MedCalc id 7: Ca + 0.8·(4.0 − albumin), mg/dL and g/dL."""
    ca, alb = values
    _positive(ca, alb)
    out = CONTEXT.add(ca, CONTEXT.multiply(Decimal("0.8"), CONTEXT.subtract(Decimal("4.0"), alb)))
    return CalcOutcome(decimal_const(out), {})


register(Calculator("map", "1", 2, _map))
register(Calculator("crcl", "1", 5, _crcl))
register(Calculator("chads_vasc", "1", 9, _chads))
register(Calculator("ca_corr", "1", 2, _ca_corr))
