"""Evaluation is bounded in wall time and memory whatever the program (issue 14, class 3).

A 5,000-node chain with transitive closure (12.5 million path facts), and the same with
``path(X,Z) :- path(X,Y), path(Y,Z)`` (a single round finds millions of facts before they are
stored), used to run 129 s / 156 s and take 1 GB / 4 GB although the limit said 60 s: the
kernel scan's evaluations ignored the configured limits, the fact bound never saw a round's
pending facts, memory was not bounded at all and the per-input budget was never consulted.

Every timed run is a forked child under a generous bound (:mod:`tests.certify.bounded`); the
RSS figures are the child's own growth.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest

from cotaudit.certify.core.errors import ComputationCap
from cotaudit.certify.engine.evaluation import evaluate
from cotaudit.certify.engine.limits import EvalLimits
from cotaudit.certify.lang.parse import parse_program
from cotaudit.limits import BudgetExceeded, Limits, budget

from ..bounded import run_bounded

TC = "[r1] path(X, Y) :- edge(X, Y).\n[r2] path(X, Z) :- path(X, Y), edge(Y, Z).\n"
SQUARE = "[r3] path(X, Z) :- path(X, Y), path(Y, Z).\n"


def _chain(n: int) -> str:
    return "".join(f"edge(n{i}, n{i + 1}).\n" for i in range(n))


def _kb(n: int, rules: str, limits: dict[str, Any]) -> str:
    iface = {
        "format": "cotaudit.certify.interface/1",
        "roles": {"n": {"type": "any"}},
        "predicates": {"edge": {"args": ["n", "n"]}, "path": {"args": ["n", "n"]}},
        "source_whitelist": ["edge"],
        "query_predicates": ["path"],
    }
    program = rules + _chain(n)
    return (
        f"%% interface\n{json.dumps(iface)}\n%% config\n{json.dumps({'limits': limits})}\n"
        f"%% record src kind=rules\n{program}%% units evidence=src\n{program}"
        f"%% queries\n?- path(n0, n{n}) => yes.\n"
    )


def _verdict(text: str, **kw: Any) -> tuple[str, list[str], str]:
    from cotaudit import api

    report = api.check(text, "certify", **kw)
    reasons = [str(f.evidence.get("reason", f.code)) for f in report.findings]
    messages = " | ".join(f.message for f in report.findings)
    return report.verdict, reasons, messages


@pytest.mark.parametrize("rules", [TC, TC + SQUARE], ids=["tc", "tc+square"])
def test_chain_closure_abstains_within_the_configured_timeout(rules: str) -> None:
    # two evaluations (the kernel scan's, the query's) of 1 s each, plus admitting 5,000 facts:
    # about 4 s here; before, 66 s (the scan's evaluations ran on C-25's 60 s, not the config's)
    got = run_bounded(_verdict, _kb(5000, rules, {"timeout_s": 1}), timeout=20)
    verdict, reasons, messages = got.value
    assert verdict == "abstain" and "COMPUTATION_CAP" in reasons, messages
    assert got.seconds < 20


def test_small_chain_is_still_certified_under_the_same_limits() -> None:
    verdict, reasons, messages = _verdict(_kb(5, TC + SQUARE, {"timeout_s": 1, "max_memory_mb": 64}))
    assert verdict == "pass" and "CERTIFIED" in reasons, messages


def _cap(program: str, limits: EvalLimits) -> dict[str, Any]:
    try:
        closure = evaluate(parse_program(program), limits=limits)
    except ComputationCap as exc:
        return {"capped": exc.what, **exc.stats}
    return {"capped": None, "facts": len(closure)}


def test_memory_bound_is_reached_before_gigabytes() -> None:
    # before: 3.97 GB for this program; now the evaluation stops at its 200 MiB bound
    got = run_bounded(
        _cap, TC + SQUARE + _chain(5000), EvalLimits(timeout_s=600, max_memory_mb=200), timeout=120
    )
    assert got.value["capped"] == "evaluation used more than 200 MiB", got.value
    assert got.rss_growth_mb < 600, got.rss_growth_mb


def test_memory_bound_near_miss() -> None:
    got = run_bounded(
        _cap, TC + SQUARE + _chain(300), EvalLimits(timeout_s=600, max_memory_mb=200), timeout=120
    )
    assert got.value == {"capped": None, "facts": 300 + 300 * 301 // 2}


def test_fact_bound_counts_the_facts_of_the_round_in_progress() -> None:
    # one round finds all 4,000,000 pairs: the bound must stop inside it, not after storing it
    nodes = "".join(f"node(n{i}).\n" for i in range(2000))
    got = run_bounded(
        _cap, "pair(X, Y) :- node(X), node(Y).\n" + nodes, EvalLimits(max_facts=50_000), timeout=120
    )
    assert got.value["capped"] == "more than 50000 facts"
    assert got.value["facts"] < 60_000, got.value
    assert got.rss_growth_mb < 300, got.rss_growth_mb


def test_fact_bound_near_miss() -> None:
    got = run_bounded(_cap, TC + _chain(200), EvalLimits(max_facts=50_000), timeout=60)
    assert got.value == {"capped": None, "facts": 200 + 200 * 201 // 2}


def _under_budget(program: str, wall_s: float) -> str:
    units = parse_program(program)
    try:
        with budget(Limits(wall_s=wall_s, memory_mb=None)):
            evaluate(units, limits=EvalLimits(timeout_s=600, max_memory_mb=None))
    except BudgetExceeded as exc:
        return exc.kind
    return "finished"


def test_evaluation_checks_the_per_input_budget() -> None:
    got = run_bounded(_under_budget, TC + SQUARE + _chain(5000), 1.0, timeout=30)
    assert got.value == "time"
    assert run_bounded(_under_budget, TC + _chain(100), 20.0, timeout=30).value == "finished"


def test_api_budget_bounds_a_certify_check_with_generous_certify_limits() -> None:
    # certify's own limits are 600 s; the per-input budget of api.check (2 s here) still holds
    run = functools.partial(_verdict, limits=Limits(wall_s=2.0, memory_mb=None))
    got = run_bounded(run, _kb(5000, TC, {"timeout_s": 600}), timeout=30)
    verdict, reasons, _ = got.value
    assert verdict == "abstain" and reasons == ["COTAUDIT_W001"]


def test_limits_config_is_validated() -> None:
    for bad in (
        {"timeout_s": "nan"},
        {"timeout_s": -1},
        {"max_facts": 0},
        {"max_memory_mb": "x"},
        {"tick": 1},
    ):
        verdict, reasons, _ = _verdict(_kb(3, TC, bad))
        assert verdict == "invalid" and reasons == ["INPUT_MALFORMED"], bad
    from cotaudit.certify.state.config import CertifyConfig

    cfg = CertifyConfig.from_json({"limits": {"timeout_s": 2, "max_memory_mb": 300}})
    assert cfg.limits == EvalLimits(timeout_s=2.0, max_memory_mb=300)
    assert CertifyConfig.from_json(cfg.to_json()) == cfg
