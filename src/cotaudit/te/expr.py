"""Safe expression parsing (TE-18 … TE-23): trace text → IR, with no ``eval`` anywhere.

Pipeline: (1) normalise Unicode operators (TE-20); (2) a linear-time regex pre-tokenizer
(TE-21) that values every numeral from its own text, rewrites percent, base-subscript and
thousands numerals into placeholders, renames keywords and refuses forbidden tokens; (3)
``ast.parse(mode="eval")`` on the rewritten, ASCII-only text; (4) a whitelist walk (TE-22)
that builds :mod:`cotaudit.te.ir` nodes. Nothing is ever executed.

The pre-tokenizer is a small regex scanner rather than :mod:`tokenize`: Python's tokenizer
reads ``4343_6`` and ``1_000`` as Python numerals and raises on unterminated strings, both of
which TE must intercept first (TE-21.2).
"""

from __future__ import annotations

import ast
import re
import warnings
from fractions import Fraction
from functools import lru_cache

from cotaudit.te import ir
from cotaudit.te.fastparse import parse_plain
from cotaudit.te.ir import FUNCTIONS, PREDICATES, Node
from cotaudit.te.pretokenize import (
    MAX_DEPTH,
    MAX_NODES,
    ExprError,
    Mode,
    Rewritten,
    e013,
    merge_thousands,
    normalise,
    rewrite,
    tokenize_expr,
)

__all__ = ["ExprError", "Mode", "literal_tolerance", "normalise", "parse"]

# --- TE-22 whitelist walk ------------------------------------------------------------------

_BINOPS: dict[type, str] = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}
_CMPOPS: dict[type, str] = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Is: "approx",
}


