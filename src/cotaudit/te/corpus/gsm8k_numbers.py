"""Numbers in GSM8K text for the TE converter (TE-50 steps 2–4).

* :func:`scan_question` finds the numbers a question states: digit numerals with an optional
  ``$``, thousands commas, decimals and ``%``; fractions ``a/b``; mixed numbers ``a b/c``; and
  number words. It skips ordinals (``3rd``), clock times (``3:30``) and numerals glued to
  letters (``10am``, ``A4``).
* :func:`bare_equations` finds prose equations ``NUM (op NUM)+ = $?NUM`` in a solution line
  that has no ``<<lhs=result>>`` annotation.
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

# A digit numeral in a question. The look-behinds refuse a numeral glued to a letter, digit,
# '.' or ',', or following "d:" or "d/" (clock times, dates); the look-ahead refuses a
# following letter (ordinals, "10am") or a further decimal, fraction or clock part. A rate
# such as "$35/hour" still gives 35.
_NUMERAL = re.compile(
    r"(?P<dollar>\$\s?)?"
    r"(?<![\w.,])(?<![0-9][:/])"
    r"(?:(?P<mw>[0-9]+)[ ](?P<mn>[0-9]+)/(?P<md>[0-9]+)"
    r"|(?P<fn>[0-9]+)/(?P<fd>[0-9]+)"
    r"|(?P<num>[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?|\.[0-9]+))"
    r"(?P<pct>%)?"
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


def scan_question(question: str) -> list[Mention]:
    """Every number the question states, in order of appearance (repeats included)."""
    found: list[Mention] = []
    for m in _NUMERAL.finditer(question):
        pct = m.group("pct") is not None
        if m.group("mw") is not None or m.group("fn") is not None:
            whole = int(m.group("mw")) if m.group("mw") is not None else None
            num, den = (m.group("mn"), m.group("md")) if whole is not None else (m.group("fn"), m.group("fd"))
            if int(den) == 0 or pct:  # "1/0" is no number, "1/2%" too odd to guess at
                continue
            value = Fraction(int(num), int(den)) + (whole or 0)
            text = f"{num}/{den}" if whole is None else f"{whole} + {num}/{den}"
            found.append(
                Mention(m.start("mw" if whole is not None else "fn"), value, text, bool(m["dollar"]))
            )
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


# --- bare equations in prose ---------------------------------------------------------------

_BARE_NUM = r"(?:\$\s?)?(?:[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?|\.[0-9]+)%?"
_BARE_OP = r"\s*(?:[-+*/\u00d7\u00f7\u2212\u2013])\s*|\s+[xX]\s+"
# The result may not be followed by more arithmetic ("= 28 – 4"), a fraction or a mixed
# number ("= 3 1/2"): the captured text would then be something other than an equation.
# Where the first numeral may start is decided by _continues.
_BARE = re.compile(
    r"(?<![\w.,/$%)(+*\-\u00d7\u00f7\u2212\u2013])"
    r"(?P<lhs>" + _BARE_NUM + r"(?:(?:" + _BARE_OP + r")" + _BARE_NUM + r")+)"
    r"\s*=\s*"
    r"(?P<result>" + _BARE_NUM + r")"
    r"(?![\w/(]|[.,][0-9]|\s*[-+*/\u00d7\u00f7\u2212\u2013(][ ]?[0-9(.$]|\s+[xX]\s+[0-9]|\s+[0-9]+/[0-9])"
)
_BARE_NUM_RE = re.compile(_BARE_NUM)
# Linear scanning (issue 14): re.finditer would retry _BARE from every numeral inside a chain
# `NUM op NUM op …` that is not followed by `=`, rescanning the rest of the chain each time.
# Every such retry fails the same way (its chain is a suffix of the first one), so the scan
# resumes after the whole chain. _BARE_START finds the positions where _BARE may start.
_BARE_START = re.compile(r"(?<![\w.,/$%)(+*\-\u00d7\u00f7\u2212\u2013])[$0-9.]")
_BARE_CHAIN = re.compile(_BARE_NUM + r"(?:(?:" + _BARE_OP + r")" + _BARE_NUM + r")*")
_OPERATOR_CHARS = frozenset("-+*/()\u00d7\u00f7\u2212\u2013")
_ASCII_OPS = str.maketrans({"\u00d7": "*", "\u00f7": "/", "\u2212": "-", "\u2013": "-"})
_X_OP = re.compile(r"(?<=[0-9).%])\s*[xX]\s*(?=[0-9(.$])")  # "3 x 4", "3x4", "(2)x(3)"


@dataclass(frozen=True, slots=True)
class BareEquation:
    """``lhs = result`` found in prose, both rewritten to plain ASCII TE text."""

    lhs: str
    result: str


def bare_equations(line: str) -> list[BareEquation]:
    """Prose equations ``NUM (op NUM)+ = $?NUM`` in one solution line, left to right."""
    found: list[BareEquation] = []
    for m in _bare_matches(line):
        if not _continues(line[: m.start()]):
            found.append(BareEquation(normalise_lhs(m.group("lhs")), numeral_text(m.group("result"))))
    return found


def _bare_matches(line: str) -> list[re.Match[str]]:
    """The matches ``_BARE.finditer(line)`` gives, in time linear in the line."""
    out: list[re.Match[str]] = []
    pos = 0
    while (start := _BARE_START.search(line, pos)) is not None:
        s = start.start()
        m = _BARE.match(line, s)
        if m is not None:
            out.append(m)
            pos = m.end()
            continue
        chain = _BARE_CHAIN.match(line, s)
        pos = max(s + 1, chain.end() if chain is not None else s + 1)
    return out


def _continues(before: str) -> bool:
    """Does the candidate continue a longer expression that the regex cannot see?

    True after an operator or parenthesis ("3x +4 - 4 = 28", "27(1/3)=9", "(1/2) 278 + 11 =
    150") and after a digit and a space, i.e. inside a mixed number ("1 1/2 / 1/2 = 3").
    """
    tail = before.rstrip()
    if not tail:
        return False
    if tail[-1] in _OPERATOR_CHARS or (tail[-1] in "xX" and tail[-2:-1].isspace()):
        return True
    return tail[-1].isdigit() and len(tail) < len(before)


def normalise_lhs(text: str) -> str:
    """ASCII operators (TE-20), ``x`` between numbers as ``*``, and numerals as TE literals."""
    text = _X_OP.sub(" * ", text).translate(_ASCII_OPS)
    return _BARE_NUM_RE.sub(lambda n: numeral_text(n.group()), text)


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
    return isinstance(node, ir.BinOp | ir.Unary) and all(_plain(c) for c in ir.children(node))


def result_numeral(text: str) -> ir.Node:
    """A result: a numeral, optionally signed, or a fraction of numerals (``<<3/4=3/4>>``)."""
    node = arithmetic(text) if text else None
    inner = node.operand if isinstance(node, ir.Unary) else node
    fraction = (
        isinstance(inner, ir.BinOp)
        and inner.op == "/"
        and isinstance(inner.left, ir.Num)
        and isinstance(inner.right, ir.Num)
    )
    if node is None or not (isinstance(inner, ir.Num) or fraction):
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
