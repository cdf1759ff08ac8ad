""".kb and .cert.json through ``check`` (R-1): the examples' golden reports, bad input, fuzzing.

Golden reports live in tests/certify/golden/; regenerate them (and the example bundle
examples/certify/legal_prelim.cert.json) with ``COTAUDIT_REGEN_GOLDEN=1 pytest tests/certify/kb/test_kb.py``
and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cotaudit import api, certify
from cotaudit.certify.kb.bundle import make_bundle
from cotaudit.certify.lang.parse import parse_literal
from cotaudit.certify.lang.syntax import Fact
from cotaudit.certify.proof.recheck import recheck
from cotaudit.report import Report

from ..legal import TARGET, legal_state, votes

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "certify"
GOLDEN = Path(__file__).resolve().parents[1] / "golden"
REGEN = bool(os.environ.get("COTAUDIT_REGEN_GOLDEN"))
EXPECTED = {
    "legal_prelim.kb": ("pass", "CERTIFIED"),
    "legal_injected.kb": ("fail", "REJECT"),
    "depth_budget.kb": ("abstain", "ABSTAIN"),
    "redundant_rules.kb": ("pass", "CERTIFIED"),
    "proofwriter_tfu.kb": ("pass", "CERTIFIED"),
    "legal_prelim.cert.json": ("pass", "CERTIFIED"),
}


def _bundle_text() -> str:
    state = legal_state()
    r = state.query(TARGET, facts=votes())
    assert r.certificate is not None
    assert recheck(r.certificate, state.kernel_view(), overlay=r.overlay).ok
    return (
        json.dumps(
            make_bundle(r.certificate, state.kernel_view(), r.overlay),
            indent=1,
            sort_keys=True,
            ensure_ascii=False,
        )
        + "\n"
    )


def test_example_bundle_is_current() -> None:
    path = EXAMPLES / "legal_prelim.cert.json"
    text = _bundle_text()
    if REGEN:
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text


def test_the_example_set_is_complete() -> None:
    assert sorted(p.name for p in EXAMPLES.iterdir()) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_examples_and_golden_reports(name: str) -> None:
    path = EXAMPLES / name
    report = api.check_file(path)[0]
    assert (report.verdict, report.details["verdict"]) == EXPECTED[name]
    assert report.engine == "certify" and report.engine_version == "certify/1"
    data = report.to_dict(timing=False)
    data["input"]["path"] = f"examples/certify/{name}"
    text = json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    golden = GOLDEN / f"{name}.json"
    if REGEN:
        GOLDEN.mkdir(exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert golden.read_text(encoding="utf-8") == text
    assert Report.from_dict(report.to_dict()) == report
    for q in report.details.get("queries", []):
        if q.get("certificate") is not None:
            assert q["recheck"]["ok"] is True


def test_reports_are_byte_identical_across_runs() -> None:
    text = (EXAMPLES / "legal_prelim.kb").read_text(encoding="utf-8")
    a = certify.check(text).to_dict(timing=False)
    b = certify.check(text).to_dict(timing=False)
    assert a == b


def test_edited_bundle_fails_with_the_reason() -> None:
    data = json.loads(_bundle_text())
    data["certificate"]["nodes"][6]["fact"] = "may_claim_preliminary_breach_liability(p2,x1)"
    r = certify.check(json.dumps(data), path="x.cert.json")
    assert r.verdict == "fail"
    assert {"CERTIFY_E031", "CERTIFY_E015"} <= {f.code for f in r.findings}
    data = json.loads(_bundle_text())
    data["overlay"] = []
    r = certify.check(json.dumps(data), path="x.cert.json")
    assert r.verdict == "fail" and "CERTIFY_E018" in {f.code for f in r.findings}


@pytest.mark.parametrize(
    ("text", "code", "line"),
    [
        ("p.", "CERTIFY_E034", 1),
        ("%% nonsense\n", "CERTIFY_E034", 1),
        ("%% units\np(a).\n", "CERTIFY_E034", None),
        (
            '%% interface\n{"format": "cotaudit.certify.interface/1", "predicates": {"p": {"args": ["r"]}}}\n',
            "CERTIFY_E035",
            1,
        ),
        (
            '%% interface\n{"format": "cotaudit.certify.interface/1"}\n%% config\n{"delta": -1}\n',
            "CERTIFY_E034",
            None,
        ),
        (
            '%% interface\n{"format": "cotaudit.certify.interface/1"}\n%% record a kind=weird\n',
            "CERTIFY_E034",
            3,
        ),
        ('%% interface\n{"format": "cotaudit.certify.interface/1"}\n%% query q\np.\n', "CERTIFY_E034", 3),
    ],
)
def test_unreadable_input_is_invalid_with_a_code(text: str, code: str, line: int | None) -> None:
    r = certify.check(text)
    assert r.verdict == "invalid"
    assert r.findings[0].code == code and r.findings[0].location.line == line


SMALL = """%% interface
{"format": "cotaudit.certify.interface/1", "roles": {"any": {"type": "any"}},
 "predicates": {"p": {"args": ["any"]}, "q": {"args": ["any"]}}, "source_whitelist": ["p"], "query_predicates": ["q"]}
