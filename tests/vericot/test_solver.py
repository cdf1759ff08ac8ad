"""V-11 … V-17 and V-54: per-trace contexts, tags, unknown, timeouts, watchdog, budgets,
deterministic minimal support, only one module touches z3."""

from __future__ import annotations

import re
import time
from pathlib import Path

from cotaudit import vericot
from cotaudit.vericot.compile import Compiled, compile_formula
from cotaudit.vericot.smt import Z3Session
from cotaudit.vericot.smtlib import Vocabulary
from cotaudit.vericot.solver import KBSession

from .helpers import prem, trace
from .sara_example import P4R, VOCAB

SRC = Path(__file__).resolve().parents[2] / "src" / "cotaudit"


def _kb(vocab: str = VOCAB, timeout_ms: int = 2000) -> tuple[KBSession, Vocabulary]:
    kb = KBSession(timeout_ms=timeout_ms)
    v = Vocabulary()
    comp = compile_formula(kb.z3, v, "(assert true)", decls=vocab)
    assert isinstance(comp, Compiled)
    v.extend(list(comp.new_decls))
    return kb, v


def _term(kb: KBSession, v: Vocabulary, smt: str) -> object:
    comp = compile_formula(kb.z3, v, smt)
    assert isinstance(comp, Compiled), comp
    return comp.term


