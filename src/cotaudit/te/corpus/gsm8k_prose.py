"""Prose equations in a GSM8K solution line for the TE converter (TE-50 step 3, issue 19).

A solution line without ``<<lhs=result>>`` annotations may still state its arithmetic in
prose. :func:`prose_equations` reads it by *notation*, never by phrasing:

* **numerals**: ``$`` and thousands commas, thousands groups separated by single spaces
  (``12 500``: each group after the first has exactly three digits; a reading that does not
  check falls back to separate numbers), decimals (``.5``), a percent sign glued or after one
  space (``40 %`` is 2/5), a sign glued to the numeral at the start of an operand (``-7``);
* **fractions and mixed numbers**: a fraction written without spaces (``2/5``) is one operand,
  so ``12 / 2/5`` is 12 ÷ 2/5 = 30, not (12/2)/5; ``4 3/8`` and ``4 and 3/8`` are 4 + 3/8
  when the fraction is proper;
* **operators**: ``+ - * / × ÷ − –``, ``^`` and ``**`` (powers, tighter than a sign), ``x``
  between two operands, ``//`` as floor division,
  ``plus``, ``minus``, ``times``, ``divided by``, ``multiplied by``, ``equals``; a number or a
  parenthesis glued to a parenthesis multiplies (``3(7+1)``, ``(1/4)12``);
* **words between numbers**: a rate glued to its number (``15/hour``) and up to three words
  right after an operand are its unit (``9 apples``, ``6 km/hour``, ``20 blue ones``) and are
  skipped; anything longer, or a number or
  number word inside the run (``of a dozen``), ends the expression;
* **chains** ``A = B = … = N``: every part must equal the last one, a numeral N; a leading part
  that is a lone numeral (``3 feet = 36 inches``) is a label or a unit conversion, not
  arithmetic, and is dropped;
* **algebra**: a single letter next to an operator, ``=``, a parenthesis or a coefficient
  (``2y``, ``y + 3``, ``(k - 1)``) is an unknown. A part that contains one is algebra and is
  never read as arithmetic; only runs of adjacent numeric parts are (``4k = 30 - 6 = 24`` gives
  ``30 - 6 = 24``; ``30 - 6 = 6 + k - 6`` gives nothing).

:func:`prose_equations` returns ``lhs = result`` pairs in TE text; whether they compute is the
converter's check. Tokenising and parsing are single passes (the tokeniser regex has no
nested quantifiers), and a failed parse resumes where it failed, so the reader is linear.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from cotaudit.te.corpus.gsm8k_numbers import (
    NUMBER_WORDS,
    NotArithmetic,
    arithmetic,
    constant,
    result_tolerance,
)
from cotaudit.te.corpus.gsm8k_tokens import Tok, glued, tokens

_BINARY = frozenset({"+", "-", "*", "/", "//"})
_POWER = frozenset({"^", "**"})
MAX_UNIT_WORDS = 3


@dataclass(frozen=True, slots=True)
class ProseEquation:
    """``lhs = result`` read from prose, in TE text (ASCII operators, numerals as literals)."""

    lhs: str
    result: str


def prose_equations(line: str, unknowns: frozenset[str] = frozenset()) -> list[ProseEquation]:
    """The arithmetic a solution line states in prose, left to right (see the module doc).

    ``unknowns`` are letters that other lines of the solution use as unknowns
    (:func:`unknowns_in`): ``6s`` is then a term, not six seconds. The space-grouped reading of
    ``12 500`` is used only if every equation of the line then computes; otherwise the line is
    read with the groups as separate numbers.
    """
    grouped = _read(line, group_spaces=True, unknowns=unknowns)
    if all(_checks(eq) for eq in grouped):
        return grouped
    plain = _read(line, group_spaces=False, unknowns=unknowns)
    return plain if all(_checks(eq) for eq in plain) else grouped


def _checks(eq: ProseEquation) -> bool:
    try:
        value = constant(arithmetic(eq.lhs))
        claimed = constant(arithmetic(eq.result))
    except NotArithmetic:
        return False
    return abs(value - claimed) <= result_tolerance(eq.result)


@dataclass(slots=True)
class _Part:
    text: str
    algebra: bool
    lone: bool  # a single numeral, fraction or mixed number: it can end a chain
    quantity: bool = False  # a lone numeral or mixed number: as a chain's first part, a label
    lead: str = ""  # the first operand, when it is a lone numeral (running totals)
    additive: bool = True  # only numerals, + and - (and parentheses): percent points apply


class _Parser:
    def __init__(self, toks: list[Tok]) -> None:
        self.toks = [t for t in toks if t.kind != "skip"]
        self.n = len(self.toks)

    def at(self, i: int) -> Tok | None:
        return self.toks[i] if i < self.n else None

    def expr(self, i: int, depth: int = 0) -> tuple[_Part, int] | None:
        """``term ((+|-) term)*``; a term is ``operand ((*|/|//) operand)*``."""
        first = self.operand(i, depth)
        if first is None:
            return None
        part, i = first
        term, algebra, count, additive = part.text, part.algebra, 1, part.additive
        text = ""
        while (tok := self.at(i)) is not None and tok.kind == "op" and tok.text in _BINARY:
            nxt = self.operand(i + 1, depth)
            if nxt is None:
                break
            right, j = nxt
            algebra = algebra or right.algebra
            additive = additive and right.additive and tok.text in "+-"
            count += 1
            if tok.text in "*/":
                term = f"{term} {tok.text} {right.text}"
            elif tok.text == "//":
                term = f"floor(({term}) / ({right.text}))"
            else:
                text += f"{term} {tok.text} "
                term = right.text
            i = j
        if count == 1:
            return part, i
        lead = part.text if part.quantity else ""
        return _Part(text + term, algebra, False, False, lead, additive), i

    def operand(self, i: int, depth: int) -> tuple[_Part, int] | None:
        tok = self.at(i)
        if tok is None or depth > 20:
            return None
        sign = ""
        nxt = self.at(i + 1)
        signed = nxt is not None and nxt.kind in ("num", "frac", "mixed") and glued(tok, nxt)
        if tok.kind == "op" and tok.text in "+-" and nxt is not None and signed:  # -7
            sign, i, tok = ("-" if tok.text == "-" else ""), i + 1, nxt
        additive = tok.kind == "num"
        if tok.kind in ("num", "frac", "mixed"):
            text, algebra, lone, i = tok.text, False, True, i + 1
            if tok.kind == "frac":
                text = f"({text})"  # one operand: 12 / 2/5 is 12 / (2/5)
        elif tok.kind == "var":
            text, algebra, lone, i = tok.text, True, False, i + 1
        elif tok.kind == "lp":
            inner = self.expr(i + 1, depth + 1)
            close = self.at(inner[1]) if inner is not None else None
            if inner is None or close is None or close.kind != "rp":
                return None
            text, algebra, lone, i = f"({inner[0].text})", inner[0].algebra, False, inner[1] + 1
            additive = inner[0].additive
        else:
            return None
        # juxtaposition: 3(…), (…)(…), (…)4, 2y, (…)y
        while (nxt := self.at(i)) is not None and glued(self.toks[i - 1], nxt):
            if nxt.kind == "lp":
                right = self.operand(i, depth + 1)
                if right is None:
                    break
                text, algebra, lone, i = (
                    f"{text} * {right[0].text}",
                    algebra or right[0].algebra,
                    False,
                    right[1],
                )
                additive = False
            elif nxt.kind == "var":
                text, algebra, lone, i = f"{text} * {nxt.text}", True, False, i + 1
                additive = False
            elif nxt.kind in ("num", "frac") and self.toks[i - 1].kind == "rp":
                right = self.operand(i, depth + 1)
                if right is None:
                    break
                text, lone, i = f"{text} * {right[0].text}", False, right[1]
                additive = False
            else:
                break
        # a power binds tighter than a sign: -2^2 is -(2^2)
        while (nxt := self.at(i)) is not None and nxt.kind == "op" and nxt.text in _POWER:
            exponent = self.operand(i + 1, depth + 1)
            if exponent is None:
                break
            text, algebra, lone, i = (
                f"({text}) ** ({exponent[0].text})",
                algebra or exponent[0].algebra,
                False,
                exponent[1],
            )
            additive = False
        if sign:
            text = f"-{text}" if tok.kind == "num" and lone else f"-({text})"
        quantity = lone and tok.kind in ("num", "mixed")
        # a unit: a rate glued to the number ("15/hour"), then up to three words, then an
        # operator, '=' or the end of the expression
        if (
            i + 1 < self.n
            and self.toks[i].text == "/"
            and self.toks[i + 1].kind == "word"
            and glued(self.toks[i - 1], self.toks[i])
            and glued(self.toks[i], self.toks[i + 1])
        ):
            i += 2
        k = i
        while k < self.n and k - i < MAX_UNIT_WORDS and self.toks[k].kind == "word":
            if self.toks[k].text.lower() in NUMBER_WORDS:  # "of a dozen" is no unit
                k = i
                break
            k += 1
        if k > i and (k == self.n or self.toks[k].kind in ("op", "eq", "brk", "rp")):
            i = k
        return _Part(text, algebra, lone, quantity, "", additive), i

    def chains(self) -> list[list[_Part]]:
        """Every ``part (= part)+`` in the line, left to right, resuming where a parse failed."""
        found: list[list[_Part]] = []
        i = 0
        while i < self.n:
            tok = self.toks[i]
            prev = self.toks[i - 1] if i else None
            startable = tok.kind in ("num", "frac", "mixed", "lp", "var") or (
                tok.kind == "op" and tok.text in "+-"
            )
            if not startable or (
                prev is not None and prev.kind in ("op", "var", "num", "frac", "mixed", "rp")
            ):
                i += 1
                continue
            first = self.expr(i)
            if first is None:
                # a run of '(' fails the same way from each of them: retry from its last one
                j = i + 1
                while j < self.n and tok.kind == "lp" and self.toks[j].kind == "lp":
                    j += 1
                i = j - 1 if j - 1 > i else i + 1
                continue
            parts, j = [first[0]], first[1]
            while (eq := self.at(j)) is not None and eq.kind == "eq":
                nxt = self.expr(j + 1)
                if nxt is None:
                    break
                parts.append(nxt[0])
                j = nxt[1]
            if len(parts) > 1:
                found.append(parts)
            i = max(j, i + 1)
        return found


def _read(line: str, group_spaces: bool, unknowns: frozenset[str]) -> list[ProseEquation]:
    out: list[ProseEquation] = []
    for parts in _Parser(tokens(line, group_spaces, unknowns)).chains():
        run: list[_Part] = []
        for part in [*parts, _Part("", True, False)]:  # a sentinel closes the last run
            if not part.algebra:
                run.append(part)
                continue
            out.extend(_run_equations(run))
            run = []
    return out


def _run_equations(run: list[_Part]) -> list[ProseEquation]:
    """Equations of a run ``A = B = … = N`` of numeric parts.

    A link between two lone quantities of different value (``12 = 1`` in ``… = 12 inches = 1
    foot``) is a unit conversion or a label, not arithmetic: the run is cut there (``0.75 =
    75%`` restates one value and is kept). A part that starts from the
    previous part's value (``A = q + c = d`` with A = q) is a running total: ``A = q`` and
    ``q + c = d``. Each piece then gives its non-lone parts (and any lone middle part that
    differs) against its last lone numeral; a leading lone quantity is a label.
    """
    pieces: list[list[_Part]] = [[]]
    for k, part in enumerate(run):
        prev = run[k - 1] if k else None
        if prev is not None and prev.quantity and part.quantity and not _same(prev.text, part.text):
            pieces.append([])
        elif (
            prev is not None
            and not part.lone
            and part.lead
            and not _same(prev.text, part.text)
            and _same(prev.text, part.lead)
        ):
            pieces[-1].append(_Part(part.lead, False, True, True))
            pieces.append([])
        pieces[-1].append(part)
    return [eq for piece in pieces for eq in _piece_equations(piece)]


def _piece_equations(run: list[_Part]) -> list[ProseEquation]:
    run = list(run)
    while run and not run[-1].lone:
        run.pop()
    while len(run) > 1 and run[0].quantity:
        run.pop(0)
    if len(run) < 2:
        return []
    result = run[-1].text
    if result.startswith("(") and result.endswith(")"):
        result = result[1:-1]  # a mixed number or a fraction
    out = []
    for part in run[:-1]:
        if not part.quantity or not _same(part.text, result):
            out.append(ProseEquation(_percent_points(part, result), result))
    return out


_NUMERAL = re.compile(r"(?<![0-9.])([0-9]+(?:\.[0-9]+)?)(?![0-9.%])")


def _percent_points(part: _Part, result: str) -> str:
    """``45 + 21 + 28 = 94%`` adds percentages written without their sign: when a sum or
    difference of bare numerals equals the result's number, every numeral is a percent."""
    if not (part.additive and result.endswith("%") and "%" not in part.text):
        return part.text
    try:
        value = constant(arithmetic(part.text))
        claimed = constant(arithmetic(result[:-1]))
    except NotArithmetic:
        return part.text
    if value != claimed:
        return part.text
    return _NUMERAL.sub(r"\1%", part.text)


def _same(a: str, b: str) -> bool:
    try:
        return constant(arithmetic(a)) == constant(arithmetic(b))
    except NotArithmetic:
        return False


def lone_value(text: str) -> Fraction | None:
    """The value of a lone numeral in TE text, or None."""
    try:
        return constant(arithmetic(text))
    except NotArithmetic:
        return None


def unknowns_in(lines: list[str]) -> frozenset[str]:
    """The letters that some line of a solution uses as an unknown."""
    found: set[str] = set()
    for line in lines:
        found.update(t.text for t in tokens(line, group_spaces=True) if t.kind == "var")
    return frozenset(found)


def has_algebra(line: str, unknowns: frozenset[str] = frozenset()) -> bool:
    """Does the line state an equation over an unknown (``2y + 5 = 11``)?"""
    toks = tokens(line, group_spaces=True, unknowns=unknowns)
    return any(t.kind == "var" for t in toks) and any(t.kind == "eq" for t in toks)


def expression_text(text: str) -> str | None:
    """A whole annotation side as TE text, with ``a // b`` as ``floor(a / b)``; None if the
    side is not one arithmetic expression over numerals."""
    parser = _Parser(tokens(text, group_spaces=False))
    got = parser.expr(0)
    if got is None or got[1] != parser.n or got[0].algebra:
        return None
    return got[0].text
