"""The expression IR that the safe parser builds (TE-22) and the evaluators walk.

Nodes are frozen and hashable so parsed expressions can be cached by their text. Every node
carries ``pos``: the 0-based offset of its first character in the text that was parsed, so
the linter can report columns on the physical line.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

# The paper's 18 functions plus round [ext] (TE-23): name -> (min arity, max arity or None).
FUNCTIONS: dict[str, tuple[int, int | None]] = {
    "sqrt": (1, 1),
    "abs": (1, 1),
    "min": (1, None),
    "max": (1, None),
    "floor": (1, 1),
    "ceil": (1, 1),
    "gcd": (2, None),
    "lcm": (2, None),
    "mod": (2, 2),
    "log": (1, 2),
    "exp": (1, 1),
    "sin": (1, 1),
    "cos": (1, 1),
    "tan": (1, 1),
    "Sum": (2, 2),
    "Product": (2, 2),
    "factorial": (1, 1),
    "binomial": (2, 2),
    "round": (1, 2),
}
PREDICATES: frozenset[str] = frozenset(
    {
        "is_integer",
        "is_rational",
        "is_real",
        "is_positive",
        "is_negative",
        "is_nonnegative",
        "is_nonzero",
        "is_even",
        "is_odd",
        "is_prime",
    }
)
# Names a trace may never declare or use as an EQ target (TE-19).
RESERVED: frozenset[str] = frozenset({"pi", "oo", "unit", "param"}) | frozenset(FUNCTIONS) | PREDICATES
# Constants that are constants only while the trace does not bind the name (TE-19).
SHADOWABLE_CONSTANTS: frozenset[str] = frozenset({"E", "e", "I", "i"})
CONSTANTS: frozenset[str] = frozenset({"pi", "oo"}) | SHADOWABLE_CONSTANTS


@dataclass(frozen=True, slots=True)
class Num:
    """A numeric literal, valued from its source text (``0.1`` is exactly 1/10)."""

    value: Fraction
    text: str
    pos: int


@dataclass(frozen=True, slots=True)
class Name:
    """A user symbol, a constant, or (inside Sum/Product or a function body) a local."""

    id: str
    pos: int


@dataclass(frozen=True, slots=True)
class Attr:
    """``ID.value`` or ``ID.unit`` (TE-36)."""

    id: str
    attr: str
    pos: int


@dataclass(frozen=True, slots=True)
class BinOp:
    op: str  # one of + - * / **
    left: Node
    right: Node
    pos: int


@dataclass(frozen=True, slots=True)
class Unary:
    op: str  # - or +
    operand: Node
    pos: int


@dataclass(frozen=True, slots=True)
class Call:
    """A whitelisted function (TE-23) or a declared user function (TE-33)."""

    func: str
    args: tuple[Node, ...]
    pos: int
    user: bool = False


@dataclass(frozen=True, slots=True)
class Big:
    """``Sum(body, (index, lo, hi))`` or ``Product(...)``: inclusive bounds, local index."""

    func: str
    body: Node
    index: str
    lo: Node
    hi: Node
    pos: int


@dataclass(frozen=True, slots=True)
class Tup:
    """A top-level tuple: only an ANS with several answers."""

    items: tuple[Node, ...]
    pos: int


@dataclass(frozen=True, slots=True)
class Compare:
    """A (chained) comparison in a claim; ``approx`` is ``≈``, ``tol`` the ``± t`` of a single ``==``."""

    first: Node
    ops: tuple[str, ...]
    rest: tuple[Node, ...]
    tol: Node | None
    pos: int


@dataclass(frozen=True, slots=True)
class BoolOp:
    op: str  # and / or
    values: tuple[Node, ...]
    pos: int


@dataclass(frozen=True, slots=True)
class Not:
    operand: Node
    pos: int


@dataclass(frozen=True, slots=True)
class Pred:
    """``is_integer(x)`` and the other nine predicates (claims only)."""

    name: str
    arg: Node
    pos: int


Node = Num | Name | Attr | BinOp | Unary | Call | Big | Tup | Compare | BoolOp | Not | Pred


def children(node: Node) -> tuple[Node, ...]:
    """Direct sub-expressions, left to right."""
    if isinstance(node, BinOp):
        return (node.left, node.right)
    if isinstance(node, Unary | Not):
        return (node.operand,)
    if isinstance(node, Call):
        return node.args
    if isinstance(node, Big):
        return (node.body, node.lo, node.hi)
    if isinstance(node, Tup):
        return node.items
    if isinstance(node, Compare):
        return (node.first, *node.rest) + ((node.tol,) if node.tol is not None else ())
    if isinstance(node, BoolOp):
        return node.values
    if isinstance(node, Pred):
        return (node.arg,)
    return ()


def render(node: Node) -> str:
    """A canonical text form of an expression, for messages and evidence."""
    if isinstance(node, Num):
        return node.text
    if isinstance(node, Name):
        return node.id
    if isinstance(node, Attr):
        return f"{node.id}.{node.attr}"
    if isinstance(node, BinOp):
        return f"{_wrap(node.left, node.op, False)} {node.op} {_wrap(node.right, node.op, True)}"
    if isinstance(node, Unary):
        inner = render(node.operand)
        if isinstance(node.operand, BinOp):
            inner = f"({inner})"
        return f"{node.op}{inner}"
    if isinstance(node, Call):
        return f"{node.func}({', '.join(render(a) for a in node.args)})"
    if isinstance(node, Big):
        return f"{node.func}({render(node.body)}, ({node.index}, {render(node.lo)}, {render(node.hi)}))"
    if isinstance(node, Tup):
        return ", ".join(render(i) for i in node.items)
    if isinstance(node, Compare):
        parts = [render(node.first)]
        for op, rhs in zip(node.ops, node.rest, strict=True):
            parts.append("≈" if op == "approx" else op)
            parts.append(render(rhs))
        if node.tol is not None:
            parts += ["±", render(node.tol)]
        return " ".join(parts)
    if isinstance(node, BoolOp):
        return f" {node.op} ".join(render(v) for v in node.values)
    if isinstance(node, Not):
        return f"not {render(node.operand)}"
    return f"{node.name}({render(node.arg)})"


_PREC = {"+": 1, "-": 1, "*": 2, "/": 2, "**": 3}


def _wrap(node: Node, parent_op: str, right: bool) -> str:
    text = render(node)
    if isinstance(node, Unary) and parent_op == "**" and not right:
        return f"({text})"
    if isinstance(node, BinOp):
        p, q = _PREC[node.op], _PREC[parent_op]
        if p < q or (p == q and (right if parent_op != "**" else not right)):
            return f"({text})"
    return text
