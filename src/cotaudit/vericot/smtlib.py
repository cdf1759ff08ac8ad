"""The SMT-LIB fragment (V-6 … V-10): our own splitter, the command filter, symbol rules and
the vocabulary manager.

Z3's parser silently accepts ``check-sat``, ``push``, ``echo``, ``set-option`` and
``get-model`` inside a script, and overloads a function when it is redeclared with another
signature. Nothing reaches Z3 before it has passed through here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from cotaudit.errors import CotauditError

MAX_DEPTH = 200
"""Deepest nesting accepted; Z3's recursive parser must never see a pathological term."""

SYMBOL = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
RESERVED = frozenset(
    (
        "and",
        "or",
        "not",
        "=>",
        "xor",
        "ite",
        "distinct",
        "true",
        "false",
        "forall",
        "exists",
        "let",
        "par",
        "as",
        "Int",
        "Real",
        "Bool",
        "div",
        "mod",
        "abs",
        "to_real",
        "to_int",
        "is_int",
    )
)
BUILTIN_SORTS = frozenset({"Bool", "Int", "Real"})
_OPERATORS = frozenset({"=", "=>", "<", "<=", ">", ">=", "+", "-", "*", "/"})
_ATOM = re.compile(r"^(?::?[A-Za-z_][A-Za-z0-9_\-]*|[0-9]+(?:\.[0-9]+)?|=>|<=|>=|[=<>+\-*/])$")
_TOKEN = re.compile(r"\s*(?:(;[^\n]*)|(\()|(\))|([^\s();]+))")
DECL_COMMANDS = frozenset({"declare-sort", "declare-const", "declare-fun"})

SExpr = str | list["SExpr"]


