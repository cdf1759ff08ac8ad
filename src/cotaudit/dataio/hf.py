"""The one module that imports Hugging Face ``datasets`` (``pip install 'cotaudit[data]'``):
the rows of a directory written by ``Dataset.save_to_disk`` or ``DatasetDict.save_to_disk``
(every split, in the order the dict holds them)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from cotaudit.errors import InputError, MissingDependency

INSTALL_HINT = "pip install 'cotaudit[data]'"


def _load(path: str) -> list[Any]:
    try:
        from datasets import load_from_disk
    except ModuleNotFoundError:
        raise MissingDependency("datasets", INSTALL_HINT) from None
    try:
        loaded = load_from_disk(path)
    except Exception as exc:  # FileNotFoundError, a damaged arrow file, ...
        raise InputError(path, f"not a readable saved dataset ({type(exc).__name__}: {exc})") from None
    splits = getattr(loaded, "values", None)
    return list(splits()) if callable(splits) else [loaded]


def count_rows(path: str) -> int:
    return sum(len(split) for split in _load(path))


def iter_rows(path: str) -> Iterator[dict[str, Any]]:
    for split in _load(path):
        for row in split:
            yield dict(row)
