"""``cotaudit type6 render|verify|convert`` and ``cotaudit check --engine type6``."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from cotaudit.cli import main

ROOT = Path(__file__).resolve().parents[2]
NATION = str(ROOT / "examples" / "type6" / "chinese_nation.t6")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("ext", ["svg", "html", "dot"])
def test_render_by_extension(tmp_path: Path, capsys: pytest.CaptureFixture[str], ext: str) -> None:
    out = tmp_path / f"nation.{ext}"
    code, _, err = run(capsys, "type6", "render", NATION, "-o", str(out))
    assert code == 0 and err == ""
    text = out.read_text(encoding="utf-8")
    if ext == "svg":
        ET.fromstring(text)
    assert "chinese-nation" in text


def test_render_to_stdout_and_bad_extension(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "type6", "render", NATION, "--columns", "4")
    assert code == 0 and out.startswith("<svg")
    code, _, err = run(capsys, "type6", "render", NATION, "-o", str(tmp_path / "x.png"))
    assert code == 2 and "cannot tell the format" in err


def test_render_graphviz_flag_falls_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "g.svg"
    assert run(capsys, "type6", "render", NATION, "--graphviz", "-o", str(out))[0] == 0
    assert out.read_text(encoding="utf-8").startswith("<")


def test_verify_and_convert(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "type6", "verify", NATION, "--path-mode", "off")
    doc = json.loads(out)
    assert code == 0 and doc["summary"]["paths"]["mode"] == "off" and doc["trace_id"] == "chinese-nation"
    code, out, _ = run(capsys, "type6", "convert", NATION, "--to", "json")
    trace = json.loads(out)
    assert code == 0 and len(trace["statements"]) == 12
    j = tmp_path / "n.json"
    j.write_text(out, encoding="utf-8")
    code, out, _ = run(capsys, "type6", "convert", str(j), "--to", "t6")
    assert code == 0 and out.startswith("#@ id: chinese-nation\n")
    bad = tmp_path / "bad.t6"
    bad.write_text("X p : x\n", encoding="utf-8")
    code, _, err = run(capsys, "type6", "convert", str(bad), "--to", "json")
    assert code == 2 and "T6_E01" in err


def test_group_help_and_check(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "type6")
    assert code == 2 and "convert, render, verify" in err
    code, out, _ = run(capsys, "check", "--engine", "type6", "--format", "json", "--no-timing", NATION)
    report = json.loads(out)
    assert code == 0 and report["engine"] == "type6" and report["score"] == 3.5
    assert "per_path" in report["details"]
    memories = str(ROOT / "examples" / "type6" / "memories.t6")
    code, out, _ = run(capsys, "check", memories)
    assert code == 1 and "T6_E101" in out


def _flip_trace(tmp_path: Path, flips: int) -> str:
    """``flips`` unlicensed K-K flips on p1 (one T6_H01 each), then a sink."""
    lines = ["T q : Q"] + [f"T K {'NOT ' if k % 2 else ''}p1 : flip {k}" for k in range(flips + 1)]
    path = tmp_path / "flips.t6"
    path.write_text("\n".join([*lines, "T THEN a : A"]) + "\n", encoding="utf-8")
    return str(path)


def test_listing_bounds_are_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 19 (e): the Config listing bounds reach the command line, not only the API."""
    trace = _flip_trace(tmp_path, 6)
    code, out, _ = run(capsys, "type6", "verify", trace, "--path-mode", "off", "--max-events-per-code", "2")
    doc = json.loads(out)
    assert code == 0 and doc["config"]["max_events_per_code"] == 2
    assert [e["code"] for e in doc["sequential"]["events"]].count("T6_H01") == 2
    assert doc["truncated"]["sequential.events"] == {"T6_H01": 4}
    assert doc["summary"]["event_counts"]["T6_H01"] == 6  # the analysis is whole
    # near miss: without the flag every event is listed and nothing is cut
    doc = json.loads(run(capsys, "type6", "verify", trace, "--path-mode", "off")[1])
    assert doc["truncated"] == {} and doc["config"]["max_events_per_code"] == 100


def test_allowance_and_path_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = _flip_trace(tmp_path, 6)
    argv = ["--report-floor-bytes", "0", "--report-bytes-per-input-byte", "0", "--path-detail-limit", "1"]
    code, out, _ = run(capsys, "type6", "verify", trace, *argv, "--max-listed-path-ids", "3")
    doc = json.loads(out)
    assert code == 0 and doc["truncated"].get("sequential.statements", 0) > 0
    cfg = doc["config"]
    assert (cfg["report_floor_bytes"], cfg["report_bytes_per_input_byte"]) == (0, 0)
    assert (cfg["path_detail_limit"], cfg["max_listed_path_ids"]) == (1, 3)
    assert doc["per_path"]["listed"] <= 1
    # render takes the same flags
    assert run(capsys, "type6", "render", trace, "--max-events-per-code", "1", "--format", "dot")[0] == 0


def test_bad_listing_flag_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "type6", "verify", _flip_trace(tmp_path, 1), "--max-events-per-code", "-1")
    assert code == 2 and "max_events_per_code" in err and "Traceback" not in err
    code, _, err = run(capsys, "type6", "verify", _flip_trace(tmp_path, 1), "--report-floor-bytes", "x")
    assert code == 2 and "Traceback" not in err
