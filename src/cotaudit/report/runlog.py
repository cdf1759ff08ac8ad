"""The R-2 run log: a header line, then one R-1 report per line (JSONL), append-only.

```
{"schema_version":1,"kind":"header","cotaudit_version":"0.1.0","config":{...}}
{"schema_version":1,"engine":"te",...}
```
An interrupted run resumes by reading the ids already written (:func:`completed_ids`) and
appending with ``RunLogWriter(path, ..., resume=True)``. A report line is
:meth:`~cotaudit.report.encoded.EncodedReport.line`: the writer takes a :class:`Report` or the
:class:`~cotaudit.report.encoded.EncodedReport` a worker sent, whose bytes it writes as they are.
A last line cut off mid-write (no final newline, not valid JSON) is tolerated: readers ignore it
and a resuming writer drops it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import TracebackType
from typing import IO, Any, NamedTuple

from cotaudit.errors import InputError
from cotaudit.report.encoded import EncodedReport, encode_report
from cotaudit.report.encoding import utf8_bytes
from cotaudit.report.jsonout import dumps_compact
from cotaudit.report.model import SCHEMA_VERSION, Report, ReportFormatError

HEADER_KIND = "header"


def header_dict(config: Mapping[str, Any], *, version: str) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": HEADER_KIND,
        "cotaudit_version": version,
        "config": dict(config),
    }


def header_line(config: Mapping[str, Any], *, version: str) -> str:
    """The header line (with its newline); ``config`` keys keep their order."""
    return dumps_compact(header_dict(config, version=version)) + "\n"


def report_line(report: Report, *, timing: bool = True) -> str:
    """One report as one compact JSON line (with its newline)."""
    return encode_report(report).line(timing=timing).decode("utf-8") + "\n"


def render_run_log(
    reports: Iterable[Report], config: Mapping[str, Any], *, version: str, timing: bool = True
) -> str:
    """A whole run log as text: header, then every report."""
    return header_line(config, version=version) + "".join(report_line(r, timing=timing) for r in reports)


class RunLog(NamedTuple):
    """A run log read back: its header, its reports and whether a cut-off last line was dropped."""

    header: dict[str, Any]
    reports: tuple[Report, ...]
    truncated: bool

    @property
    def ids(self) -> set[str]:
        return {r.input.id for r in self.reports if r.input.id is not None}


def _records(path: Path) -> tuple[list[tuple[int, dict[str, Any]]], bool]:
    """(line number, object) for every complete line, and whether a partial last line was dropped."""
    label = path.as_posix()
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(label, f"cannot read run log ({exc.strerror or type(exc).__name__})") from None
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a newline
    records: list[tuple[int, dict[str, Any]]] = []
    for lineno, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        obj = _parse(raw)
        if obj is None:
            raise InputError(label, f"line {lineno}: not a JSON object")
        records.append((lineno, obj))
    truncated = False
    if tail.strip():
        obj = _parse(tail)
        if obj is None:
            truncated = True
        else:
            records.append((len(lines) + 1, obj))
    if not records:
        if truncated:
            return [], True
        raise InputError(label, "empty run log (no header line)")
    first = records[0][1]
    if first.get("kind") != HEADER_KIND or first.get("schema_version") != SCHEMA_VERSION:
        raise InputError(label, "not a cotaudit run log (the first line is not a schema_version 1 header)")
    return records, truncated


def _parse(raw: bytes) -> dict[str, Any] | None:
    try:
        obj = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return obj if isinstance(obj, dict) else None


def read_run_log(path: str | os.PathLike[str]) -> RunLog:
    """Parse a run log; :class:`InputError` if it is not one or a line other than the last is bad."""
    p = Path(path)
    records, truncated = _records(p)
    if not records:
        return RunLog(header={}, reports=(), truncated=truncated)
    reports: list[Report] = []
    for lineno, obj in records[1:]:
        try:
            reports.append(Report.from_dict(obj))
        except (ReportFormatError, ValueError) as exc:
            raise InputError(p.as_posix(), f"line {lineno}: {exc}") from None
    return RunLog(header=records[0][1], reports=tuple(reports), truncated=truncated)


def completed_ids(path: str | os.PathLike[str]) -> set[str]:
    """Item ids already in the run log at ``path`` (empty if the file does not exist)."""
    p = Path(path)
    if not p.exists():
        return set()
    records, _ = _records(p)
    ids: set[str] = set()
    for _, obj in records[1:]:
        ref = obj.get("input")
        if isinstance(ref, dict) and isinstance(ref.get("id"), str):
            ids.add(ref["id"])
    return ids


class RunLogWriter:
    """Append-only writer: ``resume=True`` keeps what is there (dropping a cut-off last line),
    otherwise the file is started afresh. Each report is flushed as soon as it is written."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        config: Mapping[str, Any],
        *,
        version: str,
        resume: bool = False,
        timing: bool = True,
    ) -> None:
        self.path = Path(path)
        self.timing = timing
        self.resumed_ids: set[str] = set()
        write_header = True
        if resume and self.path.exists() and self.path.stat().st_size > 0:
            self.resumed_ids = completed_ids(self.path)
            write_header = not self._repair_tail()
        self._fh: IO[bytes] = open(self.path, "ab" if resume else "wb")  # noqa: SIM115
        if write_header:
            self._fh.write(utf8_bytes(header_line(config, version=version)))
            self._fh.flush()

    def _repair_tail(self) -> bool:
        """Make the file end on a complete line; True if a header survives."""
        data = self.path.read_bytes()
        if not data.endswith(b"\n"):
            cut = data.rfind(b"\n") + 1
            if _parse(data[cut:]) is None:
                with open(self.path, "r+b") as fh:
                    fh.truncate(cut)
                data = data[:cut]
            else:
                with open(self.path, "ab") as fh:
                    fh.write(b"\n")
        return bool(data.strip())

    def write(self, report: Report | EncodedReport) -> None:
        encoded = report if isinstance(report, EncodedReport) else encode_report(report)
        self._fh.write(encoded.line(timing=self.timing) + b"\n")
        self._fh.flush()

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> RunLogWriter:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
