"""TE-20 normalisation and the TE-21 pre-tokenizer: trace text → a rewritten, ASCII-only source.

A linear-time regex scanner (not :mod:`tokenize`, which reads ``4343_6`` and ``1_000`` as Python
numerals and raises on unterminated strings) values every numeral from its own text, turns
percent, base-subscript and thousands numerals into placeholders, renames keywords, refuses
forbidden tokens, and keeps, for every character it emits, the offset it came from — so
diagnostics point at the trace's own columns. The output goes to ``ast.parse`` in
:mod:`cotaudit.te.expr`; nothing is ever executed.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from cotaudit.errors import CotauditError

Mode = Literal["expr", "claim", "ans"]

MAX_BRACKET_DEPTH = 50
MAX_UNARY_RUN = 50
MAX_NODES = 500
MAX_DEPTH = 50
MAX_LITERAL_EXPONENT = 1000
MAX_LITERAL_DIGITS = 1000


class ExprError(CotauditError):
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


def e013(reason: str, pos: int, fragment: str = "") -> ExprError:
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
                raise e013(f"non-ASCII character {ch!r} (U+{ord(ch):04X})", i, ch)
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
        raise e013(
            f"invalid base in {text!r} (bases run from 2 to 36; '_' is not a digit separator)", pos, text
        )
    base = int(base_text)
    value = 0
    for ch in digits:
        d = int(ch) if ch.isdigit() else (ord(ch) - ord("A") + 10 if "A" <= ch <= "Z" else 99)
        if d >= base:
            raise e013(f"digit {ch!r} is not valid in base {base}", pos, text)
        value = value * base + d
    return Fraction(value)


def tokenize_expr(src: str, mode: Mode) -> list[_Tok]:
    toks: list[_Tok] = []
    for m in _TOKEN.finditer(src):
        kind = m.lastgroup or "other"
        text, pos = m.group(), m.start()
        error: ExprError | None = None
        if kind == "ws":
            continue
        if kind == "radix":
            error = e013("hexadecimal, octal and binary literals are not TE", pos, text)
        elif kind == "quote":
            error = e013("string literals are not allowed in expressions", pos, text)
        elif kind == "other":
            error = e013(f"unexpected character {text!r}", pos, text)
        elif (kind in ("approx", "pm", "tol") or text == "~=") and mode != "claim":
            error = e013(f"{text!r} is only allowed in claims", pos, text)
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


def merge_thousands(toks: list[_Tok], src: str, mode: Mode) -> list[_Tok]:
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
class Rewritten:
    src: str
    where: list[int]  # per char of src: offset in the normalised text
    consts: dict[int, tuple[Fraction, str, int]]  # src offset -> (value, text, normalised offset)
    renamed: dict[str, str]


def rewrite(toks: list[_Tok], norm: str, mode: Mode) -> Rewritten:
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
                raise e013(f"implicit multiplication: write {prev.text}*{tok.text}", tok.pos, tok.text)
            value = tok.value if tok.value is not None else Fraction(0)
            text = tok.text
            if nxt is not None and nxt.text == "%":
                after = toks[i + 2] if i + 2 < len(toks) else None
                if _glued(tok, nxt, norm) and (after is None or not _is_operand_start(after)):
                    value, text = value / 100, tok.text + "%"
                    i += 1
                    nxt = after
            if nxt is not None and nxt.kind in ("num", "name") and _glued(tok, nxt, norm):
                raise e013(
                    f"implicit multiplication: write {tok.text}*{nxt.text}", tok.pos, tok.text + nxt.text
                )
            emit("0", tok.pos)
            consts[len(where) - 1] = (value, text, tok.pos)
            unary_run = 0
        elif tok.kind == "name":
            name = tok.text
            if name.startswith("__"):
                raise e013(f"names may not start with '__': {name!r}", tok.pos, name)
            if name in ("True", "False", "None"):
                raise e013(f"{name} is not a TE value", tok.pos, name)
            if name in ("and", "or", "not"):
                unary_run = unary_run + 1 if name == "not" else 0
                if unary_run > MAX_UNARY_RUN:
                    raise e013("more than 50 consecutive unary operators", tok.pos, name)
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
                raise e013("'%' is only a percent sign right after a number; use mod(a, b)", tok.pos, text)
            if text in _FORBIDDEN:
                raise e013(_FORBIDDEN[text], tok.pos, text)
            if text in _OPENERS:
                depth += 1
                if depth > MAX_BRACKET_DEPTH:
                    raise e013("brackets nested more than 50 deep", tok.pos, text)
            elif text in _CLOSERS:
                depth -= 1
            if text in ("+", "-") and (prev is None or not _ends_operand(prev)):
                unary_run += 1
                if unary_run > MAX_UNARY_RUN:
                    raise e013("more than 50 consecutive unary operators", tok.pos, text)
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
    return Rewritten("".join(parts), where, consts, renamed)


def _ends_operand(tok: _Tok) -> bool:
    return (tok.kind in ("num",) or (tok.kind == "name" and tok.text not in ("and", "or", "not"))) or (
        tok.text in _CLOSERS
    )
