"""V-43 … V-46 and the engine entry point: golden reports of examples/vericot, byte-identical
output, R-1 verdict mapping, ``cotaudit check`` / ``api.check`` integration.

Regenerate the goldens with ``COTAUDIT_REGEN_GOLDEN=1 pytest tests/vericot/test_report.py``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cotaudit import api, vericot

from .helpers import prem, trace

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "vericot"
GOLDEN = Path(__file__).parent / "golden"
NAMES = sorted(p.name[: -len(".vcot.json")] for p in EXAMPLES.glob("*.vcot.json"))
EXPECTED = {
    "A_sara_valid": ("pass", []),
    "B_sara_contradicted": ("fail", ["VC_E001"]),
    "C_sara_ungrounded": ("fail", ["VC_E002", "VC_W002"]),
    "D_sara_vocabulary_conflict": ("fail", ["VC_E003"]),
    "E_sara_forbidden_command": ("fail", ["VC_E003"]),
    "F_prontoqa_1_chain": ("pass", []),
}


def test_every_example_is_expected() -> None:
    assert sorted(EXPECTED) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_example_golden_report(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # relative to the repository root, so the golden does not depend on where it is checked out
    monkeypatch.chdir(EXAMPLES.parents[1])
    path = EXAMPLES.relative_to(EXAMPLES.parents[1]) / f"{name}.vcot.json"
    (report,) = api.check_file(path)
    verdict, codes = EXPECTED[name]
    assert report.verdict == verdict
    assert sorted(f.code for f in report.findings) == codes
    produced = json.dumps(report.to_dict(timing=False), indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    golden = GOLDEN / f"{name}.json"
    if os.environ.get("COTAUDIT_REGEN_GOLDEN") == "1":
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(produced, encoding="utf-8")
    assert golden.exists(), f"missing golden {golden}; run with COTAUDIT_REGEN_GOLDEN=1"
    assert produced == golden.read_text(encoding="utf-8")


def test_engine_is_registered_for_vcot_json() -> None:
    assert api.engine_for_path("x.vcot.json") == "vericot"
    assert api.engine_spec("vericot").implemented


def test_byte_identical_reports() -> None:
    text = (EXAMPLES / "C_sara_ungrounded.vcot.json").read_text(encoding="utf-8")
    a = json.dumps(vericot.check(text).to_dict(), sort_keys=True)
    b = json.dumps(vericot.check(text).to_dict(), sort_keys=True)
    assert a == b
    r = vericot.check(text)
    assert all("timings" not in s for s in r.details["steps"]) and r.timing_ms is None


def test_timings_only_when_asked() -> None:
    text = (EXAMPLES / "A_sara_valid.vcot.json").read_text(encoding="utf-8")
    r = vericot.check(text, include_timings=True)
    assert "timings" in r.details["steps"][0]


def test_details_shape() -> None:
    r = vericot.check((EXAMPLES / "C_sara_ungrounded.vcot.json").read_text(encoding="utf-8"))
    d = r.details
    for key in (
        "verdict",
        "semantics",
        "z3_version",
        "config",
        "kb",
        "vocabulary",
        "premises",
        "steps",
        "first_failure",
        "failures",
        "tainted",
        "counts",
        "answer",
    ):
        assert key in d
    assert d["first_failure"] == {
        "index": 1,
        "step_id": "s2",
        "status": "ungrounded",
        "reason": "not_entailed",
    }
    assert d["counts"] == {"entailed": 3, "ungrounded": 1}
    step = d["steps"][0]
    assert set(step) == {
        "index",
        "step_id",
        "text",
        "status",
        "path",
        "reason",
        "detail",
        "formula",
        "support",
        "core_minimal",
        "premises",
        "checks",
        "tainted_by",
        "flags",
    }
    finding = next(f for f in r.findings if f.code == "VC_E002")
    assert finding.location.step == "s2" and finding.evidence["index"] == 1


def test_unknown_engine_option_is_a_usage_error() -> None:
    from cotaudit.errors import UsageError

    with pytest.raises(UsageError):
        api.check("{}", "vericot", nonsense=1)


def test_zero_steps_is_not_valid() -> None:
    r = vericot.verify({"id": "t", "context": {"question": "q"}, "steps": []})
    assert r.details["verdict"] == "unknown" and r.verdict == "abstain"


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a", "b", "c", "(not a)", "(not b)", "(=> a b)", "(=> b c)", "(or a c)"]),
            st.sampled_from(["given", "pool"]),
        ),
        max_size=5,
    ),
    st.sampled_from(["a", "b", "c", "(not c)", "(and a b)"]),
)
def test_horn_kb_properties(kb: list[tuple[str, str]], goal: str) -> None:
    """V-46: a refuted step is never entailed by a consistent KB; adding a given premise never
    un-entails a step (classical); the support alone re-entails the step."""
    premises = [prem(f"p{i}", f"(assert {f})", use=u) for i, (f, u) in enumerate(kb)]
    t = trace([(f"(assert {goal})", None)], premises=premises)
    r = vericot.verify(t)
    s = r.details["steps"][0]
    if r.details["kb"]["consistent"] is True:
        assert not (
            s["status"] == "entailed"
            and s["path"] == "kb"
            and any(c["kind"] == "con_kb" and c["result"] == "unsat" for c in s["checks"])
        )
    if s["status"] == "entailed":
        more = trace([(f"(assert {goal})", None)], premises=[*premises, prem("px", "(assert c)")])
        assert vericot.verify(more).details["steps"][0]["status"] == "entailed"
        support = {e["id"] for e in s["support"]}
        only = [dict(p, use="given") for p in premises if p["id"] in support]
        again = vericot.verify(trace([(f"(assert {goal})", None)], premises=only), premise_providers=[])
        assert again.details["steps"][0]["status"] == "entailed"
