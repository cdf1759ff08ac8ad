"""The built-in functions of the expression language (TE-27) and the size rule of TE-24: exact
over Fractions wherever that is exact, else through SymPy (:mod:`cotaudit.te.symbolic`), every
result held to the trace's limits. Mixed into :class:`cotaudit.te.evaluate.Evaluator`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from cotaudit.te import symbolic as sym
from cotaudit.te.numeric import (
    EvalError,
    LimitError,
    Limits,
    NeedsSymbolic,
    Value,
    binomial_bits,
    check_size,
    factorial_bits,
    mod_fraction,
    rational_root,
    round_half_away,
    shown,
)


class BuiltinCalls:
    """Built-in calls and bounded SymPy results, for an evaluator with ``limits``."""

    limits: Limits

    def _bounded(self, result: Any) -> Value:
        """A SymPy result, normalised (rationals come back as Fractions) and held to TE-24: an
        exact result within ``max_bits``, a constant within ``2^±max_bits`` in magnitude. The
        estimates before each operation make sure that such a value was cheap to build; this
        check keeps the next operation's estimate meaningful."""
        value = sym.normalise(result)
        if isinstance(value, Fraction):
            return check_size(value, self.limits)
        bits = sym.log2_abs(value)
        if sym.exceeds(bits, self.limits.max_bits):
            assert bits is not None
            raise LimitError(
                "result_bits",
                f"{abs(bits):.0f}",
                f"the value is about 2^{bits:.0f} in magnitude (limit 2^±{self.limits.max_bits})",
            )
        return value

    def _call_fraction(self, f: str, args: list[Fraction]) -> Fraction:
        lim = self.limits
        x = args[0]
        if f == "abs":
            return abs(x)
        if f == "min":
            return min(args)
        if f == "max":
            return max(args)
        if f == "floor":
            return Fraction(math.floor(x))
        if f == "ceil":
            return Fraction(math.ceil(x))
        if f == "mod":
            return check_size(mod_fraction(x, args[1]), lim)
        if f in ("gcd", "lcm"):
            if any(a.denominator != 1 for a in args):
                raise EvalError(f"{f}() of non-integers")
            ints = [int(a) for a in args]
            return Fraction(math.gcd(*ints) if f == "gcd" else math.lcm(*ints))
        if f == "sqrt":
            if x >= 0:
                root = rational_root(x, 2)
                if root is not None:
                    return root
            raise NeedsSymbolic()
        if f == "factorial":
            if x.denominator != 1 or x < 0:
                raise EvalError("factorial of a negative or non-integer number")
            n = int(x)
            est = factorial_bits(n)
            if est > lim.max_bits:
                raise LimitError(
                    "result_bits",
                    _bits_text(est),
                    f"factorial({shown(x)}) would need about {_bits_text(est)} bits",
                )
            return Fraction(math.factorial(n))
        if f == "binomial":
            k = args[1]
            if x.denominator != 1 or k.denominator != 1 or x < 0:
                raise EvalError("binomial needs integers with n >= 0")
            n, kk = int(x), int(k)
            est = binomial_bits(n, kk)
            if est > lim.max_bits:
                raise LimitError(
                    "result_bits",
                    _bits_text(est),
                    f"binomial({shown(x)}, {shown(k)}) would need about {_bits_text(est)} bits",
                )
            return Fraction(math.comb(n, kk) if 0 <= kk <= n else 0)
        if f == "round":
            nd = args[1] if len(args) > 1 else Fraction(0)
            if nd.denominator != 1 or abs(nd) > 20:
                raise EvalError("round(x, n) needs an integer n with |n| <= 20")
            return round_half_away(x, int(nd))
        if f == "log" and len(args) == 1 and x == 1:
            return Fraction(0)
        if f in ("log", "exp", "sin", "cos", "tan"):
            if f == "log" and (x == 0 or (len(args) > 1 and args[1] in (0, 1))):
                raise EvalError("log of 0 (or to base 0 or 1) is undefined")
            if f in ("exp", "sin", "tan") and x == 0:
                return Fraction(0) if f != "exp" else Fraction(1)
            if f == "cos" and x == 0:
                return Fraction(1)
            raise NeedsSymbolic()
        raise EvalError(f"unknown function {f}")  # pragma: no cover - the parser whitelists

    def _call_sympy(self, f: str, args: list[Value]) -> Value:
        sp = sym.sympy()
        xs = [sym.to_sympy(a) for a in args]
        x = xs[0]

        def ask(v: Any, fact: str) -> bool | None:  # assumption queries run under the deadline too
            answer: bool | None = sym.guarded(lambda: getattr(v, fact), counted=False)
            return answer

        if f in ("gcd", "lcm", "factorial", "binomial", "mod", "floor", "ceil", "round", "min", "max"):
            for v in xs:
                if ask(v, "is_real") is False:
                    raise EvalError(f"{f}() of a non-real value")
        if f in ("gcd", "lcm") and not all(ask(v, "is_integer") for v in xs):
            raise EvalError(f"{f}() of non-integers")
        if f == "factorial" and (ask(x, "is_integer") is False or ask(x, "is_negative")):
            raise EvalError("factorial of a negative or non-integer number")
        self._check_function(f, args)
        if f == "log" and (x == 0 or (len(xs) > 1 and xs[1] in (0, 1))):
            raise EvalError("log of 0 (or to base 0 or 1) is undefined")
        if f == "mod" and xs[1] == 0:
            raise EvalError("mod(a, 0) is undefined")
        if f == "round":
            nd = xs[1] if len(xs) > 1 else sp.Integer(0)
            if not nd.is_Integer or abs(int(nd)) > 20:
                raise EvalError("round(x, n) needs an integer n with |n| <= 20")
            scale = sp.Integer(10) ** int(nd)
            if sym.free_symbols(x):
                raise EvalError("round() of an expression with free parameters")

            def _round() -> Any:
                y = sp.Abs(x) * scale
                r = sp.floor(y + sp.Rational(1, 2))
                return (r if x.is_nonnegative else -r) / scale

            return self._bounded(sym.guarded(_round))
        table: dict[str, Callable[[], Any]] = {
            "sqrt": lambda: sp.sqrt(x),
            "abs": lambda: sp.Abs(x),
            "min": lambda: sp.Min(*xs),
            "max": lambda: sp.Max(*xs),
            "floor": lambda: sp.floor(x),
            "ceil": lambda: sp.ceiling(x),
            "gcd": lambda: sp.gcd(list(xs)),
            "lcm": lambda: sp.lcm(list(xs)),
            "mod": lambda: x - xs[1] * sp.floor(x / xs[1]),
            "log": lambda: sp.log(x) if len(xs) == 1 else sp.log(x, xs[1]),
            "exp": lambda: sp.exp(x),
            "sin": lambda: sp.sin(x),
            "cos": lambda: sp.cos(x),
            "tan": lambda: sp.tan(x),
            "factorial": lambda: sp.factorial(x),
            "binomial": lambda: sp.binomial(x, xs[1]),
        }
        result = sym.guarded(table[f])
        if result.has(sp.zoo, sp.nan):
            raise EvalError(f"{f}() is undefined here")
        return self._bounded(result)

    def _check_function(self, f: str, args: list[Value]) -> None:
        """TE-24 for the functions that grow a value: ``exp`` and ``factorial``/``binomial`` of
        a non-rational constant, estimated before SymPy computes them (``exp(10**10)``)."""
        if any(sym.free_symbols(a) for a in args):
            return
        mp = sym.mp()
        bits: float | None = None
        try:
            if f == "exp":
                v = sym.numeric(args[0])
                bits = None if v is None else float(mp.re(v) / mp.ln2)
            elif f in ("factorial", "binomial"):
                n = sym.numeric(args[0])
                k = sym.numeric(args[1]) if f == "binomial" else mp.mpf(0)
                if n is not None and k is not None:
                    log_e = mp.loggamma(n + 1) - mp.loggamma(k + 1) - mp.loggamma(n - k + 1)
                    bits = float(mp.re(log_e) / mp.ln2)
        except (ValueError, ZeroDivisionError):
            bits = None  # a pole of the gamma function: no estimate, SymPy decides
        if sym.exceeds(bits, self.limits.max_bits):
            assert bits is not None
            raise LimitError(
                "result_bits",
                f"{abs(bits):.0f}",
                f"{f}() would be about 2^{bits:.0f} (limit 2^±{self.limits.max_bits})",
            )


def _bits_text(bits: float) -> str:
    return f"{bits:.0f}" if math.isfinite(bits) else "more than 10^300"
