"""``cotaudit export`` and the pandas helper: a run log round-trips into pandas (issue 17)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from tests.rewards.completions import GOOD, WRONG

from cotaudit import cli
from cotaudit.dataio.export import FINDING_COLUMNS, ITEM_COLUMNS, item_rows

ITEMS = [
    {"id": "good", "engine": "te", "text": GOOD},
    {"id": "wrong", "engine": "te", "text": WRONG},
    {"id": "bad", "engine": "fake", "text": "ok\nBAD here\nWARN"},
]


@pytest.fixture
def run_log(tmp_path: Path) -> Path:
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(i) + "\n" for i in ITEMS), encoding="utf-8")
    run = tmp_path / "run.jsonl"
    assert cli.main(["batch", str(items), "-o", str(run), "--quiet"]) == 1
    return run


def test_csv_one_row_per_item(run_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["export", str(run_log), "--to", "csv"]) == 0
    assert "wrote 3 items to" in capsys.readouterr().err
    rows = list(csv.DictReader((run_log.parent / "run.csv").open(encoding="utf-8")))
    assert tuple(rows[0]) == ITEM_COLUMNS
    assert [(r["id"], r["engine"], r["verdict"]) for r in rows] == [
        ("good", "te", "pass"),
        ("wrong", "te", "fail"),
        ("bad", "fake", "fail"),
    ]
    assert (rows[1]["first_code"], rows[1]["first_line"], rows[1]["errors"]) == ("TE_E006", "8", "1")
    assert (rows[2]["first_code"], rows[2]["errors"], rows[2]["warnings"]) == ("FAKE_E001", "1", "1")
    assert rows[0]["first_code"] == "" and float(rows[0]["ms"]) >= 0


def test_findings_to_stdout(run_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["export", str(run_log), "--to", "csv", "--findings", "-o", "-"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert tuple(rows[0]) == FINDING_COLUMNS
    assert [(r["id"], r["code"], r["line"]) for r in rows] == [
        ("wrong", "TE_E006", "8"),
        ("bad", "FAKE_E001", "2"),
        ("bad", "FAKE_W001", "3"),
    ]
    assert json.loads(rows[0]["evidence"])["expected"] == "9"


def test_round_trip_into_pandas(run_log: Path) -> None:
    pd = pytest.importorskip("pandas", reason="pandas is not installed (pip install 'cotaudit[data]')")
    pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install 'cotaudit[data]')")
    from cotaudit.dataio.frame import read_run_log

    assert cli.main(["export", str(run_log), "--to", "parquet", "-o", str(run_log.parent / "t.parquet")]) == 0
    assert cli.main(["export", str(run_log), "--to", "csv", "-o", str(run_log.parent / "t.csv")]) == 0
    from_parquet = pd.read_parquet(run_log.parent / "t.parquet")
    from_csv = pd.read_csv(run_log.parent / "t.csv")
    helper = read_run_log(run_log)
    for frame in (from_parquet, from_csv, helper):
        assert list(frame.columns) == list(ITEM_COLUMNS)
        assert list(frame["verdict"]) == ["pass", "fail", "fail"]
        assert list(frame["errors"]) == [0, 1, 1]
        assert frame.loc[1, "first_code"] == "TE_E006" and int(frame.loc[1, "first_line"]) == 8
    assert from_parquet.equals(helper)
    # the documented one-liner: the header is the first line, the reports follow
    raw = pd.read_json(run_log, lines=True).iloc[1:]
    assert list(raw["verdict"]) == ["pass", "fail", "fail"]
    assert [ref["id"] for ref in raw["input"]] == ["good", "wrong", "bad"]
    per_finding = read_run_log(run_log, findings=True)
    assert list(per_finding["code"]) == ["TE_E006", "FAKE_E001", "FAKE_W001"]


def test_not_a_run_log_and_parquet_to_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert cli.main(["export", str(empty), "--to", "csv"]) == 2
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps(ITEMS[0]) + "\n")
    assert cli.main(["export", str(items), "--to", "csv"]) == 2
    assert "not a cotaudit run log" in capsys.readouterr().err
    assert cli.main(["export", str(items), "--to", "parquet", "-o", "-"]) == 2
    assert cli.main(["export", str(tmp_path / "missing.jsonl"), "--to", "csv"]) == 2


def test_a_cut_off_last_line_is_skipped(run_log: Path) -> None:
    data = run_log.read_bytes()
    run_log.write_bytes(data[: len(data) - 20])
    assert [r["id"] for r in item_rows(run_log)] == ["good", "wrong"]


def test_the_first_columns_name_the_first_error_as_the_audit_table_does() -> None:
    from cotaudit.dataio.export import item_row

    note = {"code": "COT_I001", "severity": "info", "location": {}, "message": "coverage"}
    error = {"code": "COT_E001", "severity": "error", "location": {"line": 3}, "message": "false"}
    row = item_row({"engine": "cot", "verdict": "fail", "findings": [note, error]})
    assert (row["first_code"], row["first_line"], row["errors"]) == ("COT_E001", 3, 1)
    only_note = item_row({"engine": "cot", "verdict": "pass", "findings": [note]})
    assert only_note["first_code"] == "COT_I001"  # near miss: no error, the first note
