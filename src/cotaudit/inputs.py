"""Reading what is to be checked (R-3): trace files and JSONL items, strict UTF-8, one
:class:`InputItem` per text with its engine, or the reason it cannot be checked.

:mod:`cotaudit.api` re-exports everything here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from cotaudit.errors import EngineUnavailable, InputError, UnknownEngine
from cotaudit.registry import (
    StrPath,
    detect_engine,
    engine_spec,
    get_engine,
    is_jsonl,
    item_id_for,
    path_label,
)

# Engines that read a JSONL line without a "text" field as a record of their own.
RECORD_ENGINES = frozenset({"cot"})


def decode_utf8(data: bytes, label: str) -> str:
    """Strict UTF-8; :class:`InputError` naming the first bad byte and its offset."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = f"0x{data[exc.start]:02x}"
        raise InputError(label, f"not UTF-8 text (byte {bad} at offset {exc.start})") from None


def read_input(path: StrPath) -> str:
    """The UTF-8 text of a file; :class:`InputError` if it is missing, a directory or not text."""
    _check_readable(path)
    label = path_label(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(label, "no such file") from None
    except OSError as exc:
        raise InputError(label, f"cannot read ({exc.strerror or type(exc).__name__})") from None
    return decode_utf8(data, label)


def _check_readable(path: StrPath) -> None:
    p = Path(path)
    if p.is_dir():
        raise InputError(path_label(path), "is a directory (use 'cotaudit audit' to check a tree)")
    if not p.exists():
        raise InputError(path_label(path), "no such file")


class InputItem(NamedTuple):
    """One thing to check: a text and the engine for it, or the reason it cannot be checked."""

    engine: str
    text: str
    path: str | None
    item_id: str | None
    error: str | None = None


def load_inputs(path: StrPath, engine: str | None = None) -> list[InputItem]:
    """Read ``path`` into items: one for a trace file, one per non-blank line of a ``.jsonl``.

    ``engine`` overrides detection for trace files and fills a missing ``engine`` field of
    JSONL items. Raises :class:`InputError`, :class:`UnsupportedInput`, :class:`UnknownEngine`,
    :class:`EngineUnavailable` or :class:`MissingDependency` for the file as a whole; a bad
    JSONL line becomes an item with ``error`` set instead.
    """
    if engine is not None:
        engine_spec(engine)
    if is_record_source(path):
        return load_records(path, engine)
    _check_readable(path)
    if is_jsonl(path):
        return parse_jsonl_items(read_input(path), path=path_label(path), engine=engine)
    name = engine or detect_engine(path)
    get_engine(name)  # fail before reading the bytes if the engine cannot run
    text = read_input(path)
    return [InputItem(engine=name, text=text, path=path_label(path), item_id=item_id_for(path))]


def is_record_source(path: StrPath) -> bool:
    """A data file other than plain JSONL (``.jsonl.gz``, Parquet, a saved dataset, stdin), or
    JSONL read through a field map: :mod:`cotaudit.dataio` reads those."""
    from cotaudit import dataio  # deferred: not on the start-up path

    return dataio.is_item_source(path) or (is_jsonl(path) and not dataio.current_fields().identity)


def load_records(path: StrPath, engine: str | None = None) -> list[InputItem]:
    """The items of a data file read by :mod:`cotaudit.dataio` (``-``: standard input), with the
    field map in force; each record becomes an item exactly as a JSONL line does."""
    from cotaudit import dataio

    with dataio.open_records(path) as records:
        items = []
        for n, raw in records.lines():
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                error = f"line {n}: not UTF-8 text (offset {exc.start})"
                items.append(InputItem(engine or "unknown", "", records.label, f"line-{n}", error))
                continue
            items.append(parse_jsonl_line(line, n, path=records.label, engine=engine))
        return items


def parse_jsonl_items(text: str, *, path: str | None, engine: str | None = None) -> list[InputItem]:
    """Items ``{"id": ..., "engine": ..., "text": ...}``, one per non-blank line.

    A line that is not such an object, or names an engine that cannot run here, becomes an
    item with ``error`` set (reported ``invalid``); it never aborts the other items. A missing
    ``id`` defaults to ``line-N`` (N is the 1-based line number in the file).
    """
    items: list[InputItem] = []
    for lineno, raw in enumerate(text.split("\n"), start=1):
        if raw.strip():
            items.append(parse_jsonl_line(raw, lineno, path=path, engine=engine))
    return items


def _engine_problem(name: str) -> str | None:
    try:
        get_engine(name)
    except (UnknownEngine, EngineUnavailable) as exc:
        return str(exc)
    return None


def parse_jsonl_line(
    raw: str,
    lineno: int,
    *,
    path: str | None,
    engine: str | None = None,
    engine_problem: Callable[[str], str | None] = _engine_problem,
) -> InputItem:
    """One JSONL line as an item (``error`` set when it cannot be one; see
    :func:`parse_jsonl_items`). ``engine_problem(name)`` says why an engine cannot run, or
    ``None`` (batch runs pass a memoising one)."""
    item_id = f"line-{lineno}"
    name = engine or "unknown"
    try:
        obj = json.loads(raw)
    except json.JSONDecodeError as exc:
        return InputItem(name, raw, path, item_id, f"line {lineno}: not JSON ({exc.msg})")
    if not isinstance(obj, dict):
        return InputItem(name, raw, path, item_id, f"line {lineno}: not a JSON object")
    error: str | None = None
    raw_id = obj.get("id")
    if isinstance(raw_id, str):
        item_id = raw_id
    elif isinstance(raw_id, int) and not isinstance(raw_id, bool):
        item_id = str(raw_id)
    elif raw_id is not None:
        error = f"line {lineno}: 'id' must be a string or an integer"
    raw_engine = obj.get("engine")
    if isinstance(raw_engine, str):
        name = raw_engine
    elif raw_engine is not None:
        error = error or f"line {lineno}: 'engine' must be a string"
    elif engine is None:
        error = error or f"line {lineno}: no 'engine' field (give --engine)"
    item_text = obj.get("text")
    if item_text is None and name in RECORD_ENGINES:
        item_text = raw  # the line is the engine's own record (cot: a ProcessBench / BBM row)
    if not isinstance(item_text, str):
        error = error or f"line {lineno}: 'text' must be a string"
        item_text = raw
    if error is None:
        problem = engine_problem(name)
        if problem is not None:
            error = f"line {lineno}: {problem}"
    return InputItem(name, item_text, path, item_id, error)
