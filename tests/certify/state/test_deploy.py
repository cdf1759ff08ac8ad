"""C-53: the kernel / deploy report, against a golden file (COTAUDIT_REGEN_GOLDEN=1 regenerates)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from cotaudit.cli.certify_ops import kernel_report_of

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "kernel_report.redundant_rules.json"


def test_kernel_report_golden() -> None:
    path = ROOT / "examples" / "certify" / "redundant_rules.kb"
    report = kernel_report_of(str(path), lambda p: Path(p).read_text(encoding="utf-8"), k_table=True)
    text = json.dumps(report, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if os.environ.get("COTAUDIT_REGEN_GOLDEN"):
        GOLDEN.write_text(text, encoding="utf-8")
    assert GOLDEN.read_text(encoding="utf-8") == text
    assert report["D2"]["J"] == ["r1"] and report["D3"]["A_delta_Ess"] == ["r2"]
    assert (
        report["D4"]["C3"] == "HYBRID" and report["D1"]["C1"] is True
    )  # 1 of 4 units (r3dup is a duplicate)
    assert report["stored_certificates_failing_recheck"] == []
    assert [row["redundant"] for row in report["k_table"]] == [
        1,
        1,
        1,
        1,
        1,
    ]  # k = 1 removes r2 instead of r1
