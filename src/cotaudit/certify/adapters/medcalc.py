"""Calculators, MedCalc style (certify.md §13.3, C-102 … C-105).

Votes are attribute maps in MedCalc's "Relevant Entities" style (``{"weight": [154, "lb"],
"sex": "Female", "chf": true}``). :func:`normalise` turns one into facts ``attr(Case, Value)``
(convert to the canonical unit, round half-even to ``places``; booleans default to false), so
agreement compares normalised maps. The five calculators are ``calc`` rules over registered
functions (:mod:`cotaudit.certify.calculators`); their intermediates go into the certificate.

Unit conversions are explicit Decimal factors (the C-102 list), not pint: the list is closed and
exact decimal factors keep results reproducible to the last digit.

Source-checked serving (C-103): a vote may carry, per attribute, an evidence quote into the
clinical note (:func:`serve_note`, ``MapGrounder(evidence=…)``). Each fact's evidence keeps the
raw value and unit as written; :class:`NoteSpanChecker` (``medcalc-span/1``) runs ``match/1``
span mode on the *raw* value (so ``weight(c1, 69.9)`` from "154 lb" is checked against the
number 154), checks the unit spelling in the quote and that the raw value converts to the fact's
value. :func:`calc_state` configures ``all_of(schema/1, medcalc-span/1)`` for every attribute
predicate. What it cannot detect: :data:`LIMITATION`. The 25 hand-written notes of C-105 are
``data/calculators/notes.jsonl`` (:func:`load_notes`).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from importlib import resources
from typing import Any

from cotaudit.certify.canon import sha256_hex
from cotaudit.certify.checkers import MatchChecker
from cotaudit.certify.checkers import normalise as normalise_text
from cotaudit.certify.interface import Interface, interface_from_dict
from cotaudit.certify.sources import CheckResult, Evidence, RecordStore
from cotaudit.certify.syntax import Const, Fact, Literal, Unit, num


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


class EntityError(ValueError):
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


def _num_text(d: Decimal) -> str:
    return format(d.normalize(), "f")


def facts(values: Mapping[str, Decimal], case: str = "c1") -> list[str]:
    return [f"{a}({case}, {_num_text(v)})" for a, v in sorted(values.items())]


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


# ---------------------------------------------------------------- the note span checker (C-103)
CHECKER_ID = "medcalc-span/1"
LIMITATION = (
    "medcalc-span/1 checks that each quote is in the note, shows the raw number and its unit, and "
    "that the raw value converts to the fact's value; it cannot tell what a quoted criterion means "
    "(negation, family history, an earlier reading, which of two quoted numbers is systolic) and "
    "cannot notice a true criterion the grounder left out (booleans not mentioned default to false)"
)
# How each accepted unit may be spelled in a quote (matched on the match/1-normalised quote, as
# a token not glued to other letters). Age quotes must say "year"/"yo"/"y/o"/"yr".
UNIT_SPELLINGS: dict[str, tuple[str, ...]] = {
    "kg": ("kg", "kgs", "kilogram", "kilograms"),
    "lb": ("lb", "lbs", "pound", "pounds"),
    "lbs": ("lb", "lbs", "pound", "pounds"),
    "g": ("g", "gram", "grams"),
    "cm": ("cm", "centimeter", "centimeters", "centimetre", "centimetres"),
    "m": ("m", "meter", "meters", "metre", "metres"),
    "in": ("in", "inch", "inches", '"'),
    "ft": ("ft", "feet", "foot", "'"),
    "ft in": ("ft", "feet", "foot", "'"),
    "mg/dl": ("mg/dl",),
    "µmol/l": ("μmol/l", "umol/l"),  # NFKC maps the micro sign to Greek mu
    "umol/l": ("μmol/l", "umol/l"),
    "mmol/l": ("mmol/l",),
    "g/dl": ("g/dl",),
    "g/l": ("g/l",),
    "mm hg": ("mm hg", "mmhg"),
    "mmhg": ("mm hg", "mmhg"),
    "years": ("year", "years", "yo", "y/o", "yr", "yrs"),
}
SEX_WORDS = {
    1: ("female", "woman", "girl", "lady", "she", "her", "mrs", "ms"),
    0: ("male", "man", "boy", "gentleman", "he", "his", "him", "mr"),
}
_MATCH = MatchChecker()


def _quote_text(evidence: Evidence, records: RecordStore) -> str:
    if evidence.quote is not None:
        return evidence.quote
    record = records.record(evidence.record_id) if evidence.record_id else None
    return "" if record is None else "".join(record.body[a:b] for a, b in evidence.spans)


def _has_token(text: str, words: Sequence[str]) -> bool:
    return any(re.search(rf"(?<![a-zμ]){re.escape(w)}(?![a-z])", text) for w in words)


class NoteSpanChecker:
    """``medcalc-span/1``: ``match/1`` span mode on the value *as written in the note*.

    Evidence ``extra`` carries ``raw`` (text, or ``[feet, inches]``) and ``unit`` as the vote
    wrote them (without them: the fact's value in the canonical unit). SUPPORTED iff ``match/1``
    span mode accepts the quote for ``attr(case, raw…)`` (spans in the note, quote = span text,
    every raw number verbatim), a spelling of the unit occurs in the quote, and ``raw unit``
    normalises (C-102) to exactly the fact's value. ``sex`` needs a quote naming it; a boolean
    ``true`` needs a quote (its meaning is not checked); a ``false`` without a quote is the
    not-mentioned default.
    """

    id = CHECKER_ID
    version = "1"
    inline = True

    def check(
        self, unit: Unit, evidence: Evidence, records: RecordStore, interface: Interface
    ) -> CheckResult:
        if not isinstance(unit, Fact) or unit.lit.neg or len(unit.lit.args) != 2:
            return CheckResult("UNSUPPORTED", "not an attribute fact attr(Case, Value)")
        attr = unit.lit.pred
        a = ATTRS.get(attr)
        case, value_c = unit.lit.args
        if a is None or not isinstance(value_c, Const) or value_c.kind != "num":
            return CheckResult("UNSUPPORTED", f"'{attr}' is not a calculator attribute with a number")
        value = Decimal(value_c.value)
        quoted = bool(evidence.spans) or evidence.quote is not None
        if a.kind == "bool" and value == 0 and not quoted:
            return CheckResult("SUPPORTED", "false by default (not mentioned in the note)", {"default": True})
        if not quoted:
            what = "a true criterion" if a.kind == "bool" else f"'{attr}'"
            return CheckResult("UNSUPPORTED", f"{what} needs a quote from the note")
        if evidence.quote is not None and not evidence.spans:
            record = records.record(evidence.record_id) if evidence.record_id else None
            found = record is not None and evidence.quote in record.body
            why = "no spans" if found else "the quote does not occur in the note"
            return CheckResult("UNSUPPORTED", why)
        if a.kind in ("bool", "sex"):
            got = self._span(Literal(attr, False, (case,)), evidence, records, interface)
            if got.verdict != "SUPPORTED" or a.kind == "bool":
                return got
            quote = normalise_text(_quote_text(evidence, records))
            if value not in (0, 1) or not _has_token(quote, SEX_WORDS[int(value)]):
                return CheckResult("UNSUPPORTED", "the quote does not name the patient's sex as claimed")
            return got
        raw, unit_text = self._raw(evidence, value, a)
        if isinstance(raw, str):  # a reason
            return CheckResult("UNSUPPORTED", raw)
        try:
            amount: Any = raw if len(raw) > 1 else raw[0]
            converted = normalise_value(attr, [amount, unit_text])
        except EntityError as exc:
            return CheckResult("UNSUPPORTED", f"raw value: {exc}")
        if converted != value:
            return CheckResult(
                "UNSUPPORTED",
                f"{' '.join(raw)} {unit_text} normalises to {_num_text(converted)}, not {value_c.value}",
            )
        try:
            lit = Literal(attr, False, (case, *(num(x) for x in raw)))
        except ValueError as exc:
            return CheckResult("UNSUPPORTED", f"raw value: {exc}")
        got = self._span(lit, evidence, records, interface)
        if got.verdict != "SUPPORTED":
            return got
        quote = normalise_text(_quote_text(evidence, records))
        spellings = UNIT_SPELLINGS.get(unit_text.strip().lower(), (normalise_text(unit_text),))
        if not _has_token(quote, spellings):
            return CheckResult("UNSUPPORTED", f"the unit {unit_text!r} does not appear in the quote")
        return CheckResult(
            "SUPPORTED",
            "quote in the note with the raw value and unit; conversion checked",
            {**got.log, "raw": list(raw), "unit": unit_text},
        )

    @staticmethod
    def _span(lit: Literal, evidence: Evidence, records: RecordStore, interface: Interface) -> CheckResult:
        got = _MATCH.check(Fact("raw", lit), evidence, records, interface)
        if got.verdict == "SUPPORTED":
            return got
        return CheckResult(got.verdict, f"match/1: {got.reason}", got.log)

    @staticmethod
    def _raw(evidence: Evidence, value: Decimal, a: Attr) -> tuple[list[str] | str, str]:
        raw = evidence.extra.get("raw")
        unit_text = evidence.extra.get("unit")
        if raw is None and unit_text is None:
            return [_num_text(value)], a.unit or ""
        if not isinstance(unit_text, str):
            return "evidence extra 'unit' must be a string", ""
        items = raw if isinstance(raw, list) else [raw]
        if not items or not all(isinstance(x, str) for x in items):
            return "evidence extra 'raw' must be a number text or a list of them", ""
        return list(items), unit_text


def calc_config(base: Any = None) -> Any:
    """``base`` (default: the defaults) with ``all_of(schema/1, medcalc-span/1)`` for every
    attribute predicate that ``base`` does not configure itself (C-103)."""
    from cotaudit.certify.config import CertifyConfig

    cfg = base or CertifyConfig()
    preds: dict[str, str | tuple[str, ...]] = {a: ("schema/1", CHECKER_ID) for a in sorted(ATTRS)}
    preds.update(cfg.checkers.predicates)
    return replace(cfg, checkers=replace(cfg.checkers, predicates=preds))


def calc_checkers(config: Any) -> Any:
    """The built-in checkers plus ``medcalc-span/1`` (needed to reopen a calculator state)."""
    from cotaudit.certify.checkers import CheckerRegistry

    registry = CheckerRegistry(config.checker_timeout_s)
    registry.register(NoteSpanChecker())
    return registry


# ---------------------------------------------------------------- serving over attribute maps
def calc_state(config: Any = None, clock: Any = None) -> Any:
    """A fresh state holding the five calc rules (writer deploy, match/1 record mode); attribute
    facts are checked by ``all_of(schema/1, medcalc-span/1)`` under source-checking policies."""
    from cotaudit.certify.sources import SourceRecord
    from cotaudit.certify.state import CertState

    cfg = calc_config(config)
    kwargs = {} if clock is None else {"clock": clock}
    state = CertState.open(":memory:", interface(), cfg, checkers=calc_checkers(cfg), **kwargs)
    text = program()
    state.add_record(SourceRecord("calculators", "rules", text))
    decisions = state.admit_batch(
        [(line, Evidence("calculators"), "deploy", None) for line in text.splitlines()]
    )
    bad = [d for d in decisions if d.outcome.value == "REJECT"]
    if bad:
        raise RuntimeError(f"calculator rule rejected: {bad[0].reason}")
    return state


def _attr_of(key: str) -> str:
    return ALIASES.get(key.strip().lower(), key.strip().lower())


def _raw_text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def _evidence_extra(attr: str, value: Any) -> dict[str, Any]:
    """What the vote wrote, as text (no floats in stored evidence)."""
    kind = ATTRS[attr].kind
    if kind == "bool":
        return {"attribute": attr, "raw": "true" if value is True else "false"}
    if kind == "sex":
        return {"attribute": attr, "raw": str(value)}
    raw, unit = value
    written = [_raw_text(x) for x in raw] if isinstance(raw, list | tuple) else _raw_text(raw)
    return {"attribute": attr, "raw": written, "unit": unit}


def _spans(spec: Mapping[str, Any], attr: str, note: str | None) -> tuple[tuple[int, int], ...]:
    start, end = spec.get("start"), spec.get("end")
    if start is None and end is None:
        quote = spec["quote"]
        at = -1 if note is None or not quote else note.find(quote)
        return () if at < 0 else ((at, at + len(quote)),)
    if not (type(start) is int and type(end) is int and 0 <= start <= end):
        raise EntityError(f"{attr}: evidence 'start'/'end' must be integers with 0 <= start <= end")
    return ((start, end),)


def attribute_evidence(
    entities: Mapping[str, Any],
    quotes: Mapping[str, Any],
    cid: int,
    record_id: str | None,
    note: str | None = None,
) -> dict[str, Evidence]:
    """Evidence per normalised attribute of calculator ``cid``: ``quotes`` maps an entity key to
    ``{"quote": …, "start": n, "end": n}`` (without offsets the quote's first occurrence in
    ``note``; none: no span, and the checker rejects it). Unquoted attributes get evidence with
    no span, which the checker accepts only for a ``false`` boolean."""
    calc = CALCS[cid]
    if not isinstance(quotes, Mapping):
        raise EntityError("evidence must map attribute names to quotes")
    specs: dict[str, Mapping[str, Any]] = {}
    for key, spec in quotes.items():
        attr = _attr_of(str(key))
        if not isinstance(spec, Mapping) or not isinstance(spec.get("quote"), str):
            raise EntityError(f"{key}: evidence must be an object with a string 'quote'")
        unknown = set(spec) - {"quote", "start", "end"}
        if unknown:
            raise EntityError(f"{key}: unexpected evidence key(s) {', '.join(sorted(unknown))}")
        specs[attr] = spec
    out: dict[str, Evidence] = {}
    raw = {_attr_of(k): v for k, v in entities.items() if _attr_of(k) in calc.inputs}
    for attr in calc.inputs:
        extra = _evidence_extra(attr, raw[attr]) if attr in raw else {"attribute": attr, "default": "false"}
        spec = specs.get(attr)
        if spec is None:
            out[attr] = Evidence(record_id, (), None, extra)
        else:
            out[attr] = Evidence(record_id, _spans(spec, attr, note), spec["quote"], extra)
    return out


@dataclass
class MapGrounder:
    """Votes given as attribute maps (one per vote index); a map that does not normalise is an
    invalid vote with the reason, never a guess. With ``evidence`` (quotes per attribute, same
    keys as the maps) or a query record, every fact carries evidence into the note (C-103)."""

    maps: Mapping[tuple[str, int], Mapping[str, Any]]
    cid: int
    id: str = "entity-maps/1"
    evidence: Mapping[tuple[str, int], Mapping[str, Any]] = field(default_factory=dict)

    def ground(self, q: Any, interface: Any, vote: int) -> Any:
        from cotaudit.certify.votes import ProposedFact, Vote

        m = self.maps.get((q.query_id, vote))
        if m is None:
            return Vote(None, f"no attribute map for vote {vote}")
        if not isinstance(m, Mapping):
            return Vote(None, "parse failure: an attribute map must be an object")
        try:
            values = normalise(m, self.cid)
        except EntityError as exc:
            return Vote(None, f"parse failure: {exc}")
        raw = repr(sorted(m.items()))
        quotes = self.evidence.get((q.query_id, vote))
        record = q.records[0] if q.records else None
        if quotes is None and record is None:
            return Vote(tuple(ProposedFact(f) for f in facts(values)), None, raw)
        try:
            evs = attribute_evidence(
                m,
                quotes or {},
                self.cid,
                None if record is None else record.record_id,
                None if record is None else record.body,
            )
        except EntityError as exc:
            return Vote(None, f"parse failure: {exc}")
        lits = facts(values)
        return Vote(
            tuple(ProposedFact(f, evs[a]) for a, f in zip(sorted(values), lits, strict=True)), None, raw
        )


def target(cid: int, case: str = "c1") -> str:
    return f"{CALCS[cid].pred}({case}, V)"


def serve_maps(
    state: Any, query_id: str, cid: int, maps: list[Mapping[str, Any]], policy: str = "agreement_only"
) -> Any:
    """Serve calculator ``cid`` on k attribute-map votes. The default policy has no source
    checker: gold or recorded maps carry no quotes (see docs/certify.md); :func:`serve_note`
    is the source-checked path."""
    from cotaudit.certify.serve import POLICIES, replace_votes, serve
    from cotaudit.certify.votes import QueryInput

    grounder = MapGrounder({(query_id, i): m for i, m in enumerate(maps)}, cid)
    pol = replace_votes(POLICIES[policy], len(maps))
    return serve(state, QueryInput(query_id, "note", target(cid), "numeric"), grounder, policy=pol)


def note_record(note: str, record_id: str | None = None) -> Any:
    """The note as a document record, by default addressed by its content."""
    from cotaudit.certify.sources import SourceRecord

    return SourceRecord(record_id or "note-" + sha256_hex(note)[:16], "document", note)


def serve_note(
    state: Any,
    query_id: str,
    cid: int,
    note: str,
    votes: Sequence[Mapping[str, Any]],
    policy: str = "native",
    record_id: str | None = None,
) -> Any:
    """Serve calculator ``cid`` on a clinical note with k votes, each
    ``{"entities": {…}, "evidence": {attr: {"quote", "start", "end"}}}`` (the shape of a
    ``notes.jsonl`` line). Under ``native`` every agreed fact must pass
    ``all_of(schema/1, medcalc-span/1)`` against the note (C-103)."""
    from cotaudit.certify.serve import POLICIES, replace_votes, serve
    from cotaudit.certify.votes import QueryInput

    maps = {(query_id, i): v.get("entities") for i, v in enumerate(votes)}
    quotes = {(query_id, i): v.get("evidence") or {} for i, v in enumerate(votes)}
    grounder = MapGrounder(maps, cid, evidence=quotes)  # type: ignore[arg-type]
    pol = replace_votes(POLICIES[policy], len(votes))
    q = QueryInput(query_id, note, target(cid), "numeric", records=(note_record(note, record_id),))
    return serve(state, q, grounder, policy=pol)


NOTES_FILE = "notes.jsonl"


def load_notes() -> list[dict[str, Any]]:
    """The 25 hand-written notes of C-105 (5 per calculator) with gold entities, evidence quotes
    (offsets in code points) and hand-computed answers; see ``data/calculators/README.md``."""
    path = resources.files("cotaudit.certify").joinpath("data", "calculators", NOTES_FILE)
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]
