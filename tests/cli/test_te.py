"""``cotaudit te convert | np | extract`` on the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cotaudit import cli

ROOT = Path(__file__).resolve().parents[2]
GSM8K = ROOT.parent / "shared" / "data" / "gsm8k" / "test.jsonl"
JANET = {
    "question": (
        "Janet\u2019s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins "
        "for her friends every day with four. She sells the remainder at the farmers' market daily for $2 per "
        "fresh duck egg. How much in dollars does she make every day at the farmers' market?"
    ),
    "answer": (
        "Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs a day.\n"
        "She makes 9 * 2 = $<<9*2=18>>18 every day at the farmer\u2019s market.\n#### 18"
    ),
}


def test_convert_writes_checkable_jsonl(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "items.jsonl"
    src.write_text(json.dumps(JANET) + "\n" + json.dumps({"question": "?", "answer": "no final"}) + "\n")
    out = tmp_path / "te.jsonl"
    args = ["te", "convert", str(src), "-o", str(out), "--checks", "0", "--value-refs", "0"]
    assert cli.main(args) == 0
    err = capsys.readouterr().err
    assert "converted 1 of 2 items (skipped: bad-final 1)" in err
    assert "cotaudit: skipped gsm8k-0002: bad-final (final answer '')" in err  # each skip, with its reason
    record = json.loads(out.read_text().splitlines()[0])
    assert record["engine"] == "te" and record["id"] == "gsm8k-0001"
    assert record["text"] == (ROOT / "examples" / "te" / "T_gsm8k_janet.te").read_text()
    assert cli.main(["check", str(out)]) == 0


def test_convert_to_a_directory(tmp_path: Path) -> None:
    src = tmp_path / "items.jsonl"
    src.write_text(json.dumps(JANET) + "\n")
    assert cli.main(["te", "convert", str(src), "-o", str(tmp_path / "out"), "--format", "dir"]) == 0
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["gsm8k-0001.te"]


def test_convert_rejects_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["te", "convert", str(tmp_path / "missing.jsonl"), "-o", "x"]) == 2
    assert cli.main(["te", "convert", str(tmp_path / "missing.jsonl"), "-o", "x", "--checks", "2"]) == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    assert cli.main(["te", "convert", str(bad), "-o", str(tmp_path / "o.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and all(line.startswith("cotaudit: ") for line in err.splitlines())


def test_np_and_extract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["te", "np", str(ROOT / "examples" / "te" / "A_janet.te")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[8] == "Verify: step 1 result == 9" and out[11] == "Final answer: 18 [USD]"
    raw = tmp_path / "raw.txt"
    raw.write_text("Here:\nGIVEN:\n  a := 1\nGOAL: b\nEQ[e1]: b = a = 1\nANS: b\nbye\n")
    assert cli.main(["te", "extract", str(raw)]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("GIVEN:") and captured.out.endswith("ANS: b\n")
    assert "line 2" in captured.err


@pytest.mark.slow
@pytest.mark.skipif(not GSM8K.exists(), reason=f"GSM8K test split not found at {GSM8K}")
def test_convert_the_gsm8k_test_split(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "gsm8k.jsonl"
    assert cli.main(["te", "convert", str(GSM8K), "-o", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert len(lines) >= 1250
    assert (
        cli.main(["check", "--format", "jsonl", "--no-timing", "-o", str(tmp_path / "r.jsonl"), str(out)])
        == 0
    )
