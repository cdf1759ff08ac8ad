"""``make_report``: the one R-1 builder every engine and the front end use."""

from __future__ import annotations

import ast
from pathlib import Path

from cotaudit.report import Finding, InputRef, Location, Report, make_report, sha256_text

SRC = Path(__file__).resolve().parents[2] / "src" / "cotaudit"


def test_make_report_hashes_the_text_and_sorts_the_findings() -> None:
    late = Finding("X_E002", "error", Location(line=3), "late", {})
    early = Finding("X_E001", "warning", Location(line=1), "early", {})
    report = make_report("x", "x/1", "fail", text="a\nb\nc", path="t.x", item_id="i", findings=[late, early])
    assert report.input == InputRef("t.x", "i", sha256_text("a\nb\nc"))
    assert report.findings == (early, late)
    assert (report.engine, report.engine_version, report.verdict, dict(report.details)) == (
        "x",
        "x/1",
        "fail",
        {},
    )


def test_make_report_without_text_keeps_the_given_hash() -> None:
    report = make_report("x", "x/1", "invalid", sha256="abc", details={"error": "e"}, timing_ms=1.5)
    assert report.input == InputRef(None, None, "abc")
    assert report.details == {"error": "e"} and report.timing_ms == 1.5


def test_only_the_report_package_constructs_reports() -> None:
    """Engines and the front end call make_report; ``Report(...)`` appears only in report/."""
    calls = []
    for path in sorted(SRC.rglob("*.py")):
        if path.is_relative_to(SRC / "report"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Report":
                calls.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert calls == []
    assert Report.__module__ == "cotaudit.report.model"
