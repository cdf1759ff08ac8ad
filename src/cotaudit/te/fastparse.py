"""A fast path for the plain arithmetic that makes up most traces.

``a - b * (c + 2)``, ``r1 * q4``, ``floor(e1.value / 6)``: expressions built only from decimal
numerals, names, ``ID.value``, ``+ - * / **``, parentheses and whitelisted calls are parsed
here by a small recursive-descent parser straight into the IR, several times faster than the
tokenizer → ``ast`` → whitelist pipeline of :mod:`cotaudit.te.expr`. Anything else — an error,
a percent sign, a base subscript, a keyword, Sum/Product, a claim — makes it return ``None``
and the full pipeline decides, so there is exactly one definition of what TE accepts. A
differential test checks that both give identical IR (positions included) wherever this
parser answers.
"""

from __future__ import annotations

import keyword
import re
from fractions import Fraction

from cotaudit.te import ir
from cotaudit.te.ir import FUNCTIONS, PREDICATES, Node

_TOKEN = re.compile(
    r"\s*(?:(?P<num>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,2})?)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>\*\*|==|!=|<=|>=|[-+*/(),.<>]))"
)
_SAFE_CHARS = re.compile(r"[0-9A-Za-z_\s.+\-*/(),=<>!]*")
_COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
_MAX_TOKENS = 120
_MAX_DEPTH = 40
_RESERVED_NAMES = PREDICATES | {"unit", "param", "True", "False", "None", "Sum", "Product"}


class _Bail(Exception):
    """Not plain arithmetic: let the full pipeline decide."""


_ADD = frozenset({"+", "-"})
_MUL = frozenset({"*", "/"})
_CMP = frozenset(_COMPARISONS)


