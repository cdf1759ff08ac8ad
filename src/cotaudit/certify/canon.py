"""Canonical JSON and hashing (C-29): sorted keys, ``,``/``:`` separators, UTF-8, no floats.

A small helper shared by the certificate builder, the independent checker and the store; it
imports nothing else from the engine.
"""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from typing import Any


class NotCanonical(ValueError):
    """A value that has no canonical JSON form (floats, non-string keys, NaN …)."""


def _check(value: Any) -> None:
    if isinstance(value, float):
        raise NotCanonical("floats are not allowed in canonical JSON")
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                raise NotCanonical("object keys must be strings")
            _check(v)
    elif isinstance(value, list | tuple):
        for v in value:
            _check(v)


def canonical_json(value: Any) -> str:
    """The canonical text of ``value`` (raises :class:`NotCanonical` for floats)."""
    _check(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_hex(data: str | bytes) -> str:
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()


def sha256_json(value: Any) -> str:
    return sha256_hex(canonical_json(value))


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
