"""``cotaudit eval certify DATASET`` is the same command as ``cotaudit certify eval DATASET`` (C-120)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cotaudit.cli import main


def test_eval_certify_legal_writes_the_table_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "legal.json"
    assert main(["eval", "certify", "legal", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    report = json.loads(out.read_text())
    native = next(row for row in report["counts"] if row["policy"].startswith("native"))
    assert (native["C"], native["W"], native["A"]) == (240, 0, 0)
    assert report["recheck_failures"] == []
    assert "native (k=2)" in text


def test_eval_certify_needs_a_dataset(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "certify", "nosuch"]) == 2
    assert "Traceback" not in capsys.readouterr().err
