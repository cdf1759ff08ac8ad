"""``cotaudit batch`` runs each engine's items under that engine's own budget
(``--time-limit ENGINE=S``, ``--memory-limit ENGINE=MB``, ``[tool.cotaudit.engine.X]``), as
``cotaudit check`` does; the run log records the per-engine budgets and a resume under others
is refused."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from cotaudit import cli
from cotaudit.batch.runner import BatchOptions
from cotaudit.limits import DEFAULT_MEMORY_MB, DEFAULT_WALL_S, Limits

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ITEMS = [("te", "te/A_janet.te"), ("cot", "cot/bakery_slip.txt"), ("te", "te/C_arithmetic_slip.te")]
TINY = ["--time-limit", "te=0.000001"]  # te's items cannot finish; cot keeps the default budget


@pytest.fixture(autouse=True)
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)
    with Path("items.jsonl").open("w", encoding="utf-8") as fh:
        for engine, name in ITEMS:
            text = (EXAMPLES / name).read_text(encoding="utf-8")
            fh.write(json.dumps({"id": Path(name).name.split(".")[0], "engine": engine, "text": text}) + "\n")
    yield tmp_path


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _verdicts(lines: list[dict[str, object]]) -> dict[object, object]:
    return {r["input"]["id"]: r["verdict"] for r in lines}  # type: ignore[index]


def test_each_engine_runs_under_its_own_budget_as_in_check(capsys: pytest.CaptureFixture[str]) -> None:
    _, as_json, _ = _main(capsys, "check", "items.jsonl", "--no-timing", "--format", "json", *TINY)
    code, _, err = _main(capsys, "batch", "items.jsonl", "-o", "out.jsonl", "--no-timing", "-q", *TINY)
    assert code == 1, err
    header, *lines = Path("out.jsonl").read_text(encoding="utf-8").splitlines()
    reports = [json.loads(line) for line in lines]
    assert reports == json.loads(as_json)
    assert _verdicts(reports) == {"A_janet": "abstain", "bakery_slip": "fail", "C_arithmetic_slip": "abstain"}
    te = reports[0]
    assert [f["code"] for f in te["findings"]] == ["COTAUDIT_W001"]
    config = json.loads(header)["config"]
    assert config["engine_limits"] == {"te": {"time_limit": 1e-06, "memory_limit": DEFAULT_MEMORY_MB}}
    assert config["time_limit"] == DEFAULT_WALL_S  # the shared budget is the default one


def test_near_miss_another_engines_budget_changes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, _ = _main(
        capsys,
        "batch",
        "items.jsonl",
        "-o",
        "out.jsonl",
        "--no-timing",
        "-q",
        "--time-limit",
        "type6=0.000001",
    )
    assert code == 1
    _, *lines = Path("out.jsonl").read_text(encoding="utf-8").splitlines()
    reports = [json.loads(line) for line in lines]
    assert _verdicts(reports) == {"A_janet": "pass", "bakery_slip": "fail", "C_arithmetic_slip": "fail"}


def test_the_budgets_come_from_the_configuration_file_too(capsys: pytest.CaptureFixture[str]) -> None:
    Path("pyproject.toml").write_text("[tool.cotaudit.engine.te]\ntime-limit = 0.000001\n", encoding="utf-8")
    code, _, err = _main(capsys, "batch", "items.jsonl", "-o", "out.jsonl", "--no-timing", "-q")
    assert code == 1, err
    _, *lines = Path("out.jsonl").read_text(encoding="utf-8").splitlines()
    assert _verdicts([json.loads(line) for line in lines])["A_janet"] == "abstain"


def test_a_resume_under_other_per_engine_budgets_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    _main(capsys, "batch", "items.jsonl", "-o", "out.jsonl", "--no-timing", "-q", *TINY)
    before = Path("out.jsonl").read_bytes()
    code, _, err = _main(capsys, "batch", "items.jsonl", "-o", "out.jsonl", "--no-timing", "-q", "--resume")
    assert code == 2 and err.count("\n") == 1
    assert "per-engine limits" in err and "resume with the same ENGINE=VALUE limits" in err
    assert Path("out.jsonl").read_bytes() == before
    # near miss: the same budgets resume (nothing left to do)
    code, _, err = _main(
        capsys, "batch", "items.jsonl", "-o", "out.jsonl", "--no-timing", "-q", "--resume", *TINY
    )
    assert code == 1 and err == ""


def test_worker_memory_cap_fits_the_largest_budget() -> None:
    base = BatchOptions("in", "out", limits=Limits(wall_s=1, memory_mb=512))
    assert base.worker_memory_mb == 512
    bigger = base._replace(engine_limits={"vericot": Limits(wall_s=1, memory_mb=2048)})
    assert bigger.worker_memory_mb == 2048
    assert bigger.limits_for("vericot").memory_mb == 2048 and bigger.limits_for("te").memory_mb == 512
    unbounded = base._replace(engine_limits={"te": Limits(wall_s=1, memory_mb=None)})
    assert unbounded.worker_memory_mb is None