class SmtError(CotauditError, ValueError):
    """A field is outside the fragment; ``reason`` is a V-22 reason word."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


def tokenize(text: str) -> list[str]:
    """Tokens of ``text`` with ``;`` comments stripped; strings and ``|quoted|`` symbols rejected."""
    tokens: list[str] = []
    pos = 0
    n = len(text)
    while pos < n:
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            if text[pos:].strip() == "":
                break
            raise SmtError("parse_error", f"unexpected character {text[pos]!r} at offset {pos}")
        pos = m.end()
        if m.group(1) is not None:
            continue
        tok = m.group(2) or m.group(3) or m.group(4)
        if tok is None:
            continue
        if tok not in "()":
            if '"' in tok:
                raise SmtError("parse_error", "string literals are not allowed")
            if "|" in tok:
                raise SmtError("parse_error", "|quoted| symbols are not allowed")
            if not _ATOM.match(tok):
                raise SmtError("parse_error", f"unexpected token {tok!r}")
        tokens.append(tok)
    return tokens


def split_commands(text: str) -> list[list[SExpr]]:
    """The top-level commands of ``text`` as nested lists; unbalanced text is a parse error."""
    stack: list[list[SExpr]] = []
    top: list[list[SExpr]] = []
    for tok in tokenize(text):
        if tok == "(":
            if len(stack) >= MAX_DEPTH:
                raise SmtError("parse_error", f"nesting deeper than {MAX_DEPTH}")
            stack.append([])
        elif tok == ")":
            if not stack:
                raise SmtError("parse_error", "unbalanced parentheses: unexpected ')'")
            done = stack.pop()
            if stack:
                stack[-1].append(done)
            else:
                top.append(done)
        else:
            if not stack:
                raise SmtError("parse_error", f"atom {tok!r} outside a command")
            stack[-1].append(tok)
    if stack:
        raise SmtError("parse_error", "unbalanced parentheses: missing ')'")
    return top


def render(expr: SExpr) -> str:
    """Canonical text (V-10): single spaces, no comments."""
    if isinstance(expr, str):
        return expr
    return "(" + " ".join(render(e) for e in expr) + ")"


# --------------------------------------------------------------------------- declarations


@dataclass(frozen=True, slots=True)
class Decl:
    """One declaration: a sort (``args is None``) or a function ``name (args) ret``."""

    name: str
    args: tuple[str, ...] | None
    ret: str | None

    @property
    def is_sort(self) -> bool:
        return self.args is None

    def canon(self) -> str:
        if self.args is None:
            return f"(declare-sort {self.name} 0)"
        return f"(declare-fun {self.name} ({' '.join(self.args)}) {self.ret})"


def check_symbol(name: str, what: str) -> None:
    if not SYMBOL.match(name):
        raise SmtError("parse_error", f"{what} {name!r} is not a valid symbol")
    if name in RESERVED:
        raise SmtError("parse_error", f"{what} {name!r} is a reserved word")
    if name.startswith("vc_"):
        raise SmtError("parse_error", f"{what} {name!r} uses the reserved prefix vc_")


def _as_decl(cmd: list[SExpr]) -> Decl:
    head = cmd[0]
    if head == "declare-sort":
        if len(cmd) != 3 or not isinstance(cmd[1], str) or cmd[2] != "0":
            raise SmtError("parse_error", f"malformed declaration {render(cmd)}")
        check_symbol(cmd[1], "sort")
        return Decl(cmd[1], None, None)
    if head == "declare-const":
        if len(cmd) != 3 or not isinstance(cmd[1], str) or not isinstance(cmd[2], str):
            raise SmtError("parse_error", f"malformed declaration {render(cmd)}")
        check_symbol(cmd[1], "constant")
        return Decl(cmd[1], (), cmd[2])
    if (
        len(cmd) != 4
        or not isinstance(cmd[1], str)
        or not isinstance(cmd[2], list)
        or not isinstance(cmd[3], str)
    ):
        raise SmtError("parse_error", f"malformed declaration {render(cmd)}")
    check_symbol(cmd[1], "function")
    args = cmd[2]
    if not all(isinstance(a, str) for a in args):
        raise SmtError("parse_error", f"malformed declaration {render(cmd)}")
    return Decl(cmd[1], tuple(str(a) for a in args), cmd[3])


def _head(cmd: list[SExpr]) -> str:
    return cmd[0] if cmd and isinstance(cmd[0], str) else "(" if cmd else "()"


def _check_terms(expr: SExpr) -> None:
    if isinstance(expr, str):
        if expr.startswith("vc_"):
            raise SmtError("parse_error", f"symbol {expr!r} uses the reserved prefix vc_")
        if expr.startswith(":"):
            raise SmtError("parse_error", f"attribute {expr!r} is not allowed in a term")
        return
    for e in expr:
        _check_terms(e)


@dataclass(frozen=True, slots=True)
class Field:
    """A split and filtered field: its declarations and its assertions (canonical text)."""

    decls: tuple[Decl, ...]
    asserts: tuple[str, ...]


def parse_field(text: str, *, assertions: bool) -> Field:
    """Split ``text`` and apply the command whitelist (V-6) and the symbol rules (V-7).

    Declaration fields accept only ``declare-*``; assertion fields also ``assert`` and need at
    least one. Anything else is ``forbidden_command``.
    """
    decls: list[Decl] = []
    asserts: list[str] = []
    for cmd in split_commands(text):
        head = _head(cmd)
        if head in DECL_COMMANDS:
            decls.append(_as_decl(cmd))
        elif head == "assert" and assertions:
            if len(cmd) != 2:
                raise SmtError("parse_error", f"assert takes one term: {render(cmd)[:80]}")
            _check_terms(cmd[1])
            asserts.append(render(cmd))
        else:
            raise SmtError("forbidden_command", f"command ({head} ...) is not allowed here")
    if assertions and not asserts:
        raise SmtError("parse_error", "no (assert ...) in the field")
    return Field(tuple(decls), tuple(asserts))


# --------------------------------------------------------------------------- vocabulary


@dataclass
class Vocabulary:
    """The ordered vocabulary V of one trace (V-8)."""

    decls: dict[str, Decl] = field(default_factory=dict)
    _canon: str | None = field(default=None, repr=False, compare=False)

    def copy(self) -> Vocabulary:
        return Vocabulary(dict(self.decls))

    def canon(self) -> str:
        if self._canon is None:
            self._canon = " ".join(d.canon() for d in self.decls.values())
        return self._canon

    def lines(self) -> list[str]:
        return [d.canon() for d in self.decls.values()]

    def new_decls(self, decls: tuple[Decl, ...] | list[Decl]) -> list[Decl]:
        """The declarations of ``decls`` not yet in V, checked against V and each other.

        Identical redeclaration is reuse (dropped). A different signature, a sort reused as a
        function or the reverse, or an undeclared sort in a signature is a
        ``vocabulary_conflict``.
        """
        added: dict[str, Decl] = {}
        for d in decls:
            old = self.decls.get(d.name) or added.get(d.name)
            if old is not None:
                if old != d:
                    raise SmtError(
                        "vocabulary_conflict",
                        f"'{d.name}' is already declared as {old.canon()}, not {d.canon()}",
                    )
                continue
            if not d.is_sort:
                for s in (*(d.args or ()), d.ret or ""):
                    if s in BUILTIN_SORTS:
                        continue
                    known = self.decls.get(s) or added.get(s)
                    if known is None:
                        raise SmtError("parse_error", f"unknown sort {s} in the signature of '{d.name}'")
                    if not known.is_sort:
                        raise SmtError(
                            "vocabulary_conflict", f"'{s}' in the signature of '{d.name}' is not a sort"
                        )
            added[d.name] = d
        return list(added.values())

    def extend(self, decls: list[Decl]) -> None:
        for d in decls:
            if d.name not in self.decls:
                self.decls[d.name] = d
                self._canon = None
