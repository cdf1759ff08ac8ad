"""``--time-limit`` and ``--memory-limit`` on ``check``, ``audit`` and ``batch``: a budget an input
overruns makes it abstain (COTAUDIT_W001 time, COTAUDIT_W002 memory); the defaults leave normal
items alone; ``0``/``none`` switch a bound off; a bad value is a one-line usage error."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from batch.slow_engine import register, write_items
from cotaudit import cli


@pytest.fixture(autouse=True)
def slow_engine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    register()
    monkeypatch.chdir(tmp_path)
    Path("slow.slow").write_text("WORK 30\n", encoding="utf-8")  # works until a budget stops it
    Path("normal.slow").write_text("WORK 0.3\n", encoding="utf-8")
    yield


def _reports(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, dict]]:  # type: ignore[type-arg]
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    data = json.loads(out)
    reports = data if isinstance(data, list) else [data]  # one input: one object
    return code, {Path(r["input"]["path"]).name: r for r in reports}


def _codes(report: dict) -> list[str]:  # type: ignore[type-arg]
    return [f["code"] for f in report["findings"]]


def test_check_time_limit_makes_a_slow_input_abstain(capsys: pytest.CaptureFixture[str]) -> None:
    code, got = _reports(
        capsys, "check", "--format", "json", "--time-limit", "0.1", "slow.slow", "normal.slow"
    )
    assert code == 1
    assert got["slow.slow"]["verdict"] == "abstain" and _codes(got["slow.slow"]) == ["COTAUDIT_W001"]
    assert got["slow.slow"]["findings"][0]["evidence"] == {"kind": "time", "limit": "0.1 s"}
    assert got["normal.slow"]["verdict"] == "abstain"  # 0.3 s of work does not fit in 0.1 s either


def test_near_miss_check_defaults_leave_normal_items_alone(capsys: pytest.CaptureFixture[str]) -> None:
    code, got = _reports(capsys, "check", "--format", "json", "normal.slow")
    assert code == 0 and got["normal.slow"]["verdict"] == "pass" and got["normal.slow"]["findings"] == []
    code, got = _reports(capsys, "check", "--format", "json", "--time-limit", "none", "normal.slow")
    assert code == 0 and got["normal.slow"]["verdict"] == "pass"


def test_check_memory_limit_makes_a_hungry_input_abstain(capsys: pytest.CaptureFixture[str]) -> None:
    Path("hungry.slow").write_text("TOUCH 96\nWORK 0.5\n", encoding="utf-8")
    code, got = _reports(capsys, "check", "--format", "json", "--memory-limit", "16", "hungry.slow")
    assert code == 1 and _codes(got["hungry.slow"]) == ["COTAUDIT_W002"]
    code, got = _reports(capsys, "check", "--format", "json", "--memory-limit", "0", "hungry.slow")
    assert code == 0 and got["hungry.slow"]["verdict"] == "pass"  # the near miss: bound off


def test_audit_time_limit(capsys: pytest.CaptureFixture[str]) -> None:
    code, got = _reports(
        capsys, "audit", "--format", "json", "--no-html", "--time-limit", "0.1", "slow.slow", "normal.slow"
    )
    assert code == 0  # audit reports; --strict gates
    assert _codes(got["slow.slow"]) == ["COTAUDIT_W001"] and got["normal.slow"]["verdict"] == "abstain"
    code, got = _reports(capsys, "audit", "--format", "json", "--no-html", "normal.slow")
    assert got["normal.slow"]["verdict"] == "pass"


def _batch(capsys: pytest.CaptureFixture[str], texts: list[str], *flags: str) -> list[dict]:  # type: ignore[type-arg]
    write_items(Path("in.jsonl"), texts)
    out = Path("out.jsonl")
    out.unlink(missing_ok=True)
    cli.main(["batch", "in.jsonl", "-o", str(out), "--quiet", *flags])
    capsys.readouterr()
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()[1:]]


def test_batch_time_limit_and_its_near_miss(capsys: pytest.CaptureFixture[str]) -> None:
    slow, normal = _batch(capsys, ["WORK 30", "WORK 0.05"], "--time-limit", "0.5")
    assert slow["verdict"] == "abstain" and _codes(slow) == ["COTAUDIT_W001"]
    assert normal["verdict"] == "pass"  # the budget is per item, not per run
    (normal,) = _batch(capsys, ["WORK 0.3"])
    assert normal["verdict"] == "pass" and normal["findings"] == []


def test_batch_memory_limit_caps_the_workers(capsys: pytest.CaptureFixture[str]) -> None:
    """--memory-limit also sizes the workers' address-space cap: an allocation C code makes in
    one go (2 GiB, never touched, so no budget check could see it) is a MemoryError there."""
    (wild,) = _batch(capsys, ["ALLOC 2048"], "--memory-limit", "64")
    assert wild["verdict"] == "abstain" and _codes(wild) == ["COTAUDIT_W002"]
    (granted,) = _batch(capsys, ["ALLOC 2048"])  # the near miss: the default cap leaves room
    assert granted["verdict"] == "pass" and granted["details"]["allocated"] == 2048


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--time-limit", "-1", "expected positive seconds, 0 or 'none', got '-1'"),
        ("--time-limit", "soon", "expected seconds, 0 or 'none', got 'soon'"),
        ("--time-limit", "nan", "expected positive seconds, 0 or 'none', got 'nan'"),
        ("--memory-limit", "1.5", "expected whole MiB, 0 or 'none', got '1.5'"),
        ("--memory-limit", "-5", "expected whole MiB, 0 or 'none', got '-5'"),
    ],
)
@pytest.mark.parametrize("command", ["check", "audit", "batch"])
def test_bad_values_are_one_line_usage_errors(
    capsys: pytest.CaptureFixture[str], command: str, flag: str, value: str, message: str
) -> None:
    argv = [command, "normal.slow", flag, value] + (["-o", "out.jsonl"] if command == "batch" else [])
    code = cli.main(argv)
    _, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1 and message in err and "Traceback" not in err
