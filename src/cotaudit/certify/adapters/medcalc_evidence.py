"""Source-checked calculator votes (certify.md C-103, C-105): evidence quotes into a clinical
note, the ``medcalc-span/1`` checker, and the 25 hand-written notes.

A vote may carry, per attribute, an evidence quote into the note
(:func:`~.medcalc_serving.serve_note`, ``MapGrounder(evidence=…)``). Each fact's evidence keeps
the raw value and unit as written; :class:`NoteSpanChecker` (``medcalc-span/1``) runs
``match/1`` span mode on the *raw* value (so ``weight(c1, 69.9)`` from "154 lb" is checked
against the number 154), checks the unit spelling in the quote and that the raw value converts
to the fact's value. :func:`calc_config` configures
``all_of(schema/1, medcalc-span/1)`` for every attribute predicate. What it cannot detect:
:data:`LIMITATION`. The notes are ``data/calculators/notes.jsonl`` (:func:`load_notes`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from decimal import Decimal
from importlib import resources
from typing import Any

from cotaudit.certify.adapters.medcalc import (
    ALIASES,
    ATTRS,
    CALCS,
    Attr,
    EntityError,
    normalise_value,
    num_text,
)
from cotaudit.certify.core.canon import sha256_hex
from cotaudit.certify.interface.model import Interface
from cotaudit.certify.lang.syntax import Const, Fact, Literal, Unit, num
from cotaudit.certify.sources.checkers import MatchChecker
from cotaudit.certify.sources.checkers import normalise as normalise_text
from cotaudit.certify.sources.records import CheckResult, Evidence, RecordStore

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
    """Whether a word occurs in ``text`` not inside a longer lower-case word (``µmol`` ≠ ``mol``)."""
    for w in words:
        at = text.find(w)
        while at >= 0:
            end = at + len(w)
            before = text[at - 1] if at else ""
            after = text[end] if end < len(text) else ""
            if not ("a" <= before <= "z" or before == "μ") and not "a" <= after <= "z":
                return True
            at = text.find(w, at + 1)
    return False


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
                f"{' '.join(raw)} {unit_text} normalises to {num_text(converted)}, not {value_c.value}",
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
            return [num_text(value)], a.unit or ""
        if not isinstance(unit_text, str):
            return "evidence extra 'unit' must be a string", ""
        items = raw if isinstance(raw, list) else [raw]
        if not items or not all(isinstance(x, str) for x in items):
            return "evidence extra 'raw' must be a number text or a list of them", ""
        return list(items), unit_text


def calc_config(base: Any = None) -> Any:
    """``base`` (default: the defaults) with ``all_of(schema/1, medcalc-span/1)`` for every
    attribute predicate that ``base`` does not configure itself (C-103)."""
    from cotaudit.certify.state.config import CertifyConfig

    cfg = base or CertifyConfig()
    preds: dict[str, str | tuple[str, ...]] = {a: ("schema/1", CHECKER_ID) for a in sorted(ATTRS)}
    preds.update(cfg.checkers.predicates)
    return replace(cfg, checkers=replace(cfg.checkers, predicates=preds))


def calc_checkers(config: Any) -> Any:
    """The built-in checkers plus ``medcalc-span/1`` (needed to reopen a calculator state)."""
    from cotaudit.certify.sources.checkers import CheckerRegistry

    registry = CheckerRegistry(config.checker_timeout_s)
    registry.register(NoteSpanChecker())
    return registry


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


def note_record(note: str, record_id: str | None = None) -> Any:
    """The note as a document record, by default addressed by its content."""
    from cotaudit.certify.sources.records import SourceRecord

    return SourceRecord(record_id or "note-" + sha256_hex(note)[:16], "document", note)


NOTES_FILE = "notes.jsonl"


def load_notes() -> list[dict[str, Any]]:
    """The 25 hand-written notes of C-105 (5 per calculator) with gold entities, evidence quotes
    (offsets in code points) and hand-computed answers; see ``data/calculators/README.md``."""
    path = resources.files("cotaudit.certify").joinpath("data", "calculators", NOTES_FILE)
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]
