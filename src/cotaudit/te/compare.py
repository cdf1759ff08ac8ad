"""Equality, approximate equality, ordering and predicates on exact values (TE-27, TE-28).

Every test returns a :class:`Decision`: ``True``/``False`` or ``None`` (undecided), with the
probe point that refuted an identity as a counterexample. Nothing here runs an unbounded
``simplify``: identities are settled by ``cancel(expand(d))`` or by five fixed probe points.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from cotaudit.te import symbolic as sym
from cotaudit.te.numeric import EvalError, LimitError, Limits, Value, fmt_fraction, is_probable_prime

EPS_REL = Fraction(1, 10**6)
EPS_ABS = Fraction(1, 10**9)
_PROBE_ZERO = Fraction(1, 10**20)
# A probe point may not make any power inside an expression exceed 2^±PROBE_BITS (TE-24):
# ``10**10**n`` at n = 31 is refused before SymPy computes it exactly.
PROBE_BITS = Limits().max_bits


@dataclass(frozen=True, slots=True)
class Decision:
    value: bool | None
    counterexample: dict[str, str] | None = None


TRUE = Decision(True)
FALSE = Decision(False)
UNDECIDED = Decision(None)


def _close(a: Fraction, b: Fraction, eps_rel: Fraction, eps_abs: Fraction) -> bool:
    """TE-27 on Fractions, in integer arithmetic (the hot path of every clean trace)."""
    if a == b:
        return True
    p, q, r, s = a.numerator, a.denominator, b.numerator, b.denominator
    d_num, d_den = abs(p * s - r * q), q * s  # |a - b| = d_num / d_den
    if d_num * eps_abs.denominator <= eps_abs.numerator * d_den:
        return True
    # max(|a|, |b|) = m_num / m_den
    m_num, m_den = (abs(p), q) if abs(p) * s >= abs(r) * q else (abs(r), s)
    return d_num * eps_rel.denominator * m_den <= eps_rel.numerator * m_num * d_den


def equal(a: Value, b: Value, eps_rel: Fraction = EPS_REL, eps_abs: Fraction = EPS_ABS) -> Decision:
    """TE-27: ``|a − b| ≤ max(ε_abs, ε_rel · max(|a|, |b|))``, inclusive; identities over params."""
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return TRUE if _close(a, b, eps_rel, eps_abs) else FALSE
    x, y = sym.to_sympy(a), sym.to_sympy(b)
    if x == y:
        return TRUE
    if sym.free_symbols(x) or sym.free_symbols(y):
        return _identity(x, y)
    if _infinite(x) or _infinite(y):
        return FALSE
    mx, my = _numeric(x), _numeric(y)
    if mx is None or my is None:
        return UNDECIDED
    # Each side is evaluated once to 40 significant digits (and cached): far below the
    # 1e-9 / 1e-6 tolerances, so the rounding of the two approximations never decides.
    df, axf, ayf = _fraction(abs(mx - my)), _fraction(abs(mx)), _fraction(abs(my))
    return TRUE if df <= max(eps_abs, eps_rel * max(axf, ayf)) else FALSE


def _numeric(x: Any) -> Any:
    """An mpmath approximation (real or complex, 40 digits) of a constant SymPy value."""
    sym.count()  # one logical call, whether or not the cache answers it
    return _numeric_cached(x)


@lru_cache(maxsize=4096)
def _numeric_cached(x: Any) -> Any:
    import mpmath

    try:
        with mpmath.workdps(40):
            value = sym.guarded(lambda: x._to_mpmath(mpmath.mp.prec), counted=False)
    except (TypeError, ValueError, AttributeError, ZeroDivisionError):
        return None
    if not mpmath.isfinite(value):
        return None
    return value


def _fraction(v: Any) -> Fraction:
    """An mpmath real, exactly as a Fraction (mantissa × 2^exponent), never a huge power of 2."""
    return sym.mpf_fraction(v)


def _at(exprs: tuple[Any, ...], point: dict[Any, Any]) -> None:
    """Refuse a probe point at which some power inside ``exprs`` would be huge (TE_E014)."""
    if not all(sym.bounded_at(x, point, PROBE_BITS) for x in exprs):
        where = ", ".join(f"{s} = {fmt_fraction(_as_fraction(v))}" for s, v in sorted(point.items(), key=str))
        raise LimitError(
            "result_bits", f"> {PROBE_BITS}", f"at the probe point {where} a power exceeds 2^{PROBE_BITS}"
        )


def _infinite(x: Any) -> bool:
    return bool(x.has(sym.sympy().oo, -sym.sympy().oo, sym.sympy().zoo))


def _identity(x: Any, y: Any) -> Decision:
    sp = sym.sympy()
    d = sym.guarded(lambda: x - y, counted=False)
    if sym.guarded(lambda: sp.cancel(sp.expand(d))) == 0:
        return TRUE
    valid = 0
    for point in probe_points(d.free_symbols | x.free_symbols | y.free_symbols):
        _at((d, x, y), point)
        try:
            dv = sym.guarded(lambda p=point: d.subs(p).evalf(30))
            xv = sym.guarded(lambda p=point: x.subs(p).evalf(30))
            yv = sym.guarded(lambda p=point: y.subs(p).evalf(30))
        except (ZeroDivisionError, TypeError, ValueError):
            continue
        if any(v.has(sp.zoo, sp.nan, sp.oo, -sp.oo) or v.free_symbols for v in (dv, xv, yv)):
            continue
        valid += 1
        scale = max(Fraction(1), _abs_fraction(xv), _abs_fraction(yv))
        if _abs_fraction(dv) > _PROBE_ZERO * scale:
            return Decision(
                False, {str(s): fmt_fraction(_as_fraction(v)) for s, v in sorted(point.items(), key=str)}
            )
    return TRUE if valid >= 3 else UNDECIDED


def _abs_fraction(v: Any) -> Fraction:
    return sym.number_fraction(sym.guarded(lambda: sym.sympy().Abs(v).evalf(30), counted=False))


def _as_fraction(v: Any) -> Fraction:
    return Fraction(int(v.p), int(v.q)) if getattr(v, "is_Rational", False) else Fraction(str(v))


_INT_POINTS = (2, 3, 5, 7, 11, 4, 6, 8, 9, 10, 12, 13, 14, 15, 16, 17, 19, 23, 29, 31)
_REAL_POINTS = (Fraction(7, 3), Fraction(-5, 2), Fraction(11, 7), Fraction(13, 5), Fraction(-17, 11))


def _points_for(symbol: Any) -> list[Fraction]:
    a = symbol.assumptions0
    if a.get("integer"):
        pts = [Fraction(p) for p in _INT_POINTS]
        if a.get("negative") or a.get("nonpositive"):
            pts = [-p for p in pts]
        if a.get("even"):
            pts = [p for p in pts if p.numerator % 2 == 0]
        if a.get("odd"):
            pts = [p for p in pts if p.numerator % 2 == 1]
        if a.get("prime"):
            pts = [p for p in pts if is_probable_prime(int(p))]
        return pts[:5]
    pts = list(_REAL_POINTS)
    if a.get("positive") or a.get("nonnegative"):
        pts = [abs(p) for p in pts]
    elif a.get("negative") or a.get("nonpositive"):
        pts = [-abs(p) for p in pts]
    return pts


def probe_points(symbols: Any) -> list[dict[Any, Any]]:
    """Five deterministic points; the i-th gives every symbol (sorted by name) its i-th value."""
    sp = sym.sympy()
    ordered = sorted(symbols, key=lambda s: str(s))
    columns = [_points_for(s) for s in ordered]
    n = min((len(c) for c in columns), default=0)
    return [
        {
            s: sp.Rational(col[i].numerator, col[i].denominator)
            for s, col in zip(ordered, columns, strict=True)
        }
        for i in range(min(n, 5))
    ]


def approx(a: Value, literal: Fraction, tol: Fraction, eps_abs: Fraction = EPS_ABS) -> Decision:
    """TE-28: ``|a − L| ≤ tol + ε_abs`` for a declared rounding ``≈ L``."""
    return within(a, literal, tol + eps_abs)


def within(a: Value, center: Value, tol: Value) -> Decision:
    """``|a − c| ≤ t`` (inclusive), for ``≈`` and ``== v ± t``."""
    if isinstance(a, Fraction) and isinstance(center, Fraction) and isinstance(tol, Fraction):
        return TRUE if abs(a - center) <= tol else FALSE
    sp = sym.sympy()
    d = sym.to_sympy(a) - sym.to_sympy(center)
    t = sym.to_sympy(tol)
    if sym.free_symbols(d) or sym.free_symbols(t):
        return UNDECIDED
    dv = sym.guarded(lambda: sp.Abs(d).evalf(30))
    tv = sym.guarded(lambda: sp.N(t, 30))
    if dv.has(sp.zoo, sp.nan, sp.oo):
        return FALSE
    return TRUE if sym.number_fraction(dv) <= sym.number_fraction(tv) else FALSE


_ORDER = {"<": "is_negative", "<=": "is_nonpositive", ">": "is_positive", ">=": "is_nonnegative"}


def order(op: str, a: Value, b: Value) -> Decision:
    """``a op b`` for op in < <= > >=; non-real operands are an evaluation error (TE-26)."""
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        result = {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
        return TRUE if result else FALSE
    sp = sym.sympy()
    x, y = sym.to_sympy(a), sym.to_sympy(b)
    for v in (x, y):
        real = sym.guarded(lambda v=v: v.is_real, counted=False)
        if real is False or (
            real is None
            and not v.free_symbols
            and sym.guarded(lambda v=v: v.is_extended_real, counted=False) is False
        ):
            raise EvalError("order comparison of non-real values")
    d = sym.guarded(lambda: sp.expand(x - y))
    verdict = sym.guarded(lambda: getattr(d, _ORDER[op]), counted=False)
    if verdict is not None:
        return Decision(bool(verdict))
    if not d.free_symbols:
        dv = sym.guarded(lambda: d.evalf(30))
        if dv.is_real is False:
            raise EvalError("order comparison of non-real values")
        if dv.is_number and dv.is_real:
            f = sym.number_fraction(dv)
            result = {"<": f < 0, "<=": f <= 0, ">": f > 0, ">=": f >= 0}[op]
            return TRUE if result else FALSE
        return UNDECIDED
    for point in probe_points(d.free_symbols):
        _at((d,), point)
        try:
            dv = sym.guarded(lambda p=point: d.subs(p).evalf(30))
        except (ZeroDivisionError, TypeError, ValueError):
            continue
        if not (dv.is_number and dv.is_real):
            continue
        f = sym.number_fraction(dv)
        holds = {"<": f < 0, "<=": f <= 0, ">": f > 0, ">=": f >= 0}[op]
        if not holds:
            return Decision(
                False, {str(s): fmt_fraction(_as_fraction(v)) for s, v in sorted(point.items(), key=str)}
            )
    return UNDECIDED


def predicate(name: str, v: Value) -> Decision:
    """The ten claim predicates (TE-16)."""
    if isinstance(v, Fraction):
        integer = v.denominator == 1
        result = {
            "is_integer": integer,
            "is_rational": True,
            "is_real": True,
            "is_positive": v > 0,
            "is_negative": v < 0,
            "is_nonnegative": v >= 0,
            "is_nonzero": v != 0,
            "is_even": integer and v.numerator % 2 == 0,
            "is_odd": integer and v.numerator % 2 == 1,
            "is_prime": integer and is_probable_prime(v.numerator),
        }[name]
        return TRUE if result else FALSE
    x = sym.to_sympy(v)
    attr = name.removeprefix("is_")
    result = sym.guarded(lambda: getattr(x, f"is_{attr}"))
    return UNDECIDED if result is None else Decision(bool(result))
