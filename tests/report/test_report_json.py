"""JSON writer: exact bytes, determinism, and the R-1 round trip through Report.from_dict."""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction

import pytest

from cotaudit.report import Report, render_json
from cotaudit.report.jsonout import canonical, dumps, report_dict

GOLDEN = """\
{
  "schema_version": 1,
  "engine": "te",
  "engine_version": "te/1",
  "input": {
    "path": "examples/te/janet.te",
    "id": "janet",
    "sha256": "abababababababababababababababababababababababababababababababab"
  },
  "verdict": "fail",
  "score": null,
  "findings": [
    {
      "code": "TE_E006",
      "severity": "error",
      "location": {
        "line": 9,
        "step": "e3",
        "statement": null
      },
      "message": "EQ[e3] claims 8 but total - eaten - baked = 9",
      "evidence": {
        "claimed": "8",
        "column": 26,
        "expected": "9"
      }
    },
    {
      "code": "TE_W001",
      "severity": "warning",
      "location": {
        "line": 11,
        "step": null,
        "statement": null
      },
      "message": "CHECK c1 cannot be decided",
      "evidence": {
        "column": null
      }
    }
  ],
  "details": {
    "grammar": "TE_REASONING_V1+cotaudit",
    "stats": {
      "eq": 4,
      "lines": 12
    },
    "verdict": "FLAG"
  },
  "timing_ms": 0.41
}
"""


def test_golden_single(report: Report) -> None:
    assert render_json([report], single=True) == GOLDEN


def test_no_timing_drops_the_field(report: Report) -> None:
    out = render_json([report], single=True, timing=False)
    assert "timing_ms" not in out
    assert out == GOLDEN.replace(',\n  "timing_ms": 0.41\n}', "\n}")


def test_list_for_several(report: Report) -> None:
    out = render_json([report, report])
    data = json.loads(out)
    assert isinstance(data, list) and len(data) == 2
    assert out.endswith("]\n")
    assert render_json([]) == "[]\n"
    with pytest.raises(ValueError):
        render_json([report, report], single=True)


def test_round_trip(report: Report) -> None:
    back = Report.from_dict(json.loads(render_json([report], single=True)))
    assert back == report
    assert render_json([back], single=True) == render_json([report], single=True)


def test_insertion_order_of_engine_dicts_does_not_matter(make_report: Callable[..., Report]) -> None:
    a = make_report(details={"b": 1, "a": {"y": 2, "x": 1}})
    b = make_report(details={"a": {"x": 1, "y": 2}, "b": 1})
    assert render_json([a], single=True) == render_json([b], single=True)


def test_non_ascii_kept_and_trailing_newline(make_report: Callable[..., Report]) -> None:
    out = render_json([make_report(details={"unit": "m²", "note": "π ≈ 3.14"})], single=True)
    assert "m²" in out and "π ≈ 3.14" in out
    assert out.endswith("}\n")


def test_canonical_values() -> None:
    assert canonical({"s": {3, 1, 2}, "f": Fraction(3, 4), "t": (1, 2), "inf": float("inf")}) == {
        "f": "3/4",
        "inf": "inf",
        "s": [1, 2, 3],
        "t": [1, 2],
    }
    assert dumps(canonical({"nan": float("nan")})) == '{\n  "nan": "nan"\n}\n'


def test_report_dict_keeps_schema_order(report: Report) -> None:
    assert list(report_dict(report)) == [
        "schema_version",
        "engine",
        "engine_version",
        "input",
        "verdict",
        "score",
        "findings",
        "details",
        "timing_ms",
    ]
