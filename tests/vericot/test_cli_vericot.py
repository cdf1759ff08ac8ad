"""V-57: ``cotaudit vericot <tool>`` and ``cotaudit check`` on vericot traces (thin CLI)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cotaudit import cli
from cotaudit.vericot.datasets import load_items

from .helpers import needs_data

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "vericot"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_check_examples(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "check", str(EXAMPLES / "A_sara_valid.vcot.json"))
    assert code == 0
    code, out, _ = _run(capsys, "check", str(EXAMPLES / "B_sara_contradicted.vcot.json"))
    assert code == 1 and "VC_E001" in out


def test_audit_covers_vericot(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = _run(capsys, "audit", "--no-html", "--no-timing", str(EXAMPLES))
    assert code == 0
    assert out.count("vericot") >= len(list(EXAMPLES.glob("*.vcot.json")))


def test_group_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "vericot")
    assert code == 2 and "labels" in err and "inject" in err


def _jsonl_reports(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> tuple[Path, Path]:
    traces = tmp_path / "traces.jsonl"
    lines = []
    for p in sorted(EXAMPLES.glob("*.vcot.json")):
        lines.append(json.dumps({"id": p.stem, "engine": "vericot", "text": p.read_text(encoding="utf-8")}))
    traces.write_text("\n".join(lines) + "\n", encoding="utf-8")
    reports = tmp_path / "reports.jsonl"
    code, _, _ = _run(capsys, "check", "--format", "jsonl", "-o", str(reports), str(traces))
    assert code in (0, 1)
    return traces, reports


def test_metrics_and_exports(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    traces, reports = _jsonl_reports(capsys, tmp_path)
    code, out, _ = _run(capsys, "vericot", "metrics", str(reports), "-o", str(tmp_path / "m.json"))
    assert code == 0 and "Pass Rate" in out and "33.3" in out
    assert json.loads((tmp_path / "m.json").read_text())["n"] == 6
    sft = tmp_path / "sft.jsonl"
    assert (
        _run(capsys, "vericot", "export-sft", str(reports), "--traces", str(traces), "-o", str(sft))[0] == 0
    )
    assert [json.loads(line)["id"] for line in sft.read_text().splitlines()] == ["sara-13-1", "ProntoQA_1"]
    dpo = tmp_path / "dpo.jsonl"
    assert (
        _run(capsys, "vericot", "export-dpo", str(reports), "--traces", str(traces), "-o", str(dpo))[0] == 0
    )
    pairs = [json.loads(line)["meta"] for line in dpo.read_text().splitlines()]
    # the SARA examples share one context: one valid trace, four invalid ones
    assert [(m["chosen_id"], m["rejected_id"]) for m in pairs] == [
        ("sara-13-1", "sara-13-2"),
        ("sara-13-1", "sara-13-3"),
        ("sara-13-1", "sara-13-4a"),
        ("sara-13-1", "sara-13-4b"),
    ]


def test_export_without_traces_is_a_usage_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _, reports = _jsonl_reports(capsys, tmp_path)
    code, _, err = _run(capsys, "vericot", "export-sft", str(reports), "-o", str(tmp_path / "x.jsonl"))
    assert code == 2 and "--traces" in err


@needs_data("prontoqa")
def test_inject_limited(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "vericot", "inject", "prontoqa", "--limit", "2", "--kinds", "NF,D")
    assert code == 0
    assert "NF  22/22 = 100.0% flagged" in out and "D   12/12 = 100.0% flagged" in out
    code, _, err = _run(capsys, "vericot", "inject", "prontoqa", "--kinds", "XX")
    assert code == 2 and "unknown kind" in err


@needs_data("prontoqa")
def test_inject_and_labels_take_a_split_or_a_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = _run(capsys, "vericot", "inject", "prontoqa", "--split", "real_ontologies", "--limit", "3")
    assert code == 0 and out.startswith("prontoqa real_ontologies, 3 items") and "miss" not in out
    src = tmp_path / "items.json"
    src.write_text(json.dumps(load_items("prontoqa", "real_ontologies")[:4]), encoding="utf-8")
    code, out, _ = _run(capsys, "vericot", "labels", "prontoqa", "--file", str(src))
    assert code == 0 and out.startswith("prontoqa items.json (classical): 4/4 = 100.0% agree")
    src.write_text(json.dumps([{"id": 1, "context": "Max is a cat."}]), encoding="utf-8")
    code, _, err = _run(capsys, "vericot", "labels", "prontoqa", "--file", str(src))
    assert code == 2 and "item 0 has no string 'question'" in err
    src.write_text("[" * 100, encoding="utf-8")
    code, _, err = _run(capsys, "vericot", "inject", "prontoqa", "--file", str(src))
    assert code == 2 and "Traceback" not in err


@needs_data("prontoqa")
def test_formalize_writes_traces(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "f.jsonl"
    assert _run(capsys, "vericot", "formalize", "prontoqa", "--mode", "chain", "-o", str(out))[0] == 0
    items = [json.loads(line) for line in out.read_text().splitlines()]
    # items, as check and batch read them (issue 17); the trace is the item's text
    assert {(i["engine"], i["id"] == json.loads(i["text"])["id"]) for i in items} == {("vericot", True)}
    rows = [json.loads(i["text"]) for i in items]
    assert len(rows) == 500 and rows[0]["formalization"]["premises"][0]["use"] == "pool"
    bare = tmp_path / "bare.jsonl"
    assert (
        _run(capsys, "vericot", "formalize", "prontoqa", "--mode", "chain", "--bare", "-o", str(bare))[0] == 0
    )
    assert [json.loads(line) for line in bare.read_text().splitlines()] == rows


@needs_data("folio")
def test_folio_lists_disagreements(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "vericot", "folio")
    assert code == 0 and out.startswith("FOLIO validation gold FOL: ")
    assert "does not parse" in out


@needs_data("prontoqa")
@pytest.mark.slow
def test_labels_prontoqa(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "vericot", "labels", "prontoqa", "--split", "dev")
    assert code == 0 and "500/500 = 100.0% agree" in out


def test_reflect_replay_without_recordings_stops_closed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """No recording for the reflector: reflection stops after round 0 (fail closed), exit 0."""
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(json.loads((EXAMPLES / "C_sara_ungrounded.vcot.json").read_text())) + "\n")
    out = tmp_path / "out.jsonl"
    (tmp_path / "c").mkdir()
    code, stdout, err = _run(
        capsys,
        "vericot",
        "reflect",
        str(src),
        "--llm-mode",
        "replay",
        "--llm-cache",
        str(tmp_path / "c"),
        "--llm-model",
        "m",
        "-o",
        str(out),
    )
    assert code == 0, err
    assert "ΔPass Rate +0.0" in stdout
    report = json.loads(out.read_text())
    assert [r["round"] for r in report["details"]["reflection"]] == [0]
