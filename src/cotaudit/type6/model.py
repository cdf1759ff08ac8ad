"""The trace as written (spec §0-§1): statements, diagnostics and the normalised :class:`Trace`.

A :class:`Statement` keeps what the annotator wrote (annotation, operator tokens in written
order with ``NOT``s and unknown tokens, proposition, surface text); the folded reading the logic
works on is :class:`cotaudit.type6.fold.Folded`. ``to_t6`` / ``to_json`` serialise a trace so
that parsing either output gives an equal trace (Y-12).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

ANNOTATIONS: frozenset[str] = frozenset({"T", "F", "Uc", "Uk"})
ANNOTATION_ALIASES: Mapping[str, str] = {"U_c": "Uc", "U_k": "Uk"}
UNARY: tuple[str, ...] = ("K", "B", "?", "R", "N")
CONNECTIVES: frozenset[str] = frozenset({"IF", "THEN", "AND", "OR"})
NOT = "NOT"
OPERATORS: frozenset[str] = frozenset({*UNARY, *CONNECTIVES, NOT})
VALUE_OPS: frozenset[str] = frozenset({"K", "B", "?"})
FLIP: Mapping[str, str] = {"T": "F", "F": "T", "Uk": "Uk", "Uc": "Uc"}

_SYMBOL = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def is_symbol(token: str) -> bool:
    """Y-4: ``[A-Za-z][A-Za-z0-9_]*`` (ASCII) and not an operator token."""
    return token not in OPERATORS and token.isascii() and _SYMBOL.fullmatch(token) is not None


def is_op_token(token: str) -> bool:
    """Whether ``token`` can stand in an ``ops`` list and be written back into a ``.t6`` line."""
    return bool(token) and ":" not in token and not any(ch.isspace() for ch in token)


class Statement(NamedTuple):
    """One statement as written (Y-11). ``line`` is provenance only: :class:`Trace` equality
    ignores it."""

    alpha: str
    ops: tuple[str, ...] = ()
    prop: str | None = None
    text: str = ""
    line: int | None = None

    def to_t6(self) -> str:
        tokens = [self.alpha, *self.ops]
        if self.prop is not None:
            tokens.append(self.prop)
        return f"{' '.join(tokens)} : {self.text}".rstrip()

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"alpha": self.alpha, "ops": list(self.ops), "prop": self.prop, "text": self.text}
        if self.line is not None:
            d["line"] = self.line
        return d


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """An input error (``T6_E01`` … ``T6_E06``): the trace is invalid (Y-14)."""

    code: str
    line: int | None
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "line": self.line, "message": self.message}


@dataclass(frozen=True, slots=True)
class Trace:
    """A parsed trace: id, metadata, statements, and the input errors (empty when valid)."""

    id: str
    meta: Mapping[str, str] = field(default_factory=dict)
    statements: tuple[Statement, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def valid(self) -> bool:
        return not self.diagnostics

    def normalised(self) -> tuple[object, ...]:
        """What equality compares (Y-12): everything but line numbers."""
        return (
            self.id,
            tuple(sorted(self.meta.items())),
            tuple(s[:4] for s in self.statements),
            tuple((d.code, d.message) for d in self.diagnostics),
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Trace) and self.normalised() == other.normalised()

    def __hash__(self) -> int:
        return hash(self.normalised())

    def to_t6(self) -> str:
        """The ``.t6`` text: ``#@`` metadata lines, then one statement per line."""
        lines = [f"#@ id: {self.id}"] + [f"#@ {key}: {value}" for key, value in self.meta.items()]
        lines += [s.to_t6() for s in self.statements]
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "meta": dict(self.meta),
            "statements": [s.to_dict() for s in self.statements],
        }

    def to_json(self) -> str:
        """The canonical JSON form (Y-11), deterministic."""
        return json.dumps(self.to_dict(), ensure_ascii=False)
