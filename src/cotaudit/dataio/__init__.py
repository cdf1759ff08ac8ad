"""Items in from data files, results out to tables: the formats beside JSONL.

**In** (``check``, ``audit`` and ``batch``): a source of items is

- ``.jsonl`` — one ``{"id", "engine", "text"}`` object per line (the native form);
- ``.jsonl.gz`` (any gzip file, whatever its name: the bytes are sniffed) — the same, compressed;
- ``.parquet`` — one item per row (``pip install 'cotaudit[data]'``: pyarrow);
- a directory written by Hugging Face ``Dataset.save_to_disk`` — one item per row, every split
  in order (``pip install 'cotaudit[data]'``: datasets);
- ``-`` — standard input, holding any of the file forms above.

A :class:`FieldMap` names the columns that hold the text, the id and the engine when they are
not called ``text``, ``id`` and ``engine`` (``--text-field completion``); the other columns stay
in the row (the cot engine reads a whole row as its record). Every source is read as JSON
records (:func:`open_records`), one per item, which ``cotaudit.api`` and ``cotaudit.batch`` turn
into items exactly as they turn JSONL lines into items; record ``N`` is reported as "line N".
bz2, xz, zstd and zip input is refused with a one-line hint, never read as N broken items.

**Out**: :mod:`cotaudit.dataio.export` writes a run log as CSV or Parquet, one row per item
or per finding; :mod:`cotaudit.dataio.frame` reads one into pandas.

One module imports each optional library: :mod:`~cotaudit.dataio.arrow` (pyarrow),
:mod:`~cotaudit.dataio.hf` (datasets), :mod:`~cotaudit.dataio.frame` (pandas).
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import IO, Any, NamedTuple

from cotaudit.errors import InputError

__all__ = [
    "NO_FIELDS",
    "STDIN",
    "FieldMap",
    "Records",
    "current_fields",
    "is_dataset_dir",
    "is_item_source",
    "open_records",
    "sniff",
    "using_fields",
]

StrPath = str | os.PathLike[str]
STDIN = "-"
STDIN_LABEL = "<stdin>"
CHUNK = 1 << 20
GZIP_MAGIC = b"\x1f\x8b"
PARQUET_MAGIC = b"PAR1"
# Compressions cotaudit does not read, by their first bytes, with what to do instead.
_REFUSED = (
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"PK\x03\x04", "zip"),
)
# Files that mark a directory written by ``Dataset.save_to_disk`` / ``DatasetDict.save_to_disk``.
DATASET_MARKERS = ("dataset_info.json", "state.json", "dataset_dict.json")


class FieldMap(NamedTuple):
    """Which columns hold an item's text, id and engine (``None``: the usual name)."""

    text: str | None = None
    id: str | None = None
    engine: str | None = None

    @property
    def identity(self) -> bool:
        return self.text is None and self.id is None and self.engine is None

    def to_dict(self) -> dict[str, str]:
        """The non-default names (for a run log's header)."""
        return {k: v for k, v in self._asdict().items() if v is not None}

    def apply(self, row: Mapping[str, Any]) -> dict[str, Any]:
        """``row`` with the named columns copied to ``text``, ``id`` and ``engine``."""
        out = dict(row)
        for target, source in (("text", self.text), ("id", self.id), ("engine", self.engine)):
            if source is not None:
                out[target] = row.get(source)
        return out


NO_FIELDS = FieldMap()
_FIELDS: ContextVar[FieldMap] = ContextVar("cotaudit_fields", default=NO_FIELDS)


def current_fields() -> FieldMap:
    """The field map in force (the command line sets one for the whole command)."""
    return _FIELDS.get()


@contextmanager
def using_fields(fields: FieldMap) -> Iterator[None]:
    """Make ``fields`` the field map of every source opened inside the block."""
    token = _FIELDS.set(fields)
    try:
        yield
    finally:
        _FIELDS.reset(token)


def _label(path: StrPath) -> str:
    return STDIN_LABEL if str(path) == STDIN else Path(path).as_posix()


def is_dataset_dir(path: StrPath) -> bool:
    """Whether ``path`` is a directory written by Hugging Face ``save_to_disk``."""
    p = Path(path)
    return p.is_dir() and any((p / marker).is_file() for marker in DATASET_MARKERS)


def is_item_source(path: StrPath) -> bool:
    """Whether ``path`` names a source of items other than a plain ``.jsonl`` file."""
    name = str(path)
    if name == STDIN:
        return True
    lower = Path(name).name.lower()
    return lower.endswith((".jsonl.gz", ".json.gz", ".parquet")) or is_dataset_dir(path)


def sniff(head: bytes) -> str:
    """The format of a file from its first bytes: ``gzip``, ``parquet`` or ``jsonl``; a
    compression cotaudit does not read raises :class:`InputError` (caller adds the path)."""
    if head.startswith(GZIP_MAGIC):
        return "gzip"
    if head.startswith(PARQUET_MAGIC):
        return "parquet"
    for magic, name in _REFUSED:
        if head.startswith(magic):
            raise ValueError(
                f"{name}-compressed input is not read; decompress it, or give .jsonl, .jsonl.gz, "
                ".parquet or a saved dataset directory"
            )
    return "jsonl"


