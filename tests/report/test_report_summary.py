"""The audit summary table: golden layout, 100-column limit, timings only where allowed."""

from __future__ import annotations

from collections.abc import Callable

from cotaudit.report import Finding, InputRef, Location, Report, render_summary
from cotaudit.report.summary import render_table, summary_rows

GOLDEN = """\
file                  engine  verdict  errors  warnings  first              ms
examples/te/janet.te  te      fail          1         1  9 TE_E006        0.41
b.te                  te      pass          0         0  -                1.00
c.te                  te      invalid       0         0  (invalid input)     -

files: 3  pass: 1  fail: 1  abstain: 0  invalid: 1
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


def test_fits_100_columns(make_report: Callable[..., Report]) -> None:
    long = "deeply/" * 30 + "trace.te"
    finding = Finding("CERTIFY_E012", "error", Location(line=12345), "m", {})
    r = make_report(input=InputRef(long, "trace", ""), findings=(finding,), timing_ms=123456.789)
    out = render_table(summary_rows([r]))
    assert all(len(line) <= 100 for line in out.splitlines())
    row = out.splitlines()[1]
    assert row.startswith("...") and "/deeply/trace.te  te  " in row
    assert "12345 CERTIFY_E012" in out


def test_first_finding_uses_step_when_no_line(make_report: Callable[..., Report]) -> None:
    r = make_report(findings=(Finding("V_E001", "error", Location(step="s4"), "m", {}),))
    assert summary_rows([r])[0][5] == "s4 V_E001"
