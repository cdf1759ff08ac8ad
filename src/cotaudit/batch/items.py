"""Batch input: items read one record at a time, so a file of millions of items streams.

Each record is ``{"id": ..., "engine": ..., "text": ...}`` — the same rules as
``cotaudit check items.jsonl`` (:func:`cotaudit.api.parse_jsonl_items`): a missing ``id`` is
``line-N``, ``--engine`` fills a missing ``engine``, and a record that is not such an object
becomes an item carrying an ``error`` (reported ``invalid``), never a stopped run. Records come
from :mod:`cotaudit.dataio`: JSONL, gzip-compressed JSONL, Parquet, a saved Hugging Face
dataset or standard input, with a :class:`~cotaudit.dataio.FieldMap` for other column names.

Resume works by id, so ids must be unique: a repeated id keeps its first line, and every later
line with that id becomes an ``invalid`` item named ``<id>@line-N`` that says so.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from cotaudit import api
from cotaudit.dataio import FieldMap, Records, open_records
from cotaudit.errors import EngineUnavailable, UnknownEngine


def count_items(path: str | os.PathLike[str], fields: FieldMap | None = None) -> int:
    """Records of ``path`` (for progress and ETA), streamed."""
    with open_records(path, fields) as records:
        return records.count()


class _EngineCheck:
    """Whether each engine name can run here, asked once per name."""

    def __init__(self) -> None:
        self._seen: dict[str, str | None] = {}

    def problem(self, name: str) -> str | None:
        if name not in self._seen:
            try:
                api.get_engine(name)
                self._seen[name] = None
            except (UnknownEngine, EngineUnavailable) as exc:
                self._seen[name] = str(exc)
        return self._seen[name]


def parse_line(
    raw: bytes, lineno: int, *, path: str, engine: str | None, engines: _EngineCheck
) -> api.InputItem:
    """One JSONL line as an item (``error`` set when the line cannot be an item)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return api.InputItem(
            engine or "unknown",
            "",
            path,
            f"line-{lineno}",
            f"line {lineno}: not UTF-8 text (offset {exc.start})",
        )
    return api.parse_jsonl_line(text, lineno, path=path, engine=engine, engine_problem=engines.problem)


def iter_items(
    path: str | os.PathLike[str], engine: str | None = None, fields: FieldMap | None = None
) -> Iterator[api.InputItem]:
    """The items of ``path`` in file order, ids made unique (see the module docstring)."""
    if engine is not None:
        api.engine_spec(engine)
    with open_records(path, fields) as records:
        yield from items_of(records, engine)


def items_of(records: Records, engine: str | None = None) -> Iterator[api.InputItem]:
    """The items of an open source, in order, ids made unique (a source can be read again:
    count it first, then read it here)."""
    engines = _EngineCheck()
    first_line: dict[str, int] = {}
    for lineno, raw in records.lines():
        item = parse_line(raw, lineno, path=records.label, engine=engine, engines=engines)
        yield _unique(item, lineno, first_line)


def _unique(item: api.InputItem, lineno: int, first_line: dict[str, int]) -> api.InputItem:
    key = item.item_id or f"line-{lineno}"
    first = first_line.setdefault(key, lineno)
    if first == lineno:
        return item
    derived = f"{key}@line-{lineno}"
    first_line.setdefault(derived, lineno)
    return item._replace(
        item_id=derived,
        error=f"line {lineno}: duplicate id {key!r} (first used on line {first})",
    )
