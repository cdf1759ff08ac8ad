"""Batch input: a JSONL file read one line at a time, so a file of millions of items streams.

Each non-blank line is ``{"id": ..., "engine": ..., "text": ...}`` — the same rules as
``cotaudit check items.jsonl`` (:func:`cotaudit.api.parse_jsonl_items`): a missing ``id`` is
``line-N``, ``--engine`` fills a missing ``engine``, and a line that is not such an object
becomes an item carrying an ``error`` (reported ``invalid``), never a stopped run.

Resume works by id, so ids must be unique: a repeated id keeps its first line, and every later
line with that id becomes an ``invalid`` item named ``<id>@line-N`` that says so.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cotaudit import api
from cotaudit.errors import EngineUnavailable, InputError, UnknownEngine

CHUNK = 1 << 20


def _label(path: str | os.PathLike[str]) -> str:
    return Path(path).as_posix()


def count_items(path: str | os.PathLike[str]) -> int:
    """Non-blank lines of ``path`` (for progress and ETA), read in 1 MiB chunks."""
    count = 0
    pending = b""
    with _open(path) as fh:
        while chunk := fh.read(CHUNK):
            lines = (pending + chunk).split(b"\n")
            pending = lines.pop()
            count += sum(1 for line in lines if line.strip())
    return count + (1 if pending.strip() else 0)


def _open(path: str | os.PathLike[str]) -> Any:
    p = Path(path)
    if p.is_dir():
        raise InputError(_label(path), "is a directory")
    try:
        return p.open("rb")
    except FileNotFoundError:
        raise InputError(_label(path), "no such file") from None
    except OSError as exc:
        raise InputError(_label(path), f"cannot read ({exc.strerror or type(exc).__name__})") from None


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


def iter_items(path: str | os.PathLike[str], engine: str | None = None) -> Iterator[api.InputItem]:
    """The items of a JSONL file in file order, ids made unique (see the module docstring)."""
    if engine is not None:
        api.engine_spec(engine)
    label = _label(path)
    engines = _EngineCheck()
    first_line: dict[str, int] = {}
    pending = b""
    lineno = 0
    with _open(path) as fh:
        while True:
            chunk = fh.read(CHUNK)
            lines = (pending + chunk).split(b"\n")
            pending = lines.pop() if chunk else b""
            for raw in lines:
                lineno += 1
                if not raw.strip():
                    continue
                item = parse_line(raw, lineno, path=label, engine=engine, engines=engines)
                yield _unique(item, lineno, first_line)
            if not chunk:
                return


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
