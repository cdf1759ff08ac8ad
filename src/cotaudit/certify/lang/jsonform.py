"""The JSON form of units and programs (C-3), lossless against the text form.

Term: ``{"v":"X"}`` variable, ``{"c":"p1"}`` symbol, ``{"n":"1.5"}`` number (canonical string),
``{"s":"text"}`` string. Literal: ``{"pred":…, "neg":false, "args":[…]}``. Units and programs as
in the spec; a program is ``{"format":"cotaudit.certify.program/1","units":[…]}``. Decoding
validates every field and runs the same safety checks as the text parser, so both forms give
the same units and keys. Bad JSON is a ``PARSE_ERROR``, never an exception trace.
"""

from __future__ import annotations

import json
from typing import Any

from cotaudit.certify.core.errors import ProgramError
from cotaudit.certify.lang.grammar import check_safety
from cotaudit.certify.lang.syntax import (
    LABEL_RE,
    NAME_RE,
    VAR_RE,
    BodyLit,
    Calc,
    Const,
    Fact,
    Literal,
    Rule,
    Term,
    Unit,
    Var,
    canonical_number,
    default_label,
)

PROGRAM_FORMAT = "cotaudit.certify.program/1"


def term_to_json(t: Term) -> dict[str, str]:
    if isinstance(t, Var):
        return {"v": t.text()}
    tag = {"sym": "c", "num": "n", "str": "s"}[t.kind]
    return {tag: t.value}


def literal_to_json(lit: Literal) -> dict[str, Any]:
    return {"pred": lit.pred, "neg": lit.neg, "args": [term_to_json(a) for a in lit.args]}


def unit_to_json(u: Unit) -> dict[str, Any]:
    if isinstance(u, Fact):
        return {"kind": "fact", "label": u.label, "lit": literal_to_json(u.lit)}
    calc = None
    if u.calc:
        calc = {"out": u.calc.out, "fn": u.calc.fn, "version": u.calc.version, "in": list(u.calc.inputs)}
    return {
        "kind": "rule",
        "label": u.label,
        "head": literal_to_json(u.head),
        "body": [{"naf": b.naf, "lit": literal_to_json(b.lit)} for b in u.body],
        "calc": calc,
    }


def program_to_json(units: list[Unit]) -> dict[str, Any]:
    return {"format": PROGRAM_FORMAT, "units": [unit_to_json(u) for u in units]}


def _bad(message: str) -> ProgramError:
    return ProgramError("PARSE_ERROR", f"JSON form: {message}")


def _str(d: dict[str, Any], key: str) -> str:
    value = d.get(key)
    if not isinstance(value, str):
        raise _bad(f"'{key}' must be a string")
    return value


def _term(d: Any, anon: list[int]) -> Term:
    if not isinstance(d, dict) or len(d) != 1:
        raise _bad("a term is an object with exactly one of v, c, n, s")
    (tag, value), *_ = d.items()
    if not isinstance(value, str):
        raise _bad("a term's value must be a string")
    if tag == "v":
        if value == "_":
            anon[0] += 1
            return Var(f"_{anon[0]}")
        if not VAR_RE.fullmatch(value):
            raise _bad(f"bad variable {value!r}")
        return Var(value)
    if tag == "c":
        if not NAME_RE.fullmatch(value) or value == "not":
            raise _bad(f"bad symbol {value!r}")
        return Const("sym", value)
    if tag == "n":
        try:
            canon = canonical_number(value)
        except ValueError:
            raise _bad(f"bad number {value!r}") from None
        if canon != value:
            raise _bad(f"number {value!r} is not canonical (write {canon!r})")
        return Const("num", value)
    if tag == "s":
        return Const("str", value)
    raise _bad(f"unknown term tag {tag!r}")


def _literal(d: Any, anon: list[int]) -> Literal:
    if not isinstance(d, dict):
        raise _bad("a literal must be an object")
    pred = _str(d, "pred")
    if not NAME_RE.fullmatch(pred) or pred == "not":
        raise _bad(f"bad predicate {pred!r}")
    neg = d.get("neg", False)
    args = d.get("args", [])
    if not isinstance(neg, bool) or not isinstance(args, list):
        raise _bad("'neg' must be a boolean and 'args' a list")
    return Literal(pred, neg, tuple(_term(a, anon) for a in args))


def unit_from_json(d: Any) -> Unit:
    """One unit from its JSON object; raises :class:`ProgramError` on any defect."""
    if not isinstance(d, dict):
        raise _bad("a unit must be an object")
    label = d.get("label") or ""
    if not isinstance(label, str) or (label and not LABEL_RE.fullmatch(label)):
        raise _bad(f"bad label {label!r}")
    anon = [0]
    kind = d.get("kind")
    unit: Unit
    if kind == "fact":
        unit = Fact(label, _literal(d.get("lit"), anon))
    elif kind == "rule":
        head = _literal(d.get("head"), anon)
        body_raw = d.get("body")
        if not isinstance(body_raw, list) or not body_raw:
            raise _bad("a rule needs a non-empty 'body' list")
        body = []
        for b in body_raw:
            if not isinstance(b, dict) or not isinstance(b.get("naf", False), bool):
                raise _bad("a body literal is {'naf': bool, 'lit': {...}}")
            body.append(BodyLit(_literal(b.get("lit"), anon), bool(b.get("naf", False))))
        calc = _calc(d.get("calc"))
        unit = Rule(label, head, tuple(body), calc)
    else:
        raise _bad("'kind' must be 'fact' or 'rule'")
    check_safety(unit)
    if not unit.label:
        unit = (
            Fact(default_label(unit.key), unit.lit)
            if isinstance(unit, Fact)
            else Rule(default_label(unit.key), unit.head, unit.body, unit.calc)
        )
    return unit


def _calc(d: Any) -> Calc | None:
    if d is None:
        return None
    if not isinstance(d, dict):
        raise _bad("'calc' must be null or an object")
    inputs = d.get("in")
    if not isinstance(inputs, list) or not inputs or not all(isinstance(v, str) for v in inputs):
        raise _bad("calc 'in' must be a non-empty list of variable names")
    version = _str(d, "version")
    if not version.isdigit():
        raise _bad("calc 'version' must be digits")
    return Calc(_str(d, "out"), _str(d, "fn"), str(int(version)), tuple(inputs))


def program_from_json(text_or_obj: str | dict[str, Any]) -> list[Unit]:
    """Units of a JSON program (text or already-decoded object)."""
    obj: Any = text_or_obj
    if isinstance(text_or_obj, str):
        try:
            obj = json.loads(text_or_obj)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise _bad(f"not JSON ({exc})") from None
    if not isinstance(obj, dict) or obj.get("format") != PROGRAM_FORMAT:
        raise _bad(f"'format' must be {PROGRAM_FORMAT!r}")
    units = obj.get("units")
    if not isinstance(units, list):
        raise _bad("'units' must be a list")
    return [unit_from_json(u) for u in units]
