"""Unit propagation over expression IR (TE-39) and the dimension errors of TE_E009.

Units are gradual: an unknown unit (``None``) is never compared, so a missing annotation can
never cause a false positive. Numeric literals (and anything built only from them) are
:data:`LIT`: a pure number that adopts the unit of the other operands under ``+ -``,
comparisons, ``min max mod gcd lcm`` and is a dimensionless scale factor under ``* / **``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from cotaudit.errors import CotauditError
from cotaudit.te import ir
from cotaudit.te.ir import Node
from cotaudit.te.units import DIMENSIONLESS, UnitVec, format_unit


class _Lit:
    """The unit of a pure number (polymorphic)."""

    def __repr__(self) -> str:
        return "LIT"


LIT: Final = _Lit()
UnitT = UnitVec | _Lit | None


class DimensionError(CotauditError):
    """TE_E009: incompatible units inside one expression."""

    def __init__(self, subexpression: str, operator: str, left: str, right: str, reason: str) -> None:
        super().__init__(reason)
        self.subexpression = subexpression
        self.operator = operator
        self.left = left
        self.right = right
        self.reason = reason


def show(u: UnitT) -> str:
    if u is None:
        return "unknown"
    if isinstance(u, _Lit):
        return "1"
    return format_unit(u)


def known(u: UnitT) -> UnitVec | None:
    """A unit that takes part in comparisons: not unknown and not a pure number."""
    return u if isinstance(u, UnitVec) else None


_MAX_UNIT_EXPONENT = 1000
_ADDITIVE = frozenset({"min", "max", "mod", "gcd", "lcm"})
_SAME_AS_ARG = frozenset({"abs", "floor", "ceil", "round"})
_DIMENSIONLESS_ARGS = frozenset({"log", "exp", "sin", "cos", "tan", "factorial", "binomial"})


@dataclass(slots=True)
class UnitEnv:
    """Unit lookups for one world."""

    name: Callable[[str], UnitT]
    attr: Callable[[str], UnitT]
    function: Callable[[str], UnitT]
    constant_exponent: Callable[[Node], Fraction | None]
    constants: frozenset[str] = frozenset()  # pi, oo and unshadowed e/E/i/I: pure numbers


def unit_of(node: Node, env: UnitEnv, local: frozenset[str] = frozenset()) -> UnitT:
    """The computed unit of ``node``; raises :class:`DimensionError`."""
    # Pure numbers (literals, constants, anything built only from them) come out as LIT
    # bottom-up: every operator below maps LIT operands to LIT.
    if isinstance(node, ir.Num):
        return LIT
    if isinstance(node, ir.Name):
        if node.id in local or node.id in env.constants:
            return LIT
        return env.name(node.id)
    if isinstance(node, ir.Attr):
        return env.attr(node.id) if node.attr == "value" else None
    if isinstance(node, ir.Unary):
        return unit_of(node.operand, env, local)
    if isinstance(node, ir.BinOp):
        return _binop(node, env, local)
    if isinstance(node, ir.Call):
        return _call(node, env, local)
    if isinstance(node, ir.Big):
        body = unit_of(node.body, env, local | {node.index})
        unit_of(node.lo, env, local)
        unit_of(node.hi, env, local)
        if node.func == "Sum":
            return body
        return body if isinstance(body, _Lit) or (isinstance(body, UnitVec) and body.dimensionless) else None
    if isinstance(node, ir.Tup):
        for item in node.items:
            unit_of(item, env, local)
        return None
    return None


def add_units(a: UnitT, b: UnitT, node: Node, op: str) -> UnitT:
    """Units under ``+``/``-``/comparisons: known units must be compatible."""
    ka, kb = known(a), known(b)
    if ka is not None and kb is not None:
        if not ka.compatible(kb):
            raise DimensionError(
                ir.render(node),
                op,
                format_unit(ka),
                format_unit(kb),
                f"cannot combine {format_unit(ka)} and {format_unit(kb)} with '{op}'",
            )
        return ka
    if ka is not None:
        return ka
    if kb is not None:
        return kb
    if a is None or b is None:
        return None
    return LIT


def _binop(node: ir.BinOp, env: UnitEnv, local: frozenset[str]) -> UnitT:
    a = unit_of(node.left, env, local)
    b = unit_of(node.right, env, local)
    if node.op in ("+", "-"):
        return add_units(a, b, node, node.op)
    if node.op in ("*", "/"):
        if a is None or b is None:
            return None
        if isinstance(a, _Lit) and isinstance(b, _Lit):
            return LIT
        ua = DIMENSIONLESS if isinstance(a, _Lit) else a
        ub = DIMENSIONLESS if isinstance(b, _Lit) else b
        return ua * ub if node.op == "*" else ua / ub
    # '**'
    kb = known(b)
    if kb is not None and not kb.dimensionless:
        raise DimensionError(
            ir.render(node), "**", show(a), format_unit(kb), f"the exponent has unit {format_unit(kb)}"
        )
    if isinstance(a, _Lit) and isinstance(b, _Lit):
        return LIT
    if a is None:
        return None
    if isinstance(a, _Lit):
        return DIMENSIONLESS if b is not None else None
    if a.dimensionless:
        return a
    exponent = env.constant_exponent(node.right)
    if exponent is None:
        raise DimensionError(
            ir.render(node),
            "**",
            format_unit(a),
            show(b),
            f"a {format_unit(a)} base needs a constant rational exponent",
        )
    if abs(exponent) > _MAX_UNIT_EXPONENT:
        return None  # the value stage refuses such a power (TE_E014); no unit to speak of
    return a**exponent


def _call(node: ir.Call, env: UnitEnv, local: frozenset[str]) -> UnitT:
    if node.user:
        for arg in node.args:
            unit_of(arg, env, local)
        return env.function(node.func)
    args = [unit_of(a, env, local) for a in node.args]
    f = node.func
    if all(isinstance(a, _Lit) for a in args):
        return LIT
    if f == "sqrt":
        a = args[0]
        if isinstance(a, UnitVec):
            return a ** Fraction(1, 2)
        return a
    if f in _SAME_AS_ARG:
        return args[0]
    if f in _ADDITIVE:
        acc = args[0]
        for other in args[1:]:
            acc = add_units(acc, other, node, f)
        return acc
    if f in _DIMENSIONLESS_ARGS:
        for a in args:
            ka = known(a)
            if ka is not None and not ka.dimensionless:
                raise DimensionError(
                    ir.render(node),
                    f,
                    format_unit(ka),
                    "1",
                    f"{f}() needs a dimensionless argument, got {format_unit(ka)}",
                )
        return DIMENSIONLESS
    return None


def claim_units(node: Node, env: UnitEnv) -> None:
    """Check the comparisons of a claim for incompatible operands (E009)."""
    if isinstance(node, ir.Compare):
        operands = [node.first, *node.rest]
        units = [unit_of(o, env) for o in operands]
        if node.tol is not None:
            units.append(unit_of(node.tol, env))
        acc: UnitT = units[0]
        for k, u in enumerate(units[1:]):
            op = node.ops[k] if k < len(node.ops) else "±"
            acc = add_units(acc, u, node, "≈" if op == "approx" else op)
    elif isinstance(node, ir.BoolOp):
        for v in node.values:
            claim_units(v, env)
    elif isinstance(node, ir.Not):
        claim_units(node.operand, env)
    elif isinstance(node, ir.Pred):
        unit_of(node.arg, env)


def derivation(node: Node, env: UnitEnv) -> str:
    """``m/s * s = m``: how the computed unit of a top-level product or quotient arose."""
    result = show(unit_of(node, env))
    if isinstance(node, ir.BinOp) and node.op in ("*", "/", "+", "-"):
        left = show(unit_of(node.left, env))
        right = show(unit_of(node.right, env))
        return f"{left} {node.op} {right} = {result}"
    return result
