"""Exact evaluation of expression IR (TE-23 … TE-28).

:class:`Evaluator` walks IR to a value: a ``Fraction`` wherever that is exact, a SymPy
expression otherwise. With ``symbolic=False`` (the fast path) anything that needs SymPy
raises :class:`NeedsSymbolic` instead, and the linter re-runs the trace symbolically, so a
GSM8K-sized trace never imports SymPy.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise
from typing import Any, Protocol

import cotaudit.limits as budget
from cotaudit.te import ir
from cotaudit.te import symbolic as sym
from cotaudit.te.ir import Node
from cotaudit.te.numeric import (
    EvalError,
    LimitError,
    Limits,
    NeedsSymbolic,
    Poisoned,
    Value,
    binomial_bits,
    check_size,
    factorial_bits,
    mod_fraction,
    pow_fraction,
    rational_root,
    round_half_away,
    shown,
)


@dataclass(frozen=True, slots=True)
class UserFunction:
    """``f(x, y) := body`` declared in GIVEN (TE-33)."""

    name: str
    params: tuple[str, ...]
    body: Node


class Scope(Protocol):
    """What the evaluator asks the linter: symbol values, ``ID.value`` and user functions."""

    def lookup(self, name: str) -> Value: ...  # raises Poisoned / EvalError

    def attr_value(self, ident: str) -> Value: ...

    def function(self, name: str) -> UserFunction | None: ...


_SYMPY_CONSTANTS = {"pi": "pi", "oo": "oo", "E": "E", "e": "E", "I": "I", "i": "I"}


class Evaluator:
    """Evaluate IR exactly. ``constants`` are the names that act as constants in this trace."""

    def __init__(self, limits: Limits, symbolic: bool, constants: frozenset[str]) -> None:
        self.limits = limits
        self.symbolic = symbolic
        self.constants = constants
        self._call_depth = 0
        self._call_nodes = 0

    # -- entry -----------------------------------------------------------------------------
    def value(self, node: Node, scope: Scope, local: Mapping[str, Value] | None = None) -> Value:
        self._call_depth = 0
        self._call_nodes = 0
        return self._eval(node, scope, dict(local or {}))

    def need_sympy(self) -> Any:
        if not self.symbolic:
            raise NeedsSymbolic()
        return sym.sympy()

    # -- the walk --------------------------------------------------------------------------
    def _eval(self, node: Node, scope: Scope, local: dict[str, Value]) -> Value:
        if isinstance(node, ir.Num):
            return node.value
        if isinstance(node, ir.BinOp):
            return self._binop(node, scope, local)
        if isinstance(node, ir.Name):
            if node.id in local:
                return local[node.id]
            if node.id in self.constants:
                sp = self.need_sympy()
                return getattr(sp, _SYMPY_CONSTANTS[node.id])
            return scope.lookup(node.id)
        if isinstance(node, ir.Attr):
            if node.attr != "value":
                raise EvalError(f"{node.id}.unit is a unit, not a value")
            return scope.attr_value(node.id)
        if isinstance(node, ir.Unary):
            v = self._eval(node.operand, scope, local)
            return v if node.op == "+" else self._neg(v)
        if isinstance(node, ir.BinOp):
            return self._binop(node, scope, local)
        if isinstance(node, ir.Call):
            if node.user:
                return self._user_call(node, scope, local)
            return self._call(node, scope, local)
        if isinstance(node, ir.Big):
            return self._big(node, scope, local)
        raise EvalError(f"{type(node).__name__} has no value")

    def _neg(self, v: Value) -> Value:
        if isinstance(v, Fraction):
            return -v
        return self._bounded(sym.guarded(lambda: -v))

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

    def _check_power(self, a: Value, b: Value) -> None:
        """TE-24 for a power SymPy would compute: the exponent and the size of the result are
        estimated before anything is computed, for every exponent, rational, float or irrational
        (``10**10**10.10``: the exponent 10^10.1 is refused before SymPy or mpmath sees it)."""
        if sym.free_symbols(b):
            return  # a symbolic exponent: values appear only at probe points (sym.bounded_at)
        lim = self.limits.max_symbolic_exponent if sym.free_symbols(a) else self.limits.max_exponent
        if isinstance(b, Fraction):
            too_big = abs(b) > lim
            text = shown(b)
        else:
            v = sym.numeric(b)
            too_big = v is not None and abs(v) > lim
            text = f"about {sym.approx(v)}" if v is not None else sym.text(b)
        if too_big:
            raise LimitError("exponent", text, f"exponent {text} exceeds {lim}")
        if sym.free_symbols(a):
            return
        bits = sym.log2_power(a, b)
        if sym.exceeds(bits, self.limits.max_bits):
            assert bits is not None
            raise LimitError(
                "result_bits",
                f"{abs(bits):.0f}",
                f"result of a power would be about 2^{bits:.0f} (limit 2^±{self.limits.max_bits})",
            )

    def _binop(self, node: ir.BinOp, scope: Scope, local: dict[str, Value]) -> Value:
        a = self._eval(node.left, scope, local)
        b = self._eval(node.right, scope, local)
        op = node.op
        if isinstance(a, Fraction) and isinstance(b, Fraction):
            if op == "+":
                return check_size(a + b, self.limits)
            if op == "-":
                return check_size(a - b, self.limits)
            if op == "*":
                return check_size(a * b, self.limits)
            if op == "/":
                if b == 0:
                    raise EvalError("division by zero")
                return check_size(a / b, self.limits)
            try:
                return pow_fraction(a, b, self.limits)
            except NeedsSymbolic:
                self.need_sympy()
        else:
            self.need_sympy()
        return self._sym_binop(op, a, b)

    def _sym_binop(self, op: str, a: Value, b: Value) -> Value:
        sp = sym.sympy()
        x, y = sym.to_sympy(a), sym.to_sympy(b)
        if op == "/" and (y == 0):
            raise EvalError("division by zero")
        if op == "**":
            self._check_power(a, b)
            if x == 0 and sym.guarded(lambda: y.is_negative, counted=False):
                raise EvalError("0 raised to a negative power")
        fn: Callable[[], Any] = {
            "+": lambda: sp.Add(x, y),
            "-": lambda: sp.Add(x, -y),
            "*": lambda: sp.Mul(x, y),
            "/": lambda: sp.Mul(x, sp.Pow(y, -1)),
            "**": lambda: sp.Pow(x, y),
        }[op]
        result = sym.guarded(fn)
        if result.has(sp.zoo, sp.nan):
            raise EvalError("the expression is undefined (division by zero or oo - oo)")
        return self._bounded(result)

    # -- functions -------------------------------------------------------------------------
    def _call(self, node: ir.Call, scope: Scope, local: dict[str, Value]) -> Value:
        f = node.func
        if f == "mod" and isinstance(node.args[0], ir.BinOp) and node.args[0].op == "**":
            fast = self._modpow(node.args[0], node.args[1], scope, local)
            if fast is not None:
                return fast
        args = [self._eval(a, scope, local) for a in node.args]
        if all(isinstance(a, Fraction) for a in args):
            try:
                return self._call_fraction(f, args)
            except NeedsSymbolic:
                self.need_sympy()
        else:
            self.need_sympy()
        return self._call_sympy(f, args)

    def _modpow(self, power: ir.BinOp, modulus: Node, scope: Scope, local: dict[str, Value]) -> Value | None:
        """``mod(a**b, m)`` by three-argument pow, exempt from the power limits (TE-24)."""
        a = self._eval(power.left, scope, local)
        b = self._eval(power.right, scope, local)
        m = self._eval(modulus, scope, local)
        if all(isinstance(v, Fraction) and v.denominator == 1 for v in (a, b, m)) and b >= 0:
            if m == 0:
                raise EvalError("mod(a, 0) is undefined")
            return Fraction(pow(int(a), int(b), int(m)))
        return None

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

    def _user_call(self, node: ir.Call, scope: Scope, local: dict[str, Value]) -> Value:
        fn = scope.function(node.func)
        if fn is None:
            raise Poisoned()  # its declaration failed and was reported there
        if len(node.args) != len(fn.params):
            raise EvalError(f"{node.func}() takes {len(fn.params)} argument(s)")
        args = [self._eval(a, scope, local) for a in node.args]
        self._call_depth += 1
        self._call_nodes += _size(fn.body)
        try:
            if self._call_depth > self.limits.max_call_depth:
                raise LimitError(
                    "call_depth", str(self._call_depth), "user functions nested more than 20 deep"
                )
            if self._call_nodes > self.limits.max_call_nodes:
                raise LimitError(
                    "call_nodes", str(self._call_nodes), "user-function expansion over 10,000 nodes"
                )
            return self._eval(fn.body, scope, dict(zip(fn.params, args, strict=True)))
        finally:
            self._call_depth -= 1

    # -- Sum / Product ---------------------------------------------------------------------
    def _big(self, node: ir.Big, scope: Scope, local: dict[str, Value]) -> Value:
        lo = self._eval(node.lo, scope, local)
        hi = self._eval(node.hi, scope, local)
        if isinstance(lo, Fraction) and isinstance(hi, Fraction):
            if lo.denominator != 1 or hi.denominator != 1:
                raise EvalError(f"{node.func}() bounds must be integers")
            count = int(hi) - int(lo) + 1
            if count > self.limits.max_terms:
                self._check_big(node, scope, local, int(lo), int(hi))
            if count <= self.limits.max_terms:
                return self._expand(node, scope, local, int(lo), int(hi))
        else:
            for bound in (lo, hi):
                if (
                    not isinstance(bound, Fraction)
                    and bound.is_integer is False
                    and bound.is_infinite is not True
                ):
                    raise EvalError(f"{node.func}() bounds must be integers")
        sp = self.need_sympy()
        k = sp.Symbol(node.index, integer=True)
        body = sym.to_sympy(self._eval(node.body, scope, {**local, node.index: k}))
        bounds = (k, sym.to_sympy(lo), sym.to_sympy(hi))
        if node.func == "Sum":
            result = sym.guarded(lambda: sp.summation(body, bounds))
        else:
            result = sym.guarded(lambda: sp.product(body, bounds))
        if result.has(sp.Sum, sp.Product):
            raise LimitError("closed_form", node.func, f"{node.func}() has no closed form within the budget")
        if result.has(sp.zoo, sp.nan):
            raise EvalError(f"{node.func}() is undefined here")
        return self._bounded(result)

    def _expand(self, node: ir.Big, scope: Scope, local: dict[str, Value], lo: int, hi: int) -> Value:
        """A Sum/Product of at most ``max_terms`` terms. Rational terms accumulate exactly (size
        checked at every step); the others are collected, their combined size estimated (the
        largest term and the count for a sum, the sum of |log2| for a product) and handed to
        SymPy once, as one Add/Mul of n terms rather than n ever longer ones."""
        is_sum = node.func == "Sum"
        exact = Fraction(0 if is_sum else 1)
        rest: list[Any] = []
        bits = float("-inf") if is_sum else 0.0
        for k in range(lo, hi + 1):
            budget.checkpoint()
            term = self._eval(node.body, scope, {**local, node.index: Fraction(k)})
            if isinstance(term, Fraction):
                exact = check_size(exact + term if is_sum else exact * term, self.limits)
                continue
            self.need_sympy()
            m = sym.log2_abs(term)
            if m is not None and m != float("-inf"):
                bits = max(bits, m) if is_sum else bits + abs(m)
            rest.append(sym.to_sympy(term))
        if not rest:
            return exact
        total = bits + math.log2(len(rest)) if is_sum and bits != float("-inf") else bits
        if sym.exceeds(total, self.limits.max_bits):
            raise LimitError(
                "result_bits",
                f"{abs(total):.0f}",
                f"{node.func}() of {hi - lo + 1} terms would be about 2^{total:.0f} "
                f"(limit 2^±{self.limits.max_bits})",
            )
        sp = sym.sympy()
        first = sym.to_sympy(exact)
        result = sym.guarded(lambda: sp.Add(first, *rest) if is_sum else sp.Mul(first, *rest))
        if result.has(sp.zoo, sp.nan):
            raise EvalError("the expression is undefined (division by zero or oo - oo)")
        return self._bounded(result)

    def _check_big(self, node: ir.Big, scope: Scope, local: dict[str, Value], lo: int, hi: int) -> None:
        """TE-24 for a Sum/Product too long to expand: SymPy's closed form may be a huge exact
        number (``Sum(10**k, (k, 1, 10**10))``), so its size is estimated first from the terms
        at the bounds and at log-spaced points between them, each evaluated under the same
        limits. Between two such points a sum grows by at most the segment length times the
        larger end term, a product's log2 by the segment length times the larger |log2| term."""
        points = sorted({lo, hi, *(lo + (1 << j) for j in range((hi - lo).bit_length()))})
        logs: list[float | None] = []
        for k in points:
            try:
                term = self._eval(node.body, scope, {**local, node.index: Fraction(k)})
            except EvalError:
                logs.append(None)  # undefined at this point: SymPy will say so
                continue
            logs.append(sym.log2_abs(term))
        if node.func == "Product" and any(m == float("-inf") for m in logs):
            return  # a zero factor: the product is 0
        sum_bits = float("-inf")  # log2 of the bound on the sum
        product_bits = 0.0  # bound on |log2| of the product
        for (k0, m0), (k1, m1) in pairwise([*zip(points, logs, strict=True), (hi + 1, logs[-1])]):
            ends = [m for m in (m0, m1) if m is not None]
            if not ends:
                continue
            length = k1 - k0
            sum_bits = max(sum_bits, math.log2(length) + max(ends))
            product_bits += length * max(abs(m) for m in ends)
        if node.func == "Sum":
            total = sum_bits + math.log2(len(points)) if sum_bits != float("-inf") else sum_bits
        else:
            total = product_bits
        if sym.exceeds(total, self.limits.max_bits):
            raise LimitError(
                "result_bits",
                f"{abs(total):.0f}",
                f"{node.func}() of {hi - lo + 1} terms would be about 2^{total:.0f} "
                f"(limit 2^±{self.limits.max_bits})",
            )


def _bits_text(bits: float) -> str:
    return f"{bits:.0f}" if math.isfinite(bits) else "more than 10^300"


def _size(node: Node) -> int:
    return 1 + sum(_size(c) for c in ir.children(node))
