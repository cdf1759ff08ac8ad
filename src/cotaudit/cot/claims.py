"""Arithmetic claims in prose and LaTeX: find ``expr = expr (= expr)*`` chains in a step.

The step goes through :func:`cotaudit.cot.mathview.math_view` (LaTeX and Unicode → plain
operators), then a linear-time tokenizer (:mod:`.claimtokens`) and a small recursive-descent
reader (:mod:`.claimreader`) that accepts exactly this notation:

- numerals ``48``, ``4.00``, ``.5``, thousands ``18,000`` / ``18 000`` / ``18\\,000``, mixed
  numbers ``5 and 2/3`` / ``1 1/2``, percents ``20%``, currency ``$4.00`` ``€3`` ``£2``;
- ``+ - * / ** ^``, ``x`` between numbers, ``times``, ``of`` after a percent or a fraction
  (``20% of 50``), parentheses and implicit products ``2(3 + 4)``, ``sqrt(...)``;
- up to three unit words after a number (``2 books``, ``$5 per hour``, ``3 pounds/book``);
- ``=`` and ``≈``; ``about`` / ``approximately`` / ``roughly`` after ``=``, or ``...`` after
  the result, declare a rounding.

A side next to a variable (``2x``, ``x + 3``, ``f(2)``, ``\\pi r``), a function word, a
factorial, a subscript or an unbalanced bracket is not read at all: the claim is skipped,
never guessed. Each side is valued exactly by the te engine's safe evaluator (the TE parser
on the rewritten ASCII text, then :class:`cotaudit.te.evaluate.Evaluator` over rationals; no
``eval`` and no SymPy string parsing anywhere). GSM8K calculator annotations
``<<48/2=24>>`` are claims too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from fractions import Fraction

import cotaudit.limits as limits
from cotaudit.cot.claimreader import SideReader
from cotaudit.cot.claimtokens import APPROX_WORDS, Side, Tok, is_identifier, tokens
from cotaudit.cot.mathview import math_view
from cotaudit.te.corpus.gsm8k_numbers import NotArithmetic, arithmetic, constant

MAX_CLAIMS_PER_STEP = 200

# Unit conversions: a mismatch by exactly one of these factors is a conversion, not a slip.
_CONVERSIONS = frozenset(
    Fraction(x) for x in (60, 3600, 24, 7, 12, 365, 52, 16, 3, 36, 5280, 1760, 1000, 100, 10, 1440, 30, 4)
)


class Verdict:
    TRUE = "true"
    WRONG = "wrong"
    ROUNDED = "rounded"
    DOUBTFUL = "doubtful"
    UNEVALUATED = "unevaluated"


@dataclass(frozen=True, slots=True)
class Claim:
    """One checked equality between two sides of a chain."""

    verdict: str
    offset: int  # offset in the step text where the left side starts
    end: int  # offset just past the right side
    lhs: str  # TE text of the left side
    rhs: str
    computed: Fraction | None
    claimed: Fraction | None
    reason: str = ""
    approx: bool = False
    source: str = "prose"


def _left_boundary_ok(toks: list[Tok], i: int) -> bool:
    """May a side start at token ``i``? Not after an operator, a variable, a number or a bracket
    that belongs to a larger expression, and not with a sign right after a word."""
    if i == 0:
        return True
    prev = toks[i - 1]
    first = toks[i]
    if first.glued_left and prev.kind not in ("eq", "cur") and prev.text not in ("(", "\n", ":", "[", '"'):
        return False  # f''(2), x(3), 3.(4): glued to something that is not a delimiter
    if prev.kind == "cur":
        return _left_boundary_ok(toks, i - 1) if i >= 1 else True
    if prev.kind in ("num", "pct", "ell"):
        return False
    if prev.kind == "op":
        if prev.text != "(":
            return False
        before = toks[i - 2] if i >= 2 else None
        return not (prev.glued_left and before is not None and before.kind not in ("op", "eq", "ws"))
    if prev.kind == "eq":
        return True
    if is_identifier(prev):
        return False
    if prev.kind == "word":
        return not (first.kind == "op" and first.text in "+-")
    if prev.kind == "other" and first.glued_left and prev.glued_left and i >= 2 and toks[i - 2].kind == "num":
        return False  # 3:00, 4/5/2020, 1.2.3: the numeral belongs to something else
    if prev.kind == "other":
        return prev.text in ":;,.!?\n\"'[" and not (
            prev.text == "." and first.kind == "num" and first.glued_left
        )
    return True


def _right_boundary_ok(toks: list[Tok], j: int) -> bool:
    """May a side end before token ``j``? Not before an operator, a factorial, a subscript, a
    variable or a further number."""
    if j >= len(toks):
        return True
    t = toks[j]
    if t.kind in ("num", "pct", "cmd"):
        return False
    if t.kind == "op":
        return t.text == ")"
    if is_identifier(t):
        return False
    if t.kind == "other":
        return t.text not in "!_|^[{'\u00b2\u00b3"
    return True


def _approx_after_eq(toks: list[Tok], j: int) -> tuple[int, bool]:
    """Skip ``about`` / ``approximately`` after ``=``: returns (next index, declared)."""
    t = toks[j] if j < len(toks) else None
    if t is not None and t.kind == "word" and t.text.lower() in APPROX_WORDS:
        return j + 1, True
    return j, False


def _chains(toks: list[Tok], names: Mapping[str, Fraction]) -> Iterator[list[tuple[Side, bool]]]:
    """Chains ``side (= side)+``; each side after the first carries whether its ``=`` was ``≈``."""
    reader = SideReader(toks, names)
    i = 0
    n = len(toks)
    while i < n:
        t = toks[i]
        sign = t.text in ("-", "+") and i + 1 < n and toks[i + 1].glued_left  # "- 3" at a start is a bullet
        startable = (
            t.kind in ("num", "cur") or t.text == "(" or sign or (t.kind == "word" and t.text in names)
        )
        if not startable or not _left_boundary_ok(toks, i):
            i += 1
            continue
        first = reader.read_side(i)
        if first is None and reader.overrun:
            i = max(reader.i, i + 1)  # skip the overlong or overdeep run as a whole: linear time
            continue
        if first is None or first.end == i:
            i += 1
            continue
        chain: list[tuple[Side, bool]] = [(first, False)]
        j = first.end
        while j < n and toks[j].kind == "eq":
            approx = toks[j].text != "="
            k, said = _approx_after_eq(toks, j + 1)
            nxt = reader.read_side(k) if k < n else None
            if nxt is None:
                break
            chain.append((nxt, approx or said))
            j = nxt.end
        if len(chain) >= 2 and not _right_boundary_ok(toks, j):
            chain.pop()
        if len(chain) >= 2:
            yield chain
        i = max(j, i + 1)


def _wrapped(toks: list[Tok], side: Side) -> bool:
    """Is the side one bracketed group, ``( … )``? (Rewrites are written so; running totals not.)"""
    if side.end - side.start < 2 or toks[side.start].text != "(" or toks[side.end - 1].text != ")":
        return False
    depth = 0
    for t in toks[side.start : side.end - 1]:
        depth += t.text == "("
        depth -= t.text == ")"
        if depth == 0:
            return False
    return True


_PHRASE_WORDS = frozenset({"of", "by", "per", "from", "than", "times", "over", "into"})


def _ends_a_phrase(toks: list[Tok], start: int) -> bool:
    """A bare number right after "of" / "by" / … belongs to the phrase before it."""
    return start > 0 and toks[start - 1].kind == "word" and toks[start - 1].text.lower() in _PHRASE_WORDS


def _value(te: str) -> Fraction:
    return constant(arithmetic(te))


# A problem set in another base: every digit sum may be base-b arithmetic ("6 + 1 + 1 = 7 + 0").
_BASE_B = re.compile(
    r"\bbase[ -]?[0-9]|\bbase[ -]\$?(?:[0-9]{1,2}|[a-z])\$?(?![a-z0-9])"  # base 5, base $b$
    r"|[0-9)]_\{?[0-9a-z]",  # 651_b, 1066_{8}, (...)_7: numerals written in a base
    re.I,
)
# Modular notation next to a claim: the "=" may be a congruence ("4^4 = 1 \pmod{17}").
_MOD_NOTE = re.compile(r"\\pmod|\\bmod|\\mod\b|\\equiv|\u2261|\bmod(?:ulo)?\b|\bcongruen|\bremainder", re.I)
# the extent of a claim's own line: to a line break, the end of a formula, or of a sentence
_LINE_END = re.compile(r"\n|\\\]|\\\)|\$\$|\.\s")
_BLANK = re.compile(r"\\boxed|\\square|\\Box\b|\u25a1")


def uses_blank_boxes(problem: str) -> bool:
    """Does the problem itself use a box (``\\boxed{}``, ``\\square``) as a blank to fill in?"""
    return _BLANK.search(problem) is not None


def modular_context(text: str) -> bool:
    """Is the text set in another base (``base $b$``, ``651_b``), where ``1 + 1 = 0`` can hold?"""
    return _BASE_B.search(text) is not None


def _modular_note_near(text: str, start: int, end: int) -> bool:
    """Does the claim's own line (the text around ``start:end`` up to a line break, the end of a
    formula or of a sentence) carry modular notation (``\\pmod``, ``≡``, "mod", "remainder")?"""
    before = [m.end() for m in _LINE_END.finditer(text, 0, start)]
    after = _LINE_END.search(text, end)
    line = text[before[-1] if before else 0 : after.start() if after is not None else len(text)]
    return _MOD_NOTE.search(line) is not None


def find_claims(
    text: str,
    names: Mapping[str, Fraction] | None = None,
    *,
    modular: bool = False,
    running_totals: bool = True,
    blank_boxes: bool = False,
) -> list[Claim]:
    """Every arithmetic claim in one step, judged (see :func:`judge`), left to right.

    With ``modular`` (the problem or the step is set in another base), and for a claim whose own
    line carries modular notation, a false equality is ``doubtful``, never ``wrong``.
    ``running_totals=False`` (a task whose chains are rewrites, never running totals) judges
    ``a = v + x`` like any other claim.
    ``blank_boxes``: the problem uses ``\\boxed{}`` as a blank to fill in (see
    :func:`cotaudit.cot.mathview.math_view`).
    """
    names = names or {}
    modular = modular or modular_context(text)
    claims: list[Claim] = []
    text, annotations = _strip_annotations(text)
    view, where = math_view(text, blank_boxes)
    toks = tokens(view)
    for chain in _chains(toks, names):
        limits.checkpoint()
        values: list[Fraction | str] = []
        for side, _ in chain:
            try:
                values.append(_value(side.te))
            except NotArithmetic as exc:
                values.append(str(exc) or "not arithmetic")
        for k in range(1, len(chain)):
            (left, _), (right, approx) = chain[k - 1], chain[k]
            if left.operators == 0 and (
                right.operators == 0 or left.units or _ends_a_phrase(toks, left.start)
            ):
                continue  # "1 hour = 60 minutes", "in 8 years = 34 + 8", "25% of $80 = …": not a claim
            start = where[toks[left.start].pos] if toks[left.start].pos < len(where) else 0
            last = toks[right.end - 1]
            end = where[min(last.pos + len(last.text) - 1, len(where) - 1)] + 1
            ellipsis = right.end < len(toks) and toks[right.end].kind == "ell"
            totals = running_totals and not (_wrapped(toks, left) and _wrapped(toks, right))
            claim = judge(left, right, values[k - 1], values[k], approx or ellipsis, start, end, totals)
            if claim.verdict == Verdict.WRONG and (modular or _modular_note_near(text, start, end)):
                claim = replace(claim, verdict=Verdict.DOUBTFUL, reason="modular or base-b arithmetic")
            claims.append(claim)
            if len(claims) >= MAX_CLAIMS_PER_STEP:
                return claims
    seen = {(c.computed, c.claimed) for c in claims}
    claims.extend(a for a in annotations if (a.computed, a.claimed) not in seen)
    claims.sort(key=lambda c: c.offset)
    return claims


_ANNOTATION = re.compile(r"<<([-+*/(). 0-9x%]{1,300})=([-+. 0-9/%]{1,60})>>")


def _strip_annotations(text: str) -> tuple[str, list[Claim]]:
    """GSM8K ``<<lhs=result>>`` annotations: judged as claims, then blanked from the prose."""
    if "<<" not in text:
        return text, []
    found: list[Claim] = []

    def blank(m: re.Match[str]) -> str:
        lhs_toks = tokens(m.group(1).replace("x", "*"))
        rhs_toks = tokens(m.group(2))
        left = SideReader(lhs_toks, {}).read_side(0)
        right = SideReader(rhs_toks, {}).read_side(0)
        if (
            left is not None
            and right is not None
            and left.end == len(lhs_toks)
            and right.end == len(rhs_toks)
        ) and (left.operators or right.operators):
            vals: list[Fraction | str] = []
            for side in (left, right):
                try:
                    vals.append(_value(side.te))
                except NotArithmetic as exc:
                    vals.append(str(exc) or "not arithmetic")
            claim = judge(left, right, vals[0], vals[1], False, m.start(1), m.end(2))
            found.append(replace(claim, source="annotation"))
        return " " * len(m.group())

    return _ANNOTATION.sub(blank, text), found


def _delta_tolerance(side: Side) -> Fraction:
    """How far the side's value can move if each decimal literal in it was itself rounded:
    the first-order sum of |f(x + half a unit) − f(x)| over those literals."""
    if not side.decimal_literals:
        return Fraction(0)
    try:
        base = _value(side.te)
    except NotArithmetic:
        return Fraction(0)
    total = Fraction(0)
    for start, end, decimals in side.decimal_literals[:8]:
        half = Fraction(1, 2 * 10**decimals)
        literal = side.te[start:end]
        shifted = f"{side.te[:start]}({literal}+{half.numerator}/{half.denominator}){side.te[end:]}"
        try:
            total += abs(_value(shifted) - base)
        except NotArithmetic:
            return Fraction(0)
    return total


def judge(
    left: Side,
    right: Side,
    lv: Fraction | str,
    rv: Fraction | str,
    approx: bool,
    start: int,
    end: int,
    running_totals: bool = True,
) -> Claim:
    """Decide one claim ``left = right``.

    ``true``: equal exactly (or as percent notation, ``0.25 = 25%``, ``25/100 × 100 = 25%``).
    ``rounded``: within the declared (``≈``, ``about``) or displayed rounding of the stated
    literal, allowing for the rounding of decimal literals on the computed side.
    ``doubtful``: near but outside that (truncation, a unit conversion by a known factor, a
    running total ``2 + 3 = 5 + 1 = 6``, an ambiguous percent): left unchecked.
    ``wrong``: everything else. ``unevaluated``: a side has no exact value within the limits.
    """

    def make(
        verdict: str, reason: str = "", computed: Fraction | None = None, claimed: Fraction | None = None
    ) -> Claim:
        return Claim(verdict, start, end, left.te, right.te, computed, claimed, reason, approx)

    if isinstance(lv, str) or isinstance(rv, str):
        return make(Verdict.UNEVALUATED, lv if isinstance(lv, str) else str(rv))
    if lv == rv:
        return make(Verdict.TRUE, "", lv, rv)
    if left.percent != right.percent and (lv == rv * 100 or rv == lv * 100):
        return make(Verdict.TRUE, "percent notation", lv, rv)
    if right.percent and not left.percent and right.literal is not None:
        # "(2/3) × 100 = 66.67%": the percent is the number written before the sign
        lv, rv = lv, rv * 100
        right = replace(right, percent=False)
    if left.ambiguous or right.ambiguous:
        return make(Verdict.DOUBTFUL, left.ambiguous or right.ambiguous or "", lv, rv)
    if left.units and right.units and not set(left.units) & set(right.units):
        return make(Verdict.DOUBTFUL, "different units on the two sides", lv, rv)
    if right.literal is None and left.literal is not None:
        computed, claimed, literal_side = rv, lv, left
        tol = _delta_tolerance(right)
    else:
        computed, claimed, literal_side = lv, rv, right
        tol = _delta_tolerance(left) + (_delta_tolerance(right) if literal_side.literal is None else 0)
    literal_tok: Tok | None = literal_side.literal
    diff = abs(computed - claimed)
    unit = Fraction(1, 10**literal_tok.decimals) if literal_tok is not None else Fraction(0)
    if literal_tok is not None and literal_side.percent:
        unit /= 100
    if literal_tok is not None:
        if approx and diff <= unit + tol:
            return make(Verdict.ROUNDED, "declared rounding", computed, claimed)
        if not approx and literal_tok is not None and literal_tok.decimals and diff <= unit / 2 + tol:
            return make(Verdict.ROUNDED, "displayed rounding", computed, claimed)
        if diff < unit or diff <= unit / 2 + 2 * tol or (approx and claimed and diff <= abs(claimed) / 20):
            return make(Verdict.DOUBTFUL, "near the stated value (rounding or truncation)", computed, claimed)
    elif diff <= 2 * tol or (approx and diff <= abs(computed) / 20):
        return make(Verdict.DOUBTFUL, "within the rounding of its decimal literals", computed, claimed)
    if (
        literal_tok is not None
        and _significant(literal_tok.value) >= 7
        and claimed
        and diff <= abs(claimed) / 10_000
    ):
        return make(
            Verdict.DOUBTFUL,
            "a long decimal off in its last digits (an approximate computation)",
            computed,
            claimed,
        )
    if running_totals and _running_total(left, right, lv):
        return make(Verdict.DOUBTFUL, "a running total written as a chain", computed, claimed)
    if computed and claimed and (left.units or right.units or left.percent or right.percent):
        ratio = computed / claimed if abs(computed) > abs(claimed) else claimed / computed
        if abs(ratio) in _CONVERSIONS:
            return make(Verdict.DOUBTFUL, "a unit conversion factor apart", computed, claimed)
    return make(Verdict.WRONG, "", computed, claimed)


def _significant(numeral: str) -> int:
    return len(numeral.replace(".", "").lstrip("0"))


def _running_total(left: Side, right: Side, lv: Fraction) -> bool:
    """``2 + 3 = 5 + 1 = 6``: the right side goes on from the left side's value."""
    if right.operators == 0 or right.first_literal_te is None:
        return False
    try:
        return Fraction(right.first_literal_te) == lv
    except (ValueError, ZeroDivisionError):
        return False
