"""``cotaudit check raw.txt`` on a raw chain: per-step findings with line:column and a verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cotaudit import cli

ROOT = Path(__file__).resolve().parents[2]
NP = ROOT.parent / "shared" / "data" / "np_human_annotation" / "gsm8k_100.json"


def test_check_txt_prints_line_column_and_verdict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = tmp_path / "raw.txt"
    raw.write_text((ROOT / "examples" / "cot" / "bakery_slip.txt").read_text())
    assert cli.main(["check", str(raw)]) == 1
    out = capsys.readouterr().out
    assert f"{raw.as_posix()}:3:21: COT_E001" in out
    assert out.splitlines()[-2:] == [
        f"{raw.as_posix()}: fail (1 error, 0 warnings)",
        "Found 1 error in 1 of 1 item (1 fail).",
    ]


@pytest.mark.skipif(not NP.exists(), reason="shared Natural Program data not present")
def test_check_a_natural_program_chain(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chains = json.loads(NP.read_text())
    valid = next(c for c in chains if c["flag"] == 1)
    raw = tmp_path / "np.txt"
    raw.write_text(valid["answer"])
    code = cli.main(["check", "--format", "json", "--no-timing", str(raw)])
    report = json.loads(capsys.readouterr().out)
    assert report["engine"] == "cot" and report["details"]["segmentation"] == "markers"
    assert report["verdict"] in ("pass", "abstain") and code in (0, 1)
    assert all(
        s["line"] >= 1 and s["status"] in ("verified", "wrong", "unchecked")
        for s in report["details"]["steps"]
    )
    assert cli.main(
        ["check", "--format", "html", "--no-timing", "-o", str(tmp_path / "r.html"), str(raw)]
    ) in (0, 1)
    page = (tmp_path / "r.html").read_text()
    assert "<h3>Steps</h3>" in page and "verified" in page


def test_md_and_stdin_need_engine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    md = tmp_path / "chain.md"
    md.write_text("Step 1: 2 + 2 = 4\nStep 2: 4 + 4 = 8\n")
    assert cli.main(["check", str(md)]) == 2
    capsys.readouterr()
    assert cli.main(["check", "--engine", "cot", str(md)]) == 0


def test_jsonl_records_are_read_as_published(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        {"input": "( [", "steps": ["( ; stack: (", "[ ; stack: ( ["], "target": "] )", "answer": "] )"},
        {"input": "( [", "steps": ["( ; stack: (", "[ ; stack: ( ("], "target": "] )", "answer": ") )"},
    ]
    items = tmp_path / "bbm.jsonl"
    items.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert cli.main(["check", "--engine", "cot", "--format", "json", "--no-timing", str(items)]) == 1
    reports = json.loads(capsys.readouterr().out)
    assert [r["verdict"] for r in reports] == ["pass", "fail"]
    assert (
        reports[1]["details"]["first_wrong_step"] == 1 and reports[1]["details"]["task"] == "dyck_languages"
    )
    other = tmp_path / "te.jsonl"
    other.write_text(json.dumps({"id": "a", "engine": "te", "steps": []}) + "\n")
    assert cli.main(["check", str(other)]) == 1
    assert "'text' must be a string" in capsys.readouterr().out
