"""Parsing predicate units (C-2): programs, units, literals and ``.kb`` queries.

``parse_program(text)`` returns the units of a program; ``parse_unit`` exactly one unit;
``parse_literal`` one literal (certificates name their facts this way); ``parse_query`` a
``?- goal.`` line. Simple fact lines take a regular-expression fast path; everything else goes
through the lark grammar of :mod:`.grammar`. Every problem is a
:class:`~cotaudit.certify.core.errors.ProgramError` with a stable reason and a position.
"""

from __future__ import annotations

import re

from cotaudit.certify.core.errors import ProgramError
from cotaudit.certify.lang.grammar import (
    DEFAULT_LIMITS,
    Limits,
    Query,
    number_anonymous,
    run_grammar,
)
from cotaudit.certify.lang.syntax import (
    Const,
    Fact,
    Literal,
    Rule,
    Unit,
    canonical_number,
    default_label,
    make_fact,
    make_literal,
)
from cotaudit.gcpause import paused_collector

# The line-wise fast path: a line that is exactly one simple fact (symbols and numbers only) is
# read with a regular expression; any other line is parsed by lark on its own; if any line does
# not parse on its own (a unit spanning lines, an error), the whole text goes through lark.
# tests/certify/lang/test_syntax.py checks with hypothesis that both paths give identical units.
_WS = "[ \t\r\f]*"
_ARG = _WS + r"(?:[a-z][A-Za-z0-9_]*|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?)" + _WS
_FACT_BODY = (
    r"(?:\[([A-Za-z0-9_][A-Za-z0-9_.:@-]*)\]" + _WS + r")?(-?)([a-z][A-Za-z0-9_]*)"
    r"(?:\((" + _ARG + r"(?:," + _ARG + r")*)\))?" + _WS + r"\." + _WS + r"(?:%[^\n]*)?"
)
_FAST_FACT = re.compile(_WS + _FACT_BODY)
# The same per line over a whole text in one ``findall`` (the per-line Python work of
# splitting and matching cost as much as building the facts): every line gives exactly one
# match, (leading blanks, label, neg, pred, args, "") for a simple fact and ("", …, "", line)
# for any other line, blank ones included. ``$`` and ``.`` stop at "\n" only, the separator of
# ``str.split("\n")`` that the line numbers count.
_FAST_LINES = re.compile("^(?:(" + _WS + ")" + _FACT_BODY + "|(.*))$", re.M)
_BLANK = re.compile(_WS + "(?:%[^\n]*)?")


def _build_fact(
    label: str,
    neg: str,
    pred: str,
    arg_text: str,
    pos: tuple[int, int],
    limits: Limits,
    consts: dict[str, Const],
) -> Fact | None:
    """The fact of one fast-path match (``None`` if a limit or reserved word needs lark's error).

    ``consts`` maps argument text to its constant for texts that are their constant's canonical
    text (every symbol; numbers like ``1.5`` but not ``1.50``); it is shared by the facts of one
    text, so each constant is built once, and a fact whose arguments are all found there can
    use its argument text as it is in the key (``_fast_program``'s inline path)."""
    if pred == "not" or len(pred) > limits.max_ident or len(label) > limits.max_ident:
        return None
    if arg_text:
        parts = arg_text.split(",")
        if len(parts) > limits.max_args:
            return None
        spaced = _has_blank(arg_text)
        plain = True  # every argument already in canonical text
        out: list[Const] = []
        for part in parts:
            if spaced:
                part = part.strip(" \t\r\f")
            const = consts.get(part)
            if const is None:
                if part[0].isalpha():
                    if len(part) > limits.max_ident:
                        return None
                    const = Const("sym", part)
                else:
                    const = Const("num", canonical_number(part))
                if const.value == part:
                    consts[part] = const
                else:
                    plain = False
            out.append(const)
        joined = arg_text if plain and not spaced else ",".join(c.value for c in out)
        key = "f:" + neg + pred + "(" + joined + ")"
        lit = make_literal(pred, neg == "-", tuple(out))
    else:
        key = "f:" + neg + pred
        lit = make_literal(pred, neg == "-", ())
    return make_fact(label or default_label(key), lit, pos, key)


def _has_blank(text: str) -> bool:
    return " " in text or "\t" in text or "\r" in text or "\f" in text


def _canonical_const(part: str, consts: dict[str, Const], max_ident: int) -> Const | None:
    """The constant of a blank-free argument text of the fast regex, entered in ``consts``, if the
    text is its canonical text (``None`` for ``1.50``, ``-0`` or an over-long symbol)."""
    if part[0].isalpha():
        if len(part) > max_ident:
            return None
        const = Const("sym", part)
    else:
        const = Const("num", canonical_number(part))
        if const.value != part:
            return None
    consts[part] = const
    return const


def _fast_fact(line: str, lineno: int, limits: Limits, consts: dict[str, Const]) -> Fact | None:
    m = _FAST_FACT.fullmatch(line)
    if m is None:
        return None
    label, neg, pred, arg_text = m.groups()
    start = m.start(1) - 1 if label else m.start(2)
    return _build_fact(label or "", neg, pred, arg_text or "", (lineno, start + 1), limits, consts)


