"""A run log as a table: one row per item, or one row per finding (``cotaudit export``).

The run log (R-2, :mod:`cotaudit.report.runlog`) is a header line
``{"schema_version": 1, "kind": "header", "cotaudit_version": ..., "config": {...}}`` followed
by one R-1 report per line. :func:`item_rows` and :func:`finding_rows` stream it (a cut-off last
line is skipped, as every run-log reader does) into flat rows with these columns:

- :data:`ITEM_COLUMNS` — ``id``, ``path``, ``engine``, ``verdict``, ``score``, ``first_code``,
  ``first_line``, ``first_message`` (the finding the audit table names: the first error, else
  the first warning, else the first note),
  ``errors``, ``warnings``, ``ms``;
- :data:`FINDING_COLUMNS` — ``id``, ``engine``, ``verdict``, ``code``, ``severity``, ``line``,
  ``step``, ``statement``, ``message``, ``evidence`` (compact JSON).

:func:`write_csv` needs nothing beyond the standard library; :func:`write_parquet` needs pyarrow
(``pip install 'cotaudit[data]'``).
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from cotaudit.errors import InputError

ITEM_COLUMNS = (
    "id",
    "path",
    "engine",
    "verdict",
    "score",
    "first_code",
    "first_line",
    "first_message",
    "errors",
    "warnings",
    "ms",
)
FINDING_COLUMNS = (
    "id",
    "engine",
    "verdict",
    "code",
    "severity",
    "line",
    "step",
    "statement",
    "message",
    "evidence",
)
Row = dict[str, Any]


def reports(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """The report objects of a run log, streamed; :class:`InputError` if it is not a run log."""
    label = Path(path).as_posix()
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed by the with-block below
    except OSError as exc:
        raise InputError(label, f"cannot read run log ({exc.strerror or type(exc).__name__})") from None
    with fh:
        first = True
        for lineno, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except (ValueError, UnicodeDecodeError):
                if not raw.endswith(b"\n"):
                    return  # cut off mid-write: readers skip it
                raise InputError(label, f"line {lineno}: not a JSON object") from None
            if not isinstance(obj, dict):
                raise InputError(label, f"line {lineno}: not a JSON object")
            if first:
                first = False
                if obj.get("kind") != "header":
                    raise InputError(label, "not a cotaudit run log (the first line is not a header)")
                continue
            if obj.get("kind") == "header":
                continue
            yield obj
        if first:
            raise InputError(label, "empty run log (no header line)")


def _findings(report: dict[str, Any]) -> list[dict[str, Any]]:
    found = report.get("findings")
    return [f for f in found if isinstance(f, dict)] if isinstance(found, list) else []


_RANK = {"error": 0, "warning": 1}


def item_row(report: dict[str, Any]) -> Row:
    """One report as one row of :data:`ITEM_COLUMNS`."""
    ref = report.get("input") if isinstance(report.get("input"), dict) else {}
    assert isinstance(ref, dict)
    findings = _findings(report)
    # the finding the audit table names: the first error, else the first warning, else the first
    first = min(findings, key=lambda f: _RANK.get(str(f.get("severity")), 2)) if findings else {}
    where = first.get("location") if isinstance(first.get("location"), dict) else {}
    assert isinstance(where, dict)
    return {
        "id": ref.get("id"),
        "path": ref.get("path"),
        "engine": report.get("engine"),
        "verdict": report.get("verdict"),
        "score": report.get("score"),
        "first_code": first.get("code"),
        "first_line": where.get("line"),
        "first_message": first.get("message"),
        "errors": sum(1 for f in findings if f.get("severity") == "error"),
        "warnings": sum(1 for f in findings if f.get("severity") == "warning"),
        "ms": report.get("timing_ms"),
    }


def item_rows(path: str | os.PathLike[str]) -> Iterator[Row]:
    for report in reports(path):
        yield item_row(report)


def finding_rows(path: str | os.PathLike[str]) -> Iterator[Row]:
    """One row per finding of every report (items without findings give no row)."""
    for report in reports(path):
        ref = report.get("input") if isinstance(report.get("input"), dict) else {}
        assert isinstance(ref, dict)
        for f in _findings(report):
            where = f.get("location") if isinstance(f.get("location"), dict) else {}
            assert isinstance(where, dict)
            yield {
                "id": ref.get("id"),
                "engine": report.get("engine"),
                "verdict": report.get("verdict"),
                "code": f.get("code"),
                "severity": f.get("severity"),
                "line": where.get("line"),
                "step": where.get("step"),
                "statement": where.get("statement"),
                "message": f.get("message"),
                "evidence": json.dumps(f.get("evidence") or {}, sort_keys=True, separators=(",", ":")),
            }


def rows_of(path: str | os.PathLike[str], *, findings: bool = False) -> tuple[tuple[str, ...], Iterator[Row]]:
    """The columns and the rows of a run log, per item or (``findings``) per finding."""
    return (FINDING_COLUMNS, finding_rows(path)) if findings else (ITEM_COLUMNS, item_rows(path))


def render_csv(columns: Sequence[str], rows: Iterator[Row]) -> tuple[str, int]:
    """CSV text (a header row, then the rows; ``None`` as an empty cell) and the row count."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    count = 0
    for row in rows:
        writer.writerow({k: "" if v is None else v for k, v in row.items()})
        count += 1
    return out.getvalue(), count


def write_parquet(path: str | Path, columns: Sequence[str], rows: Iterator[Row]) -> int:
    """The rows as a Parquet file at ``path``; the row count (needs pyarrow)."""
    from cotaudit.dataio import arrow

    kept = list(rows)
    arrow.write_table(path, columns, kept)
    return len(kept)
