"""FOLIO's gold first-order annotations (validation split) → SMT-LIB, run through the same core.

Syntax: ``∀x``/``∃x`` (scope as far right as possible), ``¬ ∧ ∨ ⊕ → ↔`` (binding in that
order, ``→`` to the right), ``Pred(t1, …)``, lower-case constants, one sort ``Ent``.
Identifiers may carry ``+``, ``-``, ``.`` and apostrophes after the first character (``c++``,
``a+``, ``gpt-3``), and a constant may be several words, as the annotations write names
(``Superhero(captain america)``, ``ComeFrom(x, dc universe)``).
A gold formula that does not parse, or uses a predicate with two arities, is reported as a
problem of the annotation, with its reason — never dropped silently.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from cotaudit.errors import CotauditError

_TOKEN = re.compile(r"\s*(?:(∀)|(∃)|(¬)|(∧)|(∨)|(⊕)|(→)|(↔|⟷)|(\()|(\))|(,)|(\w[\w'’.+\-]*))")
_KIND = ("forall", "exists", "not", "and", "or", "xor", "imp", "iff", "(", ")", ",", "id")
_PLAIN = re.compile(r"[A-Za-z0-9_]{1,60}")


class FolError(CotauditError, ValueError):
    pass


def _sym(prefix: str, name: str) -> str:
    """An SMT-LIB symbol for ``name``: the name itself when it is plain, else a readable
    stand-in plus a digest of the whole, so ``c++``, ``c__`` and ``c`` stay three constants."""
    if _PLAIN.fullmatch(name):
        return prefix + name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{prefix}{re.sub(r'[^A-Za-z0-9_]', '_', name)[:40]}_{digest}"


def tokenize(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            rest = text[pos:].lstrip()
            if rest == "":
                break
            bad = len(text) - len(rest)  # the character itself, not the blank before it
            raise FolError(f"unexpected character {text[bad]!r} at offset {bad}")
        pos = m.end()
        kind = _KIND[m.lastindex - 1] if m.lastindex else "id"
        out.append((kind, m.group(m.lastindex or 0)))
    return out


@dataclass
class Signature:
    preds: dict[str, int] = field(default_factory=dict)
    funcs: dict[str, int] = field(default_factory=dict)
    consts: set[str] = field(default_factory=set)

    def note(self, table: dict[str, int], name: str, arity: int) -> None:
        old = table.get(name)
        if old is not None and old != arity:
            raise FolError(f"'{name}' is used with {old} and with {arity} arguments")
        table[name] = arity

    def decls(self) -> list[str]:
        out = ["(declare-sort Ent 0)"]
        out += [f"(declare-const {_sym('c_', c)} Ent)" for c in sorted(self.consts)]
        out += [
            f"(declare-fun {_sym('f_', f)} ({' '.join(['Ent'] * n)}) Ent)"
            for f, n in sorted(self.funcs.items())
        ]
        out += [
            f"(declare-fun {_sym('p_', p)} ({' '.join(['Ent'] * n)}) Bool)"
            for p, n in sorted(self.preds.items())
        ]
        return out


class _Parser:
    def __init__(self, text: str, sig: Signature) -> None:
        self.toks = tokenize(text)
        self.i = 0
        self.sig = sig
        self.bound: list[str] = []

    def peek(self) -> str | None:
        return self.toks[self.i][0] if self.i < len(self.toks) else None

    def take(self, kind: str) -> str:
        if self.peek() != kind:
            got = self.toks[self.i][1] if self.i < len(self.toks) else "end of formula"
            raise FolError(f"expected {kind}, found {got!r}")
        v = self.toks[self.i][1]
        self.i += 1
        return v

    def formula(self) -> str:
        f = self.iff()
        if self.peek() is not None:
            raise FolError(f"unexpected {self.toks[self.i][1]!r} after a complete formula")
        return f

    def iff(self) -> str:
        left = self.imp()
        while self.peek() == "iff":
            self.i += 1
            left = f"(= {left} {self.imp()})"
        return left

    def imp(self) -> str:
        left = self.xor()
        if self.peek() == "imp":
            self.i += 1
            return f"(=> {left} {self.imp()})"
        return left

    def _chain(self, kind: str, op: str, sub: str) -> str:
        parts = [getattr(self, sub)()]
        while self.peek() == kind:
            self.i += 1
            parts.append(getattr(self, sub)())
        return parts[0] if len(parts) == 1 else f"({op} {' '.join(parts)})"

    def xor(self) -> str:
        left = self.disj()
        while self.peek() == "xor":
            self.i += 1
            left = f"(xor {left} {self.disj()})"
        return left

    def disj(self) -> str:
        return self._chain("or", "or", "conj")

    def conj(self) -> str:
        return self._chain("and", "and", "unary")

    def unary(self) -> str:
        kind = self.peek()
        if kind == "not":
            self.i += 1
            return f"(not {self.unary()})"
        if kind in ("forall", "exists"):
            self.i += 1
            var = self.take("id")
            self.bound.append(var)
            try:
                body = self.iff()
            finally:
                self.bound.pop()
            return f"({kind} (({_sym('v_', var)} Ent)) {body})"
        if kind == "(":
            self.i += 1
            inner = self.iff()
            self.take(")")
            return inner
        if kind == "id":
            name = self.take("id")
            if self.peek() != "(":
                raise FolError(f"'{name}' is used as a proposition; expected '{name}(...)'")
            args = self.args()
            self.sig.note(self.sig.preds, name, len(args))
            return f"({_sym('p_', name)} {' '.join(args)})"
        got = self.toks[self.i][1] if self.i < len(self.toks) else "end of formula"
        raise FolError(f"unexpected {got!r}")

    def args(self) -> list[str]:
        self.take("(")
        out = [self.term()]
        while self.peek() == ",":
            self.i += 1
            out.append(self.term())
        self.take(")")
        return out

    def term(self) -> str:
        name = self.take("id")
        if self.peek() == "(":
            args = self.args()
            self.sig.note(self.sig.funcs, name, len(args))
            return f"({_sym('f_', name)} {' '.join(args)})"
        words = [name]
        while self.peek() == "id":  # a constant of several words: "captain america"
            words.append(self.take("id"))
        if len(words) > 1:
            if self.peek() == "(":
                raise FolError(f"'{' '.join(words)}(' : a function name is one word")
            bound = [w for w in words if w in self.bound]
            if bound:
                raise FolError(f"variable '{bound[0]}' inside the constant '{' '.join(words)}'")
            name = " ".join(words)
        elif name in self.bound:
            return _sym("v_", name)
        self.sig.consts.add(name)
        return _sym("c_", name)


def to_smt(text: str, sig: Signature) -> str:
    """``(assert …)`` for one gold formula; :class:`FolError` with the reason otherwise."""
    return f"(assert {_Parser(text, sig).formula()})"
