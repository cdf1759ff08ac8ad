"""Safe expression parsing (TE-18 … TE-23): trace text → IR, with no ``eval`` anywhere.

Pipeline: (1) normalise Unicode operators (TE-20); (2) a linear-time regex pre-tokenizer
(TE-21) that values every numeral from its own text, rewrites percent, base-subscript and
thousands numerals into placeholders, renames keywords and refuses forbidden tokens; (3)
``ast.parse(mode="eval")`` on the rewritten, ASCII-only text; (4) a whitelist walk (TE-22)
that builds :mod:`cotaudit.te.ir` nodes. Nothing is ever executed.

The pre-tokenizer is a small regex scanner rather than :mod:`tokenize`: Python's tokenizer
reads ``4343_6`` and ``1_000`` as Python numerals and raises on unterminated strings, both of
which TE must intercept first (TE-21.2).
"""

from __future__ import annotations

import ast
import keyword
import re
import warnings
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Literal

from cotaudit.te import ir
from cotaudit.te.fastparse import parse_plain
from cotaudit.te.ir import FUNCTIONS, PREDICATES, Node

Mode = Literal["expr", "claim", "ans"]

MAX_BRACKET_DEPTH = 50
MAX_UNARY_RUN = 50
MAX_NODES = 500
MAX_DEPTH = 50
MAX_LITERAL_EXPONENT = 1000
MAX_LITERAL_DIGITS = 1000


class ExprError(Exception):
    """A rejected expression: TE_E013 (shape) or TE_E014 (size), at a 0-based offset."""

    def __init__(
        self,
        code: str,
        reason: str,
        pos: int,
        fragment: str = "",
        *,
        limit: str | None = None,
        value: str | None = None,
    ) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.pos = pos
        self.fragment = fragment
        self.limit = limit
        self.value = value


def _e013(reason: str, pos: int, fragment: str = "") -> ExprError:
    return ExprError("TE_E013", reason, pos, fragment)


# --- TE-20 normalisation -------------------------------------------------------------------

_NORMALISE: dict[str, str] = {
    "\u2212": "-",  # minus sign
    "\u2013": "-",  # en dash
    "\u00d7": "*",  # multiplication sign
    "\u00b7": "*",  # middle dot
    "\u22c5": "*",  # dot operator
    "\u2217": "*",  # asterisk operator
    "\u00f7": "/",
    "^": "**",
    "\u03c0": "pi",
    "\u221e": "oo",
    "\u2264": "<=",
    "\u2265": ">=",
    "\u2260": "!=",
    "\u00b2": "**2",
    "\u00b3": "**3",
    "\u00a0": " ",
}
_CLAIM_KEEP = frozenset({"\u2248", "\u00b1"})  # ≈ and ± survive into the claim tokenizer


