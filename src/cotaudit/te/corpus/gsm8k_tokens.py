"""Tokens of a GSM8K solution line for the prose reader (:mod:`.gsm8k_prose`).

One regex pass (no nested quantifiers) splits the line into numerals, operators, ``=``, ``%``,
parentheses and words; then numerals are merged (space-grouped thousands, glued fractions,
mixed numbers, signs, vulgar fractions, decimals cut short) and words are marked as unknowns
(``2y``, ``y + 3``) or unit words. Every step is a single pass, so tokenising is linear.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cotaudit.te.corpus.gsm8k_numbers import numeral_text

_TOKEN = re.compile(
    r"(?P<num>(?:\$[ ]?)?(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?|(?:\$[ ]?)?\.[0-9]+)"
    r"|(?P<ws>[ \t\u00a0\u200b]+)"
    r"|(?P<op>//|\*\*|\^|[-+*/\u00d7\u00f7\u2212\u2013])"
    r"|(?P<eq>=)"
    r"|(?P<pct>%)"
    r"|(?P<lp>\()"
    r"|(?P<rp>\))"
    r"|(?P<word>[A-Za-z][A-Za-z'\u2019]*(?:/[A-Za-z]+)*)"
    r"|(?P<other>.)",
    re.DOTALL,
)
ASCII_OPS = {"\u00d7": "*", "\u00f7": "/", "\u2212": "-", "\u2013": "-"}
_WORD_OPS = {"plus": "+", "minus": "-", "times": "*"}
_BY_OPS = {"divided": "/", "multiplied": "*"}

# single-letter unit symbols: "60g" and "5m" are quantities, not coefficients of unknowns
_UNIT_LETTERS = frozenset("gmshlL")
_NOT_UNKNOWNS = frozenset({"a", "I"})  # the article and the pronoun, unless glued to a number


@dataclass(slots=True)
class Tok:
    kind: str  # num frac mixed op eq lp rp word var brk
    text: str  # TE text for num/frac/mixed, the operator for op, the word for word/var
    start: int
    end: int
    spaced: bool = False  # whitespace before it
    lone: bool = True  # a num: a plain numeral (no sign added later)


_VULGAR = {
    "\u00bc": "1/4",
    "\u00bd": "1/2",
    "\u00be": "3/4",
    "\u2153": "1/3",
    "\u2154": "2/3",
    "\u215b": "1/8",
}
_VULGAR_RE = re.compile("([0-9]?)([" + "".join(_VULGAR) + "])")
# a decimal cut short: 33.333... or 33.333…, read to the digits shown (so written with ≈)
_CUT = re.compile(r"(?<=[0-9])(?:\.\.\.|\u2026)(?=[ ]?%|[^.0-9]|$)")


def _normalise(line: str) -> str:
    line = _VULGAR_RE.sub(lambda m: (m.group(1) + " " if m.group(1) else "") + _VULGAR[m.group(2)], line)
    return _CUT.sub("", line)


def tokens(line: str, group_spaces: bool, unknowns: frozenset[str] = frozenset()) -> list[Tok]:
    raw: list[Tok] = []
    spaced = False
    for m in _TOKEN.finditer(_normalise(line)):
        kind = m.lastgroup or "other"
        if kind == "ws":
            spaced = True
            continue
        text = m.group()
        if kind == "op":
            text = ASCII_OPS.get(text, text)
        elif kind == "other":
            kind = "brk"
        raw.append(Tok(kind, text, m.start(), m.end(), spaced))
        spaced = False
    toks = _merge_numbers(raw, group_spaces)
    _mark_words(toks, unknowns)
    return toks


def glued(a: Tok, b: Tok) -> bool:
    return a.end == b.start


def _merge_numbers(raw: list[Tok], group_spaces: bool) -> list[Tok]:
    """Numerals with their %, space groups, fractions and mixed numbers as single tokens."""
    out: list[Tok] = []
    i = 0
    n = len(raw)
    while i < n:
        tok = raw[i]
        if tok.kind != "num":
            out.append(tok)
            i += 1
            continue
        text, end, j = tok.text, tok.end, i + 1
        digits = text.lstrip("$ ")
        if group_spaces and digits.isdigit() and len(digits) <= 3:
            while (
                j < n
                and j - i < 6  # up to quintillions
                and raw[j].kind == "num"
                and raw[j].start == end + 1
                and re.fullmatch(r"[0-9]{3}(?:\.[0-9]+)?", raw[j].text)
                and not (j + 1 < n and raw[j + 1].text == "/" and glued(raw[j], raw[j + 1]))
            ):
                text, end = text + raw[j].text, raw[j].end
                j += 1
                if "." in text:
                    break
        # a fraction written without spaces: NUM/NUM
        if (
            j + 1 < n
            and raw[j].text == "/"
            and raw[j + 1].kind == "num"
            and end == raw[j].start
            and raw[j].end == raw[j + 1].start
            and digits.isdigit()
            and raw[j + 1].text.isdigit()
            and len(digits) + len(raw[j + 1].text) <= 60  # int() below: no 5,000-digit runs
            and j == i + 1
            and int(raw[j + 1].text) != 0
            and not (j + 2 < n and raw[j + 2].text == "/" and glued(raw[j + 1], raw[j + 2]))
        ):
            frac = Tok(
                "frac", f"{numeral_text(text)}/{raw[j + 1].text}", tok.start, raw[j + 1].end, tok.spaced
            )
            whole = out[-1] if out else None
            proper = int(digits) < int(raw[j + 1].text)
            mixed = proper and whole is not None and whole.kind == "num" and whole.text.isdigit()
            if whole is not None and mixed and frac.spaced and not glued(whole, frac):
                out[-1] = Tok("mixed", f"({whole.text} + {frac.text})", whole.start, frac.end, whole.spaced)
                i = j + 2
                continue
            if (
                proper
                and len(out) >= 2
                and out[-1].kind == "word"
                and out[-1].text.lower() == "and"
                and out[-2].kind == "num"
                and out[-2].text.isdigit()
            ):
                whole = out[-2]
                out[-2:] = [
                    Tok("mixed", f"({whole.text} + {frac.text})", whole.start, frac.end, whole.spaced)
                ]
                i = j + 2
                continue
            out.append(frac)
            i = j + 2
            continue
        pct = ""
        if j < n and raw[j].kind == "pct" and raw[j].start - end <= 1:
            pct, end = "%", raw[j].end
            j += 1
        out.append(Tok("num", numeral_text(text) + pct, tok.start, end, tok.spaced))
        i = j
    return out


def _operand_end(tok: Tok | None) -> bool:
    return tok is not None and tok.kind in ("num", "frac", "mixed", "rp", "word", "var")


def _operand_start(tok: Tok | None) -> bool:
    return tok is not None and tok.kind in ("num", "frac", "mixed", "lp")


def _mark_words(toks: list[Tok], known_unknowns: frozenset[str] = frozenset()) -> None:
    """Word operators, ``x`` as times, and single-letter unknowns."""
    n = len(toks)
    for k, tok in enumerate(toks):
        if tok.kind != "word":
            continue
        low = tok.text.lower()
        nxt = toks[k + 1] if k + 1 < n else None
        prev = toks[k - 1] if k else None
        if low in _WORD_OPS or low == "equals":
            tok.kind, tok.text = ("eq", "=") if low == "equals" else ("op", _WORD_OPS[low])
        elif low in _BY_OPS and nxt is not None and nxt.kind == "word" and nxt.text.lower() == "by":
            tok.kind, tok.text = "op", _BY_OPS[low]
            nxt.kind = "skip"
        elif (
            low == "x" and _operand_end(prev) and _operand_start(nxt) and (prev is None or prev.kind != "var")
        ):
            tok.kind, tok.text = "op", "*"
    unknowns: set[str] = set(known_unknowns)
    for k, tok in enumerate(toks):
        if tok.kind != "word" or len(tok.text) != 1:
            continue
        prev = toks[k - 1] if k else None
        nxt = toks[k + 1] if k + 1 < n else None
        coefficient = prev is not None and prev.kind in ("num", "rp") and glued(prev, tok)
        if tok.text in _NOT_UNKNOWNS and not coefficient:
            continue
        if prev is not None and prev.kind == "num" and tok.text in _UNIT_LETTERS:
            continue  # "2.5 m", "60g": a quantity, unless the letter is an unknown elsewhere
        beside = not coefficient and any(
            t is not None and (t.kind in ("op", "eq") or (t.kind in ("lp", "rp") and _glued_any(t, tok)))
            for t in (prev, nxt)
        )
        if beside or (coefficient and tok.text not in _UNIT_LETTERS):
            unknowns.add(tok.text)
    for tok in toks:
        if tok.kind == "word" and tok.text in unknowns:
            tok.kind = "var"


def _glued_any(a: Tok, b: Tok) -> bool:
    return a.end == b.start or b.end == a.start
