"""Calculators, MedCalc style (certify.md §13.3, C-102 … C-105).

Votes are attribute maps in MedCalc's "Relevant Entities" style (``{"weight": [154, "lb"],
"sex": "Female", "chf": true}``). :func:`normalise` turns one into facts ``attr(Case, Value)``
(convert to the canonical unit, round half-even to ``places``; booleans default to false), so
agreement compares normalised maps. The five calculators are ``calc`` rules over registered
functions (:mod:`cotaudit.certify.lang.calculators`); their intermediates go into the certificate.

Unit conversions are explicit Decimal factors (the C-102 list), not pint: the list is closed and
exact decimal factors keep results reproducible to the last digit.

Source-checked serving (C-103) — evidence quotes into a clinical note, the ``medcalc-span/1``
checker and the 25 hand-written notes of C-105 — is :mod:`.medcalc_evidence`; serving over
attribute maps and notes (:func:`~.medcalc_serving.calc_state`, which configures that checker
for every attribute predicate) is :mod:`.medcalc_serving`.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from typing import Any

from cotaudit.certify.interface.load import interface_from_dict
from cotaudit.certify.interface.model import Interface
from cotaudit.errors import CotauditError


@dataclass(frozen=True)
class Attr:
    name: str
    kind: str  # number | bool | sex
    unit: str | None
    places: int
    lo: Decimal
    hi: Decimal


ATTRS: dict[str, Attr] = {
    a.name: a
    for a in (
        Attr("age", "number", "years", 0, Decimal(0), Decimal(130)),
        Attr("female", "sex", None, 0, Decimal(0), Decimal(1)),
        Attr("weight", "number", "kg", 1, Decimal("0.3"), Decimal(500)),
        Attr("height", "number", "cm", 1, Decimal(20), Decimal(280)),
        Attr("creatinine", "number", "mg/dL", 2, Decimal("0.05"), Decimal(40)),
        Attr("sys_bp", "number", "mm Hg", 0, Decimal(30), Decimal(300)),
        Attr("dia_bp", "number", "mm Hg", 0, Decimal(10), Decimal(250)),
        Attr("calcium", "number", "mg/dL", 2, Decimal(1), Decimal(25)),
        Attr("albumin", "number", "g/dL", 2, Decimal("0.2"), Decimal(10)),
        *(
            Attr(b, "bool", None, 0, Decimal(0), Decimal(1))
            for b in (
                "chf",
                "hypertension",
                "stroke",
                "tia",
                "thromboembolism",
                "vascular_disease",
                "diabetes",
            )
        ),
    )
}
# MedCalc-Bench display names → attribute names (Verified one-shot and v1.0 spellings)
ALIASES = {
    "sex": "female",
    "systolic blood pressure": "sys_bp",
    "diastolic blood pressure": "dia_bp",
    "congestive heart faliure": "chf",
    "congestive heart failure": "chf",
    "hypertension history": "hypertension",
    "transient ischemic attacks history": "tia",
    "thromboembolism history": "thromboembolism",
    "vascular disease history": "vascular_disease",
    "diabetes history": "diabetes",
}
FACTORS: dict[tuple[str, str], Decimal] = {
    ("kg", "kg"): Decimal(1),
    ("lb", "kg"): Decimal("0.45359237"),
    ("lbs", "kg"): Decimal("0.45359237"),
    ("g", "kg"): Decimal("0.001"),
    ("cm", "cm"): Decimal(1),
    ("m", "cm"): Decimal(100),
    ("in", "cm"): Decimal("2.54"),
    ("mg/dl", "mg/dL"): Decimal(1),
    ("µmol/l", "mg/dL"): 1 / Decimal("88.4"),
    ("umol/l", "mg/dL"): 1 / Decimal("88.4"),
    ("mm hg", "mm Hg"): Decimal(1),
    ("mmhg", "mm Hg"): Decimal(1),
    ("years", "years"): Decimal(1),
    ("g/dl", "g/dL"): Decimal(1),
    ("g/l", "g/dL"): Decimal("0.1"),
}
CALCIUM_MMOL = Decimal("4.008")  # mmol/L → mg/dL (calcium only)


@dataclass(frozen=True)
class Calc:
    cid: int
    name: str
    pred: str
    fn: str
    inputs: tuple[str, ...]
    integer: bool = False

    def rule(self) -> str:
        vs = [f"A{i}" for i in range(len(self.inputs))]
        body = ", ".join(f"{a}(C, {v})" for a, v in zip(self.inputs, vs, strict=True))
        return f"[{self.fn}] {self.pred}(C, V) :- {body} {{V = {self.fn}@1({', '.join(vs)})}}."


CALCS = {
    c.cid: c
    for c in (
        Calc(6, "Body Mass Index (BMI)", "bmi", "bmi", ("weight", "height")),
        Calc(5, "Mean Arterial Pressure (MAP)", "mean_arterial_pressure", "map", ("sys_bp", "dia_bp")),
        Calc(
            2,
            "Creatinine Clearance (Cockcroft-Gault)",
            "creatinine_clearance",
            "crcl",
            ("age", "female", "weight", "height", "creatinine"),
        ),
        Calc(
            4,
            "CHA2DS2-VASc",
            "chads_vasc_score",
            "chads_vasc",
            (
                "age",
                "female",
                "chf",
                "hypertension",
                "stroke",
                "tia",
                "thromboembolism",
                "vascular_disease",
                "diabetes",
            ),
            integer=True,
        ),
        Calc(
            7,
            "Calcium Correction for Hypoalbuminemia",
            "corrected_calcium",
            "ca_corr",
            ("calcium", "albumin"),
        ),
    )
}


class EntityError(CotauditError, ValueError):
    """An attribute map that cannot be normalised (unknown unit, out of range, bad type)."""


def _number(v: Any, attr: str) -> Decimal:
    if isinstance(v, bool) or not isinstance(v, int | float | str):
        raise EntityError(f"{attr}: not a number: {v!r}")
    try:
        d = Decimal(str(v))
    except InvalidOperation:
        raise EntityError(f"{attr}: not a number: {v!r}") from None
    if not d.is_finite():
        raise EntityError(f"{attr}: not a finite number")
    return d


def normalise_value(attr: str, value: Any) -> Decimal:
    """One attribute in canonical units, rounded half-even to its places (C-102)."""
    a = ATTRS.get(attr)
    if a is None:
        raise EntityError(f"unknown attribute {attr!r}")
    if a.kind == "bool":
        if not isinstance(value, bool):
            raise EntityError(f"{attr}: expected true/false")
        return Decimal(int(value))
    if a.kind == "sex":
        if not isinstance(value, str) or value.strip().lower() not in ("male", "female"):
            raise EntityError(f"{attr}: expected Male or Female")
        return Decimal(int(value.strip().lower() == "female"))
    if not (isinstance(value, list | tuple) and len(value) == 2 and isinstance(value[1], str)):
        raise EntityError(f"{attr}: expected [value, unit]")
    raw, unit = value
    if attr == "height" and unit.strip().lower() in ("ft", "ft in") and isinstance(raw, list | tuple):
        feet, inches = (_number(x, attr) for x in raw)
        amount = (feet * 12 + inches) * Decimal("2.54")
    else:
        u = unit.strip().lower()
        number = _number(raw, attr)
        if attr == "calcium" and u == "mmol/l":
            factor = CALCIUM_MMOL
        else:
            factor_or_none = FACTORS.get((u, a.unit or ""))
            if factor_or_none is None:
                raise EntityError(f"{attr}: unit {unit!r} not accepted (canonical {a.unit})")
            factor = factor_or_none
        amount = number * factor
    out = amount.quantize(Decimal(1).scaleb(-a.places), rounding=ROUND_HALF_EVEN)
    if not a.lo <= out <= a.hi:
        raise EntityError(f"{attr}: {out} {a.unit} outside the plausible range [{a.lo}, {a.hi}]")
    return out


def normalise(entities: Mapping[str, Any], cid: int) -> dict[str, Decimal]:
    """Normalised inputs of calculator ``cid``; booleans not mentioned default to false; a
    missing required number is simply absent (the query then abstains MISSING_ATTRIBUTE)."""
    calc = CALCS[cid]
    out: dict[str, Decimal] = {}
    for key, value in entities.items():
        attr = ALIASES.get(key.strip().lower(), key.strip().lower())
        if attr in calc.inputs:
            out[attr] = normalise_value(attr, value)
    for attr in calc.inputs:
        if ATTRS[attr].kind == "bool":
            out.setdefault(attr, Decimal(0))
    return out


def num_text(d: Decimal) -> str:
    return format(d.normalize(), "f")


def facts(values: Mapping[str, Decimal], case: str = "c1") -> list[str]:
    return [f"{a}({case}, {num_text(v)})" for a, v in sorted(values.items())]


def program(cids: tuple[int, ...] = (2, 4, 5, 6, 7)) -> str:
    return "".join(CALCS[c].rule() + "\n" for c in cids)


def interface() -> Interface:
    preds: dict[str, Any] = {a: {"args": ["case", "number"]} for a in ATTRS}
    for c in CALCS.values():
        preds[c.pred] = {"args": ["case", "number"]}
    return interface_from_dict(
        {
            "format": "cotaudit.certify.interface/1",
            "name": "medcalc",
            "version": "1",
            "negation": "none",
            "roles": {"case": {"type": "symbol", "pattern": "^c[0-9]+$"}, "number": {"type": "decimal"}},
            "predicates": dict(sorted(preds.items())),
            "source_whitelist": sorted(ATTRS),
            "query_predicates": sorted(c.pred for c in CALCS.values()),
        }
    )


def parse_entities(text: str) -> dict[str, Any]:
    """MedCalc-Bench's "Relevant Entities" column: a Python literal dict, parsed as a literal
    (``ast.literal_eval`` evaluates no code) with a size limit."""
    if len(text) > 20_000:
        raise EntityError("entity map larger than 20,000 characters")
    try:
        obj = ast.literal_eval(text)
    except (ValueError, SyntaxError) as exc:
        raise EntityError(f"not a literal dict: {exc}") from None
    if not isinstance(obj, dict) or not all(isinstance(k, str) for k in obj):
        raise EntityError("not a dict with string keys")
    return obj


def score(answer: str, gold: str, lower: str, upper: str, integer: bool) -> bool:
    """C-105: decimals within [lower, upper]; integer scores exactly."""
    a = Decimal(answer)
    if integer:
        return a == Decimal(gold)
    return Decimal(lower) <= a <= Decimal(upper)


def target(cid: int, case: str = "c1") -> str:
    return f"{CALCS[cid].pred}({case}, V)"
