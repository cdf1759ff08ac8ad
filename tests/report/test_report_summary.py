"""The audit summary table: golden layout, 100-column limit, timings only where allowed."""

from __future__ import annotations

from collections.abc import Callable

from cotaudit.report import Finding, InputRef, Location, Report, render_summary
from cotaudit.report.summary import render_table, render_totals, summary_rows

GOLDEN = """\
engine  verdict  errors  warnings  first              ms  file
te      fail          1         1  9 TE_E006        0.41  examples/te/janet.te
te      pass          0         0  -                1.00  b.te
te      invalid       0         0  (invalid input)     -  c.te

3 items (3 files)  pass: 1  fail: 1  abstain: 0  invalid: 1
findings: 2 (1 error, 1 warning)
time: total 1.41 ms, median 0.70 ms
skipped: 3 files (2 engine not available, 1 not a trace file)
"""


def _reports(make_report: Callable[..., Report]) -> list[Report]:
    return [
        make_report(),
        make_report(input=InputRef("b.te", "b", ""), verdict="pass", findings=(), timing_ms=1.0),
        make_report(
            input=InputRef("c.te", "c", ""),
            verdict="invalid",
            findings=(),
            details={"error": "x"},
            timing_ms=None,
        ),
    ]


def test_golden(make_report: Callable[..., Report]) -> None:
    skipped = {"engine not available": 2, "not a trace file": 1}
    assert render_summary(_reports(make_report), skipped=skipped) == GOLDEN


def test_no_timing(make_report: Callable[..., Report]) -> None:
    out = render_summary(_reports(make_report), timing=False)
    assert "0.41" not in out and "1.00" not in out
    assert "time: -" in out


def test_fits_100_columns_and_never_cuts_a_name(make_report: Callable[..., Report]) -> None:
    long = "deeply/" * 30 + "trace.te"
    finding = Finding("CERTIFY_E012", "error", Location(line=12345), "m", {})
    r = make_report(input=InputRef(long, "trace", ""), findings=(finding,), timing_ms=123456.789)
    short = make_report(input=InputRef("a.te", "a", ""), findings=(finding,), timing_ms=1.0)
    out = render_table(summary_rows([r, short]))
    heading, row, other = out.splitlines()
    assert row.endswith("  " + long)  # the whole name, last
    assert len(row) - len(long) <= 100 and len(other) <= 100
    assert row.index(long) == other.index("a.te") == heading.index("file")  # aligned
    assert "12345 CERTIFY_E012" in out


def test_totals_count_items_and_files_apart(make_report: Callable[..., Report]) -> None:
    items = [
        make_report(input=InputRef("run.jsonl", f"q{i}", ""), verdict="pass", findings=()) for i in range(3)
    ]
    assert render_totals(items).startswith("3 items (1 file)  pass: 3")
    one = [make_report(input=InputRef("a.te", "a", ""), verdict="pass", findings=())]
    assert render_totals(one).startswith("1 item (1 file)  pass: 1")


def test_first_finding_uses_step_when_no_line(make_report: Callable[..., Report]) -> None:
    r = make_report(findings=(Finding("V_E001", "error", Location(step="s4"), "m", {}),))
    assert summary_rows([r])[0][5] == "s4 V_E001"


def test_the_first_column_names_the_first_error_not_a_note_before_it(
    make_report: Callable[..., Report],
) -> None:
    note = Finding("COT_I001", "info", Location(), "coverage: 3 of 4 steps checked", {})
    warn = Finding("COT_W003", "warning", Location(step="3"), "no final answer", {})
    error = Finding("COT_E001", "error", Location(line=3), "36 - 7 = 28 is false", {})
    rows = summary_rows([make_report(findings=(note, warn, error)), make_report(findings=(note, warn))])
    assert [row[5] for row in rows] == ["3 COT_E001", "3 COT_W003"]
    # near miss: only notes, the first of them
    assert summary_rows([make_report(findings=(note,), verdict="pass")])[0][5] == "- COT_I001"
