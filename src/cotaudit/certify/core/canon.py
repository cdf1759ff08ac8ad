"""Canonical JSON and hashing (C-29): sorted keys, ``,``/``:`` separators, UTF-8, no floats.

A small helper shared by the certificate builder, the independent checker and the store; it
imports nothing else from the engine.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from decimal import Decimal
from typing import Any

from cotaudit.errors import CotauditError


class NotCanonical(CotauditError, ValueError):
    """A value that has no canonical JSON form (floats, non-string keys, NaN …)."""


_LEAVE = object()  # marks, on the walk's stack, the end of a container's children


def check_canonical(value: Any) -> None:
    """Raise :class:`NotCanonical` for a float, a non-string key or a reference cycle.

    An explicit stack instead of recursion: a certificate of 10⁵ nodes holds about 10⁶ values,
    and one Python call per value was the largest cost of hashing it (C-115). Strings and ints
    are skipped inline; only containers go on the stack. The ids of the containers on the
    current path detect cycles, which lets :func:`canonical_json` skip ``json``'s own
    (costlier) circular-reference bookkeeping."""
    path: set[int] = set()
    stack: list[Any] = [value]
    push = stack.append
    while stack:
        v = stack.pop()
        if v is _LEAVE:
            path.discard(stack.pop())
            continue
        if isinstance(v, dict):
            for k in v:
                if k.__class__ is not str and not isinstance(k, str):
                    raise NotCanonical("object keys must be strings")
            children: Any = v.values()
        elif isinstance(v, list | tuple):
            children = v
        elif isinstance(v, float):
            raise NotCanonical("floats are not allowed in canonical JSON")
        else:
            continue
        ident = id(v)
        if ident in path:
            raise NotCanonical("a value contains itself (circular reference)")
        path.add(ident)
        push(ident)
        push(_LEAVE)
        for child in children:
            cls = child.__class__
            if cls is str or cls is int or child is None or cls is bool:
                continue
            if cls is float:
                raise NotCanonical("floats are not allowed in canonical JSON")
            push(child)


def canonical_json(value: Any) -> str:
    """The canonical text of ``value`` (raises :class:`NotCanonical` for floats)."""
    check_canonical(value)
    return checked_json(value)


def checked_json(value: Any) -> str:
    """The canonical text of a value the caller has already passed, whole or part by part,
    through :func:`check_canonical` (or otherwise shown to hold no float, non-string key or
    cycle): the walk is not repeated."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, check_circular=False)


def lone_surrogate(text: str) -> int | None:
    """The index of the first lone surrogate of ``text`` (a code point UTF-8 cannot encode, so
    SQLite cannot store it), or ``None``."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None


def sha256_hex(data: str | bytes) -> str:
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()


def sha256_json(value: Any) -> str:
    return sha256_hex(canonical_json(value))


class JsonLineError(CotauditError, ValueError):
    """A line of a JSON-lines text that is not JSON (``line`` counts from 1)."""

    def __init__(self, line: int, msg: str) -> None:
        super().__init__(f"line {line}: not JSON ({msg})")
        self.line = line
        self.msg = msg


def json_lines(lines: Iterable[str]) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for each non-blank line; :class:`JsonLineError` at the first
    line that does not parse (votes, recorded votes and dependency libraries all read this way)."""
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise JsonLineError(n, exc.msg) from None
        yield n, value


def loads_strict(text: str, *, floats: bool = False) -> Any:
    """``json.loads`` that rejects duplicate keys and NaN/Infinity; non-integer numbers are
    rejected, or with ``floats=True`` kept exact as :class:`decimal.Decimal`."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in items:
            if k in out:
                raise ValueError(f"duplicate key {k!r}")
            out[k] = v
        return out

    def no_constant(name: str) -> Any:
        raise ValueError(f"{name} is not allowed")

    def no_float(text: str) -> Any:
        raise ValueError(f"non-integer number {text} is not allowed (write it as a string)")

    return json.loads(
        text, object_pairs_hook=pairs, parse_constant=no_constant, parse_float=Decimal if floats else no_float
    )