class Records:
    """The records of one source: :meth:`count` them, then read them with :meth:`lines` (as
    many times as needed: standard input is spooled to a temporary file first)."""

    def __init__(self, path: StrPath, fields: FieldMap | None = None) -> None:
        self.path = str(path)
        self.label = _label(path)
        self.fields = fields if fields is not None else current_fields()
        self._spool: IO[bytes] | None = None
        self.kind = self._detect()

    def _detect(self) -> str:
        if self.path == STDIN:
            self._spool = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close()
            shutil.copyfileobj(sys.stdin.buffer, self._spool, CHUNK)
        elif is_dataset_dir(self.path):
            return "dataset"
        else:
            p = Path(self.path)
            if p.is_dir():
                raise InputError(
                    self.label, "is a directory (not a saved Hugging Face dataset: no dataset_info.json)"
                )
            if not p.exists():
                raise InputError(self.label, "no such file")
        with self._open() as fh:
            head = fh.read(8)
        try:
            return sniff(head)
        except ValueError as exc:
            raise InputError(self.label, str(exc)) from None

    @contextmanager
    def _open(self) -> Iterator[IO[bytes]]:
        """The source's bytes from the start (the spool of standard input is kept open)."""
        if self._spool is not None:
            self._spool.seek(0)
            yield self._spool
            return
        try:
            fh = open(self.path, "rb")  # noqa: SIM115 - closed by the with-block below
        except OSError as exc:
            raise InputError(self.label, f"cannot read ({exc.strerror or type(exc).__name__})") from None
        with fh:
            yield fh

    def count(self) -> int:
        """How many records there are (for progress and ETA)."""
        if self.kind == "parquet":
            from cotaudit.dataio import arrow

            with self._open() as fh:
                return arrow.count_rows(fh, self.label)
        if self.kind == "dataset":
            from cotaudit.dataio import hf

            return hf.count_rows(self.path)
        return sum(1 for _ in self._raw_lines())

    def lines(self) -> Iterator[tuple[int, bytes]]:
        """(record number, one JSON record as bytes), in source order; blank lines skipped."""
        if self.kind == "parquet":
            from cotaudit.dataio import arrow

            with self._open() as fh:
                yield from self._rows(arrow.iter_rows(fh, self.label))
            return
        if self.kind == "dataset":
            from cotaudit.dataio import hf

            yield from self._rows(hf.iter_rows(self.path))
            return
        for n, raw in self._raw_lines():
            yield n, raw if self.fields.identity else _remap(raw, self.fields)

    def _rows(self, rows: Iterator[Mapping[str, Any]]) -> Iterator[tuple[int, bytes]]:
        for n, row in enumerate(rows, start=1):
            yield n, _dumps(self.fields.apply(row))

    def _raw_lines(self) -> Iterator[tuple[int, bytes]]:
        with self._open() as raw:
            fh: IO[bytes] = gzip.GzipFile(fileobj=raw, mode="rb") if self.kind == "gzip" else raw  # type: ignore[assignment]
            try:
                pending = b""
                n = 0
                while True:
                    try:
                        chunk = fh.read(CHUNK)
                    except (OSError, EOFError) as exc:  # a damaged or cut-off gzip stream
                        raise InputError(self.label, f"cannot decompress ({exc})") from None
                    lines = (pending + chunk).split(b"\n")
                    pending = lines.pop() if chunk else b""
                    for line in lines:
                        n += 1
                        if line.strip():
                            yield n, line
                    if not chunk:
                        return
            finally:
                if fh is not raw:
                    fh.close()

    def close(self) -> None:
        if self._spool is not None:
            self._spool.close()
            self._spool = None

    def __enter__(self) -> Records:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_records(path: StrPath, fields: FieldMap | None = None) -> Records:
    """The records of ``path`` (see the module docstring); :class:`InputError` when it cannot
    be read at all, :class:`~cotaudit.errors.MissingDependency` when a library is missing."""
    return Records(path, fields)


def _remap(raw: bytes, fields: FieldMap) -> bytes:
    """A JSONL line with the field map applied; a line that is not an object stays as it is
    (the item reader reports it)."""
    try:
        obj = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return raw
    return _dumps(fields.apply(obj)) if isinstance(obj, dict) else raw


def _dumps(row: Mapping[str, Any]) -> bytes:
    # ASCII with escapes: a lone surrogate in a table cell travels as \ud800, as in JSONL
    return json.dumps(row, default=_jsonable).encode("ascii")


def _jsonable(value: Any) -> Any:
    """Table values JSON has no type for: bytes as text, arrays as lists, the rest as strings."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    tolist = getattr(value, "tolist", None)
    if callable(tolist):
        return tolist()
    return str(value)
