"""Terms, literals and predicate units (certify.md §2, C-1 … C-3): the data model and its printer.

A *fact* is a ground literal; a *rule* is ``head :- b1, …, bm`` (m ≥ 1) with optional NAF body
literals and an optional calc clause. Units are immutable; ``unit.key`` is the canonical cache
key of Definition 11 (:func:`normal_form`, at the end of this module). Parsing lives in
:mod:`cotaudit.certify.lang.grammar`, the JSON form in :mod:`cotaudit.certify.lang.jsonform`.

The canonical text of a unit is ``[label] head :- b1, b2 {V=fn@1(A,B)}.`` with literals written
without spaces (``p(a,b)``); printing then parsing gives the same unit back.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import cached_property
from typing import Literal as TypingLiteral
from typing import NamedTuple

try:  # CPython's own SHA-256: the same digest as hashlib's OpenSSL one, at a third of the
    # per-call cost on short keys (every unlabelled fact of a program hashes its key)
    from _sha256 import sha256 as _sha256  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # pragma: no cover - other interpreters / versions
    from hashlib import sha256 as _sha256

ConstKind = TypingLiteral["sym", "num", "str"]

NAME_RE = re.compile(r"[a-z][A-Za-z0-9_]*")
VAR_RE = re.compile(r"[A-Z][A-Za-z0-9_]*")
NUMBER_RE = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?")
LABEL_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:@-]*")
SKOLEM_PREFIX = "#sk"


def canonical_number(text: str) -> str:
    """``1.50`` → ``1.5``, ``2.0`` → ``2``, ``-0`` → ``0``: no exponent, no trailing zeros (C-1)."""
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise ValueError(f"not a number: {text!r}") from None
    if not value.is_finite():
        raise ValueError(f"not a finite number: {text!r}")
    if value == 0:
        return "0"
    out = format(value, "f")
    if "." in out:
        out = out.rstrip("0").rstrip(".")
    return out


# Terms, literals and body literals are NamedTuples: immutable, hashable and cheap to create
# (a program of 100,000 facts creates hundreds of thousands of them).


class Var(NamedTuple):
    """A variable. Anonymous ``_`` variables are numbered ``_1``, ``_2`` … and print as ``_``."""

    name: str

    @property
    def anonymous(self) -> bool:
        return self.name.startswith("_")

    def text(self) -> str:
        return "_" if self.anonymous else self.name


class Const(NamedTuple):
    """A constant: a symbol, a number (canonical decimal text) or a string (its decoded value)."""

    kind: ConstKind
    value: str

    def text(self) -> str:
        if self.kind == "str":
            return json.dumps(self.value, ensure_ascii=False)
        return self.value

    @property
    def skolem(self) -> bool:
        return self.kind == "sym" and self.value.startswith(SKOLEM_PREFIX)

    def decimal(self) -> Decimal:
        return Decimal(self.value)


Term = Var | Const


def sym(name: str) -> Const:
    return Const("sym", name)


def num(value: str | int | Decimal) -> Const:
    return Const("num", canonical_number(str(value)))


def string(value: str) -> Const:
    return Const("str", value)


class Literal(NamedTuple):
    """``pred(t1, …, tn)``, optionally strongly negated (``-pred(…)``)."""

    pred: str
    neg: bool = False
    args: tuple[Term, ...] = ()

    def text(self) -> str:
        head = ("-" if self.neg else "") + self.pred
        if not self.args:
            return head
        return head + "(" + ",".join(a.text() for a in self.args) + ")"

    @property
    def arity(self) -> int:
        return len(self.args)

    @property
    def signature(self) -> tuple[str, bool, int]:
        """(pred, neg, arity): what the executor treats as one relation."""
        return (self.pred, self.neg, len(self.args))

    @property
    def ground(self) -> bool:
        return all(isinstance(a, Const) for a in self.args)

    def variables(self) -> list[str]:
        return [a.name for a in self.args if isinstance(a, Var)]

    def complement(self) -> Literal:
        return Literal(self.pred, not self.neg, self.args)


class BodyLit(NamedTuple):
    """One body literal; ``naf`` marks negation as failure (``not p(X)``)."""

    lit: Literal
    naf: bool = False

    def text(self) -> str:
        return ("not " if self.naf else "") + self.lit.text()


class Calc(NamedTuple):
    """The calc clause of a computed rule: ``{out = fn@version(in1, …)}`` (C-8)."""

    out: str
    fn: str
    version: str
    inputs: tuple[str, ...]

    def text(self, rename: dict[str, str] | None = None) -> str:
        r = rename or {}
        ins = ",".join(r.get(v, v) for v in self.inputs)
        return "{" + f"{r.get(self.out, self.out)}={self.fn}@{self.version}({ins})" + "}"


@dataclass(frozen=True)
class Fact:
    """A ground literal with a label. ``pos`` (line, col) is kept for diagnostics only."""

    label: str
    lit: Literal
    pos: tuple[int, int] | None = field(default=None, compare=False, hash=False, repr=False)

    kind = "fact"

    def text(self) -> str:
        return f"[{self.label}] {self.lit.text()}."

    @cached_property
    def key(self) -> str:
        return "f:" + self.lit.text()

    @property
    def head(self) -> Literal:
        return self.lit


@dataclass(frozen=True)
class Rule:
    """``head :- body`` with an optional calc clause."""

    label: str
    head: Literal
    body: tuple[BodyLit, ...]
    calc: Calc | None = None
    pos: tuple[int, int] | None = field(default=None, compare=False, hash=False, repr=False)

    kind = "rule"

    def text(self) -> str:
        body = ", ".join(b.text() for b in self.body)
        calc = " " + self.calc.text() if self.calc else ""
        return f"[{self.label}] {self.head.text()} :- {body}{calc}."

    @cached_property
    def key(self) -> str:
        return normal_form(self).key

    @property
    def positive(self) -> tuple[Literal, ...]:
        return tuple(b.lit for b in self.body if not b.naf)

    @property
    def negative(self) -> tuple[Literal, ...]:
        return tuple(b.lit for b in self.body if b.naf)

    def variables(self) -> list[str]:
        """Every variable, by first occurrence: head, body, calc output."""
        seen: dict[str, None] = {}
        for lit in (self.head, *(b.lit for b in self.body)):
            for v in lit.variables():
                seen.setdefault(v, None)
        if self.calc:
            seen.setdefault(self.calc.out, None)
        return list(seen)


Unit = Fact | Rule

_new_object = object.__new__
_set_attr = object.__setattr__
_new_tuple = tuple.__new__


def make_literal(pred: str, neg: bool, args: tuple[Term, ...]) -> Literal:
    """``Literal(pred, neg, args)`` without the named tuple's Python-level ``__new__`` (half the
    cost; the program parser builds one literal per fact)."""
    lit: Literal = _new_tuple(Literal, (pred, neg, args))
    return lit


def make_fact(label: str, lit: Literal, pos: tuple[int, int] | None, key: str) -> Fact:
    """``Fact(label, lit, pos)`` with its ``key`` already known, for the program parser's fast path.

    A frozen dataclass's ``__init__`` sets every field through ``object.__setattr__``; for a
    program of 100,000 facts that cost more than matching the text. The instance is the same
    as the constructor's (same class, same ``__dict__`` contents, ``key`` being the cached
    property's value), so equality, hashing, pickling and ``dataclasses.replace`` are unchanged.
    """
    fact: Fact = _new_object(Fact)
    _set_attr(fact, "__dict__", {"label": label, "lit": lit, "pos": pos, "key": key})
    return fact


def default_label(key: str) -> str:
    """``u`` + the first 12 hex digits of sha256(key): the label of an unlabelled unit (C-2)."""
    digest: bytes = _sha256(key.encode("utf-8")).digest()
    return "u" + digest[:6].hex()


def program_text(units: list[Unit] | tuple[Unit, ...]) -> str:
    """Canonical program text: one unit per line."""
    return "".join(u.text() + "\n" for u in units)


def substitute(lit: Literal, theta: dict[str, Const]) -> Literal:
    """``θ(lit)``; variables θ does not bind stay variables."""
    return Literal(
        lit.pred, lit.neg, tuple(theta.get(a.name, a) if isinstance(a, Var) else a for a in lit.args)
    )


# --------------------------------------------------------------------------- normal form
# Normal form and canonical key of a rule (Definition 11, C-5).
#
# The key of ``h(A) :- c(B), b(A, B).`` and of ``h(X) :- b(X, Y), c(Y).`` is
# ``r:h(V0):-b(V0,V1),c(V1)``. Equal keys imply logical equivalence (variable renaming, body
# reordering and duplicate removal preserve meaning), so the key is a sound cache index; some
# equivalent rules get different keys, and the kernel scan removes those as redundant.
#
# :class:`NormalForm` also records the canonical variable names and the canonical body order,
# which certificates use (``subst`` over ``V0, V1 …``; premises in canonical body order).

_ArgSig = tuple[int, str]


@dataclass(frozen=True, slots=True)
class NormalForm:
    """The canonical key, the variable renaming (original → ``Vi``) and the body order.

    ``body_order`` lists indices into ``rule.body`` (duplicates dropped) in canonical order.
    """

    key: str
    rename: dict[str, str]
    body_order: tuple[int, ...]

    def canonical_body(self, rule: Rule) -> list[BodyLit]:
        return [rule.body[i] for i in self.body_order]


def _signature(b: BodyLit, head_pos: dict[str, int]) -> tuple[bool, bool, str, int, tuple[_ArgSig, ...]]:
    args: list[_ArgSig] = []
    for a in b.lit.args:
        if isinstance(a, Const):
            args.append((0, a.kind + ":" + a.text()))
        elif a.name in head_pos:
            args.append((1, f"{head_pos[a.name]:06d}"))
        else:
            args.append((2, ""))
    return (b.naf, b.lit.neg, b.lit.pred, len(b.lit.args), tuple(args))


def _rename(rule: Rule, order: list[int]) -> dict[str, str]:
    names: dict[str, str] = {}
    for lit in [rule.head, *(rule.body[i].lit for i in order)]:
        for a in lit.args:
            if isinstance(a, Var) and a.name not in names:
                names[a.name] = f"V{len(names)}"
    if rule.calc and rule.calc.out not in names:  # unreachable for safe rules; keeps the key total
        names[rule.calc.out] = f"V{len(names)}"
    return names


def renamed_text(b: BodyLit, names: dict[str, str]) -> str:
    args = ",".join(names[a.name] if isinstance(a, Var) else a.text() for a in b.lit.args)
    head = ("not " if b.naf else "") + ("-" if b.lit.neg else "") + b.lit.pred
    return head + (f"({args})" if b.lit.args else "")


def normal_form(rule: Rule) -> NormalForm:
    """Normalise ``rule`` per C-5 steps (1)–(4)."""
    seen: set[str] = set()
    kept: list[int] = []
    for i, b in enumerate(rule.body):  # (1) drop duplicate body literals
        t = b.text()
        if t not in seen:
            seen.add(t)
            kept.append(i)
    head_pos: dict[str, int] = {}
    for pos, a in enumerate(rule.head.args):
        if isinstance(a, Var):
            head_pos.setdefault(a.name, pos)
    # (2) stable sort by the variable-blind signature
    order = sorted(kept, key=lambda i: _signature(rule.body[i], head_pos))
    names = _rename(rule, order)
    for _ in range(len(order) + 1):  # (3)-(4) until stable
        new_order = sorted(order, key=lambda i: renamed_text(rule.body[i], names))
        new_names = _rename(rule, new_order)
        if new_order == order and new_names == names:
            break
        order, names = new_order, new_names
    head = BodyLit(rule.head)
    key = "r:" + renamed_text(head, names) + ":-" + ",".join(renamed_text(rule.body[i], names) for i in order)
    if rule.calc:
        key += rule.calc.text(names)
    return NormalForm(key, names, tuple(order))
