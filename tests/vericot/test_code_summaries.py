"""docs/codes.md is what a reader of a finding looks up: each vericot warning's summary must
name every cause that now leads to it (issue 19 (d); names and severities stay frozen)."""

from __future__ import annotations

from cotaudit import codes, vericot

from .helpers import prem, trace


def _trace_with_unformalised_step() -> dict[str, object]:
    t = trace([("(assert a)", None), ("(assert b)", None)], premises=[prem("p1", "(assert a)")])
    t["steps"].insert(1, {"id": "s9", "text": "So b holds."})  # type: ignore[attr-defined]
    return t


def test_no_model_configured_is_named_by_the_code_it_gives() -> None:
    r = vericot.verify(_trace_with_unformalised_step())
    w003 = [f for f in r.findings if f.evidence.get("reason") == "llm_unavailable"]
    assert [f.code for f in w003] == ["VC_W003"]
    summary = codes.lookup("VC_W003").summary
    for cause in ("no model configured", "replay miss", "call budget"):
        assert cause in summary


def test_depends_on_unknown_is_named_by_the_code_it_gives() -> None:
    r = vericot.verify(_trace_with_unformalised_step())
    dep = [f for f in r.findings if f.evidence.get("reason") == "depends_on_unknown"]
    assert [f.code for f in dep] == ["VC_W001"]
    assert "earlier step" in codes.lookup("VC_W001").summary
