"""EncodedReport: a report as the bytes of its canonical JSON, with the spans of its parts."""

from __future__ import annotations

import gc
import json
import pickle
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from cotaudit import api
from cotaudit.report import Finding, InputRef, Location, Report, report_dict
from cotaudit.report.encoded import ENVELOPE_KEYS, encode_report
from cotaudit.report.runlog import report_line

ROOT = Path(__file__).resolve().parents[2]


def reference(report: Report, *, timing: bool = True) -> bytes:
    """The canonical line, written the plain way: one json.dumps, surrogates as their escape."""
    text = json.dumps(report_dict(report, timing=timing), ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8", "backslashreplace")


def _examples() -> list[Report]:
    paths = (
        sorted((ROOT / "examples" / "te").glob("*.te"))[:6]
        + sorted((ROOT / "examples" / "type6").glob("*.t6"))[:4]
    )
    return [api.check_file(p)[0] for p in paths]


def _odd() -> Report:
    """Everything canonical() has to make plain: sets, fractions, inf, unsorted keys, surrogates."""
    return Report(
        engine="te",
        engine_version="te/1",
        input=InputRef(path="caf\u00e9\ud800.te", id="\udfff", sha256="0" * 64),
        verdict="fail",
        findings=(
            Finding(
                "TE_E006", "error", Location(line=2), "claims 8\ud83d", {"z": {3, 1, 2}, "a": Fraction(1, 3)}
            ),
            Finding("TE_W001", "warning", Location(step="s1"), "", {}),
        ),
        details={"zeta": float("inf"), "alpha": [1, (2, 3)], "\ud800": None},
        score=2.5,
        timing_ms=0.25,
    )


@pytest.mark.parametrize("timing", [True, False])
def test_the_line_is_the_canonical_json_of_the_report(timing: bool) -> None:
    for report in [*_examples(), _odd()]:
        encoded = encode_report(report)
        assert encoded.line(timing=timing) == reference(report, timing=timing)
        assert encoded.size(timing=timing) == len(encoded.line(timing=timing))
        assert report_line(report, timing=timing) == reference(report, timing=timing).decode() + "\n"
        assert encoded.verdict == report.verdict


def test_the_warnings_are_counted_where_the_report_is_encoded() -> None:
    for report in [*_examples(), _odd()]:
        assert encode_report(report).warnings == sum(f.severity == "warning" for f in report.findings)
    assert encode_report(_odd()).warnings == 1  # near miss: its error is not counted


def test_spans_hold_each_finding_and_each_details_entry() -> None:
    for report in [*_examples(), _odd()]:
        encoded = encode_report(report)
        d = report_dict(report)
        assert encoded.finding_count == len(d["findings"]) and encoded.detail_count == len(d["details"])
        for i, finding in enumerate(d["findings"]):
            start, end = encoded.finding_span(i)
            assert json.loads(encoded.data[start:end]) == finding
        entries = [json.loads(b"{" + encoded.detail(i) + b"}") for i in range(encoded.detail_count)]
        assert entries == [{k: v} for k, v in d["details"].items()]
        assert encoded.envelope() == {k: d[k] for k in ENVELOPE_KEYS}


def test_leading_findings_fit_their_room_exactly() -> None:
    encoded = encode_report(_odd())
    first = encoded.finding_span(0)
    both = encoded.finding_span(1)[1] - first[0]
    assert encoded.leading_findings(both) == (2, encoded.data[first[0] : encoded.finding_span(1)[1]])
    assert encoded.leading_findings(both - 1) == (1, encoded.data[first[0] : first[1]])  # near miss
    assert encoded.leading_findings(first[1] - first[0] - 1) == (0, b"")


def test_the_report_and_its_summary_come_back() -> None:
    for report in [*_examples(), _odd()]:
        encoded = encode_report(report)
        assert encoded.report().to_dict() == Report.from_dict(report_dict(report)).to_dict()
        summary = encoded.summary()
        assert (summary.verdict, summary.score, summary.input, summary.engine) == (
            report.verdict,
            report.score,
            report.input,
            report.engine,
        )
        assert summary.findings == () and dict(summary.details) == {}


def _tracked_after_unpickling(data: bytes) -> int:
    gc.collect()
    before = len(gc.get_objects())
    obj: Any = pickle.loads(data)
    grown = len(gc.get_objects()) - before
    del obj
    return grown


def test_an_encoded_report_unpickles_into_a_handful_of_objects_whatever_its_size() -> None:
    """The mechanism behind the pool's dispatcher never pausing: what crosses the pipe is bytes."""
    findings = tuple(
        Finding("T6_E105", "error", Location(line=n), f"sink p{n}", {"event": n, "data": {"k": [n]}})
        for n in range(20_000)
    )
    big = Report(
        "type6", "type6/1", InputRef(None, "big", "0" * 64), "fail", findings, {"graph": list(range(50_000))}
    )
    encoded = encode_report(big)
    assert len(encoded.data) > 2_000_000
    assert _tracked_after_unpickling(pickle.dumps(encoded)) < 10
    # near miss: the same report as a dict is a graph of about 100,000 containers to rebuild
    assert _tracked_after_unpickling(pickle.dumps(report_dict(big))) > 80_000
