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
from typing import Any, Protocol

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
        return sym.normalise(sym.guarded(lambda: -v))

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
            if isinstance(b, Fraction):
                lim = self.limits.max_symbolic_exponent if sym.free_symbols(a) else self.limits.max_exponent
                if abs(b) > lim:
                    shown = sym.text(b)
                    raise LimitError("exponent", shown, f"exponent {shown} exceeds {lim}")
            elif not isinstance(b, Fraction) and sym.free_symbols(b):
                pass  # symbolic exponent: bounded by the per-call deadline
            if x == 0 and getattr(y, "is_negative", False):
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
        return sym.normalise(result)

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
                    "result_bits", f"{est:.0f}", f"factorial({n}) would need about {est:.0f} bits"
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
                    "result_bits", f"{est:.0f}", f"binomial({n}, {kk}) would need about {est:.0f} bits"
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
        if f in ("gcd", "lcm", "factorial", "binomial", "mod", "floor", "ceil", "round", "min", "max"):
            for v in xs:
                if v.is_real is False:
                    raise EvalError(f"{f}() of a non-real value")
        if f in ("gcd", "lcm") and not all(v.is_integer for v in xs):
            raise EvalError(f"{f}() of non-integers")
        if f == "factorial" and (x.is_integer is False or x.is_negative):
            raise EvalError("factorial of a negative or non-integer number")
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

            return sym.normalise(sym.guarded(_round))
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
        return sym.normalise(result)

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
            if count <= self.limits.max_terms:
                acc: Value = Fraction(0 if node.func == "Sum" else 1)
                for k in range(int(lo), int(hi) + 1):
                    term = self._eval(node.body, scope, {**local, node.index: Fraction(k)})
                    if isinstance(acc, Fraction) and isinstance(term, Fraction):
                        acc = check_size(acc + term if node.func == "Sum" else acc * term, self.limits)
                    else:
                        acc = self._sym_binop("+" if node.func == "Sum" else "*", acc, term)
                return acc
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
        return sym.normalise(result)


def _size(node: Node) -> int:
    return 1 + sum(_size(c) for c in ir.children(node))