def normalise(text: str, mode: Mode) -> tuple[str, list[int]]:
    """Apply TE-20; return the new text and, per character, its offset in ``text``."""
    if text.isascii() and "^" not in text:  # nothing to rewrite: the common case
        return text, list(range(len(text)))
    out: list[str] = []
    where: list[int] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\u221a" and i + 1 < n and text[i + 1] == "(":  # √( → sqrt(
            rep, width = "sqrt(", 2
        elif ch in _NORMALISE:
            rep, width = _NORMALISE[ch], 1
        else:
            if ord(ch) > 127 and not (mode == "claim" and ch in _CLAIM_KEEP):
                raise _e013(f"non-ASCII character {ch!r} (U+{ord(ch):04X})", i, ch)
            rep, width = ch, 1
        out.append(rep)
        where.extend([i] * len(rep))
        i += width
    return "".join(out), where


# --- TE-21 pre-tokenizer -------------------------------------------------------------------

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<radix>0[xXoObB][0-9A-Za-z_]*)
  | (?P<base>[0-9][0-9A-Za-z]*_(?:\{[0-9]*\}|[0-9]+))
  | (?P<num>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<tol>\+/-)
  | (?P<op>\*\*|//|<<|>>|<=|>=|==|!=|:=|~=|[-+*/()<>=,.%|&~@:\[\]{};!])
  | (?P<quote>["'])
  | (?P<approx>\u2248)
  | (?P<pm>\u00b1)
  | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)
_THOUSANDS = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?")
_CMP_OPS = frozenset({"<", ">", "<=", ">=", "==", "!=", "approx"})
_OPENERS = frozenset({"(", "[", "{"})
_CLOSERS = frozenset({")", "]", "}"})
_FORBIDDEN = {
    "|": "the operator '|' is not TE",
    "&": "the operator '&' is not TE",
    "~": "the operator '~' is not TE",
    "<<": "shift operators are not TE",
    ">>": "shift operators are not TE",
    "//": "floor division '//' is not TE; write floor(a / b)",
    "@": "the operator '@' is not TE",
    ";": "';' is not TE",
    "!": "'!' is not TE; write factorial(n)",
    ":=": "':=' may only follow the target name of an EQ or declaration",
}


@dataclass(frozen=True, slots=True)
class _Tok:
    kind: str  # num, name, op, ws
    text: str
    pos: int  # offset in the normalised text
    value: Fraction | None = None
    error: ExprError | None = None  # raised when the rewriter reaches it, so errors come left to right


def _numeral_value(text: str, pos: int) -> Fraction:
    """Exact value of a decimal numeral, refusing absurd exponents before computing (TE-21.4)."""
    mantissa, _, exponent = text.lower().partition("e")
    digits = sum(ch.isdigit() for ch in mantissa)
    if digits > MAX_LITERAL_DIGITS:
        raise ExprError(
            "TE_E014",
            "numeral has too many digits",
            pos,
            text[:40],
            limit="literal_digits",
            value=str(digits),
        )
    if exponent and abs(int(exponent)) > MAX_LITERAL_EXPONENT:
        raise ExprError(
            "TE_E014",
            "scientific exponent too large",
            pos,
            text[:40],
            limit="literal_exponent",
            value=exponent,
        )
    if mantissa.endswith("."):
        text = mantissa[:-1] + (("e" + exponent) if exponent else "")
    return Fraction(text)


def _base_value(text: str, pos: int) -> Fraction:
    digits, _, base_text = text.partition("_")
    base_text = base_text.strip("{}")
    if not base_text or base_text.startswith("0") or not 2 <= int(base_text) <= 36:
        raise _e013(
            f"invalid base in {text!r} (bases run from 2 to 36; '_' is not a digit separator)", pos, text
        )
    base = int(base_text)
    value = 0
    for ch in digits:
        d = int(ch) if ch.isdigit() else (ord(ch) - ord("A") + 10 if "A" <= ch <= "Z" else 99)
        if d >= base:
            raise _e013(f"digit {ch!r} is not valid in base {base}", pos, text)
        value = value * base + d
    return Fraction(value)


def _tokenize(src: str, mode: Mode) -> list[_Tok]:
    toks: list[_Tok] = []
    for m in _TOKEN.finditer(src):
        kind = m.lastgroup or "other"
        text, pos = m.group(), m.start()
        error: ExprError | None = None
        if kind == "ws":
            continue
        if kind == "radix":
            error = _e013("hexadecimal, octal and binary literals are not TE", pos, text)
        elif kind == "quote":
            error = _e013("string literals are not allowed in expressions", pos, text)
        elif kind == "other":
            error = _e013(f"unexpected character {text!r}", pos, text)
        elif (kind in ("approx", "pm", "tol") or text == "~=") and mode != "claim":
            error = _e013(f"{text!r} is only allowed in claims", pos, text)
        if error is not None:
            toks.append(_Tok("error", text, pos, error=error))
            break  # nothing to the right can be reported before this
        try:
            if kind == "base":
                toks.append(_Tok("num", text, pos, _base_value(text, pos)))
            elif kind == "num":
                toks.append(_Tok("num", text, pos, _numeral_value(text, pos)))
            elif kind == "approx" or text == "~=":
                toks.append(_Tok("op", "approx", pos))
            elif kind in ("pm", "tol"):
                toks.append(_Tok("op", "tol", pos))
            else:
                toks.append(_Tok(kind, text, pos))
        except ExprError as err:
            toks.append(_Tok("error", text, pos, error=err))
            break
    return toks


def _glued(prev: _Tok, tok: _Tok, src: str) -> bool:
    return prev.pos + len(prev.text) == tok.pos and src[prev.pos : tok.pos] == prev.text


def _merge_thousands(toks: list[_Tok], src: str, mode: Mode) -> list[_Tok]:
    """Join ``80,000`` into one numeral where it is a whole side (TE-21.3)."""
    if mode == "expr" or mode == "ans":
        # Whole EQ part, decl value or ANS: the entire text must be the numeral.
        stripped = src.strip()
        if toks and _THOUSANDS.fullmatch(stripped):
            pos = toks[0].pos
            return [_Tok("num", stripped, pos, _numeral_value(stripped.replace(",", ""), pos))]
        return toks
    out: list[_Tok] = []
    i = 0
    while i < len(toks):
        tok = toks[i]
        if tok.kind == "num" and _side_start(toks, i):
            j = i
            while (
                j + 2 < len(toks)
                and toks[j + 1].text == ","
                and toks[j + 2].kind == "num"
                and _glued(toks[j], toks[j + 1], src)
                and _glued(toks[j + 1], toks[j + 2], src)
            ):
                j += 2
            if j > i and (j + 1 >= len(toks) or _side_end(toks[j + 1])):
                text = src[tok.pos : toks[j].pos + len(toks[j].text)]
                if _THOUSANDS.fullmatch(text):
                    out.append(_Tok("num", text, tok.pos, _numeral_value(text.replace(",", ""), tok.pos)))
                    i = j + 1
                    continue
        out.append(tok)
        i += 1
    return out


def _side_start(toks: list[_Tok], i: int) -> bool:
    if i == 0:
        return True
    prev = toks[i - 1]
    if prev.kind == "op" and (prev.text in _CMP_OPS or prev.text == "tol"):
        return True
    if prev.kind == "name" and prev.text in ("and", "or", "not"):
        return True
    # A grouping '(' starts a side; a call's '(' starts an argument list.
    return prev.text == "(" and not (i >= 2 and toks[i - 2].kind == "name")


def _side_end(tok: _Tok) -> bool:
    return (tok.kind == "op" and (tok.text in _CMP_OPS or tok.text in ("tol", ")"))) or (
        tok.kind == "name" and tok.text in ("and", "or")
    )


def _is_operand_start(tok: _Tok) -> bool:
    return tok.kind in ("num", "name") or tok.text == "("


@dataclass(frozen=True, slots=True)
class _Rewritten:
    src: str
    where: list[int]  # per char of src: offset in the normalised text
    consts: dict[int, tuple[Fraction, str, int]]  # src offset -> (value, text, normalised offset)
    renamed: dict[str, str]


def _rewrite(toks: list[_Tok], norm: str, mode: Mode) -> _Rewritten:
    parts: list[str] = []
    where: list[int] = []
    consts: dict[int, tuple[Fraction, str, int]] = {}
    renamed: dict[str, str] = {}
    depth = 0
    unary_run = 0
    prev: _Tok | None = None

    def emit(text: str, pos: int) -> None:
        if parts:  # keep tokens apart, as the whitespace the scanner dropped did
            parts.append(" ")
            where.append(pos)
        parts.append(text)
        where.extend([pos] * len(text))

    i = 0
    while i < len(toks):
        tok = toks[i]
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        if tok.error is not None:
            raise tok.error
        if tok.kind == "num":
            if prev is not None and prev.kind in ("num", "name") and _glued(prev, tok, norm):
                raise _e013(f"implicit multiplication: write {prev.text}*{tok.text}", tok.pos, tok.text)
            value = tok.value if tok.value is not None else Fraction(0)
            text = tok.text
            if nxt is not None and nxt.text == "%":
                after = toks[i + 2] if i + 2 < len(toks) else None
                if _glued(tok, nxt, norm) and (after is None or not _is_operand_start(after)):
                    value, text = value / 100, tok.text + "%"
                    i += 1
                    nxt = after
            if nxt is not None and nxt.kind in ("num", "name") and _glued(tok, nxt, norm):
                raise _e013(
                    f"implicit multiplication: write {tok.text}*{nxt.text}", tok.pos, tok.text + nxt.text
                )
            emit("0", tok.pos)
            consts[len(where) - 1] = (value, text, tok.pos)
            unary_run = 0
        elif tok.kind == "name":
            name = tok.text
            if name.startswith("__"):
                raise _e013(f"names may not start with '__': {name!r}", tok.pos, name)
            if name in ("True", "False", "None"):
                raise _e013(f"{name} is not a TE value", tok.pos, name)
            if name in ("and", "or", "not"):
                unary_run = unary_run + 1 if name == "not" else 0
                if unary_run > MAX_UNARY_RUN:
                    raise _e013("more than 50 consecutive unary operators", tok.pos, name)
                emit(name, tok.pos)
            else:
                if keyword.iskeyword(name):
                    renamed["__kw_" + name] = name
                    name = "__kw_" + name
                emit(name, tok.pos)
                unary_run = 0
        else:  # operators
            text = tok.text
            if text == "%":
                raise _e013("'%' is only a percent sign right after a number; use mod(a, b)", tok.pos, text)
            if text in _FORBIDDEN:
                raise _e013(_FORBIDDEN[text], tok.pos, text)
            if text in _OPENERS:
                depth += 1
                if depth > MAX_BRACKET_DEPTH:
                    raise _e013("brackets nested more than 50 deep", tok.pos, text)
            elif text in _CLOSERS:
                depth -= 1
            if text in ("+", "-") and (prev is None or not _ends_operand(prev)):
                unary_run += 1
                if unary_run > MAX_UNARY_RUN:
                    raise _e013("more than 50 consecutive unary operators", tok.pos, text)
            elif text not in ("+", "-"):
                unary_run = 0
            if text == "approx":
                emit("is", tok.pos)
            elif text == "tol":
                emit("|", tok.pos)
            else:
                emit(text, tok.pos)
        prev = tok
        i += 1
    return _Rewritten("".join(parts), where, consts, renamed)


def _ends_operand(tok: _Tok) -> bool:
    return (tok.kind in ("num",) or (tok.kind == "name" and tok.text not in ("and", "or", "not"))) or (
        tok.text in _CLOSERS
    )


# --- TE-22 whitelist walk ------------------------------------------------------------------

_BINOPS: dict[type, str] = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}
_CMPOPS: dict[type, str] = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Is: "approx",
}


