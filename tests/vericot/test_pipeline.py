"""V-18 … V-27: every status and reason fires, with a near miss that must not."""

from __future__ import annotations

from typing import Any

import pytest

from cotaudit import vericot
from cotaudit.vericot.config import ConfigError, VerifierConfig
from cotaudit.vericot.judge import JudgeItem, Verdict, run_judge
from cotaudit.vericot.schema import Context

from .helpers import prem, trace
from .sara_example import P4R, VOCAB


def step(t: dict[str, Any], i: int = 0, **kw: Any) -> dict[str, Any]:
    s: dict[str, Any] = vericot.verify(t, **kw).details["steps"][i]
    return s


def sr(s: dict[str, Any]) -> tuple[str, str | None, str | None]:
    return s["status"], s["path"], s["reason"]


# ---------------------------------------------------------------- entailed / contradicted


def test_entailed_by_kb_and_near_miss() -> None:
    assert sr(
        step(
            trace([("(assert a)", None), ("(assert (or a b))", None)], premises=[prem("p1", "(assert a)")]), 1
        )
    ) == ("entailed", "kb", None)


def test_entailed_by_premises() -> None:
    t = trace([("(assert a)", None)], step_premises={"s1": [prem("p1", "(assert a)", use="pool")]})
    s = step(t)
    assert sr(s) == ("entailed", "premises", None) and s["premises"]["accepted"] == ["p1"]


def test_contradicted_by_kb_and_near_miss() -> None:
    base = [prem("p1", "(assert a)")]
    assert sr(step(trace([("(assert (not a))", None)], premises=base))) == (
        "contradicted",
        "kb",
        "contradicted_by_kb",
    )
    assert step(trace([("(assert (not b))", None)], premises=base))["status"] != "contradicted"


def test_contradicted_by_premises() -> None:
    t = trace([("(assert (not a))", None)], step_premises={"s1": [prem("p1", "(assert a)")]})
    assert sr(step(t)) == ("contradicted", "premises", "contradicted_by_premises")


def test_negation_smt_semantics_hook() -> None:
    """V-19: with a denial N the step is contradicted iff the KB entails N."""
    vocab = "(declare-const a Bool) (declare-const not_a Bool)"
    t = trace([("(assert a)", "(assert not_a)")], vocab=vocab, premises=[prem("p1", "(assert not_a)")])
    assert sr(step(t))[0] == "contradicted"
    # near miss: without N the step is merely neither (a and not_a are independent atoms)
    t2 = trace([("(assert a)", None)], vocab=vocab, premises=[prem("p1", "(assert not_a)")])
    assert step(t2)["status"] == "ungrounded"


# ---------------------------------------------------------------- ungrounded


def test_ungrounded_premises_disabled() -> None:
    s = step(trace([("(assert a)", None)]), premise_providers=[])
    assert sr(s) == ("ungrounded", None, "premises_disabled")


def test_ungrounded_no_premises() -> None:
    assert sr(step(trace([("(assert a)", None)]))) == ("ungrounded", None, "no_premises")


def test_ungrounded_not_entailed() -> None:
    t = trace([("(assert a)", None)], step_premises={"s1": [prem("p1", "(assert b)")]})
    assert sr(step(t)) == ("ungrounded", None, "not_entailed")


def test_premise_rejected_evidence_not_found() -> None:
    t = trace([("(assert a)", None)], step_premises={"s1": [prem("p1", "(assert a)", text="c holds.")]})
    s = step(t)
    assert sr(s) == ("ungrounded", None, "premise_rejected")
    assert s["premises"]["rejected"] == [{"id": "p1", "by": "precheck", "reason": "evidence_not_found"}]


def test_premise_rejected_commonsense_mentions_individual() -> None:
    t = {
        "id": "t",
        "context": {"question": "q"},
        "steps": [{"id": "s1", "text": "Charlie is under 19."}],
        "formalization": {
            "vocabulary": VOCAB,
            "steps": [
                {
                    "step_id": "s1",
                    "smt": "(assert (< (age charlie 2023) 19))",
                    "premises": [
                        {
                            "id": "p1",
                            "text": "Charlie is under 19",
                            "source": "commonsense",
                            "smt": "(assert (< (age charlie 2023) 19))",
                        }
                    ],
                }
            ],
        },
    }
    s = step(t)
    assert s["premises"]["rejected"] == [
        {"id": "p1", "by": "precheck", "reason": "commonsense_mentions_individual"}
    ]
    # near miss: with the pre-check off and AcceptAll the same premise is accepted
    assert step(t, commonsense_no_individuals=False, judge="accept_all")["status"] == "entailed"


