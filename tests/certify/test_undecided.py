""" "Could not check" is never "wrong" (issue 14/19, honest verdicts).

Every place where certify meets a computation bound while deciding something: the gate's
strong-negation contradiction check (kernel and query scope), an admission stopped by a time
bound, a fixpoint that needs more than ``max_rounds`` rounds, the independent checker's
recomputed models (closure certificates, NAF checks), a source checker that fails, and the
per-input budget inside a checker. Each fires with a tiny bound and has a near miss with the
normal ones. Before, the first became ``REJECT CONTRADICTS_KERNEL`` (a ``fail`` at kernel
scope), ``max_rounds`` silently cut the closure (a certified "no"), a closure certificate that
could not be recomputed was ``CLOSURE_NOT_A_MODEL``, a NAF recheck escaped as an exception, and
a checker swallowed the input's budget as its own error.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest

from cotaudit.certify.engine.limits import EvalLimits
from cotaudit.certify.gate.decision import Outcome
from cotaudit.certify.kb.bundle import check_bundle, make_bundle
from cotaudit.certify.kb.check import check_kb
from cotaudit.certify.proof import recheck_closure, recheck_edges
from cotaudit.certify.proof.naive import naive_evaluate
from cotaudit.certify.proof.recheck import recheck
from cotaudit.certify.sources.records import CheckResult, Evidence, run_checker
from cotaudit.certify.state.config import CertifyConfig
from cotaudit.certify.state.query import AbstainReason, ServeStatus
from cotaudit.limits import BudgetExceeded, Limits, budget

from .clocks import loaded
from .support import assert_rechecks, iface, new_state

TC = "[r1] path(X, Y) :- e_src(X, Y).\n[r2] path(X, Z) :- path(X, Y), e_src(Y, Z).\n"
STRONG = iface({"e_src": 2, "path": 2}, ["e_src"], negation="strong")
TINY = EvalLimits(max_facts=50)  # the 12-edge chain's closure has 12 + 78 facts


def chain(n: int) -> str:
    return "".join(f"e_src(n{i}, n{i + 1}).\n" for i in range(n))


def strong_state(config: CertifyConfig | None = None) -> Any:
    program = TC + chain(12)
    return new_state(STRONG, program, config, corpus=program + "e_src(n90, n91).\n-e_src(n0, n1).\n")


def stable(state: Any) -> tuple[Any, Any, Any]:
    dump = state.dump()
    return dump["units"], dump["kernel_versions"], dump["cache"]


# ---------------------------------------------------------------- the contradiction check (C-38 step 5)
def test_kernel_scope_contradiction_check_meeting_a_work_bound_is_undecided() -> None:
    state = strong_state()
    before = stable(state)
    state.config = state.config.with_(limits=TINY)
    d = state.admit("e_src(n90, n91).", Evidence("src"))
    assert (d.outcome, d.reason, d.detail["check"]) == (Outcome.REJECT, "UNDECIDED", "contradiction")
    assert "more than 50 facts" in d.detail["message"]
    assert stable(state) == before and state.verify_state() == []  # logged, nothing admitted
    # near miss: the normal limits decide it — no contradiction, admitted
    state.config = state.config.with_(limits=EvalLimits())
    assert state.admit("e_src(n90, n91).", Evidence("src")).outcome is Outcome.SOURCE_ADMIT
    # and a real contradiction is still one
    assert state.admit("-e_src(n0, n1).", Evidence("src")).reason == "CONTRADICTS_KERNEL"


def test_query_scope_contradiction_check_meeting_a_work_bound_abstains_computation_cap() -> None:
    state = strong_state()
    state.config = state.config.with_(limits=TINY)
    r = state.query("path(n0, n2)", facts=[("e_src(n90, n91)", Evidence("src"))])
    assert (r.status, r.abstain_reason) == (ServeStatus.ABSTAINED, AbstainReason.COMPUTATION_CAP)
    assert r.gate_decisions[0].reason == "UNDECIDED"
    state.config = state.config.with_(limits=EvalLimits())
    ok = state.query("path(n0, n2)", facts=[("e_src(n90, n91)", Evidence("src"))])
    assert (ok.status, ok.answer) == (ServeStatus.CERTIFIED, "true")
    assert ok.certificate is not None
    assert_rechecks(ok.certificate, state, ok.overlay)


def test_a_time_bound_in_an_admission_abstains_from_the_whole_admission() -> None:
    state = strong_state()
    before = stable(state)
    with loaded(step=100.0):  # every clock read 100 s later: the 60 s bound passes at once
        d = state.admit("e_src(n90, n91).", Evidence("src"))
        batch = state.admit_batch(
            [(u, Evidence("src"), "deploy", None) for u in ("e_src(n90, n91).", "-e_src(n0, n1).")]
        )
    assert (d.outcome, d.reason, d.detail["bound"], d.detail["check"]) == (
        Outcome.REJECT,
        "UNDECIDED",
        "time",
        "operation",
    )
    assert [(b.reason, b.detail["bound"]) for b in batch] == [("UNDECIDED", "time")] * 2
    assert stable(state) == before and state.verify_state() == []
    # near miss: the same admissions on an idle machine are decided
    assert state.admit("e_src(n90, n91).", Evidence("src")).outcome is Outcome.SOURCE_ADMIT
    assert state.admit("-e_src(n0, n1).", Evidence("src")).reason == "CONTRADICTS_KERNEL"


def _strong_kb(limits: dict[str, Any], extra: str = "") -> str:
    interface = {
        "format": "cotaudit.certify.interface/1",
        "negation": "strong",
        "roles": {"n": {"type": "any"}},
        "predicates": {"e_src": {"args": ["n", "n"]}, "path": {"args": ["n", "n"]}},
        "source_whitelist": ["e_src"],
        "query_predicates": ["path"],
    }
    program = TC + chain(12) + extra
    return (
        f"%% interface\n{json.dumps(interface)}\n%% config\n{json.dumps({'limits': limits})}\n"
        f"%% record src kind=rules\n{program}%% units evidence=src\n{program}"
        "%% queries\n?- path(n0, n5) => true.\n"
    )


def test_kb_report_counts_an_undecided_unit_as_abstain_never_fail() -> None:
    report = check_kb(_strong_kb({"max_facts": 50}))
    assert report.verdict == "abstain", [(f.code, f.evidence.get("reason")) for f in report.findings]
    assert not [f for f in report.findings if f.severity == "error"]
    undecided = [f for f in report.findings if f.code == "CERTIFY_W013"]
    assert undecided and {f.evidence["reason"] for f in undecided} == {"UNDECIDED"}
    # near misses: normal limits pass; a real contradiction still fails
    assert check_kb(_strong_kb({})).verdict == "pass"
    wrong = check_kb(_strong_kb({}, "-e_src(n0, n1).\n"))
    assert wrong.verdict == "fail" and "CERTIFY_E013" in {f.code for f in wrong.findings}


def test_kb_check_meeting_a_time_bound_abstains_as_a_whole() -> None:
    with loaded(step=100.0):
        report = check_kb(_strong_kb({}))
    assert report.verdict == "abstain"
    assert [(f.code, f.evidence["reason"], f.evidence["bound"]) for f in report.findings] == [
        ("CERTIFY_W002", "COMPUTATION_CAP", "time")
    ]


# ---------------------------------------------------------------- max_rounds: a bound, not a cut
def _tc_state(limits: EvalLimits) -> Any:
    program = "[r1] path(X, Y) :- edge(X, Y).\n[r2] path(X, Z) :- path(X, Y), edge(Y, Z).\n"
    program += "".join(f"edge(n{i}, n{i + 1}).\n" for i in range(5))
    state = new_state(iface({"edge": 2, "path": 2}, ["edge"]), program)
    state.config = state.config.with_(limits=limits)
    return state


def test_a_fixpoint_needing_more_than_max_rounds_abstains_never_answers_no() -> None:
    r = _tc_state(EvalLimits(max_rounds=2)).query("path(n0, n5)")
    assert (r.status, r.abstain_reason, r.answer) == (
        ServeStatus.ABSTAINED,
        AbstainReason.COMPUTATION_CAP,
        None,
    )
    ok = _tc_state(EvalLimits(max_rounds=5)).query("path(n0, n5)")
    assert (ok.status, ok.answer) == (ServeStatus.CERTIFIED, "yes")
    assert ok.certificate is not None and ok.certificate["depth"] == 5


# ---------------------------------------------------------------- the independent checker
def test_closure_certificate_that_cannot_be_recomputed_is_undecided_not_failed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    program = "p(a).\np(b).\np(c).\n[r] q(X) :- p(X).\n"
    state = new_state(iface({"p": 1, "q": 1}, ["p"]), program, CertifyConfig(closure_embed_max=0))
    r = state.query("q(z)")
    assert r.answer == "no" and r.certificate is not None and r.certificate["model"] is None
    view = state.kernel_view()
    assert recheck(r.certificate, view).ok  # near miss: the reference evaluator's normal bound
    bundle = json.dumps(make_bundle(r.certificate, view))
    assert check_bundle(bundle).verdict == "pass"
    monkeypatch.setattr(recheck_closure, "naive_evaluate", functools.partial(naive_evaluate, max_facts=3))
    got = recheck(r.certificate, view)
    assert not got.ok and got.failures == () and got.undecided is not None and "3 facts" in got.undecided
    report = check_bundle(bundle)
    assert report.verdict == "abstain" and [f.code for f in report.findings] == ["CERTIFY_W002"]


def _naf_state() -> Any:
    interface = iface(
        {"big_src": 1, "red_src": 1, "big": 1, "red": 1, "kind": 1}, ["big_src", "red_src"], "naf"
    )
    program = (
        "[copy:big] big(X) :- big_src(X).\n[copy:red] red(X) :- red_src(X).\n"
        "[r1] kind(X) :- big(X), not red(X).\nbig_src(bob).\nbig_src(ann).\n"
    )
    return new_state(interface, program)


def test_naf_check_whose_model_cannot_be_recomputed_is_undecided(monkeypatch: pytest.MonkeyPatch) -> None:
    state = _naf_state()
    r = state.query("kind(bob)")  # near miss first: decided, certified, rechecks
    assert (r.status, r.answer) == (ServeStatus.CERTIFIED, "yes") and r.certificate is not None
    assert_rechecks(r.certificate, state)
    monkeypatch.setattr(recheck_edges, "naive_evaluate", functools.partial(naive_evaluate, max_facts=1))
    got = recheck(r.certificate, state.kernel_view())
    assert not got.ok and got.failures == () and got.undecided is not None
    # the derived-mode gate cannot decide the NAF check either: the query abstains, never "no"
    again = state.query("kind(ann)")
    assert (again.status, again.abstain_reason) == (ServeStatus.ABSTAINED, AbstainReason.COMPUTATION_CAP)
    assert again.gate_decisions[-1].reason == "UNDECIDED"


# ---------------------------------------------------------------- source checkers
class _Failing:
    id = "failing/1"
    version = "1"
    inline = True

    def check(self, *args: Any) -> CheckResult:
        raise RuntimeError("the checker's backend is down")


class _OverBudget:
    id = "budget/1"
    version = "1"
    inline = True

    def check(self, *args: Any) -> CheckResult:
        raise BudgetExceeded("time", 1.0, 2.0)


def _kb_with_checker(checker_id: str) -> str:
    interface = {
        "format": "cotaudit.certify.interface/1",
        "roles": {"n": {"type": "any"}},
        "predicates": {"p": {"args": ["n"]}, "q": {"args": ["n"]}},
        "source_whitelist": ["p"],
        "query_predicates": ["q"],
    }
    program = "[r] q(X) :- p(X).\np(a).\n"
    config = {"checkers": {"kernel": checker_id}}
    return (
        f"%% interface\n{json.dumps(interface)}\n%% config\n{json.dumps(config)}\n"
        f"%% record src kind=rules\n{program}%% units evidence=src\n{program}%% queries\n?- q(a) => yes.\n"
    )


def test_a_failing_source_checker_makes_the_kb_report_abstain_not_fail() -> None:
    from cotaudit.certify.sources.checkers import CheckerRegistry

    registry = CheckerRegistry()
    registry.register(_Failing())
    report = check_kb(_kb_with_checker("failing/1"), checkers=registry)
    assert report.verdict == "abstain"
    found = [(f.code, f.evidence["reason"]) for f in report.findings if f.severity != "info"]
    assert ("CERTIFY_W013", "CHECKER_ERROR") in found and not [
        f for f in report.findings if f.severity == "error"
    ]
    # with two units undecided the kernel is incomplete: the "no" is not called a wrong answer
    query = report.details["queries"][0]
    assert (
        query["answer"] == "no" and len(query["kernel_incomplete"]) == 2 and "r" in query["kernel_incomplete"]
    )
    assert "CERTIFY_E038" not in {f.code for f in report.findings}
    assert check_kb(_kb_with_checker("match/1")).verdict == "pass"  # near miss


def test_the_inputs_budget_is_not_swallowed_as_a_checker_error() -> None:
    interface = iface({"p": 1}, ["p"])
    from cotaudit.certify.lang.parse import parse_unit
    from cotaudit.certify.sources.records import MemoryRecords

    fact = parse_unit("p(a).")
    with pytest.raises(BudgetExceeded):
        run_checker(_OverBudget(), fact, Evidence("src"), MemoryRecords(), interface)
    got = run_checker(_Failing(), fact, Evidence("src"), MemoryRecords(), interface)
    assert got.verdict == "ERROR"  # near miss: the checker's own failure is its ERROR
    with budget(Limits(wall_s=30.0)):  # inside a budget that still has time: unchanged
        assert run_checker(_Failing(), fact, Evidence("src"), MemoryRecords(), interface).verdict == "ERROR"


# ---------------------------------------------------------------- the command line
def test_cli_says_abstained_or_undecided_never_a_traceback_or_a_failure(
    tmp_path: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from cotaudit.certify.state.machine import CertState
    from cotaudit.cli import main

    path = str(tmp_path / "s.sqlite")
    program = TC + chain(3)
    state = CertState.open(
        path, STRONG, CertifyConfig(closure_embed_max=0), clock=lambda: "2026-01-01T00:00:00Z"
    )
    from cotaudit.certify.sources.records import SourceRecord

    state.add_record(SourceRecord("src", "rules", program))
    for line in program.splitlines():
        state.admit(line, Evidence("src"))
    r = state.query("path(n0, n9)", answer_space="yesno")
    assert r.answer == "no" and r.certificate is not None
    bundle = tmp_path / "no.cert.json"
    bundle.write_text(json.dumps(make_bundle(r.certificate, state.kernel_view())))
    units_before = state.dump()["units"]
    state.close()
    with loaded(step=100.0):
        code = main(["certify", "erase", "--db", path, "3"])
    out = capsys.readouterr()
    assert code == 1 and out.out.startswith("ABSTAINED erase of unit 3") and "Traceback" not in out.err
    again = CertState.open(path)
    assert again.dump()["units"] == units_before and again.verify_state() == []
    again.close()
    monkeypatch.setattr(recheck_closure, "naive_evaluate", functools.partial(naive_evaluate, max_facts=3))
    assert main(["certify", "recheck", str(bundle)]) == 1
    assert capsys.readouterr().out.startswith("UNDECIDED CERTIFY_W002: could not recheck")
    monkeypatch.undo()
    assert main(["certify", "recheck", str(bundle)]) == 0  # near miss
    assert capsys.readouterr().out.startswith("ok: closure certificate")
