"""The ``cotaudit audit`` summary table: one row per report, then totals.

The fixed-width columns come first and the name last, so a name is never cut (a long path only
makes its own row longer) and the columns stay aligned on a 100-column terminal. The totals
count items and the files they came from apart (one ``.jsonl`` file holds many items).
Timings are the only part that differs between runs; with ``timing=False`` they print as ``-``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cotaudit.report.encoding import escape_surrogates
from cotaudit.report.model import VERDICTS, Finding, Report
from cotaudit.report.text import count_words, input_label

WIDTH = 100
_HEADINGS = ("file", "engine", "verdict", "errors", "warnings", "first", "ms")
_ORDER = (1, 2, 3, 4, 5, 6, 0)  # columns as printed: the name last, never cut
_RIGHT = {"errors", "warnings", "ms"}


def _first_finding(report: Report) -> str:
    if report.verdict == "invalid":
        return "(invalid input)"
    if not report.findings:
        return "-"
    f = lead_finding(report.findings)
    where = str(f.location.line) if f.location.line is not None else (f.location.step or "-")
    return f"{where} {f.code}"


_RANK = {"error": 0, "warning": 1}


def lead_finding(findings: Sequence[Finding]) -> Finding:
    """The finding a one-line summary names: the first error, else the first warning, else the
    first finding (an engine may list its notes, such as coverage, before the error)."""
    return min(findings, key=lambda f: _RANK.get(f.severity, 2))


def _ms(value: float | None, timing: bool) -> str:
    return f"{value:.2f}" if timing and value is not None else "-"


def summary_rows(reports: Sequence[Report], *, timing: bool = True) -> list[tuple[str, ...]]:
    """The table body: (file, engine, verdict, errors, warnings, first, ms) per report."""
    rows: list[tuple[str, ...]] = []
    for r in reports:
        errors = sum(1 for f in r.findings if f.severity == "error")
        warnings = sum(1 for f in r.findings if f.severity == "warning")
        rows.append(
            (
                escape_surrogates(input_label(r.input)),  # measured as printed
                r.engine,
                r.verdict,
                str(errors),
                str(warnings),
                escape_surrogates(_first_finding(r)),  # a step id is the trace's text
                _ms(r.timing_ms, timing),
            )
        )
    return rows


def render_table(rows: Sequence[tuple[str, ...]], width: int = WIDTH) -> str:
    """Left-aligned text columns, right-aligned numbers, two spaces apart, the name last.

    ``width`` is kept for callers; only a name longer than the terminal makes a row wider."""
    table = [_HEADINGS, *rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(_HEADINGS))]
    lines = []
    for row in table:
        cells = []
        for i in _ORDER:
            heading, cell = _HEADINGS[i], row[i]
            cells.append(cell.rjust(widths[i]) if heading in _RIGHT else cell.ljust(widths[i]))
        lines.append("  ".join(cells).rstrip())
    return "".join(line + "\n" for line in lines)


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def render_totals(
    reports: Sequence[Report], *, timing: bool = True, skipped: Mapping[str, int] | None = None
) -> str:
    """Counts per verdict, findings, total and median time, and skipped files counted by kind."""
    counts = {v: sum(1 for r in reports if r.verdict == v) for v in VERDICTS}
    errors = sum(1 for r in reports for f in r.findings if f.severity == "error")
    warnings = sum(1 for r in reports for f in r.findings if f.severity == "warning")
    findings = sum(len(r.findings) for r in reports)
    verdicts = "  ".join(f"{v}: {counts[v]}" for v in VERDICTS)
    files = len({r.input.path for r in reports if r.input.path is not None}) + sum(
        1 for r in reports if r.input.path is None
    )
    lines = [
        f"{count_words(len(reports), 'item')} ({count_words(files, 'file')})  {verdicts}",
        f"findings: {findings} ({count_words(errors, 'error')}, {count_words(warnings, 'warning')})",
    ]
    times = [r.timing_ms for r in reports if r.timing_ms is not None]
    if timing and times:
        lines.append(f"time: total {sum(times):.2f} ms, median {_median(times):.2f} ms")
    else:
        lines.append("time: -")
    n_skipped = sum((skipped or {}).values())
    if n_skipped:
        why = ", ".join(f"{n} {kind}" for kind, n in sorted((skipped or {}).items()) if n)
        lines.append(f"skipped: {n_skipped} file{'s' if n_skipped != 1 else ''} ({why})")
    return "".join(line + "\n" for line in lines)


def render_summary(
    reports: Sequence[Report], *, timing: bool = True, skipped: Mapping[str, int] | None = None
) -> str:
    """The table, a blank line, then the totals."""
    return (
        render_table(summary_rows(reports, timing=timing))
        + "\n"
        + escape_surrogates(render_totals(reports, timing=timing, skipped=skipped))
    )
