"""``cotaudit certify eval {legal,medcalc,depdag}`` (C-120) on small inputs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cotaudit.certify.adapters import depdag
from cotaudit.cli import main
from cotaudit.eval.certify.evalsets import eval_depdag, eval_legal

DATA = Path(os.environ.get("COTAUDIT_DATA", Path(__file__).resolve().parents[4] / "shared" / "data"))


def test_eval_legal_native_vs_raw_is_deterministic() -> None:
    doc, text = eval_legal(4, 4, seed=0)
    native, raw = doc["counts"]
    assert (native["C"], native["W"], native["A"]) == (8, 0, 0)
    assert raw["C"] == 8 and doc["derivation_depths"] == {"3": 4} and not doc["recheck_failures"]
    assert (doc, text) == eval_legal(4, 4, seed=0)


def test_eval_depdag_agrees_with_bfs(tmp_path: Path) -> None:
    rows = [{"id": f"t{i}", "proofs": []} for i in range(4)]
    rows += [
        {"id": "t4", "proofs": [["t0", "t1"]]},
        {"id": "t5", "proofs": [["t4", "t2"]]},
        {"id": "t6", "proofs": [["t5", "t3"], ["t4", "t4"]]},
        {"id": "t7", "proofs": [["t6", "t0"]]},
    ]
    lib = depdag.parse_library(json.dumps(r) for r in rows)
    doc, _ = eval_depdag(lib, n=6, depths=(1, 2, 3), seed=0)
    assert doc["tasks"] > 0 and doc["bfs_agreement"] == doc["tasks"] and doc["counts"]["W"] == 0
    path = tmp_path / "lib.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    out = tmp_path / "d.json"
    assert (
        main(
            [
                "certify",
                "eval",
                "depdag",
                "--library",
                str(path),
                "-n",
                "4",
                "--json",
                str(out),
                "-o",
                str(tmp_path / "d.txt"),
            ]
        )
        == 0
    )
    assert json.loads(out.read_text(encoding="utf-8"))["format"] == "cotaudit.certify.eval.depdag/1"
    path.write_text('{"id": "BAD"}', encoding="utf-8")
    assert main(["certify", "eval", "depdag", "--library", str(path)]) == 2


@pytest.mark.skipif(
    not (DATA / "medcalc" / "test_data_v1.0.csv").is_file(), reason="MedCalc-Bench data absent"
)
def test_eval_medcalc_command(tmp_path: Path) -> None:
    out = tmp_path / "m.json"
    assert (
        main(
            [
                "certify",
                "eval",
                "medcalc",
                "--data",
                str(DATA / "medcalc"),
                "--json",
                str(out),
                "-o",
                str(tmp_path / "m.txt"),
            ]
        )
        == 0
    )
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["verified_one_shot"]["correct"] == doc["verified_one_shot"]["rows"] == 5
    assert all(mm["cause"] != "unexplained" for mm in doc["v1_0"]["mismatches"])
    v1 = doc["v1_0"]
    assert v1["agree_with_corrected_labels_where_they_exist"] == v1["rows"] == 99
    notes = doc["hand_written_notes"]
    assert notes["certified_correct"] == notes["notes"] == 25 and not doc["recheck_failures"]
    assert main(["certify", "eval", "medcalc", "--data", str(tmp_path)]) == 2


def test_eval_needs_a_dataset() -> None:
    assert main(["certify", "eval"]) == 2