def test_commonsense_not_allowlisted_rejected_by_judge() -> None:
    t = trace([("(assert a)", None)], step_premises={"s1": [prem("p1", "(assert a)", source="commonsense")]})
    s = step(t)
    assert s["premises"]["rejected"] == [{"id": "p1", "by": "judge", "reason": "commonsense_not_allowlisted"}]
    assert step(t, commonsense_allowlist=["(assert  a)"])["status"] == "entailed"


def test_judge_fails_closed() -> None:
    class Broken:
        def judge(self, context: Context, step_text: str, items: list[JudgeItem]) -> list[Verdict]:
            raise RuntimeError("boom")

    class Partial:
        def judge(self, context: Context, step_text: str, items: list[JudgeItem]) -> list[Verdict]:
            return [Verdict(items[0].id, True, "ok", "judge"), Verdict(items[0].id, True, "ok", "judge")]

    items = [
        JudgeItem("p1", "t", "context", None, "(assert a)"),
        JudgeItem("p2", "t", "context", None, "(assert b)"),
    ]
    ctx = Context(question="q")
    assert not any(v.accept for v in run_judge(Broken(), ctx, "s", items).values())
    verdicts = run_judge(Partial(), ctx, "s", items)
    assert verdicts["p1"].reason == "duplicate_verdict" and verdicts["p2"].reason == "no_verdict"


def test_duplicate_premise_already_known() -> None:
    t = trace(
        [("(assert (and a b))", None)],
        premises=[prem("p1", "(assert a)")],
        step_premises={"s1": [prem("p2", "(assert a)"), prem("p3", "(assert b)")]},
    )
    s = step(t)
    assert s["premises"]["already_known"] == [{"id": "p2", "entry": "p1"}]
    assert s["status"] == "entailed"


def test_inconsistent_premise_dropped() -> None:
    t = trace(
        [("(assert b)", None)],
        premises=[prem("p1", "(assert a)")],
        step_premises={"s1": [prem("p2", "(assert (not a))")]},
    )
    s = step(t)
    assert s["premises"]["dropped"] == [
        {"id": "p2", "reason": "inconsistent", "detail": "inconsistent with the KB", "core": ["p1", "p2"]}
    ]


def test_untranslatable_premise_dropped() -> None:
    t = trace([("(assert b)", None)], step_premises={"s1": [prem("p2", "(assert (zz a))")]})
    s = step(t)
    assert s["premises"]["dropped"][0]["reason"] == "untranslatable"


# ---------------------------------------------------------------- untranslatable


def test_no_formalization_and_no_formaliser_is_unknown() -> None:
    """Issue 19: nobody could formalise the step, so it is unknown, never untranslatable."""
    t = trace([("(assert a)", None)], premises=[prem("p1", "(assert a)")])
    t["steps"].append({"id": "s2", "text": "no formula"})
    s = step(t, 1)
    assert sr(s) == ("unknown", None, "llm_unavailable") and "no_formalizer" in s["flags"]
    assert "formalizer='llm'" in s["detail"]
    r = vericot.verify(t)
    assert r.verdict == "abstain" and [f.code for f in r.findings] == ["VC_W003"]
    # near miss: a formaliser that ran and failed is still untranslatable, and still fails
    t["formalization"]["steps"].append({"step_id": "s2", "smt": None, "error": "could not read it"})
    s = step(t, 1)
    assert sr(s) == ("untranslatable", None, "no_formalization")
    assert vericot.verify(t).verdict == "fail"


def test_an_unformalised_step_does_not_hide_a_failure() -> None:
    t = trace([("(assert a)", None), ("(assert c)", None)], premises=[])
    t["steps"].insert(1, {"id": "s9", "text": "no formula"})
    r = vericot.verify(t, premise_providers=[])
    assert r.verdict == "fail"  # s1 fails before anything is unknown
    # s2 may rest on s9, whose content nobody checked: unknown, not a second failure
    assert sorted(f.code for f in r.findings) == ["VC_E002", "VC_W001", "VC_W003"]
    assert [s["reason"] for s in r.details["steps"]] == [
        "premises_disabled",
        "llm_unavailable",
        "depends_on_unknown",
    ]


def test_formalizer_error_is_detail() -> None:
    t = trace([("(assert a)", None)])
    t["formalization"]["steps"][0] = {"step_id": "s1", "smt": None, "error": "could not read it"}
    s = step(t)
    assert s["status"] == "untranslatable" and s["detail"] == "could not read it"