def test_only_smt_imports_z3_and_only_solver_checks() -> None:
    importers, checkers = [], []
    for path in sorted(SRC.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if re.search(r"^\s*(import z3|from z3)", text, re.M):
            importers.append(path.relative_to(SRC).as_posix())
        if re.search(r"\.check\(|Z3_solver_check", text) and path.relative_to(SRC).parts[0] == "vericot":
            checkers.append(path.relative_to(SRC).as_posix())
    assert importers == ["vericot/smt.py"]
    # the raw call lives in smt.py; its one caller is solver.py
    assert sorted(checkers) == ["vericot/smt.py", "vericot/solver.py"]
    callers = [p for p in SRC.rglob("*.py") if "z3.check(" in p.read_text(encoding="utf-8")]
    assert [p.name for p in callers] == ["solver.py"]


def test_timeout_gives_unknown_within_bound() -> None:
    """V-54: with timeout_ms=200 the §13.5 axiom's SAT check is unknown within 500 ms."""
    kb, v = _kb(timeout_ms=200)
    e = kb.add_entry("p4r", "premise", "commonsense", "r", "r", _term(kb, v, P4R))
    for _ in range(3):
        start = time.monotonic()
        rec = kb.sat([e.id])
        elapsed = (time.monotonic() - start) * 1000
        assert rec.result == "unknown" and rec.reason_unknown
        assert elapsed < 500


def test_watchdog_interrupts_an_overrunning_check(monkeypatch: object) -> None:
    """If Z3 ignores its own timeout, the watchdog interrupts at timeout + grace."""
    import cotaudit.vericot.smt as smt

    kb, v = _kb(timeout_ms=100)
    e = kb.add_entry("p4r", "premise", "commonsense", "r", "r", _term(kb, v, P4R))
    kb.z3.solver.set("timeout", 60_000)  # simulate an overrun: Z3's own timer is far away
    kb.z3._current_timeout = 100
    old = smt.WATCHDOG_GRACE_MS
    smt.WATCHDOG_GRACE_MS = 200
    try:
        start = time.monotonic()
        raw = kb.z3.check([e.tag], None, 100)
        elapsed = (time.monotonic() - start) * 1000
    finally:
        smt.WATCHDOG_GRACE_MS = old
    assert raw.result == "unknown" and raw.reason_unknown == "interrupted"
    assert elapsed < 300 + 1000


def test_budget_exhausted() -> None:
    premises = [{"id": "p4r", "text": "r", "source": "commonsense", "smt": P4R}]
    t = {
        "id": "b",
        "context": {"question": "q"},
        "steps": [{"id": "s1", "text": "x"}],
        "formalization": {
            "vocabulary": VOCAB,
            "steps": [{"step_id": "s1", "smt": "(assert (<= (age charlie 2023) 18))", "premises": premises}],
        },
    }
    start = time.monotonic()
    r = vericot.verify(t, timeout_ms=300, step_budget_ms=150, include_timings=True)
    s = r.details["steps"][0]
    assert (s["status"], s["reason"]) == ("unknown", "budget_exhausted")
    assert s["timings"]["solver_ms"] <= 150 + 300 + 1000
    assert time.monotonic() - start < 3


def test_budget_near_miss() -> None:
    t = trace([("(assert a)", None)], premises=[prem("p1", "(assert a)")])
    r = vericot.verify(t, step_budget_ms=15_000)
    assert r.details["steps"][0]["status"] == "entailed"


def test_the_step_budget_counts_solver_time_not_waiting() -> None:
    # V-15: a total *solver* budget. Time spent elsewhere in the step (waiting for a language
    # model) must not use it up; solver time must.
    kb, _ = _kb()
    kb.start_step(50)
    time.sleep(0.12)
    rec = kb.sat([])
    assert rec.result == "sat" and not kb.budget_exhausted
    kb.step_ms = 60.0  # as if the step's checks had already spent 60 ms
    rec = kb.sat([])
    assert (rec.result, rec.reason_unknown) == ("unknown", "budget_exhausted") and kb.budget_exhausted
    kb.end_step()


def test_unknown_is_never_entailed_or_refuted() -> None:
    kb, v = _kb(timeout_ms=150)
    e = kb.add_entry("p4r", "premise", "commonsense", "r", "r", _term(kb, v, P4R))
    rec = kb.sat([e.id])
    assert rec.result == "unknown" and rec.core == []


def test_minimization_is_deterministic_and_minimal() -> None:
    t = trace(
        [("(assert c)", None)],
        premises=[
            prem("p1", "(assert a)"),
            prem("p2", "(assert b)"),
            prem("p3", "(assert (=> a c))"),
            prem("p4", "(assert (=> b c))"),
            prem("p5", "(assert (=> (and a b) c))"),
        ],
    )
    supports = set()
    for _ in range(3):
        s = vericot.verify(t).details["steps"][0]
        assert s["status"] == "entailed" and s["core_minimal"] is True
        supports.add(tuple(e["id"] for e in s["support"]))
    assert len(supports) == 1
    (support,) = supports
    assert support in (("p1", "p3"), ("p2", "p4"), ("p1", "p2", "p5"))
    # the support alone re-entails the step
    only = trace(
        [("(assert c)", None)],
        premises=[
            prem(
                i,
                {
                    "p1": "(assert a)",
                    "p2": "(assert b)",
                    "p3": "(assert (=> a c))",
                    "p4": "(assert (=> b c))",
                    "p5": "(assert (=> (and a b) c))",
                }[i],
            )
            for i in support
        ],
    )
    assert vericot.verify(only).details["steps"][0]["status"] == "entailed"


def test_contexts_are_per_trace() -> None:
    a = Z3Session(1000)
    b = Z3Session(1000)
    assert a.ctx is not b.ctx


def test_bool_to_int_coercion_is_a_known_leniency() -> None:
    """V-9: Z3 coerces Bool to Int in arithmetic; pinned, not detected in v1."""
    kb, v = _kb("(declare-const x Int)")
    comp = compile_formula(kb.z3, v, "(assert (<= x true))")
    assert isinstance(comp, Compiled)


def test_z3_parse_errors_carry_z3_message() -> None:
    kb, v = _kb()
    err = compile_formula(kb.z3, v, "(assert (dependent charlie))")
    assert not isinstance(err, Compiled)
    assert err.reason == "parse_error" and "dependent" in err.detail
    err = compile_formula(kb.z3, v, "(assert (age charlie 2023))")
    assert not isinstance(err, Compiled) and "not Boolean" in err.detail


def test_kb_inconsistency_detected_and_vacuous() -> None:
    t = trace(
        [("(assert c)", None)],
        premises=[prem("p1", "(assert a)"), prem("p2", "(assert (not a))"), prem("p3", "(assert b)")],
    )
    r = vericot.verify(t)
    assert r.details["kb"]["consistent"] is False
    assert r.details["kb"]["inconsistency_core"] == ["p1", "p2"]
    s = r.details["steps"][0]
    assert s["status"] == "entailed" and "vacuous" in s["flags"]
    assert r.details["verdict"] == "invalid"
    assert "VC_E004" in [f.code for f in r.findings]


def test_kb_consistency_near_miss() -> None:
    t = trace([("(assert a)", None)], premises=[prem("p1", "(assert a)"), prem("p3", "(assert b)")])
    r = vericot.verify(t)
    assert r.details["kb"]["consistent"] is True and "VC_E004" not in [f.code for f in r.findings]
    assert r.details["verdict"] == "valid"


def test_pool_consistency_reported() -> None:
    t = trace(
        [("(assert b)", None)],
        premises=[prem("p1", "(assert a)", use="pool"), prem("p2", "(assert (not a))", use="pool")],
    )
    r = vericot.verify(t)
    assert r.details["kb"]["pool_consistent"] is False and r.details["kb"]["consistent"] is True


def test_debug_invariant_holds_on_examples() -> None:
    from .sara_example import trace_13_1

    r = vericot.verify(trace_13_1(), debug_invariants=True)
    assert r.details["verdict"] == "valid"


def test_watchdog_is_fresh_in_a_forked_worker() -> None:
    """A worker forked after the watchdog started must get its own thread (timeouts hold)."""
    import multiprocessing

    import cotaudit.vericot.smt as smt

    kb, _ = _kb(timeout_ms=100)
    kb.sat([])  # make sure the parent's watchdog thread exists
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(1) as pool:
        alive = pool.apply(_child_watchdog_state)
    assert alive == (True, True)
    assert smt._WATCHDOG._thread is not None


def _child_watchdog_state() -> tuple[bool, bool]:
    import cotaudit.vericot.smt as smt

    fresh = smt._WATCHDOG._thread is None
    kb = KBSession(timeout_ms=50)
    kb.sat([])
    thread = smt._WATCHDOG._thread
    return fresh, thread is not None and thread.is_alive()
