"""The text syntax of predicate units (C-2): a lark LALR grammar, safety checks and limits (C-4).

``parse_program(text)`` returns the units of a program; ``parse_unit`` exactly one unit;
``parse_literal`` one literal (certificates name their facts this way). Every problem is a
:class:`~cotaudit.certify.errors.ProgramError` with a stable reason (``PARSE_ERROR`` for syntax,
limits and duplicate labels; ``UNSAFE_RULE`` for safety) and ``line``/``col`` — never a lark
traceback. No ``eval``: strings are decoded with ``json.loads`` of the matched token.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, VisitError

from cotaudit.certify.alloc import paused_collector
from cotaudit.certify.canon import lone_surrogate
from cotaudit.certify.errors import ProgramError
from cotaudit.certify.syntax import (
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
    make_fact,
    make_literal,
)

GRAMMAR = r"""
program  : unit*
unit     : label? literal "."                         -> fact
         | label? literal ":-" body calc? "."         -> rule
body     : bodylit ("," bodylit)*
bodylit  : NOT literal                                -> naflit
         | literal                                    -> poslit
calc     : "{" VAR "=" NAME "@" INT "(" VAR ("," VAR)* ")" "}"
literal  : NEG? NAME ("(" term ("," term)* ")")?
term     : VAR                                        -> var
         | NAME                                       -> symbol
         | NUMBER                                     -> number
         | STRING                                     -> string
         | SKOLEM                                     -> skolem
label    : "[" LABEL "]"
query    : label? "?-" literal ("=>" answer)? "."
answer   : NAME | NUMBER