def _lark_line(line: str, lineno: int, limits: Limits) -> list[Unit] | ProgramError:
    """The units of one line that is not a simple fact, positions moved to line ``lineno``
    (or the line's own error, positions unmoved)."""
    try:
        chunk: list[Unit] = run_grammar(line, "program", limits)
    except ProgramError as exc:
        return exc
    out: list[Unit] = []
    for u in chunk:
        pos = (u.pos[0] + lineno - 1, u.pos[1]) if u.pos else None
        if isinstance(u, Fact):
            out.append(Fact(u.label, u.lit, pos))
        else:
            out.append(Rule(u.label, u.head, u.body, u.calc, pos))
    return out


def _fast_program(text: str, limits: Limits) -> list[Unit] | None:
    lines = _FAST_LINES.findall(text)
    if len(lines) != text.count("\n") + 1:  # pragma: no cover - one match per line, by construction
        return None
    units: list[Unit] = []
    append = units.append
    consts: dict[str, Const] = {}  # canonical argument text -> constant (see _build_fact)
    known = consts.get
    max_args = limits.max_args
    max_ident = limits.max_ident
    split: list[str] | None = None  # the text's lines, only if a matched fact needs lark
    lineno = 0
    for blanks, label, neg, pred, arg_text, other in lines:
        lineno += 1
        if pred:
            # inline, the common fact: no label, no blanks inside, every constant seen before in
            # canonical text (its key is then the matched text); anything else: _build_fact
            if arg_text and not label and len(pred) <= max_ident and pred != "not":
                parts = arg_text.split(",")
                args = tuple(map(known, parts))
                if None in args:  # a constant not seen yet (or blanks: then never found)
                    if not _has_blank(arg_text):
                        args = tuple([known(p) or _canonical_const(p, consts, max_ident) for p in parts])
                    ok = None not in args
                else:
                    ok = True
                if ok and len(parts) <= max_args:
                    key = f"f:{neg}{pred}({arg_text})"
                    lit = make_literal(pred, neg == "-", args)  # type: ignore[arg-type]
                    append(make_fact(default_label(key), lit, (lineno, len(blanks) + 1), key))
                    continue
            fact = _build_fact(label, neg, pred, arg_text, (lineno, len(blanks) + 1), limits, consts)
            if fact is not None:
                append(fact)
                continue
            if split is None:
                split = text.split("\n")
            other = split[lineno - 1]  # over a limit or 'not': lark gives the error
        elif _BLANK.fullmatch(other):
            continue
        chunk = _lark_line(other, lineno, limits)
        if isinstance(chunk, ProgramError):
            if len(lines) == 1:  # the line is the whole text: lark would only fail again
                raise chunk
            return None
        units.extend(chunk)
    return units


def parse_program(text: str, limits: Limits = DEFAULT_LIMITS, *, fast: bool = True) -> list[Unit]:
    """Every unit of ``text``; labels must be unique (C-2) and at most ``max_units`` units."""
    if len(text.encode("utf-8", "surrogatepass")) > limits.max_bytes:
        raise ProgramError(
            "PARSE_ERROR", f"text larger than {limits.max_bytes} bytes", detail={"limit": "max_bytes"}
        )
    with paused_collector(promote=True):  # many small acyclic objects: see cotaudit.gcpause
        got = _fast_program(text, limits) if fast else None
        units: list[Unit] = got if got is not None else run_grammar(text, "program", limits)
    if len(units) > limits.max_units:
        raise ProgramError(
            "PARSE_ERROR", f"more than {limits.max_units} units", detail={"limit": "max_units"}
        )
    labels = [u.label for u in units]
    if len(set(labels)) == len(labels):  # the common case, checked in C: no label twice
        return units
    seen: dict[str, Unit] = {}
    for u in units:
        if u.label in seen and seen[u.label].key != u.key:
            line, col = u.pos or (None, None)
            raise ProgramError(
                "DUPLICATE_LABEL", f"label '{u.label}' is used twice", line=line, col=col, label=u.label
            )
        seen[u.label] = u
    return units


def parse_unit(text: str, limits: Limits = DEFAULT_LIMITS) -> Unit:
    """Exactly one unit."""
    units = parse_program(text, limits)
    if len(units) != 1:
        raise ProgramError("PARSE_ERROR", f"expected exactly one unit, found {len(units)}")
    return units[0]


def parse_literal(
    text: str, limits: Limits = DEFAULT_LIMITS, *, skolem: bool = False, fast: bool = True
) -> Literal:
    """One literal, e.g. ``may_claim(p1,x1)`` or ``-kind(cat)``; ``skolem`` admits ``#sk0`` …
    (the kernel scan's constants, which appear in justification certificates only)."""
    if fast and "[" not in text and "\n" not in text:
        # a ground literal of symbols and numbers: the program parser's regex fast path
        # (certificate rechecks parse every node's fact; lark made that the dominant cost)
        fact = _fast_fact(text + ".", 1, limits, {})
        if fact is not None:
            return fact.lit
    lit: tuple[Literal, int, int] = run_grammar(text, "literal", limits, skolem)
    return number_anonymous(lit[0], {})


def parse_query(text: str, limits: Limits = DEFAULT_LIMITS) -> Query:
    """``[label] ?- goal => answer.`` (label and answer optional)."""
    result: Query = run_grammar(text, "query", limits)
    return result
