"""The tokens of a step's math view, for the claim reader (:mod:`cotaudit.cot.claims`).

A linear-time tokenizer (numerals, words, LaTeX commands, operators, ``=``/``≈``, percents,
currency, ellipses), numerals merged across thousands separators and mixed numbers, and the
:class:`Side` a reader builds from them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from cotaudit.cot.mathview import THIN

MAX_SIDE_TOKENS = 400

_TOKEN = re.compile(
    r"(?P<num>[0-9]+(?:\.[0-9]+)?|\.[0-9]+)"
    r"|(?P<word>[A-Za-z]+(?:'[A-Za-z]+)?)"
    r"|(?P<cmd>\\[A-Za-z]+)"
    r"|(?P<op>\*\*|[-+*/()])"
    r"|(?P<eq>=|\u2248|\u2243)"
    r"|(?P<pct>%)"
    r"|(?P<cur>[$\u20ac\u00a3])"
    r"|(?P<ell>\.\.\.|\u2026)"
    r"|(?P<ws>[ \t\u2009]+)"
    r"|(?P<other>.)",
    re.DOTALL,
)
APPROX_WORDS = frozenset({"about", "approximately", "approx", "roughly", "around", "nearly", "almost"})
FUNCTION_WORDS = frozenset(
    {
        "sin",
        "cos",
        "tan",
        "log",
        "ln",
        "exp",
        "sqrt",
        "mod",
        "gcd",
        "lcm",
        "max",
        "min",
        "det",
        "floor",
        "ceil",
    }
)
# Words that end a unit phrase: they carry the sentence, not the quantity.
_STOP_WORDS = frozenset(
    {
        "of", "times", "x", "and", "or", "is", "are", "was", "were", "be", "so", "then", "which",
        "that", "to", "for", "from", "in", "on", "at", "by", "with", "plus", "minus", "equals",
        "the", "a", "an", "it", "this", "we", "he", "she", "they", "if", "but", "as", "than",
        "each", "left", "more", "less", "remaining", "total", "divided", "multiplied", "added",
        "subtract", "subtracted", "gives", "get", "gets", "makes", "mod", "remainder",
    }
)  # fmt: skip
# Unit abbreviations that may be glued to a number (``5kg``); any other glued letters make it
# something else (``2x``, ``3rd``, ``10am``).
GLUED_UNITS = frozenset(
    {"km", "kg", "cm", "mm", "ml", "lb", "lbs", "oz", "ft", "hr", "hrs", "min", "mins", "sec", "secs",
     "mph", "kph", "mg", "gb", "mb", "kb", "yd", "yds", "mi", "sq", "pcs", "usd"}
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Tok:
    kind: str
    text: str
    pos: int  # offset in the view
    glued_left: bool  # no space between this token and the one before
    value: str = ""  # for numerals: the TE literal (commas and spaces removed)
    decimals: int = 0


@dataclass(slots=True)
class Side:
    """One side of a claim: its TE text, where it is, and what the tolerance needs to know."""

    te: str
    start: int  # token index
    end: int  # token index past the side
    operators: int = 0
    literal: Tok | None = None  # the side is one numeral (possibly a percent)
    percent: bool = False
    units: list[str] = field(default_factory=list)
    decimal_literals: list[tuple[int, int, int]] = field(default_factory=list)  # (te start, end, decimals)
    ambiguous: str | None = None
    first_literal_te: str | None = None


def tokens(view: str) -> list[Tok]:
    toks: list[Tok] = []
    prev_end = -1
    for m in _TOKEN.finditer(view):
        kind = m.lastgroup or "other"
        if kind == "ws":
            prev_end = -1
            continue
        glued = m.start() == prev_end
        prev_end = m.end()
        text = m.group()
        if kind == "num":
            toks.append(Tok("num", text, m.start(), glued, text, len(text.partition(".")[2])))
        else:
            toks.append(Tok(kind, text, m.start(), glued))
    return _merge_numerals(toks, view)


def _merge_numerals(toks: list[Tok], view: str) -> list[Tok]:
    """Thousands groups (``18,000``, ``18 000``, ``18\\,000``) become one numeral."""
    out: list[Tok] = []
    i = 0
    n = len(toks)
    while i < n:
        t = toks[i]
        if t.kind == "num" and "." not in t.text and len(t.text) <= 3 and not _after_numeral(out):
            digits = t.text
            j = i
            last = t
            while j + 1 < n:
                nxt = toks[j + 1]
                if (
                    nxt.kind == "other"
                    and nxt.text == ","
                    and nxt.glued_left
                    and j + 2 < n
                    and toks[j + 2].kind == "num"
                    and toks[j + 2].glued_left
                    and len(toks[j + 2].text.partition(".")[0]) == 3
                    and "." not in digits
                ):
                    last = toks[j + 2]
                    digits += last.text
                    j += 2
                    continue
                if (
                    nxt.kind == "num"
                    and not nxt.glued_left
                    and len(nxt.text.partition(".")[0]) == 3
                    and "." not in digits
                    and _space_between(view, last, nxt)
                    and not _fraction_follows(toks, j + 1)
                ):
                    last = nxt
                    digits += nxt.text
                    j += 1
                    continue
                break
            if j > i:
                out.append(Tok("num", view[t.pos : last.pos + len(last.text)], t.pos, t.glued_left, digits,
                               len(digits.partition(".")[2])))  # fmt: skip
                i = j + 1
                continue
        out.append(t)
        i += 1
    return out


def _after_numeral(out: list[Tok]) -> bool:
    """A numeral right after another numeral or a comma is part of a list, not a thousands group."""
    return bool(out) and (out[-1].kind == "num" or out[-1].text == ",")


def _space_between(view: str, a: Tok, b: Tok) -> bool:
    gap = view[a.pos + len(a.text) : b.pos]
    return gap in (" ", THIN)


def _fraction_follows(toks: list[Tok], j: int) -> bool:
    return j + 1 < len(toks) and toks[j + 1].text == "/" and toks[j + 1].glued_left


def is_identifier(t: Tok) -> bool:
    """A token that names a mathematical object: a variable, a constant, a function, a command."""
    if t.kind == "cmd":
        return True
    if t.kind == "word":
        return len(t.text) == 1 or t.text.lower() in FUNCTION_WORDS
    return t.kind == "other" and t.text.isalpha()  # Greek and other letters


def unit_word(t: Tok) -> bool:
    return t.kind == "word" and len(t.text) > 1 and t.text.lower() not in _STOP_WORDS and not is_identifier(t)
