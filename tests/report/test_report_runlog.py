"""R-2 run log: header, append-only writing, resume set, tolerance of a cut-off last line."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from cotaudit.errors import InputError
from cotaudit.report import InputRef, Report, RunLogWriter, completed_ids, read_run_log, render_run_log
from cotaudit.report.runlog import header_line, report_line


def _items(make_report: Callable[..., Report], n: int) -> list[Report]:
    return [make_report(input=InputRef("items.jsonl", f"q{i}", "0")) for i in range(n)]


def test_header_line_exact() -> None:
    assert header_line({"command": "check", "engine": None}, version="0.1.0") == (
        '{"schema_version":1,"kind":"header","cotaudit_version":"0.1.0",'
        '"config":{"command":"check","engine":null}}\n'
    )


def test_render_and_read_back(make_report: Callable[..., Report], tmp_path: Path) -> None:
    reports = _items(make_report, 3)
    text = render_run_log(reports, {"k": 1}, version="0.1.0")
    lines = text.splitlines()
    assert len(lines) == 4 and json.loads(lines[0])["kind"] == "header"
    assert lines[1] == report_line(reports[0]).rstrip("\n")
    path = tmp_path / "run.jsonl"
    path.write_text(text, encoding="utf-8")
    log = read_run_log(path)
    assert log.header["config"] == {"k": 1}
    assert log.reports == tuple(reports)
    assert not log.truncated
    assert log.ids == {"q0", "q1", "q2"}


def test_writer_appends_and_resumes(make_report: Callable[..., Report], tmp_path: Path) -> None:
    reports = _items(make_report, 4)
    path = tmp_path / "run.jsonl"
    with RunLogWriter(path, {"k": 1}, version="0.1.0") as w:
        w.write(reports[0])
        w.write(reports[1])
    assert completed_ids(path) == {"q0", "q1"}
    with RunLogWriter(path, {"k": 1}, version="0.1.0", resume=True) as w:
        assert w.resumed_ids == {"q0", "q1"}
        for r in reports:
            if r.input.id not in w.resumed_ids:
                w.write(r)
    log = read_run_log(path)
    assert [r.input.id for r in log.reports] == ["q0", "q1", "q2", "q3"]
    assert path.read_text(encoding="utf-8").count('"kind":"header"') == 1


def test_truncated_last_line_is_tolerated_and_repaired(
    make_report: Callable[..., Report], tmp_path: Path
) -> None:
    reports = _items(make_report, 3)
    path = tmp_path / "run.jsonl"
    full = render_run_log(reports[:2], {}, version="0.1.0")
    cut = report_line(reports[2])[:40]  # the process died mid-write
    path.write_text(full + cut, encoding="utf-8")
    assert completed_ids(path) == {"q0", "q1"}
    log = read_run_log(path)
    assert log.truncated and len(log.reports) == 2
    with RunLogWriter(path, {}, version="0.1.0", resume=True) as w:
        w.write(reports[2])
    log = read_run_log(path)
    assert not log.truncated
    assert [r.input.id for r in log.reports] == ["q0", "q1", "q2"]


def test_complete_last_line_without_newline_is_kept(
    make_report: Callable[..., Report], tmp_path: Path
) -> None:
    reports = _items(make_report, 2)
    path = tmp_path / "run.jsonl"
    path.write_text(render_run_log(reports, {}, version="0").rstrip("\n"), encoding="utf-8")
    assert completed_ids(path) == {"q0", "q1"}
    with RunLogWriter(path, {}, version="0", resume=True) as w:
        w.write(make_report(input=InputRef("items.jsonl", "q9", "0")))
    assert [r.input.id for r in read_run_log(path).reports] == ["q0", "q1", "q9"]


def test_truncated_header_starts_over(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text('{"schema_version":1,"ki', encoding="utf-8")
    assert completed_ids(path) == set()
    with RunLogWriter(path, {"a": 1}, version="0", resume=True):
        pass
    assert read_run_log(path).header["config"] == {"a": 1}


def test_missing_file_resumes_from_nothing(tmp_path: Path) -> None:
    assert completed_ids(tmp_path / "none.jsonl") == set()


def test_corrupt_middle_line_is_an_error(make_report: Callable[..., Report], tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    text = render_run_log(_items(make_report, 2), {}, version="0")
    lines = text.splitlines(keepends=True)
    path.write_text(lines[0] + "{oops\n" + lines[2], encoding="utf-8")
    with pytest.raises(InputError, match="line 2"):
        read_run_log(path)


def test_not_a_run_log(make_report: Callable[..., Report], tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text('{"id": "a", "engine": "te", "text": "x"}\n', encoding="utf-8")
    with pytest.raises(InputError, match="not a cotaudit run log"):
        completed_ids(path)


def test_writer_without_resume_starts_afresh(make_report: Callable[..., Report], tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text("garbage\n", encoding="utf-8")
    with RunLogWriter(path, {}, version="0", timing=False) as w:
        w.write(make_report())
    text = path.read_text(encoding="utf-8")
    assert "garbage" not in text and "timing_ms" not in text
