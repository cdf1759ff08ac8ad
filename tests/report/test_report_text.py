"""Text writer: linters' line format, one verdict line per input (golden strings)."""

from __future__ import annotations

from collections.abc import Callable

from cotaudit.report import Finding, InputRef, Location, Report, render_text
from cotaudit.report.text import format_finding, input_label, one_line, verdict_line

GOLDEN = (
    "examples/te/janet.te:9:26: TE_E006 EQ[e3] claims 8 but total - eaten - baked = 9\n"
    "examples/te/janet.te:11: TE_W001 CHECK c1 cannot be decided\n"
    "examples/te/janet.te: fail (1 error, 1 warning)\n"
)


def test_golden(report: Report) -> None:
    assert render_text([report]) == GOLDEN


def test_finding_without_line_has_path_only(make_report: Callable[..., Report]) -> None:
    finding = Finding("TE_E001", "error", Location(), "no GIVEN line", {})
    r = make_report(findings=(finding,))
    assert format_finding(r, finding) == "examples/te/janet.te: TE_E001 no GIVEN line"


def test_boolean_column_is_not_a_column(make_report: Callable[..., Report]) -> None:
    finding = Finding("TE_E001", "error", Location(line=3), "m", {"column": True})
    assert format_finding(make_report(), finding) == "examples/te/janet.te:3: TE_E001 m"


def test_message_stays_on_one_line(make_report: Callable[..., Report]) -> None:
    finding = Finding("TE_E013", "error", Location(line=2, step=None), "bad\nline\u2028here", {"column": 4})
    line = format_finding(make_report(), finding)
    assert "\n" not in line and "\u2028" not in line
    assert line == "examples/te/janet.te:2:4: TE_E013 bad\\nline\\u2028here"
    assert one_line("a\r\nb") == "a\\r\\nb"


def test_labels() -> None:
    assert input_label(InputRef("a/b.te", "b", "")) == "a/b.te"
    assert input_label(InputRef("items.jsonl", "q7", "")) == "items.jsonl#q7"
    assert input_label(InputRef(None, None, "")) == "<stdin>"
    assert input_label(InputRef(None, "q1", "")) == "q1"


def test_verdict_lines(make_report: Callable[..., Report]) -> None:
    assert (
        verdict_line(make_report(verdict="pass", findings=()))
        == "examples/te/janet.te: pass (0 errors, 0 warnings)"
    )
    invalid = make_report(verdict="invalid", findings=(), details={"error": "line 3: not JSON"})
    assert verdict_line(invalid) == "examples/te/janet.te: invalid (line 3: not JSON)"


def test_severity_filter_and_order(make_report: Callable[..., Report]) -> None:
    a = make_report()
    b = make_report(input=InputRef("z.te", "z", ""), verdict="pass", findings=())
    assert render_text([a, b], ("error",)) == (
        "examples/te/janet.te:9:26: TE_E006 EQ[e3] claims 8 but total - eaten - baked = 9\n"
        "examples/te/janet.te: fail (1 error, 1 warning)\n"
        "z.te: pass (0 errors, 0 warnings)\n"
    )
    assert render_text([]) == ""
