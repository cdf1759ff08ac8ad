"""Progress is reported as data (issue 18): the long loops open tasks and advance them; only a
front end with a reporter draws anything. A recording reporter stands in for the rich bar."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cotaudit import cli, progress
from cotaudit.cli import entry
from cotaudit.eval.model import EvalItem, Outcome

ROOT = Path(__file__).resolve().parents[1]


class Recorder:
    def __init__(self) -> None:
        self.tasks: list[list[object]] = []  # [label, total, advanced, finished]

    def start(self, label: str, total: int | None) -> progress.Task:
        record: list[object] = [label, total, 0, False]
        self.tasks.append(record)
        return _Handle(record)

    def finish(self, task: progress.Task) -> None:
        assert isinstance(task, _Handle)
        task.record[3] = True


class _Handle:
    def __init__(self, record: list[object]) -> None:
        self.record = record

    def advance(self, steps: int = 1) -> None:
        self.record[2] = int(str(self.record[2])) + steps

    def total(self, total: int | None) -> None:
        self.record[1] = total


def test_without_a_reporter_nothing_is_drawn() -> None:
    assert not progress.active()
    with progress.task("x", 3) as task:
        task.advance()  # a no-op handle
    recorder = Recorder()
    with progress.reporting(recorder), progress.task("y", 2) as task:
        task.advance(2)
    assert recorder.tasks == [["y", 2, 2, True]]


class _Method:
    name = "M-test"
    description = "a stub"

    def unavailable(self) -> str | None:
        return None

    def run(self, item: EvalItem, run: int) -> Outcome:
        return Outcome(self.name, item.id, run, flagged=False)


def test_eval_runs_report_one_task_per_method_and_run() -> None:
    from cotaudit.eval.runner import run_methods

    items = [EvalItem(f"i{n}", "te", "", adversarial=False) for n in range(5)]
    recorder = Recorder()
    with progress.reporting(recorder):
        run_methods(items, [_Method()], runs=2, progress=None)
    assert recorder.tasks == [["M-test, run 1 of 2", 5, 5, True], ["M-test, run 2 of 2", 5, 5, True]]


def test_proofwriter_reports_every_item() -> None:
    from cotaudit.eval.certify.pweval import run_proofwriter

    items = [
        {"id": f"q{n}", "context": "not a theory ###", "question": "x", "answer": "True"} for n in range(4)
    ]
    recorder = Recorder()
    with progress.reporting(recorder):
        run = run_proofwriter(items, "dev", 5)
    assert len(run.outcomes) == 4
    assert recorder.tasks == [["proofwriter dev, δ = 5", 4, 4, True]]


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    """The CLI with a recorder where a terminal would get the rich bar."""
    rec = Recorder()
    monkeypatch.setattr(entry, "reporter_for", lambda quiet, color: None if quiet else rec)
    return rec


def test_te_convert_shows_progress(
    tmp_path: Path, recorder: Recorder, capsys: pytest.CaptureFixture[str]
) -> None:
    item = {
        "question": "Janet has 16 eggs. She eats 3. How many are left?",
        "answer": "16 - 3 = <<16-3=13>>13\n#### 13",
    }
    src = tmp_path / "g.jsonl"
    src.write_text(json.dumps(item) + "\n" + json.dumps(item) + "\n", encoding="utf-8")
    assert cli.main(["te", "convert", str(src), "-o", str(tmp_path / "o.jsonl")]) == 0
    assert recorder.tasks == [["te convert", 2, 2, True]]


def test_batch_and_audit_show_progress(
    tmp_path: Path, recorder: Recorder, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (ROOT / "examples/te/A_janet.te").read_text(encoding="utf-8")
    items = tmp_path / "in.jsonl"
    items.write_text(
        "".join(json.dumps({"id": f"q{i}", "engine": "te", "text": text}) + "\n" for i in range(6))
    )
    assert cli.main(["batch", str(items), "-o", str(tmp_path / "out.jsonl")]) == 0
    assert ["batch", 6, 6, True] in recorder.tasks
    recorder.tasks.clear()
    assert cli.main(["audit", "--no-html", str(ROOT / "examples" / "te")]) == 0
    (label, total, advanced, finished) = recorder.tasks[0]
    assert label == "audit (files)" and total == advanced == 20 and finished


def test_quiet_draws_nothing(tmp_path: Path, recorder: Recorder, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["-q", "audit", "--no-html", str(ROOT / "examples" / "te")]) == 0
    assert recorder.tasks == []  # near miss of the test above