%% record src kind=rules
p(a).
[r] q(X) :- p(X).
%% units writer=deploy evidence=src
"""


@pytest.mark.parametrize(
    ("units", "codes", "verdict"),
    [
        ("p(a).\n[r] q(X) :- p(X).\n", ["CERTIFY_I001"], "pass"),
        ("p(a).\n[r] q(X) :- p(Y).\n", ["CERTIFY_E002", "CERTIFY_I001"], "fail"),
        ("p(a).\n  [r] q(X) :- p(X\n", ["CERTIFY_E001", "CERTIFY_I001"], "fail"),
        ("p(b).\n[r] q(X) :- p(X).\n", ["CERTIFY_E011", "CERTIFY_I001"], "fail"),
        ("p(a). @nowhere\n[r] q(X) :- p(X).\n", ["CERTIFY_E011", "CERTIFY_I001"], "fail"),
        ("p(a). @src[x:y]\n[r] q(X) :- p(X).\n", ["CERTIFY_E034", "CERTIFY_I001"], "fail"),
        ("[r] p(a).\n[r] q(X) :- p(X).\n", ["CERTIFY_E037", "CERTIFY_I001"], "fail"),
    ],
)
def test_unit_problems_are_findings_at_their_line(units: str, codes: list[str], verdict: str) -> None:
    text = SMALL + units + "%% queries\n?- q(a).\n"
    r = certify.check(text)
    assert r.verdict == verdict
    assert sorted(f.code for f in r.findings) == sorted(codes)
    assert all(f.location.line is not None for f in r.findings)


def test_wrong_expected_answer_fails() -> None:
    r = certify.check(SMALL + "p(a).\n[r] q(X) :- p(X).\n%% queries\n?- q(a) => no.\n")
    assert r.verdict == "fail" and r.details["verdict"] == "WRONG"
    assert {f.code for f in r.findings} == {"CERTIFY_I001", "CERTIFY_E038"}


def test_check_through_the_api_and_the_engine_option() -> None:
    text = (EXAMPLES / "legal_prelim.kb").read_text(encoding="utf-8")
    assert api.check(text, "certify").verdict == "pass"
    with pytest.raises(Exception, match="unexpected"):
        api.check(text, "certify", nonsense=1)


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=300))
def test_random_text_never_raises(text: str) -> None:
    r = certify.check(text)
    assert r.verdict in ("invalid", "pass", "fail", "abstain")
    r = certify.check("{" + text, path="x.cert.json")
    assert r.verdict == "invalid"


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "p(a).",
                "p(b).",
                "[r] q(X) :- p(X).",
                "q(a).",
                "p(",
                "@src",
                "?- q(a).",
                "% c",
                "[s] q(X) :- q(X).",
            ]
        ),
        max_size=6,
    )
)
def test_random_units_never_raise(lines: list[str]) -> None:
    r = certify.check(SMALL + "\n".join(lines) + "\n%% queries\n?- q(a).\n")
    assert r.verdict in ("pass", "fail", "abstain", "invalid")


def test_overlay_fact_loader() -> None:
    assert Fact("q1", parse_literal("p(a)")).key == "f:p(a)"
