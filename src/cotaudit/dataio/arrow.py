"""The one module that imports pyarrow (``pip install 'cotaudit[data]'``): Parquet in and out."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from cotaudit.errors import InputError, MissingDependency

INSTALL_HINT = "pip install 'cotaudit[data]'"
BATCH_ROWS = 1024


def _pq() -> Any:
    try:
        import pyarrow.parquet as pq
    except ModuleNotFoundError:
        raise MissingDependency("pyarrow", INSTALL_HINT) from None
    return pq


def _file(fh: IO[bytes], label: str) -> Any:
    pq = _pq()
    try:
        return pq.ParquetFile(fh)
    except Exception as exc:  # pyarrow.ArrowInvalid and friends: not a readable Parquet file
        raise InputError(label, f"not a readable Parquet file ({type(exc).__name__}: {exc})") from None


def count_rows(fh: IO[bytes], label: str) -> int:
    """Rows of a Parquet file, from its footer."""
    return int(_file(fh, label).metadata.num_rows)


def iter_rows(fh: IO[bytes], label: str) -> Iterator[dict[str, Any]]:
    """The rows of a Parquet file as dicts, read a batch at a time."""
    for batch in _file(fh, label).iter_batches(batch_size=BATCH_ROWS):
        yield from batch.to_pylist()


def write_table(path: str | Path, columns: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> None:
    """``rows`` (dicts keyed by ``columns``) as a Parquet file at ``path``."""
    pq = _pq()
    import pyarrow as pa

    table = pa.table({name: [row.get(name) for row in rows] for name in columns})
    pq.write_table(table, str(path))