NOT      : "not"
NEG      : "-"
VAR      : /[A-Z][A-Za-z0-9_]*/ | "_"
NAME     : /[a-z][A-Za-z0-9_]*/
NUMBER   : /-?(0|[1-9][0-9]*)(\.[0-9]+)?(?![0-9])/
INT      : /[0-9]+/
STRING   : /"(?:[^"\\\n\r]|\\["\\\/bfnrt]|\\u[0-9a-fA-F]{4})*"/
LABEL    : /[A-Za-z0-9_][A-Za-z0-9_.:@-]*/
SKOLEM   : /#sk(0|[1-9][0-9]*)/
COMMENT  : /%[^\n]*/
%import common.WS
%ignore WS
%ignore COMMENT
"""


@dataclass(frozen=True, slots=True)
class Limits:
    """Load limits of C-4 (all configurable, all enforced)."""

    max_bytes: int = 1 << 20
    max_args: int = 64
    max_body: int = 64
    max_ident: int = 128
    max_units: int = 100_000


DEFAULT_LIMITS = Limits()


@dataclass(frozen=True, slots=True)
class Query:
    """A ``?- goal.`` line of a ``.kb`` file, with its optional expected answer."""

    label: str | None
    goal: Literal
    expect: str | None
    pos: tuple[int, int]


class _Build(Transformer[Token, Any]):
    def __init__(self, limits: Limits, skolem: bool = False) -> None:
        super().__init__()
        self.limits = limits
        self.allow_skolem = skolem

    def skolem(self, c: list[Token]) -> Const:
        if not self.allow_skolem:
            raise ProgramError(
                "PARSE_ERROR", "Skolem constants (#sk…) are not user syntax", line=c[0].line, col=c[0].column
            )
        return Const("sym", str(c[0]))

    def _ident(self, tok: Token) -> str:
        if len(tok) > self.limits.max_ident:
            raise ProgramError(
                "PARSE_ERROR",
                f"identifier longer than {self.limits.max_ident} characters",
                line=tok.line,
                col=tok.column,
                detail={"limit": "max_ident"},
            )
        return str(tok)

    def var(self, c: list[Token]) -> Var:
        return Var(self._ident(c[0]))

    def symbol(self, c: list[Token]) -> Const:
        return Const("sym", self._ident(c[0]))

    def number(self, c: list[Token]) -> Const:
        return Const("num", canonical_number(str(c[0])))

    def string(self, c: list[Token]) -> Const:
        value = json.loads(str(c[0]))
        if lone_surrogate(value) is not None:
            raise ProgramError(
                "PARSE_ERROR", "an escaped lone surrogate is not text", line=c[0].line, col=c[0].column
            )
        return Const("str", value)

    def label(self, c: list[Token]) -> tuple[str, int, int]:
        return (self._ident(c[0]), c[0].line or 0, max(1, (c[0].column or 1) - 1))

    def literal(self, c: list[Any]) -> tuple[Literal, int, int]:
        neg = isinstance(c[0], Token) and c[0].type == "NEG"
        first: Token = c[0]
        name_tok: Token = c[1] if neg else c[0]
        if str(name_tok) == "not":
            raise ProgramError("PARSE_ERROR", "'not' is reserved", line=name_tok.line, col=name_tok.column)
        args = tuple(c[2:] if neg else c[1:])
        if len(args) > self.limits.max_args:
            raise ProgramError(
                "PARSE_ERROR",
                f"more than {self.limits.max_args} arguments",
                line=name_tok.line,
                col=name_tok.column,
                detail={"limit": "max_args"},
            )
        return (Literal(self._ident(name_tok), neg, args), first.line or 0, first.column or 0)

    def poslit(self, c: list[Any]) -> BodyLit:
        return BodyLit(c[0][0], False)

    def naflit(self, c: list[Any]) -> BodyLit:
        return BodyLit(c[1][0], True)

    def body(self, c: list[BodyLit]) -> list[BodyLit]:
        return c

    def calc(self, c: list[Token]) -> Calc:
        return Calc(str(c[0]), str(c[1]), str(int(str(c[2]))), tuple(str(t) for t in c[3:]))

    def fact(self, c: list[Any]) -> Unit:
        label = c[0] if len(c) == 2 else None
        lit, line, col = c[-1]
        pos = (label[1], label[2]) if label else (line, col)
        return _finish(Fact(label[0] if label else "", lit, pos), self.limits)

    def rule(self, c: list[Any]) -> Unit:
        label = c[0] if isinstance(c[0], tuple) and isinstance(c[0][0], str) else None
        rest = c[1:] if label else c
        head, line, col = rest[0]
        body: list[BodyLit] = rest[1]
        calc = rest[2] if len(rest) > 2 else None
        pos = (label[1], label[2]) if label else (line, col)
        if len(body) > self.limits.max_body:
            raise ProgramError(
                "PARSE_ERROR",
                f"more than {self.limits.max_body} body literals",
                line=pos[0],
                col=pos[1],
                detail={"limit": "max_body"},
            )
        return _finish(Rule(label[0] if label else "", head, tuple(body), calc, pos), self.limits)

    def program(self, c: list[Unit]) -> list[Unit]:
        return c

    def answer(self, c: list[Token]) -> str:
        tok = c[0]
        return canonical_number(str(tok)) if tok.type == "NUMBER" else str(tok)

    def query(self, c: list[Any]) -> Query:
        label = c[0][0] if c and isinstance(c[0], tuple) and isinstance(c[0][0], str) else None
        rest = c[1:] if label is not None else c
        goal, line, col = rest[0]
        expect = rest[1] if len(rest) > 1 else None
        return Query(label, _number_anonymous(goal, {}), expect, (line, col))


def _number_anonymous(lit: Literal, seen: dict[int, int]) -> Literal:
    """Give each ``_`` of a unit its own name ``_1``, ``_2`` … in order of occurrence."""
    if not any(isinstance(a, Var) and a.name == "_" for a in lit.args):
        return lit
    args: list[Term] = []
    for a in lit.args:
        if isinstance(a, Var) and a.name == "_":
            seen[0] = seen.get(0, 0) + 1
            args.append(Var(f"_{seen[0]}"))
        else:
            args.append(a)
    return Literal(lit.pred, lit.neg, tuple(args))


def _finish(unit: Unit, limits: Limits) -> Unit:
    """Number anonymous variables, fill the default label, check safety."""
    seen: dict[int, int] = {}
    if isinstance(unit, Fact):
        out: Unit = Fact(unit.label, _number_anonymous(unit.lit, seen), unit.pos)
    else:
        head = _number_anonymous(unit.head, seen)
        body = tuple(BodyLit(_number_anonymous(b.lit, seen), b.naf) for b in unit.body)
        out = Rule(unit.label, head, body, unit.calc, unit.pos)
    check_safety(out)
    if not out.label:
        out = Fact(default_label(out.key), out.lit, out.pos) if isinstance(out, Fact) else _relabel(out)
    return out


def _relabel(rule: Rule) -> Rule:
    return Rule(default_label(rule.key), rule.head, rule.body, rule.calc, rule.pos)


def check_safety(unit: Unit) -> None:
    """C-4: facts ground; head, NAF and calc variables bound by the positive body; ``_`` not in heads."""
    line, col = unit.pos if unit.pos else (None, None)
    label = unit.label or None

    def unsafe(message: str, variables: list[str]) -> ProgramError:
        shown = ["_" if v.startswith("_") else v for v in variables]
        return ProgramError(
            "UNSAFE_RULE", message, line=line, col=col, label=label, detail={"variables": shown}
        )

    if isinstance(unit, Fact):
        free = unit.lit.variables()
        if free:
            raise unsafe("a fact must be ground", free)
        return
    if any(v.startswith("_") for v in unit.head.variables()):
        raise unsafe("'_' may not occur in the head", ["_"])
    bound = {v for lit in unit.positive for v in lit.variables()}
    calc_out = unit.calc.out if unit.calc else None
    if unit.calc:
        missing = [v for v in unit.calc.inputs if v not in bound]
        if missing:
            raise unsafe("calc inputs must occur in a positive body literal", missing)
        in_body = {v for b in unit.body for v in b.lit.variables()}
        if calc_out in in_body or calc_out not in unit.head.variables():
            raise unsafe("the calc output must occur in the head and nowhere in the body", [str(calc_out)])
    head_free = [v for v in unit.head.variables() if v not in bound and v != calc_out]
    if head_free:
        raise unsafe(f"head variable {', '.join(dict.fromkeys(head_free))} is not bound", head_free)
    naf_free = [v for lit in unit.negative for v in lit.variables() if v not in bound]
    if naf_free:
        raise unsafe("a NAF literal's variables must occur in a positive body literal", naf_free)


_PARSERS: dict[str, Lark] = {}


def _parser(start: str) -> Lark:
    parser = _PARSERS.get(start)
    if parser is None:
        parser = Lark(GRAMMAR, parser="lalr", start=start, maybe_placeholders=False)
        _PARSERS[start] = parser
    return parser


def _run(text: str, start: str, limits: Limits, skolem: bool = False) -> Any:
    if len(text.encode("utf-8", "surrogatepass")) > limits.max_bytes:
        raise ProgramError(
            "PARSE_ERROR", f"text larger than {limits.max_bytes} bytes", detail={"limit": "max_bytes"}
        )
    try:
        tree = _parser(start).parse(text)
        return _Build(limits, skolem).transform(tree)
    except VisitError as exc:
        if isinstance(exc.orig_exc, ProgramError):
            raise exc.orig_exc from None
        raise ProgramError("PARSE_ERROR", f"cannot build: {exc.orig_exc}") from None
    except UnexpectedInput as exc:
        raise ProgramError("PARSE_ERROR", _describe(exc, text), line=exc.line, col=exc.column) from None
    except LarkError as exc:  # pragma: no cover - any other lark failure is still one line
        raise ProgramError("PARSE_ERROR", str(exc).splitlines()[0]) from None
    except RecursionError:  # pragma: no cover
        raise ProgramError("PARSE_ERROR", "input nested too deeply") from None


def _describe(exc: UnexpectedInput, text: str) -> str:
    if isinstance(exc, UnexpectedEOF):
        return "unexpected end of input"
    if isinstance(exc, UnexpectedCharacters):
        pos = exc.pos_in_stream if isinstance(exc.pos_in_stream, int) else -1
        ch = text[pos] if 0 <= pos < len(text) else "?"
        return f"unexpected character {ch!r}"
    token = getattr(exc, "token", None)
    if token is not None and getattr(token, "type", "") == "$END":
        return "unexpected end of input"
    return f"unexpected {str(token)!r}" if token is not None else "syntax error"


# The line-wise fast path: a line that is exactly one simple fact (symbols and numbers only) is
# read with a regular expression; any other line is parsed by lark on its own; if any line does
# not parse on its own (a unit spanning lines, an error), the whole text goes through lark.
# tests/certify/test_syntax.py checks with hypothesis that both paths give identical units.
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
        chunk: list[Unit] = _run(line, "program", limits)
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
    with paused_collector(promote=True):  # many small acyclic objects: see cotaudit.certify.alloc
        got = _fast_program(text, limits) if fast else None
        units: list[Unit] = got if got is not None else _run(text, "program", limits)
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
    lit: tuple[Literal, int, int] = _run(text, "literal", limits, skolem)
    return _number_anonymous(lit[0], {})


def parse_query(text: str, limits: Limits = DEFAULT_LIMITS) -> Query:
    """``[label] ?- goal => answer.`` (label and answer optional)."""
    result: Query = _run(text, "query", limits)
    return result
