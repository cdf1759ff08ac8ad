"""The recursive-descent reader of one side of a claim (:mod:`cotaudit.cot.claims`): it accepts
exactly the notation the claims module describes and builds the side's TE text.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from cotaudit.cot.claimtokens import (
    FUNCTION_WORDS,
    GLUED_UNITS,
    MAX_SIDE_TOKENS,
    Side,
    Tok,
    is_identifier,
    unit_word,
)


class SideReader:
    """Recursive descent over the tokens of one step; builds the TE text of one side."""

    def __init__(self, toks: list[Tok], names: Mapping[str, Fraction]) -> None:
        self.toks = toks
        self.n = len(toks)
        self.names = names
        self.i = 0
        self.parts: list[str] = []
        self.side = Side("", 0, 0)
        self.depth = 0
        self.numerals = 0
        self.overrun = False

    def peek(self, k: int = 0) -> Tok | None:
        j = self.i + k
        return self.toks[j] if j < self.n else None

    def read_side(self, start: int) -> Side | None:
        self.i = start
        self.parts = []
        self.side = Side("", start, start)
        self.depth = 0
        self.numerals = 0
        self.overrun = False
        try:
            self.expr()
        except Overrun:
            self.overrun = True
            return None
        except NoSide:
            return None
        if self.i - start > MAX_SIDE_TOKENS:
            self.overrun = True
            return None
        self.side.te = "".join(self.parts)
        self.side.end = self.i
        if self.side.operators or self.numerals != 1:
            self.side.literal = None
        return self.side

    def expr(self) -> None:
        terms = [self.term()]
        while (t := self.peek()) is not None and t.kind == "op" and t.text in "+-":
            self.i += 1
            self.parts.append(t.text)
            self.side.operators += 1
            terms.append(self.term())
        if len(terms) > 1 and any(terms) and not all(terms):
            self.side.ambiguous = "a percent added to a plain number"

    def term(self) -> bool:
        """One product; returns whether it is a bare percent (for the additive check)."""
        percent = self.unary()
        while True:
            t = self.peek()
            if t is None:
                return percent
            if t.kind == "op" and t.text in ("*", "/"):
                self.i += 1
                self.parts.append(t.text)
            elif t.kind == "word" and t.text in ("x", "X", "times") and self._operand_follows(1):
                self.i += 1
                self.parts.append("*")
            elif t.kind == "word" and t.text == "of" and (percent or self._last_was_fraction()):
                if not self._operand_follows(1):
                    return percent
                self.i += 1
                self.parts.append("*")
            elif t.kind == "op" and t.text == "(" and t.glued_left:
                self.parts.append("*")  # 2(3 + 4), (1 + 2)(3 + 4)
            else:
                return percent
            self.side.operators += 1
            self.unary()
            percent = False

    def _last_was_fraction(self) -> bool:
        return len(self.parts) >= 2 and self.parts[-2] == "/"

    def _operand_follows(self, k: int) -> bool:
        t = self.peek(k)
        return t is not None and (t.kind in ("num", "cur") or t.text == "(")

    def unary(self) -> bool:
        if self.i - self.side.start > MAX_SIDE_TOKENS:
            raise Overrun()  # stop now: reading on would cost the whole run at every start
        t = self.peek()
        if t is not None and t.kind == "op" and t.text in "+-":
            self.depth += 1
            if self.depth > 50:
                raise Overrun()
            self.i += 1
            self.parts.append(t.text)
            percent = self.unary()
            self.depth -= 1
            return percent
        return self.power()

    def power(self) -> bool:
        percent = self.atom()
        t = self.peek()
        if t is not None and t.kind == "op" and t.text == "**":
            self.i += 1
            self.parts.append("**")
            self.side.operators += 1
            self.depth += 1
            if self.depth > 50:
                raise Overrun()
            self.unary()
            self.depth -= 1
            return False
        return percent

    def atom(self) -> bool:
        t = self.peek()
        if t is None:
            raise NoSide()
        if t.kind == "cur":
            nxt = self.peek(1)
            if nxt is None or nxt.kind != "num":
                raise NoSide()
            self.i += 1
            t = nxt
        if t.kind == "num":
            return self.numeral(t)
        if t.kind == "op" and t.text == "(":
            self.depth += 1
            if self.depth > 50:
                raise Overrun()
            self.i += 1
            self.parts.append("(")
            self.expr()
            close = self.peek()
            if close is None or close.text != ")":
                raise NoSide()
            self.i += 1
            self.parts.append(")")
            self.depth -= 1
            self.units()
            return False
        if t.kind == "word" and t.text in self.names and not self._glued_to_word(t):
            self.i += 1
            value = self.names[t.text]
            self.parts.append(f"({value.numerator}/{value.denominator})")
            return False
        if t.kind == "word" and t.text == "sqrt":
            nxt = self.peek(1)
            if nxt is not None and nxt.text == "(" and nxt.glued_left:
                self.i += 1
                self.parts.append("sqrt")
                self.side.operators += 1
                self.atom()
                return False
        raise NoSide()

    def _glued_to_word(self, t: Tok) -> bool:
        nxt = self.peek(1)
        return nxt is not None and nxt.glued_left and nxt.kind in ("word", "num", "cmd")

    def numeral(self, t: Tok) -> bool:
        nxt = self.peek(1)
        glued = nxt is not None and nxt.glued_left and (nxt.kind in ("word", "cmd") or is_identifier(nxt))
        if glued and not (
            nxt is not None and nxt.text.lower() in GLUED_UNITS and not self._glued_to_digit(2)
        ):
            raise NoSide()  # 2x, 3rd, 10am, 4\pi: not a plain number
        if self.side.first_literal_te is None:
            self.side.first_literal_te = t.value
        self.i += 1
        self.numerals += 1
        mixed = self.mixed_fraction(t)
        if mixed is not None:
            self.parts.append(mixed)
            self.numerals += 1  # not a single literal
            self.units()
            return False
        te_start = sum(len(p) for p in self.parts)
        text = t.value
        percent = False
        pct = self.peek()
        if pct is not None and (pct.kind == "pct" or (pct.kind == "word" and pct.text.lower() == "percent")):
            self.i += 1
            percent = True
            self.side.percent = True
            text = f"({t.value}/100)"
        self.parts.append(text)
        if t.decimals:
            self.side.decimal_literals.append((te_start, te_start + len(text), t.decimals))
        self.side.literal = t
        self.units()
        return percent

    def _glued_to_digit(self, k: int) -> bool:
        t = self.peek(k)
        return t is not None and t.glued_left and t.kind == "num"

    def mixed_fraction(self, whole: Tok) -> str | None:
        """``5 and 2/3`` or ``1 1/2`` (a proper fraction after a whole number)."""
        k = 0
        t = self.peek()
        if t is not None and t.kind == "word" and t.text == "and":
            k = 1
        num, slash, den = self.peek(k), self.peek(k + 1), self.peek(k + 2)
        if (
            num is None
            or slash is None
            or den is None
            or num.kind != "num"
            or num.glued_left
            or slash.text != "/"
            or not slash.glued_left
            or den.kind != "num"
            or not den.glued_left
            or "." in whole.value + num.value + den.value
            or not 0 < int(num.value) < int(den.value)
            or len(den.value) > 6
        ):
            return None
        after = self.peek(k + 3)
        if after is not None and (after.text in ("/", "**") or (after.kind == "num" and after.glued_left)):
            return None
        self.i += k + 3
        return f"({whole.value}+{num.value}/{den.value})"

    def units(self) -> None:
        """Up to three unit words after a quantity (``2 books``, ``5 dollars per hour``), and a
        bracketed note in words (``15 (light blue) + 45 (dark blue)``), which is not a unit."""
        count = 0
        while count < 3:
            t = self.peek()
            if t is None:
                return
            if t.text == "(" and not t.glued_left and self._annotation():
                continue
            if unit_word(t) or (t.kind == "word" and t.text == "per" and count):
                nxt = self.peek(1)
                if nxt is not None and nxt.glued_left and nxt.kind in ("num", "op") and nxt.text != "/":
                    return  # "km2", "m(": not a unit word
                self.side.units.append(t.text.lower())
                self.i += 1
                count += 1
                if (s := self.peek()) is not None and s.text == "/" and s.glued_left:
                    w = self.peek(1)
                    if w is not None and unit_word(w) and w.glued_left:
                        self.i += 2  # pounds/book
                        self.side.units.append(w.text.lower())
                continue
            if t.text == "/" and t.glued_left and count == 0:
                w = self.peek(1)
                if w is not None and unit_word(w) and w.glued_left:
                    self.i += 2  # $5/hour
                    self.side.units.append(w.text.lower())
                    count += 1
                    continue
            return

    def _annotation(self) -> bool:
        """Skip ``( words )`` after a quantity: one to eight words, none a single letter or a
        function name (``(x + 3)``, ``(n)`` and ``(sin)`` are not notes). Returns whether it did."""
        k = 1
        while k <= 9:
            t = self.peek(k)
            if t is None:
                return False
            if t.text == ")":
                break
            if t.kind != "word" or len(t.text) < 2 or t.text.lower() in FUNCTION_WORDS:
                return False
            k += 1
        if k == 1 or k > 9:
            return False
        self.i += k + 1
        return True


class NoSide(Exception):
    """The tokens here do not form a side."""


class Overrun(NoSide):
    """A side nested deeper than 50 or longer than MAX_SIDE_TOKENS: nothing inside it is read."""
