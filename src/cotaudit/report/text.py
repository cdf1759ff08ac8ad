"""Linter-style text output (R-4): one line per finding, then one verdict line per input.

```
examples/te/c.te:5:26: TE_E006 EQ[e3] claims 8 but total - eaten - baked = 9
examples/te/c.te: fail (1 error, 0 warnings)
```
``path:line:col:`` when the column is known, ``path:line:`` without it, ``path:`` without a
line. Messages are kept on one line (line breaks are escaped); a lone surrogate in a path, id or
message is written as ``\\uXXXX`` (:mod:`cotaudit.report.encoding`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from cotaudit.report.encoding import escape_surrogates
from cotaudit.report.model import Finding, InputRef, Report, Severity

ALL_SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")
STDIN_LABEL = "<stdin>"

# Characters that some tool or editor treats as a line break.
_LINE_BREAKS = {ord(c): repr(c)[1:-1] for c in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"}


def one_line(text: str) -> str:
    """``text`` with every line-breaking character escaped (``\\n``, ``\\u2028`` ...)."""
    return text.translate(_LINE_BREAKS)


def input_label(ref: InputRef) -> str:
    """How an input is named in text output: its path, ``path#id`` for a JSONL item, or the
    item id / ``<stdin>`` for in-memory text."""
    if ref.path is None:
        return ref.id if ref.id is not None else STDIN_LABEL
    if ref.id is not None and ref.path.endswith(".jsonl"):
        return f"{ref.path}#{ref.id}"
    return ref.path


def finding_column(finding: Finding) -> int | None:
    """The 1-based column in ``evidence["column"]``, if the engine gave one."""
    column = finding.evidence.get("column")
    if isinstance(column, int) and not isinstance(column, bool):
        return column
    return None


def format_finding(report: Report, finding: Finding) -> str:
    """``path:line:col: CODE message`` (or ``path:line:`` / ``path:`` as far as known)."""
    where = input_label(report.input)
    line = finding.location.line
    if line is not None:
        where += f":{line}"
        column = finding_column(finding)
        if column is not None:
            where += f":{column}"
    return f"{where}: {finding.code} {one_line(finding.message)}"


def count_words(n: int, word: str) -> str:
    """``1 error``, ``2 errors``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def verdict_line(report: Report) -> str:
    """``path: fail (2 errors, 1 warning)``; ``path: invalid (<why>)`` for unreadable input."""
    label = input_label(report.input)
    if report.verdict == "invalid":
        error = report.details.get("error")
        why = one_line(str(error)) if error is not None else "input could not be read"
        return f"{label}: invalid ({why})"
    errors = sum(1 for f in report.findings if f.severity == "error")
    warnings = sum(1 for f in report.findings if f.severity == "warning")
    return f"{label}: {report.verdict} ({count_words(errors, 'error')}, {count_words(warnings, 'warning')})"


def finding_lines(reports: Iterable[Report], severities: Sequence[Severity] = ALL_SEVERITIES) -> list[str]:
    """One formatted line per finding of the given severities, reports in order."""
    return [format_finding(r, f) for r in reports for f in r.findings if f.severity in severities]


def render_text(reports: Sequence[Report], severities: Sequence[Severity] = ALL_SEVERITIES) -> str:
    """For each report, its finding lines then its verdict line; ends with a newline."""
    lines: list[str] = []
    for report in reports:
        lines += finding_lines([report], severities)
        lines.append(verdict_line(report))
    return escape_surrogates("".join(line + "\n" for line in lines))