class _Walker:
    def __init__(
        self, rw: Rewritten, where: list[int], mode: Mode, functions: frozenset[tuple[str, int]]
    ) -> None:
        self.rw = rw
        self.where = where  # normalised offset -> original offset
        self.mode = mode
        self.functions = dict(functions)  # user function name -> number of parameters
        self.nodes = 0
        self.max_depth = 0
        self.violations: list[ExprError] = []

    def pos(self, node: ast.AST) -> int:
        off = getattr(node, "col_offset", 0)
        off = min(max(off, 0), len(self.rw.where) - 1) if self.rw.where else 0
        return self.where[self.rw.where[off]] if self.rw.where else 0

    def bad(self, node: ast.AST, reason: str) -> Node:
        self.violations.append(e013(reason, self.pos(node), type(node).__name__))
        return ir.Num(Fraction(0), "0", self.pos(node))

    def name_of(self, ident: str) -> str:
        return self.rw.renamed.get(ident, ident)

    def walk(self, node: ast.AST, depth: int, *, top: bool = False, claim: bool = False) -> Node:
        self.nodes += 1
        self.max_depth = max(self.max_depth, depth)
        if depth > MAX_DEPTH + 1:
            # Deeper structure is refused as E014 below; stop descending.
            return ir.Num(Fraction(0), "0", self.pos(node))
        if isinstance(node, ast.Constant):
            off = node.col_offset
            if off in self.rw.consts and isinstance(node.value, int) and not isinstance(node.value, bool):
                value, text, npos = self.rw.consts[off]
                return ir.Num(value, text, self.where[npos])
            return self.bad(node, "only numeric literals are allowed")
        if isinstance(node, ast.Name):
            ident = self.name_of(node.id)
            if ident in PREDICATES or ident == "unit" or ident == "param":
                return self.bad(node, f"{ident!r} is reserved and cannot be used as a value")
            if ident in FUNCTIONS:
                return self.bad(node, f"function {ident!r} used without a call")
            return ir.Name(ident, self.pos(node))
        if isinstance(node, ast.BinOp):
            op = _BINOPS.get(type(node.op))
            if op is None:
                if claim and isinstance(node.op, ast.BitOr):
                    return self.bad(node, "'±' may only follow the value of a single '=='")
                return self.bad(node, f"operator {type(node.op).__name__} is not TE")
            left = self.walk(node.left, depth + 1)
            right = self.walk(node.right, depth + 1)
            return ir.BinOp(op, left, right, self.pos(node))
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub | ast.UAdd):
                op = "-" if isinstance(node.op, ast.USub) else "+"
                return ir.Unary(op, self.walk(node.operand, depth + 1), self.pos(node))
            if isinstance(node.op, ast.Not) and claim:
                return ir.Not(self.walk_claim(node.operand, depth + 1), self.pos(node))
            return self.bad(node, f"operator {type(node.op).__name__} is not allowed here")
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.attr in ("value", "unit"):
                ident = self.name_of(node.value.id)
                return ir.Attr(ident, node.attr, self.pos(node))
            return self.bad(node, "attributes other than ID.value / ID.unit are not allowed")
        if isinstance(node, ast.Call):
            return self.walk_call(node, depth, claim=claim)
        if isinstance(node, ast.Tuple) and top and self.mode == "ans":
            items = tuple(self.walk(e, depth + 1) for e in node.elts)
            return ir.Tup(items, self.pos(node))
        if isinstance(node, ast.Compare | ast.BoolOp):
            if claim:
                return self.walk_claim(node, depth)
            return self.bad(node, "comparisons are only allowed in CHECK claims")
        return self.bad(node, f"{type(node).__name__} is not allowed in TE expressions")

    def walk_call(self, node: ast.Call, depth: int, *, claim: bool) -> Node:
        if not isinstance(node.func, ast.Name):
            return self.bad(node, "only named functions may be called")
        func = self.name_of(node.func.id)
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            return self.bad(node, f"{func}() takes no keyword or starred arguments")
        nargs = len(node.args)
        if func in PREDICATES:
            if not claim:
                return self.bad(node, f"predicate {func}() is only allowed in CHECK claims")
            if nargs != 1:
                return self.bad(node, f"{func}() takes exactly 1 argument ({nargs} given)")
            return ir.Pred(func, self.walk(node.args[0], depth + 1), self.pos(node))
        if func in ("Sum", "Product"):
            return self.walk_big(node, func, depth)
        if func in FUNCTIONS:
            lo, hi = FUNCTIONS[func]
            if nargs < lo or (hi is not None and nargs > hi):
                want = f"{lo}" if lo == hi else (f"at least {lo}" if hi is None else f"{lo} to {hi}")
                return self.bad(node, f"{func}() takes {want} argument(s) ({nargs} given)")
            args = tuple(self.walk(a, depth + 1) for a in node.args)
            return ir.Call(func, args, self.pos(node))
        if func in self.functions:
            if nargs != self.functions[func]:
                return self.bad(node, f"{func}() takes {self.functions[func]} argument(s) ({nargs} given)")
            args = tuple(self.walk(a, depth + 1) for a in node.args)
            return ir.Call(func, args, self.pos(node), user=True)
        return self.bad(node.func, f"unknown function {func!r}")

    def walk_big(self, node: ast.Call, func: str, depth: int) -> Node:
        if len(node.args) != 2:
            return self.bad(node, f"{func}() takes 2 arguments: {func}(f, (k, a, b))")
        limits = node.args[1]
        if not (
            isinstance(limits, ast.Tuple) and len(limits.elts) == 3 and isinstance(limits.elts[0], ast.Name)
        ):
            return self.bad(limits, f"{func}() limits must be (index, lower, upper)")
        index = self.name_of(limits.elts[0].id)
        if index in ir.RESERVED or index in ir.CONSTANTS - ir.SHADOWABLE_CONSTANTS:
            return self.bad(limits.elts[0], f"{index!r} is reserved and cannot be an index")
        body = self.walk(node.args[0], depth + 1)
        lo = self.walk(limits.elts[1], depth + 1)
        hi = self.walk(limits.elts[2], depth + 1)
        return ir.Big(func, body, index, lo, hi, self.pos(node))

    def walk_claim(self, node: ast.AST, depth: int) -> Node:
        self.nodes += 1
        self.max_depth = max(self.max_depth, depth)
        if isinstance(node, ast.BoolOp):
            op = "and" if isinstance(node.op, ast.And) else "or"
            values = tuple(self.walk_claim(v, depth + 1) for v in node.values)
            return ir.BoolOp(op, values, self.pos(node))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return ir.Not(self.walk_claim(node.operand, depth + 1), self.pos(node))
        if isinstance(node, ast.Compare):
            ops: list[str] = []
            for cmp in node.ops:
                name = _CMPOPS.get(type(cmp))
                if name is None:
                    return self.bad(node, f"comparison {type(cmp).__name__} is not TE")
                ops.append(name)
            first = self.walk(node.left, depth + 1)
            rest: list[Node] = []
            tol: Node | None = None
            for k, comp in enumerate(node.comparators):
                if isinstance(comp, ast.BinOp) and isinstance(comp.op, ast.BitOr):
                    if len(ops) != 1 or ops[0] != "==" or k != len(node.comparators) - 1:
                        return self.bad(comp, "'±' may only follow the value of a single '=='")
                    rest.append(self.walk(comp.left, depth + 1))
                    tol = self.walk(comp.right, depth + 1)
                else:
                    rest.append(self.walk(comp, depth + 1))
            for op, rhs in zip(ops, rest, strict=True):
                if op == "approx" and not _is_numeric_literal(rhs):
                    return self.bad(node, "'≈' must be followed by a numeric literal")
            return ir.Compare(first, tuple(ops), tuple(rest), tol, self.pos(node))
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and self.name_of(node.func.id) in PREDICATES
        ):
            return self.walk_call(node, depth, claim=True)
        return self.bad(node, "a claim must be a comparison or a predicate such as is_integer(x)")


