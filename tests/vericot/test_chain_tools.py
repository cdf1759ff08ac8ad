"""The vericot tools chain (issue 17): formalize writes items that check and batch take as they
are, metrics says "n/a" where correctness is unknown and refuses what is not a report log, the
exports say why they wrote nothing, and Verifier.run takes a dict."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from cotaudit import cli, vericot
from cotaudit.report.runlog import read_run_log
from cotaudit.vericot.datasets import data_root, load_items

from .helpers import needs_data

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "vericot"
RunCli = Callable[..., subprocess.CompletedProcess[bytes]]


@pytest.mark.slow
@needs_data("prontoqa")
def test_formalize_batch_metrics_end_to_end_on_prontoqa(tmp_path: Path, run_cli: RunCli) -> None:
    env = {"COTAUDIT_DATA": str(data_root())}
    formalized = run_cli(
        ["vericot", "formalize", "prontoqa", "--mode", "chain"], cwd=tmp_path, env=env, fake=False
    )
    assert formalized.returncode == 0, formalized.stderr
    # the documented pipe: formalize | batch - -o run.jsonl, then metrics on the run log
    batch = run_cli(
        ["batch", "-", "-o", "run.jsonl", "--workers", "2", "--quiet"],
        cwd=tmp_path,
        stdin=formalized.stdout,
        env=env,
        fake=False,
    )
    assert batch.returncode == 0, batch.stderr
    log = read_run_log(tmp_path / "run.jsonl")
    assert len(log.reports) == 500 and {r.verdict for r in log.reports} == {"pass"}
    metrics = run_cli(["vericot", "metrics", "run.jsonl"], cwd=tmp_path, env=env, fake=False)
    assert metrics.returncode == 0, metrics.stderr
    table = metrics.stdout.decode()
    assert "n = 500  (correctness unknown for 500)" in table
    assert "Pass Rate       100.0   500/500" in table
    for name in ("Precision", "VCAR", "Task Accuracy"):
        assert any(line.startswith(name) and " n/a " in line for line in table.splitlines()), name
    # the DPO export has nothing to pair (every gold chain is valid) and says so
    (tmp_path / "pq.jsonl").write_bytes(formalized.stdout)
    dpo = run_cli(
        ["vericot", "export-dpo", "run.jsonl", "--traces", "pq.jsonl", "-o", "dpo.jsonl"],
        cwd=tmp_path,
        env=env,
        fake=False,
    )
    assert dpo.returncode == 1 and b"wrote 0 DPO pairs" in dpo.stderr and b"0 with both" in dpo.stderr


@needs_data("prontoqa")
def test_formalized_items_check_as_they_are(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "items.json"
    src.write_text(json.dumps(load_items("prontoqa", "dev")[:3]), encoding="utf-8")
    out = tmp_path / "pq.jsonl"
    assert (
        cli.main(["vericot", "formalize", "prontoqa", "--mode", "chain", "--file", str(src), "-o", str(out)])
        == 0
    )
    assert cli.main(["check", str(out), "--format", "json", "--no-timing"]) == 0
    assert [r["verdict"] for r in json.loads(capsys.readouterr().out)] == ["pass"] * 3
    # metrics on the items themselves: refused, with what to do
    assert cli.main(["vericot", "metrics", str(out)]) == 2
    assert "not reports: run 'cotaudit batch" in capsys.readouterr().err


def _reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    traces = tmp_path / "traces.jsonl"
    lines = [
        json.dumps({"id": p.stem, "engine": "vericot", "text": p.read_text()})
        for p in sorted(EXAMPLES.glob("*.vcot.json"))
    ]
    traces.write_text("\n".join(lines) + "\n", encoding="utf-8")
    reports = tmp_path / "reports.jsonl"
    assert cli.main(["check", "--format", "jsonl", "-o", str(reports), str(traces)]) == 1
    capsys.readouterr()
    return traces, reports


def test_metrics_refuses_empty_and_wrong_shaped_logs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert cli.main(["vericot", "metrics", str(empty)]) == 2
    assert "empty: no vericot reports" in capsys.readouterr().err
    te_log = tmp_path / "te.jsonl"
    assert (
        cli.main(
            ["check", "--format", "jsonl", "-o", str(te_log), str(ROOT / "examples" / "te" / "A_janet.te")]
        )
        == 0
    )
    assert cli.main(["vericot", "metrics", str(te_log)]) == 2
    assert "reports of engine te" in capsys.readouterr().err
    # near miss: a log of vericot reports is read
    _, reports = _reports(tmp_path, capsys)
    assert cli.main(["vericot", "metrics", str(reports)]) == 0


def test_metrics_na_only_where_correctness_is_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, reports = _reports(tmp_path, capsys)
    assert cli.main(["vericot", "metrics", str(reports)]) == 0
    table = capsys.readouterr().out
    assert "correctness unknown for 5" in table  # one example (ProntoQA_1) states its answer
    precision = next(line for line in table.splitlines() if line.startswith("Precision"))
    assert "n/a" not in precision and "50.0" in precision


def test_export_dpo_explains_zero_pairs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    traces, reports = _reports(tmp_path, capsys)
    out = tmp_path / "dpo.jsonl"
    assert cli.main(["vericot", "export-dpo", str(reports), "--traces", str(traces), "-o", str(out)]) == 0
    assert out.read_text().count("\n") == 4  # near miss: the SARA group pairs
    assert (
        cli.main(
            [
                "vericot",
                "export-dpo",
                str(reports),
                "--traces",
                str(traces),
                "-o",
                str(out),
                "--require-correct",
            ]
        )
        == 1
    )
    err = capsys.readouterr().err
    assert "wrote 0 DPO pairs" in err and "valid and correct" in err and "correctness unknown" in err
    # SFT: the one valid and correct example is written (near miss); without it, nothing is
    sft = [
        "vericot",
        "export-sft",
        str(reports),
        "--traces",
        str(traces),
        "-o",
        str(out),
        "--require-correct",
    ]
    assert cli.main(sft) == 0 and out.read_text().count("\n") == 1
    invalid = [line for line in reports.read_text().splitlines() if '"verdict":"fail"' in line]
    only_bad = tmp_path / "bad.jsonl"
    only_bad.write_text("\n".join(invalid) + "\n")
    bad_traces = tmp_path / "bad_traces.jsonl"
    ids = {json.loads(line)["input"]["id"] for line in invalid}
    bad_traces.write_text(
        "".join(line + "\n" for line in traces.read_text().splitlines() if json.loads(line)["id"] in ids)
    )
    assert (
        cli.main(["vericot", "export-sft", str(only_bad), "--traces", str(bad_traces), "-o", str(out)]) == 1
    )
    err = capsys.readouterr().err
    assert "wrote 0 SFT examples" in err and "0 valid" in err


def test_verifier_run_takes_a_dict_json_or_trace() -> None:
    data = json.loads((EXAMPLES / "A_sara_valid.vcot.json").read_text())
    verifier = vericot.Verifier(vericot.VerifierConfig())
    from_dict = verifier.run(data)

    def decided(result: vericot.TraceResult) -> list[tuple[str, str]]:
        return [(s.step.id, s.status) for s in result.steps]  # not the timings

    assert decided(verifier.run(json.dumps(data))) == decided(from_dict)
    assert decided(verifier.run(vericot.TraceInput.model_validate(data))) == decided(from_dict)
    assert {s.status for s in from_dict.steps} == {"entailed"}
    with pytest.raises(vericot.NotATrace, match=r"not a vericot trace: .*context"):
        verifier.run({"id": "x", "steps": []})
    with pytest.raises(vericot.NotATrace, match="not list"):
        verifier.run([data])  # type: ignore[arg-type]
