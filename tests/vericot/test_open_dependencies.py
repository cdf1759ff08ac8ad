"""Issue 19 (c): a step that may rest on an earlier step nobody could check is never
``ungrounded``. Entailment and refutation are monotone in the KB, so they stand; only "not
entailed" depends on the missing content, and that is ``unknown`` (``depends_on_unknown``)."""

from __future__ import annotations

from typing import Any

from cotaudit import vericot

from .helpers import prem, trace


def _with_unformalised(smts: list[str], at: int, **kw: Any) -> dict[str, Any]:
    """A trace of pre-formalised steps with one step without a formula inserted at ``at``."""
    t = trace([(s, None) for s in smts], **kw)
    t["steps"].insert(at, {"id": "s9", "text": "So b holds."})
    return t


def _statuses(r: Any) -> list[tuple[str, str | None]]:
    return [(s["status"], s["reason"]) for s in r.details["steps"]]


def test_step_after_an_unformalised_step_is_unknown_not_ungrounded() -> None:
    t = _with_unformalised(["(assert a)", "(assert b)"], 1, premises=[prem("p1", "(assert a)")])
    r = vericot.verify(t)
    assert _statuses(r) == [
        ("entailed", None),
        ("unknown", "llm_unavailable"),
        ("unknown", "depends_on_unknown"),
    ]
    assert r.verdict == "abstain"  # was "fail": s3 ungrounded although it may follow from s9
    s3 = r.details["steps"][2]
    assert s3["tainted_by"] == [1] and "assumed" in s3["flags"]
    codes = {(f.code, f.location.step) for f in r.findings}
    assert ("VC_W001", "s2") in codes and not any(c.startswith("VC_E") for c, _ in codes)


def test_near_miss_every_earlier_step_formalised_still_fails() -> None:
    t = trace([("(assert a)", None), ("(assert b)", None)], premises=[prem("p1", "(assert a)")])
    r = vericot.verify(t)
    assert _statuses(r) == [("entailed", None), ("ungrounded", "no_premises")]
    assert r.verdict == "fail" and "VC_E002" in [f.code for f in r.findings]


def test_unformalised_step_after_the_failure_changes_nothing() -> None:
    """Only earlier unchecked steps count: one that comes later cannot be what a step rests on."""
    t = _with_unformalised(["(assert a)", "(assert b)"], 2, premises=[prem("p1", "(assert a)")])
    r = vericot.verify(t)
    assert _statuses(r)[1] == ("ungrounded", "no_premises") and r.verdict == "fail"


def test_contradiction_and_entailment_stand_after_an_unformalised_step() -> None:
    t = _with_unformalised(
        ["(assert a)", "(assert (not a))", "(assert (or a c))"], 1, premises=[prem("p1", "(assert a)")]
    )
    r = vericot.verify(t)
    assert [s for s, _ in _statuses(r)] == ["entailed", "unknown", "contradicted", "entailed"]
    assert r.verdict == "fail"


def test_untranslatable_earlier_step_leaves_dependents_unknown() -> None:
    t = trace(
        [("(assert a)", None), ("(assert (undeclared a))", None), ("(assert b)", None)],
        premises=[prem("p1", "(assert a)")],
    )
    r = vericot.verify(t)
    assert _statuses(r) == [
        ("entailed", None),
        ("untranslatable", "parse_error"),
        ("unknown", "depends_on_unknown"),
    ]
    assert r.verdict == "fail"  # the untranslatable step itself still fails the trace
    assert r.details["failures"] == [1, 2] and r.details["first_failure"]["index"] == 1


def test_a_tautology_is_known_content() -> None:
    t = trace([("(assert (or a (not a)))", None), ("(assert b)", None)])
    assert _statuses(vericot.verify(t))[1] == ("ungrounded", "no_premises")


def test_assumed_dependent_taints_what_follows() -> None:
    """The unknown step is committed as assumed (V-18), so a step it entails is tainted (VC_W002)."""
    t = _with_unformalised(
        ["(assert a)", "(assert b)", "(assert (or b c))"], 1, premises=[prem("p1", "(assert a)")]
    )
    r = vericot.verify(t)
    s4 = r.details["steps"][3]
    assert (s4["status"], s4["tainted_by"]) == ("entailed", [2])
    assert ("VC_W002", "s3") in {(f.code, f.location.step) for f in r.findings}


def test_strict_policy_keeps_dependent_failures() -> None:
    """V-18: under "strict" nothing uncertain is committed, "so dependent steps fail too"."""
    t = _with_unformalised(["(assert a)", "(assert b)"], 1, premises=[prem("p1", "(assert a)")])
    assert _statuses(vericot.verify(t, commit_policy="strict"))[2] == ("ungrounded", "no_premises")


def test_noprem_ablation_follows_the_same_rule() -> None:
    t = _with_unformalised(["(assert a)", "(assert b)"], 1, premises=[prem("p1", "(assert a)")])
    r = vericot.verify(t, premise_providers=[])
    assert _statuses(r)[2] == ("unknown", "depends_on_unknown")


def test_many_unchecked_steps_are_listed_within_a_bound() -> None:
    t = trace([("(assert a)", None), ("(assert b)", None)], premises=[prem("p1", "(assert a)")])
    for k in range(40):
        t["steps"].insert(1, {"id": f"u{k}", "text": "unformalised"})
    s = vericot.verify(t).details["steps"][-1]
    assert s["reason"] == "depends_on_unknown" and s["tainted_by"] == list(range(1, 33))
    assert "and 8 more" in s["detail"]
