"""The R-1 report (shared/spec/report.md) and the API integration of the type6 engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import cotaudit
from cotaudit import api, codes, type6
from cotaudit.errors import UsageError
from cotaudit.report import Report, json_schema
from cotaudit.type6.codemap import stable_code

ROOT = Path(__file__).resolve().parents[2]
MEMORIES = (ROOT / "examples" / "type6" / "memories.t6").read_text(encoding="utf-8")
CHINESE = (ROOT / "examples" / "type6" / "chinese_nation.t6").read_text(encoding="utf-8")


def test_fail_report() -> None:
    report = type6.check(MEMORIES, path="examples/type6/memories.t6", item_id="memories")
    assert (report.engine, report.engine_version, report.verdict, report.score) == (
        "type6",
        "type6/1",
        "fail",
        2.75,
    )
    assert [(f.code, f.severity, f.location.line, f.location.statement) for f in report.findings] == [
        ("T6_W002", "warning", None, None),
        ("T6_E101", "error", 3, "2"),
        ("T6_E202", "error", 4, "3"),
        ("T6_W404", "warning", 5, "4"),
    ]
    h01 = report.findings[1]
    assert (
        h01.evidence["type6_code"] == "T6_H01" and h01.evidence["prop"] == "p1" and h01.evidence["blocking"]
    )
    assert report.details["verdict"] == "hard_fail" and report.details["trace_id"] == "memories"
    assert set(report.details) >= {"summary", "sequential", "per_path", "coherence", "graph", "config"}
    assert report.timing_ms is not None and report.timing_ms >= 0


def test_pass_report_keeps_soft_findings_as_warnings() -> None:
    report = type6.check(CHINESE)
    assert report.verdict == "pass" and report.score == 3.5 and report.details["verdict"] == "ok"
    assert [f.code for f in report.findings] == ["T6_W202", "T6_W202", "T6_W501"]
    assert report.findings == Report.sorted_findings(report.findings)


def test_invalid_report() -> None:
    report = type6.check("T q : Q\nX p : x\nT p no colon\n")
    assert report.verdict == "invalid" and report.score is None
    assert [(f.code, f.severity, f.location.line) for f in report.findings] == [
        ("T6_E001", "error", 2),
        ("T6_E002", "error", 3),
    ]
    assert report.details["status"] == "invalid" and report.details["summary"]["hard_fail"] is None


def test_internal_error_is_a_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    from cotaudit.type6 import r1

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("bug")

    monkeypatch.setattr(r1, "verify", boom)
    report = type6.check("T q : Q\nT THEN a : A")
    assert report.verdict == "invalid" and [f.code for f in report.findings] == ["T6_X001"]


@pytest.mark.parametrize("name", sorted(p.stem for p in (ROOT / "examples" / "type6").glob("*.t6")))
def test_reports_validate_against_the_schema(name: str) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    text = (ROOT / "examples" / "type6" / f"{name}.t6").read_text(encoding="utf-8")
    jsonschema.validate(type6.check(text).to_dict(), json_schema())
    for finding in type6.check(text).findings:
        assert codes.lookup(finding.code).severity == finding.severity


def test_invalid_and_internal_reports_validate() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(type6.check("nonsense").to_dict(), json_schema())


def test_every_native_code_maps_to_a_table_code() -> None:
    from cotaudit.type6.events import CATALOGUE

    natives = [*CATALOGUE, *(f"T6_E0{k}" for k in range(1, 7))]
    for native in natives:
        for elevated in (False, True):
            entry = codes.lookup(stable_code(native, elevated=elevated))
            assert entry.engine == "type6" and entry.summary.startswith(native)
    assert stable_code("T6_R01", elevated=True) == "T6_E201" and stable_code("T6_R02") == "T6_W202"
    assert {c.code for c in codes.CODES.values() if c.engine == "type6"} == {
        stable_code(n, elevated=e) for n in natives for e in (False, True)
    } | {"T6_X001"}


def test_api_registration_and_options(tmp_path: Path) -> None:
    assert api.engine_spec("type6").implemented
    report = cotaudit.check(CHINESE, engine="type6", path_mode="off")
    assert report.details["per_path"]["mode"] == "off" and report.verdict == "pass"
    report = cotaudit.check(CHINESE, engine="type6", config=type6.Config(seed=3))
    assert report.details["config"]["seed"] == 3
    report = cotaudit.check(CHINESE, engine="type6", config={"max_paths": 5})
    assert report.details["config"]["max_paths"] == 5
    with pytest.raises(UsageError, match="unknown type6 option"):
        cotaudit.check(CHINESE, engine="type6", bogus=1)
    with pytest.raises(UsageError, match="path_mode"):
        cotaudit.check(CHINESE, engine="type6", path_mode="sometimes")
    f = tmp_path / "nation.t6"
    f.write_text(CHINESE, encoding="utf-8")
    (report,) = cotaudit.check_file(f)
    assert report.input.id == "nation" and report.details["trace_id"] == "chinese-nation"


def test_json_input_through_check() -> None:
    trace = type6.parse_t6(MEMORIES)
    report = type6.check(trace.to_json(), item_id="m")
    assert report.verdict == "fail" and report.findings[0].code == "T6_W002"
    assert report.details["trace_id"] == "memories"


def test_report_round_trips_and_is_deterministic() -> None:
    a = type6.check(MEMORIES, item_id="m")
    assert Report.from_dict(a.to_dict()) == a
    b = type6.check(MEMORIES, item_id="m")
    assert json.dumps(a.to_dict(timing=False)) == json.dumps(b.to_dict(timing=False))
