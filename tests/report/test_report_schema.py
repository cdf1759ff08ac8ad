"""Every report the te engine produces validates against the published JSON Schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cotaudit import te
from cotaudit.report import Report, json_schema

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed (pip install -e '.[dev]')")
ROOT = Path(__file__).resolve().parents[2]
VALIDATOR = jsonschema.Draft202012Validator(json_schema())


def test_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(json_schema())


@pytest.mark.parametrize("path", sorted((ROOT / "examples" / "te").glob("*.te")), ids=lambda p: p.stem)
def test_example_reports_validate(path: Path) -> None:
    report = te.check(path.read_text(encoding="utf-8"), path=str(path), item_id=path.stem)
    for data in (report.to_dict(), report.to_dict(timing=False)):
        VALIDATOR.validate(json.loads(json.dumps(data)))
    assert Report.from_dict(report.to_dict()) == report


def test_schema_rejects_a_malformed_report() -> None:
    report = te.check("GIVEN:\n", item_id="x").to_dict()
    report["verdict"] = "maybe"
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate(report)
