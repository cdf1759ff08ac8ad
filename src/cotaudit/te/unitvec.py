"""Exact unit vectors (te.md §5, TE-39, TE-40): a Fraction factor to base units and rational
exponents per base dimension, with the algebra unit propagation needs.

:mod:`cotaudit.te.units` parses unit text into these and prints them back; nothing here knows
a unit name or imports pint.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Final

COUNT_PREFIX: Final = "count:"
TOLERANCE: Final = Fraction(1, 10**9)  # TE-40, inclusive
MAX_EXACT_ROOT: Final = 64  # higher roots are never exact in practice; skip the integer search


def exact_text(f: Fraction) -> str:
    """Exact and short: an integer, a decimal when one terminates (``1609.344``), else a ratio
    (``5/18``)."""
    num, den = f.numerator, f.denominator
    if den == 1:
        return str(num)
    digits, rest = 0, den
    for p in (2, 5):
        count = 0
        while rest % p == 0:
            rest //= p
            count += 1
        digits = max(digits, count)
    if rest != 1:
        return f"{num}/{den}"
    scaled = str(num * 10**digits // den).rjust(digits + 1, "0")
    return f"{scaled[:-digits]}.{scaled[-digits:]}"


def _pow_text(symbol: str, exp: Fraction) -> str:
    if exp == 1:
        return symbol
    return f"{symbol}**{exp}" if exp.denominator == 1 else f"{symbol}**({exp})"


def quotient_text(parts: list[tuple[str, Fraction]], head: str | None) -> str:
    """``a*b**2/c/d``; ``head`` (a number) replaces the implicit leading 1 when given."""
    num = [_pow_text(s, e) for s, e in parts if e > 0]
    den = [_pow_text(s, -e) for s, e in parts if e < 0]
    text = "*".join(num) or "1" if head is None else "*".join([head, *num])
    return text + "".join("/" + d for d in den)


@dataclass(frozen=True, slots=True)
class UnitVec:
    """A unit as an exact factor to base units times a product of base dimensions.

    ``exps`` is kept canonical (sorted by dimension name, no zero exponents) so that ``==`` and
    ``hash`` mean "same unit". Dimensions are pint's (``length``, ``currency_USD``) or count
    dimensions (``count:egg``).
    """

    factor: Fraction
    exps: tuple[tuple[str, Fraction], ...] = ()

    def __post_init__(self) -> None:
        factor = Fraction(self.factor)
        if factor <= 0:
            raise ValueError(f"unit factor must be positive, got {factor}")
        merged: dict[str, Fraction] = {}
        for dim, exp in self.exps:
            merged[dim] = merged.get(dim, Fraction(0)) + Fraction(exp)
        exps = tuple(sorted((d, e) for d, e in merged.items() if e != 0))
        # frozen + slots: canonicalize in place once, at construction
        object.__setattr__(self, "factor", factor)
        object.__setattr__(self, "exps", exps)

    @classmethod
    def _canonical(cls, factor: Fraction, exps: dict[str, Fraction]) -> UnitVec:
        """Build from already-exact parts, skipping ``__post_init__``: arithmetic is hot."""
        vec = object.__new__(cls)
        object.__setattr__(vec, "factor", factor)
        object.__setattr__(vec, "exps", tuple(sorted((d, e) for d, e in exps.items() if e)))
        return vec

    def _combine(self, other: UnitVec, sign: int) -> UnitVec:
        merged = dict(self.exps)
        for dim, exp in other.exps:
            if sign < 0:
                exp = -exp
            old = merged.get(dim)
            merged[dim] = exp if old is None else old + exp
        factor = self.factor * other.factor if sign > 0 else self.factor / other.factor
        return UnitVec._canonical(factor, merged)

    def __mul__(self, other: UnitVec) -> UnitVec:
        if not isinstance(other, UnitVec):
            return NotImplemented
        return self._combine(other, 1)

    def __truediv__(self, other: UnitVec) -> UnitVec:
        if not isinstance(other, UnitVec):
            return NotImplemented
        return self._combine(other, -1)

    def __pow__(self, k: Fraction | int) -> UnitVec:
        """Rational power; callers bound ``k`` (the factor grows as ``factor ** k``)."""
        k = Fraction(k)
        return UnitVec._canonical(_rational_power(self.factor, k), {d: e * k for d, e in self.exps})

    @property
    def dimensionless(self) -> bool:
        """True for pure numbers and labels (percent, degree, ...), whatever the factor."""
        return not self.exps

    def compatible(self, other: UnitVec) -> bool:
        """TE-40: same dimensions and a conversion factor of 1 within 1e-9 (inclusive)."""
        return self.exps == other.exps and abs(self.factor / other.factor - 1) <= TOLERANCE

    def dimensionality(self) -> str:
        """Deterministic dimension text, e.g. ``[length]/[time]`` or ``dimensionless``."""
        if not self.exps:
            return "dimensionless"
        return quotient_text([(f"[{d}]", e) for d, e in self.exps], None)


DIMENSIONLESS: Final = UnitVec(Fraction(1))


def unit_ratio(a: UnitVec, b: UnitVec) -> Fraction | None:
    """Factor of ``a`` in units of ``b`` (``mile``/``m`` = 1609.344); None if dimensions differ."""
    if a.exps != b.exps:
        return None
    return a.factor / b.factor


def _int_root(x: int, n: int) -> int:
    """floor(x ** (1/n)) for x >= 0, by integer Newton iteration (no float overflow)."""
    if x < 2:
        return x
    r = 1 << -(-x.bit_length() // n)
    while True:
        y = ((n - 1) * r + x // r ** (n - 1)) // n
        if y >= r:
            return r
        r = y


def _rational_power(f: Fraction, k: Fraction) -> Fraction:
    if k.denominator == 1:
        return f ** int(k)
    n = k.denominator
    if n <= MAX_EXACT_ROOT:
        num, den = _int_root(f.numerator, n), _int_root(f.denominator, n)
        if num**n == f.numerator and den**n == f.denominator:
            return Fraction(num, den) ** k.numerator
    # Irrational root: 60 significant digits, far below TE-40's 1e-9 tolerance, so the result
    # stays compatible with itself under any later exact arithmetic.
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = 60
        root = ((Decimal(f.numerator).ln() - Decimal(f.denominator).ln()) / n).exp()
    return Fraction(root) ** k.numerator