def _is_numeric_literal(node: Node) -> bool:
    if isinstance(node, ir.Unary):
        return isinstance(node.operand, ir.Num)
    return isinstance(node, ir.Num)


@lru_cache(maxsize=4096)
def _parse_cached(text: str, mode: Mode, functions: frozenset[tuple[str, int]]) -> Node | ExprError:
    try:
        return _parse(text, mode, functions)
    except ExprError as err:
        return err


def parse(text: str, mode: Mode = "expr", functions: frozenset[tuple[str, int]] = frozenset()) -> Node:
    """Parse one expression (or claim) into IR; raise :class:`ExprError` on rejection.

    ``functions`` are the user functions declared so far (TE-33), as (name, arity) pairs.
    Positions in the IR and in errors are 0-based offsets into ``text``.
    """
    result = _parse_cached(text, mode, functions)
    if isinstance(result, ExprError):
        raise result
    return result


# ast.parse warns about constructs such as `0 is 0` (our `≈` surrogate); those warnings are
# about trace text, never about code, so they are silenced for this one source name only
# (a per-call catch_warnings() would be slow and is not thread-safe).
_SOURCE_NAME = "<cotaudit-te-expression>"
warnings.filterwarnings("ignore", category=SyntaxWarning, module=re.escape(_SOURCE_NAME))

_PLAIN_NUMBER = re.compile(r"\s*([0-9]{1,15})(?:\.([0-9]{1,15}))?\s*")


def _parse(text: str, mode: Mode, functions: frozenset[tuple[str, int]]) -> Node:
    plain = _PLAIN_NUMBER.fullmatch(text)
    if plain:  # a bare numeral, most GIVEN values and claimed parts: no tokenizer, no ast
        whole, frac = plain.group(1), plain.group(2)
        value = Fraction(int(whole + (frac or "")), 10 ** len(frac or ""))
        return ir.Num(value, text.strip(), plain.start(1))
    fast = parse_plain(text, dict(functions), claim=mode == "claim")
    if fast is not None:  # plain arithmetic or a plain comparison: same IR, no ast
        return fast
    return _parse_full(text, mode, functions)


def _parse_full(text: str, mode: Mode, functions: frozenset[tuple[str, int]]) -> Node:
    """The whole TE-21 → ast → TE-22 pipeline (the one definition of what TE accepts)."""
    norm, where = normalise(text, mode)
    if not norm.strip():
        raise e013("empty expression", 0, "")
    try:
        toks = tokenize_expr(norm, mode)
        toks = merge_thousands(toks, norm, mode)
        if sum(t.kind in ("num", "name") for t in toks) > MAX_NODES:
            raise ExprError(
                "TE_E014", "expression has more than 500 nodes", 0, "", limit="nodes", value=">500"
            )
        rw = rewrite(toks, norm, mode)
    except ExprError as err:  # positions so far are in the normalised text: map them back
        err.pos = where[min(err.pos, len(where) - 1)] if where else 0
        raise
    src = rw.src
    try:
        tree = ast.parse(src, filename=_SOURCE_NAME, mode="eval")
    except SyntaxError as exc:
        off = max((exc.offset or 1) - 1, 0)  # 1-based → 0-based
        pos = where[rw.where[min(off, len(rw.where) - 1)]] if rw.where else 0
        raise e013(f"syntax error: {exc.msg}", pos, text[pos : pos + 20]) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise e013(f"cannot parse expression ({type(exc).__name__})", 0, text[:20]) from None
    walker = _Walker(rw, where, mode, functions)
    body = tree.body
    result = walker.walk_claim(body, 1) if mode == "claim" else walker.walk(body, 1, top=True)
    if walker.violations:
        raise min(walker.violations, key=lambda e: e.pos)
    if walker.nodes > MAX_NODES:
        raise ExprError(
            "TE_E014", "expression has more than 500 nodes", 0, "", limit="nodes", value=str(walker.nodes)
        )
    if walker.max_depth > MAX_DEPTH:
        raise ExprError("TE_E014", "expression nested more than 50 deep", 0, "", limit="depth", value=">50")
    return result


def literal_tolerance(text: str) -> Fraction:
    """Half a unit in the last written place of a numeric literal (TE-28): ``33.33`` → 1/200."""
    t = text.strip().lstrip("+-").replace(",", "")
    mantissa, _, exponent = t.lower().partition("e")
    decimals = len(mantissa.partition(".")[2]) if "." in mantissa else 0
    exp = int(exponent) if exponent else 0
    return Fraction(1, 2) * Fraction(10) ** (exp - decimals)
