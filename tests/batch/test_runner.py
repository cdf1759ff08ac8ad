"""run_batch in process: the run log, its order, resume by id, and the guards around OUT."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from batch.slow_engine import register, write_items
from cotaudit.batch.runner import BatchOptions, make_backend, run_batch, scan_log
from cotaudit.errors import InputError, UsageError
from cotaudit.limits import Limits
from cotaudit.report import read_run_log
from cotaudit.report.runlog import header_line


@pytest.fixture(autouse=True)
def slow_engine() -> Iterator[None]:
    register()
    yield


def _options(tmp_path: Path, **kw: object) -> BatchOptions:
    base: dict[str, object] = {
        "input": str(tmp_path / "in.jsonl"),
        "output": str(tmp_path / "out.jsonl"),
        "workers": 2,
        "timing": False,
    }
    base.update(kw)
    return BatchOptions(**base)  # type: ignore[arg-type]


def test_reports_in_input_order_with_header(tmp_path: Path) -> None:
    texts = ["SLEEP 0.05" if n % 5 == 0 else ("BAD" if n % 7 == 0 else "ok") for n in range(40)]
    ids = write_items(tmp_path / "in.jsonl", texts)
    with (tmp_path / "in.jsonl").open("a") as fh:
        fh.write("not json\n")
    out = io.StringIO()
    result = run_batch(_options(tmp_path), stream=out)
    log = read_run_log(tmp_path / "out.jsonl")
    assert log.header["config"] == {
        "command": "batch",
        "input": (tmp_path / "in.jsonl").as_posix(),
        "engine": None,
        "timeout": 60.0,
        "time_limit": 60.0,
        "memory_limit": 2048,
        "timing": False,
    }
    assert [r.input.id for r in log.reports] == [*ids, "line-41"]
    assert log.reports[-1].verdict == "invalid"
    assert result.total == 41 and result.checked == 41 and result.resumed == 0
    assert result.verdicts["fail"] == sum(1 for t in texts if t == "BAD") and not result.all_passed
    assert out.getvalue().startswith("batch: 41 items checked in ")
    assert b"timing_ms" not in (tmp_path / "out.jsonl").read_bytes()


def test_resume_skips_done_ids_and_matches_an_uninterrupted_run(tmp_path: Path) -> None:
    texts = [f"ok {n}" for n in range(30)]
    write_items(tmp_path / "in.jsonl", texts)
    full = tmp_path / "full.jsonl"
    run_batch(_options(tmp_path, output=str(full)))
    lines = full.read_bytes().split(b"\n")
    partial = tmp_path / "out.jsonl"
    partial.write_bytes(b"\n".join(lines[:12]) + b"\n" + lines[12][:25])  # cut mid-line, as a kill does
    result = run_batch(_options(tmp_path, resume=True))
    assert result.resumed == 11 and result.checked == 19
    assert partial.read_bytes() == full.read_bytes()


def test_resume_keeps_a_whole_last_line_without_its_newline(tmp_path: Path) -> None:
    """The writer keeps such a line (adding the newline), so scan_log must count it as done:
    otherwise its item would be checked and written a second time."""
    texts = [f"ok {n}" for n in range(30)]
    write_items(tmp_path / "in.jsonl", texts)
    full = tmp_path / "full.jsonl"
    run_batch(_options(tmp_path, output=str(full)))
    lines = full.read_bytes().split(b"\n")
    partial = tmp_path / "out.jsonl"
    partial.write_bytes(b"\n".join(lines[:13]))  # line 13 complete, its newline not yet written
    result = run_batch(_options(tmp_path, resume=True))
    assert result.resumed == 12 and result.checked == 18
    assert partial.read_bytes() == full.read_bytes()


def test_existing_output_needs_resume(tmp_path: Path) -> None:
    write_items(tmp_path / "in.jsonl", ["ok"])
    (tmp_path / "out.jsonl").write_text("something\n")
    with pytest.raises(UsageError, match="exists \\(give --resume"):
        run_batch(_options(tmp_path))
    with pytest.raises(InputError, match="not a cotaudit run log"):
        run_batch(_options(tmp_path, resume=True))


def test_resume_refuses_another_input(tmp_path: Path) -> None:
    write_items(tmp_path / "in.jsonl", ["ok"])
    write_items(tmp_path / "other.jsonl", ["ok"])
    run_batch(_options(tmp_path))
    with pytest.raises(UsageError, match="was written for input"):
        run_batch(_options(tmp_path, input=str(tmp_path / "other.jsonl"), resume=True))
    with pytest.raises(UsageError, match="must not be the input"):
        run_batch(_options(tmp_path, output=str(tmp_path / "in.jsonl")))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"limits": Limits(wall_s=5.0)},
            "written with --time-limit 60, not with --time-limit 5; resume with the same --time-limit",
        ),
        ({"limits": Limits(memory_mb=None)}, "with --memory-limit 2048, not with --memory-limit none"),
        ({"timeout": None}, "written with --timeout 60, not with --timeout none"),
        ({"engine": "slow"}, "written with --engine none, not with --engine 'slow'"),
        ({"timing": True}, "written with --no-timing, not without --no-timing"),
    ],
)
def test_resume_refuses_other_report_settings(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    write_items(tmp_path / "in.jsonl", ["ok", "ok"])
    run_batch(_options(tmp_path))
    before = (tmp_path / "out.jsonl").read_bytes()
    with pytest.raises(UsageError, match=re.escape(message)):
        run_batch(_options(tmp_path, resume=True, **change))
    assert (tmp_path / "out.jsonl").read_bytes() == before  # refused before a byte was written
    # near miss: what changes only where items run may differ
    assert run_batch(_options(tmp_path, resume=True, workers=1)).resumed == 2


def test_resume_refuses_a_log_that_does_not_record_its_limits(tmp_path: Path) -> None:
    write_items(tmp_path / "in.jsonl", ["ok"])
    config = {"command": "batch", "input": (tmp_path / "in.jsonl").as_posix(), "engine": None}
    (tmp_path / "out.jsonl").write_text(header_line(config, version="0.1.0"))  # as written until now
    with pytest.raises(UsageError, match="does not record its --timeout"):
        run_batch(_options(tmp_path, resume=True))


def test_resume_on_a_missing_output_starts_it(tmp_path: Path) -> None:
    write_items(tmp_path / "in.jsonl", ["ok", "BAD"])
    result = run_batch(_options(tmp_path, resume=True))
    assert result.checked == 2
    header, ids, verdicts, warned = scan_log(tmp_path / "out.jsonl")
    assert header["kind"] == "header" and ids == {"i0000", "i0001"} and verdicts == {"pass": 1, "fail": 1}
    assert warned == 0


def test_timeouts_and_dead_workers_do_not_stop_the_run(tmp_path: Path) -> None:
    write_items(tmp_path / "in.jsonl", ["ok", "HANG", "EXIT", "CRASH", "ok"])
    result = run_batch(_options(tmp_path, timeout=1.0))
    verdicts = [r.verdict for r in read_run_log(tmp_path / "out.jsonl").reports]
    assert verdicts == ["pass", "abstain", "invalid", "invalid", "pass"]
    assert result.checked == 5


def test_make_backend_rejects_bad_settings(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--workers"):
        make_backend(_options(tmp_path, workers=0))
    with pytest.raises(UsageError, match="unknown backend"):
        make_backend(_options(tmp_path, backend="spark"))


def test_run_log_lines_are_compact_json(tmp_path: Path) -> None:
    write_items(tmp_path / "in.jsonl", ["ok"])
    run_batch(_options(tmp_path, workers=1))
    header, report = (tmp_path / "out.jsonl").read_text().splitlines()
    assert json.loads(header)["kind"] == "header"
    assert json.loads(report)["input"]["id"] == "i0000" and ", " not in report