class _Walker:
    def __init__(
        self, rw: _Rewritten, where: list[int], mode: Mode, functions: frozenset[tuple[str, int]]
    ) -> None:
        self.rw = rw
        self.where = where  # normalised offset -> original offset
        self.mode = mode
        self.functions = dict(functions)  # user function name -> number of parameters
        self.nodes = 0
        self.max_depth = 0
        self.violations: list[ExprError] = []

    def pos(self, node: ast.AST) -> int:
        off = getattr(node, "col_offset", 0)
        off = min(max(off, 0), len(self.rw.where) - 1) if self.rw.where else 0
        return self.where[self.rw.where[off]] if self.rw.where else 0

    def bad(self, node: ast.AST, reason: str) -> Node:
        self.violations.append(_e013(reason, self.pos(node), type(node).__name__))
        return ir.Num(Fraction(0), "0", self.pos(node))

    def name_of(self, ident: str) -> str:
        return self.rw.renamed.get(ident, ident)

    def walk(self, node: ast.AST, depth: int, *, top: bool = False, claim: bool = False) -> Node:
        self.nodes += 1
        self.max_depth = max(self.max_depth, depth)
        if depth > MAX_DEPTH + 1:
            # Deeper structure is refused as E014 below; stop descending.
            return ir.Num(Fraction(0), "0", self.pos(node))
        if isinstance(node, ast.Constant):
            off = node.col_offset
            if off in self.rw.consts and isinstance(node.value, int) and not isinstance(node.value, bool):
                value, text, npos = self.rw.consts[off]
                return ir.Num(value, text, self.where[npos])
            return self.bad(node, "only numeric literals are allowed")
        if isinstance(node, ast.Name):
            ident = self.name_of(node.id)
            if ident in PREDICATES or ident == "unit" or ident == "param":
                return self.bad(node, f"{ident!r} is reserved and cannot be used as a value")
            if ident in FUNCTIONS:
                return self.bad(node, f"function {ident!r} used without a call")
            return ir.Name(ident, self.pos(node))
        if isinstance(node, ast.BinOp):
            op = _BINOPS.get(type(node.op))
            if op is None:
                if claim and isinstance(node.op, ast.BitOr):
                    return self.bad(node, "'±' may only follow the value of a single '=='")
                return self.bad(node, f"operator {type(node.op).__name__} is not TE")
            left = self.walk(node.left, depth + 1)
            right = self.walk(node.right, depth + 1)
            return ir.BinOp(op, left, right, self.pos(node))
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub | ast.UAdd):
                op = "-" if isinstance(node.op, ast.USub) else "+"
                return ir.Unary(op, self.walk(node.operand, depth + 1), self.pos(node))
            if isinstance(node.op, ast.Not) and claim:
                return ir.Not(self.walk_claim(node.operand, depth + 1), self.pos(node))
            return self.bad(node, f"operator {type(node.op).__name__} is not allowed here")
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.attr in ("value", "unit"):
                ident = self.name_of(node.value.id)
                return ir.Attr(ident, node.attr, self.pos(node))
            return self.bad(node, "attributes other than ID.value / ID.unit are not allowed")
        if isinstance(node, ast.Call):
            return self.walk_call(node, depth, claim=claim)
        if isinstance(node, ast.Tuple) and top and self.mode == "ans":
            items = tuple(self.walk(e, depth + 1) for e in node.elts)
            return ir.Tup(items, self.pos(node))
        if isinstance(node, ast.Compare | ast.BoolOp):
            if claim:
                return self.walk_claim(node, depth)
            return self.bad(node, "comparisons are only allowed in CHECK claims")
        return self.bad(node, f"{type(node).__name__} is not allowed in TE expressions")

    def walk_call(self, node: ast.Call, depth: int, *, claim: bool) -> Node:
        if not isinstance(node.func, ast.Name):
            return self.bad(node, "only named functions may be called")
        func = self.name_of(node.func.id)
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            return self.bad(node, f"{func}() takes no keyword or starred arguments")
        nargs = len(node.args)
        if func in PREDICATES:
            if not claim:
                return self.bad(node, f"predicate {func}() is only allowed in CHECK claims")
            if nargs != 1:
                return self.bad(node, f"{func}() takes exactly 1 argument ({nargs} given)")
            return ir.Pred(func, self.walk(node.args[0], depth + 1), self.pos(node))
        if func in ("Sum", "Product"):
            return self.walk_big(node, func, depth)
        if func in FUNCTIONS:
            lo, hi = FUNCTIONS[func]
            if nargs < lo or (hi is not None and nargs > hi):
                want = f"{lo}" if lo == hi else (f"at least {lo}" if hi is None else f"{lo} to {hi}")
                return self.bad(node, f"{func}() takes {want} argument(s) ({nargs} given)")
            args = tuple(self.walk(a, depth + 1) for a in node.args)
            return ir.Call(func, args, self.pos(node))
        if func in self.functions:
            if nargs != self.functions[func]:
                return self.bad(node, f"{func}() takes {self.functions[func]} argument(s) ({nargs} given)")
            args = tuple(self.walk(a, depth + 1) for a in node.args)
            return ir.Call(func, args, self.pos(node), user=True)
        return self.bad(node.func, f"unknown function {func!r}")

    def walk_big(self, node: ast.Call, func: str, depth: int) -> Node:
        if len(node.args) != 2:
            return self.bad(node, f"{func}() takes 2 arguments: {func}(f, (k, a, b))")
        limits = node.args[1]
        if not (
            isinstance(limits, ast.Tuple) and len(limits.elts) == 3 and isinstance(limits.elts[0], ast.Name)
        ):
            return self.bad(limits, f"{func}() limits must be (index, lower, upper)")
        index = self.name_of(limits.elts[0].id)
        if index in ir.RESERVED or index in ir.CONSTANTS - ir.SHADOWABLE_CONSTANTS:
            return self.bad(limits.elts[0], f"{index!r} is reserved and cannot be an index")
        body = self.walk(node.args[0], depth + 1)
        lo = self.walk(limits.elts[1], depth + 1)
        hi = self.walk(limits.elts[2], depth + 1)
        return ir.Big(func, body, index, lo, hi, self.pos(node))

    def walk_claim(self, node: ast.AST, depth: int) -> Node:
        self.nodes += 1
        self.max_depth = max(self.max_depth, depth)
        if isinstance(node, ast.BoolOp):
            op = "and" if isinstance(node.op, ast.And) else "or"
            values = tuple(self.walk_claim(v, depth + 1) for v in node.values)
            return ir.BoolOp(op, values, self.pos(node))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return ir.Not(self.walk_claim(node.operand, depth + 1), self.pos(node))
        if isinstance(node, ast.Compare):
            ops: list[str] = []
            for cmp in node.ops:
                name = _CMPOPS.get(type(cmp))
                if name is None:
                    return self.bad(node, f"comparison {type(cmp).__name__} is not TE")
                ops.append(name)
            first = self.walk(node.left, depth + 1)
            rest: list[Node] = []
            tol: Node | None = None
            for k, comp in enumerate(node.comparators):
                if isinstance(comp, ast.BinOp) and isinstance(comp.op, ast.BitOr):
                    if len(ops) != 1 or ops[0] != "==" or k != len(node.comparators) - 1:
                        return self.bad(comp, "'±' may only follow the value of a single '=='")
                    rest.append(self.walk(comp.left, depth + 1))
                    tol = self.walk(comp.right, depth + 1)
                else:
                    rest.append(self.walk(comp, depth + 1))
            for op, rhs in zip(ops, rest, strict=True):
                if op == "approx" and not _is_numeric_literal(rhs):
                    return self.bad(node, "'≈' must be followed by a numeric literal")
            return ir.Compare(first, tuple(ops), tuple(rest), tol, self.pos(node))
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and self.name_of(node.func.id) in PREDICATES
        ):
            return self.walk_call(node, depth, claim=True)
        return self.bad(node, "a claim must be a comparison or a predicate such as is_integer(x)")


