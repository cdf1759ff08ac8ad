"""Issue 14, class 2: a whole trace has a wall-time bound, not only each solver check.

Each step below is a nonlinear integer claim (x³ + y³ = z³ over positive integers) that Z3
can neither satisfy nor refute in time, so every step costs one full solver timeout: 20 steps
took 40 s at the default 2 s. With ``trace_budget_ms`` (or a tighter enclosing
``cotaudit.limits`` budget) the trace ends on time; the steps it could not check are
``unknown`` (``budget_exhausted``, VC_W001), never failures.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from cotaudit import api, vericot
from cotaudit.limits import Limits
from cotaudit.vericot.config import ConfigError, VerifierConfig

from .helpers import prem

VOCAB = "(declare-const x Int) (declare-const y Int) (declare-const z Int) (declare-const w Int)"


def _nonlinear(i: int) -> str:
    return f"(assert (and (> x {i}) (> y 0) (> z 0) (= (+ (* x x x) (* y y y)) (* z z z))))"


def _trace(
    n: int, *, first: str | None = None, premises: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    smts = ([first] if first else []) + [_nonlinear(i) for i in range(1, n + 1)]
    return {
        "id": "nl",
        "context": {"question": "a holds."},
        "steps": [{"id": f"s{i}", "text": f"step {i}"} for i in range(1, len(smts) + 1)],
        "formalization": {
            "vocabulary": VOCAB,
            "premises": premises or [],
            "steps": [{"step_id": f"s{i}", "smt": smt} for i, smt in enumerate(smts, start=1)],
        },
    }


def _assert_budget_tail(steps: list[dict[str, Any]], start: int) -> None:
    tail = steps[start:]
    assert tail and all(s["status"] == "unknown" for s in tail)
    assert tail[-1]["reason"] == "budget_exhausted"
    assert all(s["reason"] in ("budget_exhausted", "solver_unknown") for s in tail)
    assert sum(s["reason"] == "budget_exhausted" for s in tail) >= len(tail) - 1


def test_the_trace_budget_ends_a_slow_trace_on_time() -> None:
    budget_ms = 2000
    start = time.monotonic()
    r = vericot.verify(_trace(20), trace_budget_ms=budget_ms)
    elapsed = time.monotonic() - start
    assert elapsed < 2 * budget_ms / 1000  # was 40 s
    steps = r.details["steps"]
    assert len(steps) == 20
    _assert_budget_tail(steps, 0)
    assert r.verdict == "abstain" and r.details["verdict"] == "unknown"
    assert {f.code for f in r.findings} == {"VC_W001"}
    assert r.details["config"]["trace_budget_ms"] == budget_ms


def test_a_step_decided_before_the_budget_ran_out_still_fails_the_trace() -> None:
    t = _trace(10, first="(assert (> w 5))", premises=[prem("p1", "(assert (< w 0))")])
    start = time.monotonic()
    r = vericot.verify(t, trace_budget_ms=1000)
    assert time.monotonic() - start < 2.0
    steps = r.details["steps"]
    assert (steps[0]["status"], steps[0]["reason"]) == ("contradicted", "contradicted_by_kb")
    _assert_budget_tail(steps, 1)
    assert r.verdict == "fail" and r.details["first_failure"]["index"] == 0


def test_the_enclosing_api_budget_is_honoured_with_the_decided_steps_kept() -> None:
    t = json.dumps(_trace(20, first="(assert (> w 5))", premises=[prem("p1", "(assert (< w 0))")]))
    api.get_engine("vericot")  # import outside the timed part
    start = time.monotonic()
    r = api.check(t, "vericot", limits=Limits(wall_s=1.5))  # default trace_budget_ms: 60 s
    assert time.monotonic() - start < 3.0
    # vericot's own report, with step 1 decided -- not the api's blanket COTAUDIT_W001 abstain
    assert r.engine == "vericot" and "COTAUDIT_W001" not in {f.code for f in r.findings}
    steps = r.details["steps"]
    assert steps[0]["status"] == "contradicted"
    _assert_budget_tail(steps, 1)


def test_near_miss_a_budget_that_suffices_changes_nothing() -> None:
    # three steps time out at 100 ms each, well inside a 30 s budget: plain solver unknowns
    r = vericot.verify(_trace(3), timeout_ms=100, trace_budget_ms=30_000)
    assert [(s["status"], s["reason"]) for s in r.details["steps"]] == [("unknown", "solver_unknown")] * 3
    assert {
        c["reason_unknown"] for s in r.details["steps"] for c in s["checks"] if c["result"] == "unknown"
    } == {"timeout"}


def test_near_miss_a_normal_trace_is_unaffected() -> None:
    from .sara_example import trace_13_1

    default = vericot.verify(trace_13_1())
    tight = vericot.verify(trace_13_1(), trace_budget_ms=10_000)
    assert default.verdict == tight.verdict == "pass"
    assert default.details["steps"] == tight.details["steps"]


@pytest.mark.parametrize("value", [0, -5])
def test_trace_budget_must_be_positive(value: int) -> None:
    with pytest.raises(ConfigError, match="trace_budget_ms"):
        VerifierConfig(trace_budget_ms=value)


def test_no_trace_budget_leaves_the_enclosing_one() -> None:
    t = json.dumps(_trace(20))
    api.get_engine("vericot")
    start = time.monotonic()
    r = api.check(t, "vericot", limits=Limits(wall_s=1.0), trace_budget_ms=None)
    assert time.monotonic() - start < 2.5
    _assert_budget_tail(r.details["steps"], 0)
    assert r.details["config"]["trace_budget_ms"] is None
