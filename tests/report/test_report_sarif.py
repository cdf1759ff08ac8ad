"""SARIF 2.1.0 writer: the required structure, rules from codes.py, deterministic results."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from cotaudit.codes import CODES
from cotaudit.report import Finding, InputRef, Location, Report, render_sarif, to_sarif
from cotaudit.report.sarif import SARIF_SCHEMA, artifact_uri


def _check_required(log: dict[str, Any]) -> None:
    """The fields SARIF 2.1.0 requires (sarifLog, run, tool, toolComponent, result, message)."""
    assert log["version"] == "2.1.0"
    assert log["$schema"] == SARIF_SCHEMA
    assert isinstance(log["runs"], list)
    for run in log["runs"]:
        driver = run["tool"]["driver"]
        assert isinstance(driver["name"], str) and driver["name"]
        rule_ids = [rule["id"] for rule in driver.get("rules", [])]
        assert len(rule_ids) == len(set(rule_ids))
        for rule in driver.get("rules", []):
            assert rule["defaultConfiguration"]["level"] in {"none", "note", "warning", "error"}
        for invocation in run.get("invocations", []):
            assert isinstance(invocation["executionSuccessful"], bool)
        for result in run["results"]:
            assert isinstance(result["message"]["text"], str) and result["message"]["text"]
            assert result["level"] in {"none", "note", "warning", "error"}
            assert rule_ids[result["ruleIndex"]] == result["ruleId"]
            for loc in result.get("locations", []):
                phys = loc["physicalLocation"]
                assert isinstance(phys["artifactLocation"]["uri"], str)
                region = phys.get("region", {})
                assert region.get("startLine", 1) >= 1 and region.get("startColumn", 1) >= 1


def test_structure(report: Report) -> None:
    log = json.loads(render_sarif([report], version="9.9.9"))
    _check_required(log)
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["name"] == "cotaudit" and driver["version"] == "9.9.9"
    assert driver["informationUri"].startswith("https://")
    assert [r["id"] for r in driver["rules"]] == ["TE_E006", "TE_W001"]
    rule = driver["rules"][0]
    entry = CODES["TE_E006"]
    assert rule["name"] == entry.name
    assert rule["shortDescription"]["text"] == entry.summary
    first, second = log["runs"][0]["results"]
    assert first["ruleId"] == "TE_E006" and first["level"] == "error"
    assert first["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "examples/te/janet.te"},
        "region": {"startLine": 9, "startColumn": 26},
    }
    assert second["level"] == "warning"
    assert second["locations"][0]["physicalLocation"]["region"] == {"startLine": 11}


def test_info_is_note_and_unknown_codes_get_a_minimal_rule(make_report: Callable[..., Report]) -> None:
    finding = Finding("ZZ_I001", "info", Location(), "fyi", {})
    log = to_sarif([make_report(findings=(finding,))], version="0")
    _check_required(log)
    run = log["runs"][0]
    assert run["tool"]["driver"]["rules"] == [{"id": "ZZ_I001", "defaultConfiguration": {"level": "note"}}]
    assert run["results"][0]["level"] == "note"
    assert "region" not in run["results"][0]["locations"][0]["physicalLocation"]


def test_stdin_and_jsonl_locations(make_report: Callable[..., Report]) -> None:
    f = Finding("TE_E006", "error", Location(line=3), "m", {"column": 2})
    stdin = make_report(input=InputRef(None, None, "0"), findings=(f,))
    item = make_report(input=InputRef("items.jsonl", "q1", "0"), findings=(f,))
    results = to_sarif([stdin, item], version="0")["runs"][0]["results"]
    assert "locations" not in results[0]
    assert results[0]["properties"] == {"engine": "te", "line": 3}
    # item lines count lines of the item text, not of the file: no region
    assert results[1]["locations"][0]["physicalLocation"] == {"artifactLocation": {"uri": "items.jsonl"}}
    assert results[1]["properties"] == {"engine": "te", "item": "q1", "line": 3}


def test_invalid_reports_become_notifications(make_report: Callable[..., Report]) -> None:
    bad = make_report(verdict="invalid", findings=(), details={"error": "not UTF-8 text"})
    log = to_sarif([bad], version="0")
    _check_required(log)
    run = log["runs"][0]
    assert run["results"] == []
    (note,) = run["invocations"][0]["toolExecutionNotifications"]
    assert note["level"] == "error" and "not UTF-8 text" in note["message"]["text"]


def test_deterministic_order(make_report: Callable[..., Report], report: Report) -> None:
    other = make_report(input=InputRef("a.te", "a", "0"))
    one = render_sarif([report, other], version="0")
    assert one == render_sarif([report, other], version="0")
    uris = [
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in json.loads(one)["runs"][0]["results"]
    ]
    assert uris == ["examples/te/janet.te"] * 2 + ["a.te"] * 2  # report order, then finding order


def test_artifact_uri() -> None:
    assert artifact_uri("a b/c.te") == "a%20b/c.te"
    assert artifact_uri("/tmp/x.te") == "file:///tmp/x.te"
    assert artifact_uri("dir\\x.te") == "dir/x.te"