@pytest.mark.parametrize(
    "smt,reason",
    [
        ("(assert (undeclared a))", "parse_error"),
        ("(assert (and a b)", "parse_error"),
        ("(assert a) (set-option :timeout 1)", "forbidden_command"),
        ("(assert a) (push 1)", "forbidden_command"),
        ("(declare-fun a (Int) Bool) (assert (a 1))", "vocabulary_conflict"),
    ],
)
def test_untranslatable_reasons(smt: str, reason: str) -> None:
    s = step(trace([(smt, None)]))
    assert sr(s) == ("untranslatable", None, reason)


def test_tautology_reject_and_flag() -> None:
    t = trace([("(assert (or a (not a)))", None)])
    assert sr(step(t)) == ("untranslatable", None, "tautology")
    s = step(t, tautology="flag")
    assert s["status"] == "entailed" and "tautology" in s["flags"]
    assert step(trace([("(assert (or a b))", None)]))["reason"] != "tautology"


def test_failed_step_declarations_are_discarded() -> None:
    t = trace(
        [
            ("(declare-const zz Bool) (assert (and zz (undeclared)))", None),
            ("(declare-const zz Int) (assert (= zz 1))", None),
        ]
    )
    r = vericot.verify(t)
    assert r.details["steps"][1]["status"] != "untranslatable"
    assert "(declare-fun zz () Int)" in r.details["vocabulary"]


# ---------------------------------------------------------------- unknown


def test_unknown_solver_unknown_given_timeout() -> None:
    t = {
        "id": "u",
        "context": {"question": "q"},
        "steps": [{"id": "s1", "text": "x"}],
        "formalization": {
            "vocabulary": VOCAB,
            "premises": [],
            "steps": [{"step_id": "s1", "smt": P4R.replace("(assert ", "(assert (not ", 1) + ")"}],
        },
    }
    s = step(t, timeout_ms=150, tautology="flag")
    assert s["status"] in ("unknown", "ungrounded", "entailed", "contradicted")
    if s["status"] == "unknown":
        assert s["reason"] in ("solver_unknown", "budget_exhausted")


# ---------------------------------------------------------------- commit policy and taint


def test_assume_commits_and_taints_strict_does_not() -> None:
    t = trace([("(assert a)", None), ("(assert (or a b))", None)])
    r = vericot.verify(t)
    assert r.details["steps"][1]["tainted_by"] == [0] and r.details["tainted"] == [1]
    assert "VC_W002" in [f.code for f in r.findings]
    r2 = vericot.verify(t, commit_policy="strict")
    assert r2.details["steps"][1]["status"] == "ungrounded"
    assert r2.details["failures"] == [0, 1]


def test_contradicted_step_commits_nothing() -> None:
    t = trace([("(assert (not a))", None), ("(assert (not a))", None)], premises=[prem("p1", "(assert a)")])
    r = vericot.verify(t)
    assert [s["status"] for s in r.details["steps"]] == ["contradicted", "contradicted"]


# ---------------------------------------------------------------- config


@pytest.mark.parametrize(
    "opts,needle",
    [
        ({"semantics": "fuzzy"}, "semantics"),
        ({"formalizer": "llm"}, "needs an LLM backend"),
        ({"semantics": "proofwriter", "formalizer": "llm", "llm": object()}, "cannot be combined"),
        ({"commit_policy": "yolo"}, "commit_policy"),
        ({"premise_providers": ["oracle"]}, "unknown premise provider"),
        ({"timeout_ms": 0}, "timeout_ms"),
    ],
)
def test_config_errors(opts: dict[str, Any], needle: str) -> None:
    with pytest.raises(ConfigError, match=needle):
        VerifierConfig().with_options(**opts)


def test_config_from_toml(tmp_path: Any) -> None:
    from cotaudit.vericot.config import load_config

    p = tmp_path / "v.toml"
    p.write_text('[vericot]\ntimeout_ms = 500\npremise_providers = ["pool"]\n', encoding="utf-8")
    cfg = load_config(p)
    assert cfg.timeout_ms == 500 and cfg.premise_providers == ("pool",)
    p.write_text("[vericot]\nbogus = 1\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="bogus"):
        load_config(p)


def test_verify_is_the_older_name_of_check_trace() -> None:
    """vericot.check_trace / check give the R-1 report like every engine's check; verify stays
    as an alias of check_trace for code written before the names were aligned."""
    assert vericot.verify is vericot.check_trace
    t = {"id": "t", "context": {"question": "q"}, "steps": []}
    assert vericot.check_trace(t).verdict == vericot.verify(t).verdict == "abstain"