def _is_numeric_literal(node: Node) -> bool:
    if isinstance(node, ir.Unary):
        return isinstance(node.operand, ir.Num)
    return isinstance(node, ir.Num)


@lru_cache(maxsize=4096)
def _parse_cached(text: str, mode: Mode, functions: frozenset[tuple[str, int]]) -> Node | ExprError:
    try:
        return _parse(text, mode, functions)
    except ExprError as err:
        return err


def parse(text: str, mode: Mode = "expr", functions: frozenset[tuple[str, int]] = frozenset()) -> Node:
    """Parse one expression (or claim) into IR; raise :class:`ExprError` on rejection.

    ``functions`` are the user functions declared so far (TE-33), as (name, arity) pairs.
    Positions in the IR and in errors are 0-based offsets into ``text``.
    """
    result = _parse_cached(text, mode, functions)
    if isinstance(result, ExprError):
        raise result
    return result


# ast.parse warns about constructs such as `0 is 0` (our `≈` surrogate); those warnings are
# about trace text, never about code, so they are silenced for this one source name only
# (a per-call catch_warnings() would be slow and is not thread-safe).
_SOURCE_NAME = "<cotaudit-te-expression>"
warnings.filterwarnings("ignore", category=SyntaxWarning, module=re.escape(_SOURCE_NAME))

