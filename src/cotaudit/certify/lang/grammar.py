"""The text syntax of predicate units (C-2): a lark LALR grammar, safety checks and limits (C-4).

The entry points are in :mod:`.parse`: ``parse_program(text)`` returns the units of a program;
``parse_unit`` exactly one unit; ``parse_literal`` one literal (certificates name their facts
this way). This module holds the grammar, the tree builder and the checks. Every problem is a
:class:`~cotaudit.certify.core.errors.ProgramError` with a stable reason (``PARSE_ERROR`` for syntax,
limits and duplicate labels; ``UNSAFE_RULE`` for safety) and ``line``/``col`` — never a lark
traceback. No ``eval``: strings are decoded with ``json.loads`` of the matched token.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, VisitError

from cotaudit.certify.core.canon import lone_surrogate
from cotaudit.certify.core.errors import ProgramError
from cotaudit.certify.lang.syntax import (
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


class TreeBuilder(Transformer[Token, Any]):
    """lark parse tree → units, literals and queries, with the limits of C-4 checked as it builds."""

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
        return finish_unit(Fact(label[0] if label else "", lit, pos), self.limits)

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
        return finish_unit(Rule(label[0] if label else "", head, tuple(body), calc, pos), self.limits)

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
        return Query(label, number_anonymous(goal, {}), expect, (line, col))


def number_anonymous(lit: Literal, seen: dict[int, int]) -> Literal:
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


def finish_unit(unit: Unit, limits: Limits) -> Unit:
    """Number anonymous variables, fill the default label, check safety."""
    seen: dict[int, int] = {}
    if isinstance(unit, Fact):
        out: Unit = Fact(unit.label, number_anonymous(unit.lit, seen), unit.pos)
    else:
        head = number_anonymous(unit.head, seen)
        body = tuple(BodyLit(number_anonymous(b.lit, seen), b.naf) for b in unit.body)
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


def run_grammar(text: str, start: str, limits: Limits, skolem: bool = False) -> Any:
    """Parse ``text`` from grammar rule ``start`` with lark; every failure is a ProgramError."""
    if len(text.encode("utf-8", "surrogatepass")) > limits.max_bytes:
        raise ProgramError(
            "PARSE_ERROR", f"text larger than {limits.max_bytes} bytes", detail={"limit": "max_bytes"}
        )
    try:
        tree = _parser(start).parse(text)
        return TreeBuilder(limits, skolem).transform(tree)
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
