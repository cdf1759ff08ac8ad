"""Numbers in GSM8K text for the TE converter (TE-50 steps 2–4).

* :func:`scan_question` finds the numbers a question states: digit numerals with an optional
  ``$``, thousands commas, decimals and ``%`` (glued or after one space); thousands groups
  separated by spaces after ``$`` or ending in ``000`` (``$12 500``, ``40 000``); fractions
  ``a/b``; mixed numbers ``a b/c`` and ``a and b/c`` (a proper fraction); and number words.
  It skips ordinals (``3rd``), clock times (``3:30``) and numerals glued to letters
  (``10am``, ``A4``).
* :func:`normalise_lhs` writes an annotation's side as TE text (prose equations are read by
  :mod:`cotaudit.te.corpus.gsm8k_prose`).
* :func:`arithmetic`, :func:`result_numeral` and :func:`constant` parse an equation's sides
  with the TE parser and value them exactly; :func:`result_tolerance` is TE-28's half unit.

Every regex is linear-time (no nested quantifiers over the same characters), as TE-60 asks of
anything that reads untrusted text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from cotaudit.te import ir
from cotaudit.te.evaluate import Evaluator, UserFunction
from cotaudit.te.expr import ExprError, literal_tolerance, parse
from cotaudit.te.numeric import EvalError, LimitError, Limits, NeedsSymbolic, Poisoned, Value

# fmt: off
_UNITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
          "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
          "eighteen", "nineteen")
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
# fmt: on
NUMBER_WORDS: dict[str, Fraction] = {
    **{w: Fraction(i) for i, w in enumerate(_UNITS)},
    **{w: Fraction(20 + 10 * i) for i, w in enumerate(_TENS)},
    "dozen": Fraction(12),
    "half": Fraction(1, 2),
    "twice": Fraction(2),
    "double": Fraction(2),
    "triple": Fraction(3),
    "thrice": Fraction(3),
}

# Compounds first, so "twenty-five" is one number and not "twenty" and "five".
_WORD = re.compile(
    r"\b(?:(?P<tens>" + "|".join(_TENS) + r")-(?P<unit>" + "|".join(_UNITS[1:10]) + r")"
    r"|(?P<word>" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r"))\b",
    re.IGNORECASE,
)

# A digit numeral in a question (at most 30 digits a part: a longer run is no quantity, and
# int() refuses more than 4,300 digits). The look-behinds refuse a numeral glued to a letter, digit,
# '.' or ',', or following "d:" or "d/" (clock times, dates); the look-ahead refuses a
# following letter (ordinals, "10am") or a further decimal, fraction or clock part. A rate
# such as "$12/hour" still gives 12.
_NUMERAL = re.compile(
    r"(?P<dollar>\$\s?)?"
    r"(?<![\w.,])(?<![0-9][:/])"
    r"(?:(?P<mw>[0-9]{1,30})[ ](?:and[ ])?(?P<mn>[0-9]{1,30})/(?P<md>[0-9]{1,30})"
    r"|(?P<fn>[0-9]{1,30})/(?P<fd>[0-9]{1,30})"
    r"|(?P<num>[0-9]{1,3}(?:,[0-9]{3}){1,10}(?:\.[0-9]{1,30})?|[0-9]{1,30}(?:\.[0-9]{1,30})?|\.[0-9]{1,30}))"
    r"(?P<pct>[ ]?%)?"
    r"(?![\w]|[./:][0-9])"
)


@dataclass(frozen=True, slots=True)
class Mention:
    """One number stated in a question: where, its exact value, its TE text, and ``$``."""

    pos: int
    value: Fraction
    text: str  # as written, without '$' and commas; a mixed number as "a + b/c"
    dollar: bool


def numeral_text(raw: str) -> str:
    """A written numeral as a TE literal: drop ``$``, commas and spaces; ``.5`` → ``0.5``.

    ``5.`` becomes ``5``; a sign, a trailing ``%`` and a ``/`` (``3/4``) are kept.
    """
    text = raw.replace("$", "").replace(",", "").replace(" ", "")
    sign = ""
    if text[:1] in ("+", "-"):
        sign, text = text[0], text[1:]
    pct = ""
    if text.endswith("%"):
        text, pct = text[:-1], "%"
    if text.startswith("."):
        text = "0" + text
    if text.endswith("."):
        text = text[:-1]
    return sign + text + pct


# Thousands separated by single spaces: after "$", or when the last group is 000. Rewritten to
# commas in place (same length, so positions hold) before the numerals are scanned. A run of
# space-separated digit groups is found whole (linear) and then checked.
_DIGIT_RUN = re.compile(r"[0-9]+(?: [0-9]+)+")


def _spaced_thousands(question: str) -> str:
    parts: list[str] = []
    pos = 0
    for m in _DIGIT_RUN.finditer(question):
        groups = m.group().split(" ")
        before = question[max(0, m.start() - 2) : m.start()]
        after = question[m.end() : m.end() + 2]
        valid = (
            len(groups) <= 6  # up to quintillions: longer runs are lists of numbers
            and len(groups[0]) <= 3
            and all(len(g) == 3 for g in groups[1:])
            and before[-1:] not in tuple("0123456789.,")
            and not (after[:1] in ("/", ",") or (after[:1] == "." and after[1:2].isdigit()))
        )
        if valid and (before.rstrip().endswith("$") or groups[-1] == "000"):
            parts.append(question[pos : m.start()] + ",".join(groups))
            pos = m.end()
    parts.append(question[pos:])
    return "".join(parts)


def scan_question(question: str) -> list[Mention]:
    """Every number the question states, in order of appearance (repeats included)."""
    found: list[Mention] = []
    question = _spaced_thousands(question)
    for m in _NUMERAL.finditer(question):
        pct = m.group("pct") is not None
        if m.group("mw") is not None or m.group("fn") is not None:
            whole = int(m.group("mw")) if m.group("mw") is not None else None
            num, den = (m.group("mn"), m.group("md")) if whole is not None else (m.group("fn"), m.group("fd"))
            if int(den) == 0 or pct:  # "1/0" is no number, "1/2%" too odd to guess at
                continue
            if whole is not None and int(num) >= int(den):  # "3 7/2" is no mixed number
                found.append(Mention(m.start("mw"), Fraction(whole), str(whole), bool(m["dollar"])))
                whole = None
            value = Fraction(int(num), int(den)) + (whole or 0)
            text = f"{num}/{den}" if whole is None else f"{whole} + {num}/{den}"
            at = m.start("mw") if whole is not None else m.start("mn") if m.group("mw") else m.start("fn")
            found.append(Mention(at, value, text, bool(m["dollar"])))
            continue
        text = numeral_text(m.group("num") + ("%" if pct else ""))
        value = Fraction(text.rstrip("%")) / (100 if pct else 1)
        found.append(Mention(m.start("num"), value, text, m.group("dollar") is not None))
    for w in _WORD.finditer(question):
        if w.group("tens") is not None:
            value = NUMBER_WORDS[w.group("tens").lower()] + NUMBER_WORDS[w.group("unit").lower()]
        else:
            value = NUMBER_WORDS[w.group("word").lower()]
        text = str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
        found.append(Mention(w.start(), value, text, False))
    found.sort(key=lambda mention: mention.pos)
    return found


# --- annotation sides -----------------------------------------------------------------------

_LHS_NUM = r"(?:\$\s?)?(?:[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?|\.[0-9]+)(?:[ ]?%)?"
_LHS_NUM_RE = re.compile(_LHS_NUM)
_ASCII_OPS = str.maketrans({"\u00d7": "*", "\u00f7": "/", "\u2212": "-", "\u2013": "-"})
_X_OP = re.compile(r"(?<=[0-9).%])\s*[xX]\s*(?=[0-9(.$])")  # "3 x 4", "3x4", "(2)x(3)"


def normalise_lhs(text: str) -> str:
    """ASCII operators (TE-20), ``x`` between numbers as ``*``, and numerals as TE literals."""
    text = _X_OP.sub(" * ", text).translate(_ASCII_OPS)
    return _LHS_NUM_RE.sub(lambda n: numeral_text(n.group()), text)


# --- exact values --------------------------------------------------------------------------


class NotArithmetic(Exception):
    """An equation side that is not plain arithmetic over numerals, or has no exact value."""


class NoNames:
    """An evaluation scope (:class:`cotaudit.te.evaluate.Scope`) in which every name fails."""

    def lookup(self, name: str) -> Value:
        raise EvalError(f"unexpected name {name!r}")

    def attr_value(self, ident: str) -> Value:
        raise EvalError(f"unexpected reference {ident!r}.value")

    def function(self, name: str) -> UserFunction | None:
        return None


_EVALUATOR = Evaluator(Limits(), symbolic=False, constants=frozenset())


def arithmetic(text: str) -> ir.Node:
    """Parse with the TE parser; only numerals, ``+ - * / **`` and parentheses are accepted."""
    try:
        node = parse(text, "expr")
    except ExprError as err:
        raise NotArithmetic(err.reason) from None
    if not _plain(node):
        raise NotArithmetic("not plain arithmetic over numerals")
    return node


def _plain(node: ir.Node) -> bool:
    if isinstance(node, ir.Num):
        return True
    if isinstance(node, ir.Call):  # floor division, as the prose reader writes ``a // b``
        return node.func == "floor" and not node.user and len(node.args) == 1 and _plain(node.args[0])
    return isinstance(node, ir.BinOp | ir.Unary) and all(_plain(c) for c in ir.children(node))


def _fraction(node: ir.Node | None) -> bool:
    return (
        isinstance(node, ir.BinOp)
        and node.op == "/"
        and isinstance(node.left, ir.Num)
        and isinstance(node.right, ir.Num)
    )


def result_numeral(text: str) -> ir.Node:
    """A result: a numeral, optionally signed, a fraction of numerals (``<<3/4=3/4>>``) or a
    mixed number ``a + b/c`` (the prose reader's ``3 1/2``)."""
    node = arithmetic(text) if text else None
    inner = node.operand if isinstance(node, ir.Unary) else node
    mixed = (
        isinstance(inner, ir.BinOp)
        and inner.op == "+"
        and isinstance(inner.left, ir.Num)
        and _fraction(inner.right)
    )
    if node is None or not (isinstance(inner, ir.Num) or _fraction(inner) or mixed):
        raise NotArithmetic("the result is not a numeral")
    return node


def constant(node: ir.Node, scope: NoNames | None = None) -> Fraction:
    """The exact value of ``node``; a rational is required (the fast path, no SymPy)."""
    try:
        value = _EVALUATOR.value(node, scope or NoNames())
    except (EvalError, LimitError, NeedsSymbolic, Poisoned) as err:
        raise NotArithmetic(str(err) or type(err).__name__) from None
    if not isinstance(value, Fraction):
        raise NotArithmetic("not a rational value")
    return value


def result_tolerance(result: str) -> Fraction:
    """Half a unit in the result's last written digit (TE-28), scaled for a percent.

    A fraction result has no last digit and ``≈`` needs a single literal, so it must be exact.
    """
    if "/" in result:
        return Fraction(0)
    if result.endswith("%"):
        return literal_tolerance(result[:-1]) / 100
    return literal_tolerance(result)