_PLAIN_NUMBER = re.compile(r"\s*([0-9]{1,15})(?:\.([0-9]{1,15}))?\s*")


def _parse(text: str, mode: Mode, functions: frozenset[tuple[str, int]]) -> Node:
    plain = _PLAIN_NUMBER.fullmatch(text)
    if plain:  # a bare numeral, most GIVEN values and claimed parts: no tokenizer, no ast
        whole, frac = plain.group(1), plain.group(2)
        value = Fraction(int(whole + (frac or "")), 10 ** len(frac or ""))
        return ir.Num(value, text.strip(), plain.start(1))
    fast = parse_plain(text, dict(functions), claim=mode == "claim")
    if fast is not None:  # plain arithmetic or a plain comparison: same IR, no ast
        return fast
    return _parse_full(text, mode, functions)


def _parse_full(text: str, mode: Mode, functions: frozenset[tuple[str, int]]) -> Node:
    """The whole TE-21 → ast → TE-22 pipeline (the one definition of what TE accepts)."""
    norm, where = normalise(text, mode)
    if not norm.strip():
        raise _e013("empty expression", 0, "")
    try:
        toks = _tokenize(norm, mode)
        toks = _merge_thousands(toks, norm, mode)
        if sum(t.kind in ("num", "name") for t in toks) > MAX_NODES:
            raise ExprError(
                "TE_E014", "expression has more than 500 nodes", 0, "", limit="nodes", value=">500"
            )
        rw = _rewrite(toks, norm, mode)
    except ExprError as err:  # positions so far are in the normalised text: map them back
        err.pos = where[min(err.pos, len(where) - 1)] if where else 0
        raise
    src = rw.src
    try:
        tree = ast.parse(src, filename=_SOURCE_NAME, mode="eval")
    except SyntaxError as exc:
        off = max((exc.offset or 1) - 1, 0)  # 1-based → 0-based
        pos = where[rw.where[min(off, len(rw.where) - 1)]] if rw.where else 0
        raise _e013(f"syntax error: {exc.msg}", pos, text[pos : pos + 20]) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise _e013(f"cannot parse expression ({type(exc).__name__})", 0, text[:20]) from None
    walker = _Walker(rw, where, mode, functions)
    body = tree.body
    result = walker.walk_claim(body, 1) if mode == "claim" else walker.walk(body, 1, top=True)
    if walker.violations:
        raise min(walker.violations, key=lambda e: e.pos)
    if walker.nodes > MAX_NODES:
        raise ExprError(
            "TE_E014", "expression has more than 500 nodes", 0, "", limit="nodes", value=str(walker.nodes)
        )
    if walker.max_depth > MAX_DEPTH:
        raise ExprError("TE_E014", "expression nested more than 50 deep", 0, "", limit="depth", value=">50")
    return result


def literal_tolerance(text: str) -> Fraction:
    """Half a unit in the last written place of a numeric literal (TE-28): ``33.33`` → 1/200."""
    t = text.strip().lstrip("+-").replace(",", "")
    mantissa, _, exponent = t.lower().partition("e")
    decimals = len(mantissa.partition(".")[2]) if "." in mantissa else 0
    exp = int(exponent) if exponent else 0
    return Fraction(1, 2) * Fraction(10) ** (exp - decimals)