class _Parser:
    def __init__(self, text: str, functions: dict[str, int]) -> None:
        kinds: list[str] = []
        toks: list[str] = []
        starts: list[int] = []
        end = 0
        # Token by token with match(), not finditer(): finditer would look for the next token
        # from every later position after an unknown character (quadratic on long blank runs).
        while (m := _TOKEN.match(text, end)) is not None:
            end = m.end()
            kind = m.lastgroup or ""
            start = m.start(kind)
            if kinds and kind != "op" and kinds[-1] != "op" and starts[-1] + len(toks[-1]) == start:
                raise _Bail()  # glued operands: 2x, 1e5x, 4343_6 ...
            kinds.append(kind)
            toks.append(m.group(kind))
            starts.append(start)
            if len(toks) > _MAX_TOKENS:
                raise _Bail()
        if end != len(text) and not text[end:].isspace():
            raise _Bail()
        if not toks or len(toks) > _MAX_TOKENS:
            raise _Bail()
        toks.append("")  # sentinel: every lookahead reads a string
        self.kinds = kinds
        self.toks = toks
        self.starts = starts
        self.n = len(kinds)
        self.i = 0
        self.functions = functions
        self.depth = 0

    def op(self) -> str:
        """The current token if it is an operator, else ''."""
        i = self.i
        return self.toks[i] if i < self.n and self.kinds[i] == "op" else ""

    def expect(self, text: str) -> None:
        if self.op() != text:
            raise _Bail()
        self.i += 1

    # claim := expr (CMP expr)+  — a plain (chained) comparison, as Python's ast reads it
    def comparison(self) -> Node:
        first, start = self.expr()
        ops: list[str] = []
        rest: list[Node] = []
        while self.op() in _CMP:
            ops.append(self.toks[self.i])
            self.i += 1
            rest.append(self.expr()[0])
        if not ops:
            raise _Bail()  # a bare expression is not a claim: the full path words the error
        return ir.Compare(first, tuple(ops), tuple(rest), None, start)

    # expr := term (('+'|'-') term)*  — returns (node, start offset including parentheses)
    def expr(self) -> tuple[Node, int]:
        left, start = self.term()
        while (op := self.op()) in _ADD:
            self.i += 1
            right, _ = self.term()
            left = ir.BinOp(op, left, right, start)
        return left, start

    def term(self) -> tuple[Node, int]:
        left, start = self.unary()
        while (op := self.op()) in _MUL:
            self.i += 1
            right, _ = self.unary()
            left = ir.BinOp(op, left, right, start)
        return left, start

    def unary(self) -> tuple[Node, int]:
        op = self.op()
        if op in _ADD:
            pos = self.starts[self.i]
            self.i += 1
            self.depth += 1
            if self.depth > _MAX_DEPTH:
                raise _Bail()
            operand, _ = self.unary()
            self.depth -= 1
            return ir.Unary(op, operand, pos), pos
        return self.power()

    def power(self) -> tuple[Node, int]:
        base, start = self.atom()
        if self.op() == "**":
            self.i += 1
            self.depth += 1
            if self.depth > _MAX_DEPTH:
                raise _Bail()
            exponent, _ = self.unary()
            self.depth -= 1
            return ir.BinOp("**", base, exponent, start), start
        return base, start

    def atom(self) -> tuple[Node, int]:
        i = self.i
        if i >= self.n:
            raise _Bail()
        kind, text, pos = self.kinds[i], self.toks[i], self.starts[i]
        self.i = i + 1
        if kind == "num":
            if len(text) > 60:
                raise _Bail()  # long numerals: the full path applies the size limits
            return ir.Num(_value(text), text, pos), pos
        if kind == "name":
            if text.startswith("__") or keyword.iskeyword(text) or text in _RESERVED_NAMES:
                raise _Bail()
            nxt = self.op()
            if nxt == "(":
                return self.call(text, pos), pos
            if nxt == ".":
                self.i += 1
                j = self.i
                if j >= self.n or self.kinds[j] != "name" or self.toks[j] not in ("value", "unit"):
                    raise _Bail()
                self.i += 1
                return ir.Attr(text, self.toks[j], pos), pos
            if text in FUNCTIONS:
                raise _Bail()  # a function used as a value: the full path words the error
            return ir.Name(text, pos), pos
        if text == "(":
            self.depth += 1
            if self.depth > _MAX_DEPTH:
                raise _Bail()
            inner, _ = self.expr()
            self.expect(")")
            self.depth -= 1
            return inner, pos
        raise _Bail()

    def call(self, func: str, pos: int) -> Node:
        user = func not in FUNCTIONS
        if user and func not in self.functions:
            raise _Bail()
        self.expect("(")
        args: list[Node] = []
        if self.op() != ")":
            while True:
                args.append(self.expr()[0])
                if self.op() != ",":
                    break
                self.i += 1
        self.expect(")")
        if user:
            if len(args) != self.functions[func]:
                raise _Bail()
        else:
            lo, hi = FUNCTIONS[func]
            if len(args) < lo or (hi is not None and len(args) > hi):
                raise _Bail()
        return ir.Call(func, tuple(args), pos, user=user)


def _value(text: str) -> Fraction:
    mantissa, _, exponent = text.lower().partition("e")
    if mantissa.endswith("."):
        mantissa = mantissa[:-1]
    whole, _, frac = mantissa.partition(".")
    value = Fraction(int((whole or "0") + frac), 10 ** len(frac))
    if exponent:
        value *= Fraction(10) ** int(exponent)
    return value


def _depth(node: Node) -> int:
    kids = ir.children(node)
    return 1 + (max(_depth(k) for k in kids) if kids else 0)


def parse_plain(text: str, functions: dict[str, int], *, claim: bool = False) -> Node | None:
    """The IR of a plain arithmetic expression (or, with ``claim``, a plain comparison), or
    None when the full pipeline must decide."""
    if not _SAFE_CHARS.fullmatch(text) or ("," in text and "(" not in text):
        return None
    try:
        parser = _Parser(text, functions)
        node = parser.comparison() if claim else parser.expr()[0]
        # Depth is at most the token count; measure it only when that could exceed the limit.
        if parser.i != parser.n or (parser.n > _MAX_DEPTH and _depth(node) > _MAX_DEPTH):
            return None
        return node
    except (_Bail, RecursionError):
        return None
