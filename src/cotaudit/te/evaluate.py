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
from cotaudit.te.calls import BuiltinCalls
from cotaudit.te.ir import Node
from cotaudit.te.numeric import (
    EvalError,
    LimitError,
    Limits,
    NeedsSymbolic,
    Poisoned,
    Value,
    check_size,
    pow_fraction,
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


class Evaluator(BuiltinCalls):
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


def _size(node: Node) -> int:
    return 1 + sum(_size(c) for c in ir.children(node))
