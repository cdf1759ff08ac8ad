"""The service's JSON encoder: any Unicode string, bounded size, small pieces (no server)."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cotaudit.report import Report
from cotaudit.report.encoded import EncodedReport, encode_report
from cotaudit.report.encoding import json_bytes
from cotaudit.service.encode import (
    PIECE_NODES,
    TooLarge,
    encode,
    fit_report,
    fit_reports,
    pieces,
)


def reference(obj: object) -> bytes:
    """What the encoder must produce: compact json.dumps, surrogates as their JSON escape."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.encode("utf-8", "backslashreplace")


# any code point, lone surrogates included
TEXT = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=12)
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | TEXT
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(TEXT, inner, max_size=6),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_encode_is_json_dumps_with_surrogates_escaped(obj: Any) -> None:
    data = encode(obj)
    assert data == reference(obj)
    assert data == json_bytes(obj)  # one escaping for the wire and every writer
    assert json.loads(data.decode("utf-8")) == json.loads(json.dumps(obj))  # strict UTF-8, valid JSON


def test_a_lone_surrogate_becomes_its_json_escape() -> None:
    data = encode({"text": "GIVEN:\ud800\n", "\udfff": ["\ud83d"]})
    assert data == b'{"text":"GIVEN:\\ud800\\n","\\udfff":["\\ud83d"]}'
    assert json.loads(data) == {"text": "GIVEN:\ud800\n", "\udfff": ["\ud83d"]}
    # near miss: ordinary non-ASCII text stays UTF-8, exactly as Starlette's JSONResponse wrote it
    assert encode({"t": "héllo ✓ 😀"}) == json.dumps(
        {"t": "héllo ✓ 😀"}, ensure_ascii=False, separators=(",", ":")
    ).encode("utf-8")


def test_keys_are_converted_like_json_dumps() -> None:
    obj = {7: "a", 2.5: "b", True: "c", False: "f", None: "d", "s": "e"}
    assert encode(obj) == reference(obj)
    with pytest.raises(TypeError):
        encode({(1, 2): 3})
    with pytest.raises(ValueError):
        encode({"x": float("nan")})


def _finding(i: int) -> dict[str, Any]:
    return {
        "code": "T6_E105",
        "severity": "error",
        "location": {"line": i, "step": None, "statement": None},
        "message": f"no constraint derives the sink p{i}",
        "evidence": {"blocking": True, "data": {}, "event": i},
    }


def _report(findings: int, detail_items: int = 0) -> dict[str, Any]:
    return {
        "schema_version": 1,
        "engine": "type6",
        "engine_version": "type6/1",
        "input": {"path": None, "id": "big", "sha256": "0" * 64},
        "verdict": "fail",
        "score": 0.0,
        "findings": [_finding(i) for i in range(findings)],
        "details": {"graph": list(range(detail_items)), "summary": {"n": 1}, "verdict": "hard_fail"},
        "timing_ms": 1.5,
    }


def _encoded(report: dict[str, Any]) -> EncodedReport:
    """``report`` as a worker sends it: canonical, encoded."""
    return encode_report(Report.from_dict(report))


def test_large_values_come_in_small_pieces() -> None:
    report = _report(20_000, detail_items=50_000)
    parts = list(pieces(report))
    assert "".join(parts).encode() == reference(report)
    # every piece is one short C call: a handful of findings or a slice of the graph, never all
    assert max(len(p) for p in parts) < PIECE_NODES * 64
    assert len(parts) > 1000
    depth = 3 * sys.getrecursionlimit()  # the walk keeps its own stack: no recursion limit
    deep: Any = "leaf"
    for _ in range(depth):
        deep = [deep, list(range(PIECE_NODES))]
    ints = ",".join(map(str, range(PIECE_NODES)))
    assert encode(deep) == ("[" * depth + '"leaf"' + f",[{ints}]]" * depth).encode()


def test_the_limit_stops_the_encoding_at_the_limit() -> None:
    obj = _report(500)
    size = len(reference(obj))
    assert encode(obj, size) == reference(obj)  # exactly at the limit: whole
    with pytest.raises(TooLarge):
        encode(obj, size - 1)


def test_a_report_over_its_room_is_shortened_and_says_so() -> None:
    report = _report(3000, detail_items=100_000)
    encoded = _encoded(report)
    whole = reference(report)
    assert encoded.line() == whole  # the canonical form of this report is its plain encoding
    assert fit_report(encoded, len(whole)) == whole  # near miss: it fits, it is untouched
    limit = 64 * 1024
    data = fit_report(encoded, limit)
    assert len(data) <= limit
    short = json.loads(data)
    for key in ("schema_version", "engine", "engine_version", "input", "verdict", "score", "timing_ms"):
        assert short[key] == report[key]
    note = short["details"]["truncated"]
    assert note["reason"] == "response_too_large" and note["limit_bytes"] == limit
    assert note["findings_total"] == 3000 and 0 < note["findings_kept"] < 3000
    assert short["findings"] == report["findings"][: note["findings_kept"]]  # the leading ones
    assert short["details"]["verdict"] == "hard_fail" and short["details"]["summary"] == {"n": 1}
    assert "graph" not in short["details"] and note["details_total"] == 3 and note["details_kept"] == 2
    assert list(short["details"]) == ["summary", "verdict", "truncated"]  # canonical order, then ours
    assert fit_report(encoded, limit) == data  # deterministic
    assert "input_kept" not in note
    with pytest.raises(TooLarge):  # not even the envelope fits
        fit_report(encoded, 200)


def test_a_shortened_report_fills_its_room_and_no_more() -> None:
    encoded = _encoded(_report(400))
    one = len(encoded.line()) // 400  # about one finding
    for limit in range(len(encoded.line()) - 3 * one, len(encoded.line()), 97):
        data = fit_report(encoded, limit)
        assert len(data) <= limit
        assert limit - len(data) <= one + 16  # only what the next finding would not fit in
        assert json.loads(data)["details"]["truncated"]["findings_kept"] < 400


def test_an_entry_named_truncated_gives_way_to_the_note() -> None:
    report = _report(200)
    report["details"]["truncated"] = {"by": "the engine"}
    short = json.loads(fit_report(_encoded(report), 4096))
    assert short["details"]["truncated"]["reason"] == "response_too_large"
    assert short["details"]["truncated"]["details_total"] == 4


def test_a_huge_id_is_dropped_before_the_report_is_given_up() -> None:
    report = {**_report(10), "input": {"path": "p" * 50_000, "id": "i" * 50_000, "sha256": "ab" * 32}}
    short = json.loads(fit_report(_encoded(report), 4096))
    assert short["input"] == {"path": None, "id": None, "sha256": "ab" * 32}
    assert short["details"]["truncated"]["input_kept"] is False and short["verdict"] == "fail"


def test_reports_share_a_budget_without_starving_the_later_ones() -> None:
    big, small = _encoded(_report(5000)), _encoded(_report(3))
    limit = 200 * 1024
    parts = fit_reports([big, small, small, small], limit)
    assert sum(len(p) for p in parts) + 3 <= limit
    assert json.loads(parts[0])["details"]["truncated"]["findings_total"] == 5000
    assert [p == small.line() for p in parts[1:]] == [True, True, True]
    fitting = fit_reports([small, small], limit)  # near miss: everything fits, nothing changes
    assert fitting == [small.line(), small.line()]
