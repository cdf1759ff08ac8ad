"""Final answers as exact values: a TE trace's ANS line, GSM8K's ``#### N`` and MATH500 strings.

Answer accuracy needs one comparison for every source, with no evaluation of untrusted text
beyond the te engine's own safe arithmetic parser (``cotaudit.te.corpus.gsm8k_numbers``): numerals,
``+ - * /`` and parentheses. What is not a rational number is compared as normalised text.
"""

from __future__ import annotations

import re
from fractions import Fraction

from cotaudit.te.corpus.gsm8k_numbers import NotArithmetic, arithmetic, constant
from cotaudit.te.grammar import (
    AnsBody,
    Decl,
    EqBody,
    Kind,
    classify,
    parse_ans,
    parse_decl,
    split_eq,
    split_lines,
)

_NUMBER_NOISE = re.compile(r"[,$€£\s]|\\[,!; ]|\\\$")
_FRAC = re.compile(r"^(-?)\\[dt]?frac\{(-?\d+)\}\{(-?\d+)\}$")
_LATEX_WRAP = re.compile(r"\\(?:boxed|text|mathrm|mbox)\{([^{}]*)\}")
_MAX_LINE = 4000


def number(text: str) -> Fraction | None:
    """A rational from ``18``, ``1,234``, ``$2.50``, ``3/4``, ``-\\frac{1}{2}``; else ``None``."""
    cleaned = _LATEX_WRAP.sub(r"\1", text.strip()).strip().rstrip(".")
    cleaned = _NUMBER_NOISE.sub("", cleaned)
    m = _FRAC.match(cleaned)
    if m:
        sign, num, den = m.groups()
        return None if int(den) == 0 else Fraction(int(num), int(den)) * (-1 if sign else 1)
    if not cleaned or len(cleaned) > 80:
        return None
    try:
        return constant(arithmetic(cleaned))
    except (NotArithmetic, ZeroDivisionError, ValueError):
        return None


def normalise_text(text: str) -> str:
    """Loose text form for answers that are not numbers (intervals, expressions, words)."""
    t = _LATEX_WRAP.sub(r"\1", text)
    t = re.sub(r"\\left|\\right|\\!|\\,|\\ |\s+|\$", "", t)
    return t.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac").rstrip(".").lower()


def gsm8k_gold(answer: str) -> str:
    """The text after GSM8K's ``####`` marker."""
    return answer.rsplit("####", 1)[-1].strip()


def same_answer(given: str | None, value: Fraction | None, gold: str) -> bool:
    """Whether an emitted answer (its text and, when known, its value) matches the gold text."""
    gold_value = number(gold)
    if gold_value is not None and value is not None:
        return value == gold_value
    if given is None:
        return False
    return normalise_text(given) == normalise_text(gold)


def ans_value(trace: str) -> tuple[str | None, Fraction | None]:
    """The last ANS line's expression text and, when it can be known without the linter, its value:
    a numeral, plain arithmetic, or a name bound by a GIVEN declaration or an EQ's claimed value."""
    lines = classify(split_lines(trace), _MAX_LINE)
    ans = [ln for ln in lines if ln.kind is Kind.HEADER and ln.tag == "ANS"]
    if not ans:
        return None, None
    parsed = parse_ans(ans[-1].body, ans[-1].body_col)
    expr = parsed.expr.strip() if isinstance(parsed, AnsBody) else ans[-1].body.strip()
    direct = number(expr)
    if direct is not None:
        return expr, direct
    bound: dict[str, Fraction] = {}
    for ln in lines:
        if ln.kind is Kind.DECL:
            decl = parse_decl(ln.body, ln.body_col)
            if isinstance(decl, Decl) and decl.kind == "expr":
                value = number(decl.value)
                if value is not None:
                    bound[decl.name] = value
        elif ln.kind is Kind.BRACKET and ln.tag == "EQ":
            eq = split_eq(ln.body, ln.body_col)
            if isinstance(eq, EqBody) and eq.target is not None and len(eq.parts) > 1:
                value = number(eq.parts[-1].text)
                if value is not None:
                    bound[eq.target] = value
    return expr, bound.get(expr)
