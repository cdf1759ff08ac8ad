"""Exact values, resource limits and number formatting (TE-24, TE-26).

A value is a :class:`fractions.Fraction` on the fast path, or a SymPy expression when the
trace needs constants, parameters or irrationals. Every exact result is bounded *before* it
is computed: the exponent and bit-size limits below turn ``10**10**10`` and
``factorial(10**9)`` into a TE_E014 diagnostic in microseconds instead of a hang.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Context, Decimal
from fractions import Fraction
from typing import Any

from cotaudit.errors import CotauditError

Value = Any  # Fraction | sympy.Expr


@dataclass(frozen=True, slots=True)
class Limits:
    """TE-24 resource limits; each exceeding one gives TE_E014 with ``limit`` and ``value``."""

    max_exponent: int = 10_000
    max_symbolic_exponent: int = 256
    max_bits: int = 65_536
    max_terms: int = 10_000
    max_root_degree: int = 1_000
    sympy_timeout: float = 2.0
    trace_timeout: float = 10.0
    max_call_depth: int = 20
    max_call_nodes: int = 10_000


class EvalError(CotauditError):
    """An evaluation error (TE-26): reported by the rule that owns the line, with ``reason``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class LimitError(CotauditError):
    """A TE-24 limit was exceeded (TE_E014)."""

    def __init__(self, limit: str, value: str, reason: str) -> None:
        super().__init__(reason)
        self.limit = limit
        self.value = value
        self.reason = reason


class NeedsSymbolic(Exception):
    """The fast path met something only SymPy can represent; the trace is re-run symbolically."""


class Poisoned(Exception):
    """The expression depends on a binding that could not be evaluated (TE-32): report nothing."""


def bits(x: Fraction) -> int:
    return max(abs(x.numerator).bit_length(), x.denominator.bit_length())


def check_size(x: Fraction, limits: Limits) -> Fraction:
    b = bits(x)
    if b > limits.max_bits:
        raise LimitError("result_bits", str(b), f"exact result needs {b} bits (limit {limits.max_bits})")
    return x


def int_root(n: int, k: int) -> int | None:
    """The exact k-th root of n ≥ 0, or None."""
    if n < 2:
        return n
    r = round(n ** (1.0 / k)) if n.bit_length() < 1000 else _newton_root(n, k)
    for cand in (r - 1, r, r + 1):
        if cand >= 0 and cand**k == n:
            return cand
    return None


def _newton_root(n: int, k: int) -> int:
    x = 1 << ((n.bit_length() + k - 1) // k)
    while True:
        y = ((k - 1) * x + n // x ** (k - 1)) // k
        if y >= x:
            return x
        x = y


def rational_root(x: Fraction, k: int) -> Fraction | None:
    """The exact k-th root of a non-negative rational, or None when it is irrational."""
    num = int_root(x.numerator, k)
    if num is None:
        return None
    den = int_root(x.denominator, k)
    if den is None:
        return None
    return Fraction(num, den)


def pow_fraction(base: Fraction, exp: Fraction, limits: Limits) -> Fraction:
    """``base ** exp`` exactly, or raise NeedsSymbolic when the result is irrational/complex."""
    if exp.denominator == 1:
        e = exp.numerator
        if abs(e) > limits.max_exponent:
            text = shown(exp)
            raise LimitError("exponent", text, f"exponent {text} exceeds {limits.max_exponent}")
        if base == 0 and e < 0:
            raise EvalError("0 raised to a negative power")
        estimate = bits(base) * abs(e)
        if estimate > limits.max_bits and abs(base) != 1:
            raise LimitError(
                "result_bits", str(estimate), f"result of a power would need about {estimate} bits"
            )
        return check_size(base**e, limits)
    if abs(exp) > limits.max_exponent:
        text = shown(exp)
        raise LimitError("exponent", text, f"exponent {text} exceeds {limits.max_exponent}")
    root_estimate = int(bits(base) * abs(exp))
    if root_estimate > limits.max_bits:
        raise LimitError(
            "result_bits", str(root_estimate), f"result of a power would need about {root_estimate} bits"
        )
    q = exp.denominator
    if q > limits.max_root_degree or base < 0:
        raise NeedsSymbolic()
    root = rational_root(base, q)
    if root is None:
        raise NeedsSymbolic()
    return pow_fraction(root, Fraction(exp.numerator), limits)


def factorial_bits(n: int) -> float:
    """Bits of ``n!`` (``math.lgamma``); ``inf`` when ``n`` is beyond a float (so ``(10**5000)!``
    is refused, not an OverflowError)."""
    if n <= 1:
        return 1.0
    if n.bit_length() > 1000:
        return math.inf
    return math.lgamma(n + 1) / math.log(2)


def binomial_bits(n: int, k: int) -> float:
    """Bits of ``binomial(n, k)``; for ``n`` beyond a float, ``j · log2 n − log2 j!`` with
    ``j = min(k, n − k)`` (accurate when ``j`` is small, which is when it matters)."""
    if k < 0 or k > n:
        return 1.0
    if n.bit_length() <= 1000:
        return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)) / math.log(2)
    j = min(k, n - k)
    if j == 0:
        return 1.0
    if j.bit_length() > 1000:
        return math.inf
    return j * (n.bit_length() - 1) - factorial_bits(j)


def round_half_away(x: Fraction, ndigits: int = 0) -> Fraction:
    """TE-23: round half away from zero (round(2.5) = 3, round(-2.5) = -3)."""
    scale = Fraction(10) ** ndigits
    y = abs(x) * scale
    r = math.floor(y + Fraction(1, 2))
    return Fraction(r if x >= 0 else -r) / scale


def mod_fraction(a: Fraction, b: Fraction) -> Fraction:
    """a − b·floor(a/b): the sign of b, as Python's ``%``, exact on rationals."""
    if b == 0:
        raise EvalError("mod(a, 0) is undefined")
    return a - b * math.floor(a / b)


def int_text(n: int) -> str:
    """Decimal digits of ``n``, also past Python's 4,300-digit ``str(int)`` limit (exact results
    may have 65,536 bits, about 19,700 digits); ``Decimal`` converts without that limit."""
    if n.bit_length() < 14_000:
        return str(n)
    return str(Decimal(n))


def fmt_fraction(x: Fraction) -> str:
    if x.denominator == 1:
        return int_text(x.numerator)
    return f"{int_text(x.numerator)}/{int_text(x.denominator)}"


def shown(x: Fraction) -> str:
    """A limit's offending value for a message: exact when short, ten digits when huge."""
    if bits(x) <= 200:
        return fmt_fraction(x)
    return f"about {approx_fraction(x)}"


_APPROX_CONTEXT = Context(prec=10)


def approx_fraction(x: Fraction) -> str:
    """Ten significant digits, as evidence ``*_approx`` (deterministic, exact rounding)."""
    d = _APPROX_CONTEXT.divide(Decimal(x.numerator), Decimal(x.denominator))
    return format(d, "f") if abs(d.adjusted()) < 15 else str(d)


def is_probable_prime(n: int) -> bool:
    """Miller–Rabin with fixed bases: exact below 3.3·10²⁴, deterministic in every case."""
    if n < 2:
        return False
    small = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71)
    for p in small:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for a in small:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = pow(x, 2, n)
            if x == n - 1:
                break
        else:
            return False
    return True
