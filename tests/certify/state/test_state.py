"""C-54 … C-66: the state machine, kernel versions, revalidation, the cache (X-10 … X-14, X-18)."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from cotaudit.certify.core.errors import StoreError
from cotaudit.certify.gate.decision import Outcome
from cotaudit.certify.interface.model import simple_interface
from cotaudit.certify.proof.recheck import recheck
from cotaudit.certify.sources.records import Evidence
from cotaudit.certify.state.config import CertifyConfig
from cotaudit.certify.state.machine import CertState
from cotaudit.certify.state.query import AbstainReason, AnswerKind, ServeStatus

from ..support import assert_rechecks, new_state

UNARY = simple_interface({"a": 1, "b": 1, "c": 1, "h": 1}, ["a", "b", "c"])
X10 = "a(k1).\nb(k1).\nc(k1).\n[narrow] h(X) :- a(X), b(X), c(X).\n"
X10_CORPUS = X10 + "[broad] h(X) :- a(X), b(X).\n"
ZERO = simple_interface({f"p{i}": 0 for i in range(8)} | {"p": 0, "q": 0, "s": 0, "t": 0}, ["p", "p0"])
X12 = "p.\n[r1] q :- p.\n[r2] s :- q.\n"


def warm(state: CertState, goal: str, times: int = 1) -> None:
    for _ in range(times):
        r = state.query(goal)
        if r.certificate is not None:
            assert_rechecks(r.certificate, state)
    state.tick()


def cached(state: CertState, goal: str) -> None:
    r = state.query(goal)
    assert r.status is ServeStatus.CERTIFIED and r.cache.get("cached") is True, r.cache
    assert r.certificate is not None
    assert_rechecks(r.certificate, state)


def test_x10_later_unit_makes_earlier_redundant_and_the_cache_is_rebuilt() -> None:
    state = new_state(UNARY, X10, CertifyConfig(rho=0.0), corpus=X10_CORPUS)
    warm(state, "h(k1)")
    cached(state, "h(k1)")
    entry = state.cache["f:h(k1)"]
    assert entry.depth == 1 and entry.deps == [1, 2, 3, 4]
    version = state.version
    old_cert = entry.cert
    d = state.admit("[broad] h(X) :- a(X), b(X).", Evidence("src"))
    assert d.outcome is Outcome.SOURCE_ADMIT and state.version == version + 1
    assert state.units[4].kstatus == "J" and state.units[5].kstatus == "K"
    # the old certificate no longer rechecks: its rule left the kernel
    stale = recheck(old_cert, state.kernel_view(), delta=state.config.delta)
    assert not stale.ok and {f.code for f in stale.failures} >= {"RULE_NOT_IN_KERNEL"}
    reval = json.loads(state.dump()["log"][-1][3])["kernel"]["revalidation"]
    assert (reval["rechecked"], reval["rebuilt"], reval["evicted"]) == ([], ["f:h(k1)"], [])
    entry = state.cache["f:h(k1)"]
    assert entry.version == state.version and entry.deps == [1, 2, 5] and entry.depth == 1
    assert_rechecks(entry.cert, state)
    assert state.check_invariants() == []
    assert state.query("h(k1)").status is ServeStatus.CACHED


def x12_state() -> CertState:
    state = new_state(ZERO, X12, CertifyConfig(rho=0.0))
    warm(state, "q")
    warm(state, "s")
    cached(state, "q")
    cached(state, "s")
    assert state.cache["f:q"].deps == [1, 2] and state.cache["f:s"].deps == [1, 2, 3]
    assert state.cache["f:s"].nodes == ["f:q"]
    return state


def test_x12_erase_cascade() -> None:
    state = x12_state()
    out = state.erase(2, "wrong rule")
    assert out["evicted"] == ["f:q", "f:s"] and state.cache == {}
    assert sorted(s.unit.label for s in state.kernel_sources()) == sorted([state.units[1].unit.label, "r2"])
    r = state.query("s")
    assert (r.status, r.answer, r.answer_kind) == (ServeStatus.CERTIFIED, "no", AnswerKind.NOT_DERIVED)
    assert r.certificate is not None
    assert_rechecks(r.certificate, state)
    assert state.check_invariants() == []


def test_x12_erase_of_the_top_rule_keeps_q() -> None:
    state = x12_state()
    out = state.erase(3, "")
    assert out["evicted"] == ["f:s"] and list(state.cache) == ["f:q"]
    assert state.cache["f:q"].version == state.version
    assert state.check_invariants() == []


def test_x12_evict_removes_dependents() -> None:
    state = x12_state()
    assert state.evict("f:q") == ["f:q", "f:s"] and state.cache == {}
    with pytest.raises(StoreError):
        state.evict("f:nothing")


def test_x13_depth_budget() -> None:
    chain = "p0.\n" + "".join(f"[c{i}] p{i} :- p{i - 1}.\n" for i in range(1, 8))
    state = new_state(ZERO, chain)
    r6 = state.query("p6")
    assert (r6.status, r6.answer) == (ServeStatus.CERTIFIED, "yes") and r6.certificate is not None
    assert r6.certificate["depth"] == 6
    assert_rechecks(r6.certificate, state)
    r7 = state.query("p7")
    assert (r7.status, r7.abstain_reason) == (ServeStatus.ABSTAINED, AbstainReason.DEPTH_BUDGET_EXCEEDED)
    gate = r7.gate_decisions[-1]
    assert (gate.outcome, gate.reason) == (Outcome.REJECT, "DEPTH_BUDGET_EXCEEDED") and r7.answer is None


def test_x14_caching_threshold() -> None:
    state = new_state(ZERO, X12, CertifyConfig(rho=0.5, half_life_ticks=1))
    for _ in range(4):
        r = state.query("s")
        assert r.status is ServeStatus.CERTIFIED and r.cache.get("cached") is False
        assert r.certificate is not None
        assert_rechecks(r.certificate, state)
    assert float(r.cache["f_c"]) == pytest.approx(0.5 * math.log(3 + 2), abs=1e-6)
    state.tick()
    assert state.freq["f:s"] == pytest.approx(2.0)
    r = state.query("s")
    assert r.status is ServeStatus.CERTIFIED and r.cache["cached"] is True
    assert r.certificate is not None
    assert_rechecks(r.certificate, state)
    hit = state.query("s")
    assert hit.status is ServeStatus.CACHED and hit.certificate is not None
    assert hit.certificate["sha256"] == r.certificate["sha256"]
    tiny = new_state(ZERO, X12, CertifyConfig(rho=0.5, budget_bytes=10))
    warm(tiny, "s", 4)
    r = tiny.query("s")
    assert r.cache["cached"] is False and tiny.cache == {}
    assert r.certificate is not None
    assert_rechecks(r.certificate, tiny)


def test_cached_hits_are_audited_at_tick() -> None:
    state = new_state(ZERO, X12, CertifyConfig(rho=0.0))
    warm(state, "q")
    cached(state, "q")
    seq = state.anchor()[0]
    assert state.query("q").status is ServeStatus.CACHED
    assert state.anchor()[0] == seq  # buffered, no transaction
    state.tick()
    ops = [row[2] for row in state.dump()["log"][-2:]]
    assert ops == ["QUERY_BATCH", "TICK"]


def test_x18_naf_revalidation() -> None:
    iface = simple_interface(
        {"big_src": 1, "red_src": 1, "big": 1, "red": 1, "kind": 1}, ["big_src", "red_src"], negation="naf"
    )
    prog = (
        "[copy:big] big(X) :- big_src(X).\n[copy:red] red(X) :- red_src(X).\n"
        "[r1] kind(X) :- big(X), not red(X).\nbig_src(bob).\n"
    )
    state = new_state(iface, prog, CertifyConfig(rho=0.0), corpus=prog + "red_src(bob).\n")
    r = state.query("kind(bob)")
    assert (r.status, r.answer) == (ServeStatus.CERTIFIED, "yes") and r.certificate is not None
    assert r.certificate["depth"] == 2 and r.certificate["flags"] == ["naf"]
    assert r.certificate["nodes"][-1]["edge"]["naf"] == ["red(bob)"]
    assert_rechecks(r.certificate, state)
    state.tick()
    cached(state, "kind(bob)")
    version = state.version
    old_cert = state.cache["f:kind(bob)"].cert
    d = state.admit("red_src(bob).", Evidence("src"))
    assert d.outcome is Outcome.SOURCE_ADMIT and state.version == version + 1
    assert state.cache == {}
    # red(bob) now holds: the recorded NAF check fails. (Under C-48's model equality r1 itself
    # moves to J, since it derives nothing any more, so the rule is also reported missing.)
    stale = recheck(old_cert, state.kernel_view(), delta=state.config.delta)
    assert [f.code for f in stale.failures] == ["RULE_NOT_IN_KERNEL", "NAF_VIOLATED"]
    assert state.units[3].kstatus == "J"
    reval = json.loads(state.dump()["log"][-1][3])["kernel"]["revalidation"]
    assert (reval["rechecked"], reval["rebuilt"], reval["evicted"]) == ([], [], ["f:kind(bob)"])
    r = state.query("kind(bob)")
    assert (r.answer, r.answer_kind) == ("no", AnswerKind.NOT_DERIVED)
    assert r.certificate is not None and r.certificate["flags"] == ["closed_world", "naf"]
    assert_rechecks(r.certificate, state)


def test_tfu_answers_and_numeric_answers() -> None:
    iface = simple_interface(
        {"kind_src": 1, "kind": 1, "w": 2, "h": 2, "bmi": 2}, ["kind_src", "w", "h"], negation="strong"
    )
    prog = (
        "[copy:kind] kind(X) :- kind_src(X).\n[copy:-kind] -kind(X) :- -kind_src(X).\nkind_src(bob).\n-kind_src(ann).\n"
        "w(c1, 70).\nh(c1, 175).\n[calc:bmi] bmi(C, V) :- w(C, W), h(C, H) {V = bmi@1(W, H)}.\n"
    )
    state = new_state(iface, prog)
    out = {g: state.query(g) for g in ("kind(bob)", "kind(ann)", "kind(cid)")}
    assert [(r.answer, r.answer_kind) for r in out.values()] == [
        ("true", AnswerKind.DERIVED),
        ("false", AnswerKind.COMPLEMENT_DERIVED),
        ("unknown", AnswerKind.NOT_DERIVED),
    ]
    for r in out.values():
        assert r.certificate is not None
        assert_rechecks(r.certificate, state)
    v = state.query("bmi(c1, V)")
    assert (v.answer, v.answer_kind) == ("22.85714", AnswerKind.COMPUTED)
    assert v.certificate is not None
    assert_rechecks(v.certificate, state)
    missing = state.query("bmi(c2, V)")
    assert missing.abstain_reason is AbstainReason.MISSING_ATTRIBUTE


def test_inconsistent_query_scoped_facts_abstain() -> None:
    iface = simple_interface({"kind_src": 1, "kind": 1}, ["kind_src"], negation="strong")
    state = new_state(
        iface,
        "[copy:kind] kind(X) :- kind_src(X).\n",
        corpus="kind_src(bob).\n[copy:kind] kind(X) :- kind_src(X).\n",
    )
    r = state.query("kind(bob)", facts=[("kind_src(bob)", Evidence("src"))])
    assert r.answer == "true" and r.certificate is not None
    assert_rechecks(r.certificate, state, r.overlay)


def test_reopen_and_interface_mismatch(tmp_path: object) -> None:
    from pathlib import Path

    path = str(Path(str(tmp_path)) / "s.sqlite")
    state = new_state(ZERO, X12, path=path)
    dump = state.dump()
    state.close()
    again = CertState.open(path)
    assert again.dump() == dump and again.version == 3
    again.close()
    with pytest.raises(StoreError):
        CertState.open(path, UNARY)
    migrated = CertState.open(path, UNARY, migrate=True)
    assert migrated.interface.sha256 == UNARY.sha256 and migrated.verify_log().ok
    migrated.close()


def test_export_of_an_older_version() -> None:
    state = new_state(UNARY, X10, corpus=X10_CORPUS)
    state.admit("[broad] h(X) :- a(X), b(X).", Evidence("src"))
    text4, manifest4 = state.export_kernel(4)
    assert "narrow" in text4 and "broad" not in text4 and manifest4["version"] == 4
    text5, _ = state.export_kernel()
    assert "broad" in text5 and "narrow" not in text5


# ---------------------------------------------------------------------- stateful property test

POOL = "p.\np0.\n[r1] q :- p.\n[r2] s :- q.\n[r3] t :- p, s.\n[r4] q :- p0.\n[r5] s :- p, q.\n[r6] t :- q.\n"
GOALS = ["q", "s", "t", "p"]


class CertMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.state = new_state(ZERO, "", CertifyConfig(rho=0.0, budget_bytes=4000), corpus=POOL)
        self.pool = POOL.splitlines()

    @rule(i=st.integers(0, 7))
    def admit(self, i: int) -> None:
        self.state.admit(self.pool[i], Evidence("src"))

    @rule(goal=st.sampled_from(GOALS))
    def query(self, goal: str) -> None:
        r = self.state.query(goal)
        if r.certificate is not None:
            assert_rechecks(r.certificate, self.state)

    @precondition(lambda self: bool(self.state.active()))
    @rule(data=st.data())
    def erase(self, data: st.DataObject) -> None:
        row = data.draw(st.sampled_from(sorted(self.state.active(), key=lambda r: r.unit_id)))
        before = {k: set(e.deps) for k, e in self.state.cache.items()}
        nodes = {k: set(e.nodes) for k, e in self.state.cache.items()}
        out = self.state.erase(row.unit_id)
        direct = {k for k, deps in before.items() if row.unit_id in deps}
        expected = set(direct)
        grew = True
        while grew:
            grew = False
            for k, ns in nodes.items():
                if k not in expected and ns & expected:
                    expected.add(k)
                    grew = True
        assert set(out["evicted"]) == expected  # exactly the dependent cached conclusions

    @precondition(lambda self: bool(self.state.cache))
    @rule(data=st.data())
    def evict(self, data: st.DataObject) -> None:
        self.state.evict(data.draw(st.sampled_from(sorted(self.state.cache))))

    @rule()
    def tick(self) -> None:
        self.state.tick()

    @invariant()
    def invariants_hold(self) -> None:
        assert self.state.check_invariants() == []


CertMachine.TestCase.settings = settings(
    max_examples=25, stateful_step_count=15, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestCertMachine = CertMachine.TestCase


def test_a_second_handle_sees_committed_changes(tmp_path: object) -> None:
    from pathlib import Path

    path = str(Path(str(tmp_path)) / "two.sqlite")
    a = new_state(ZERO, X12, CertifyConfig(rho=0.0), path=path)
    warm(a, "q")
    cached(a, "q")
    b = CertState.open(path)
    b.erase(2, "retracted by another process")
    r = a.query("q")  # must not serve the entry b evicted
    assert (r.status, r.answer) == (ServeStatus.CERTIFIED, "no")
    assert r.certificate is not None
    assert_rechecks(r.certificate, a)
    d = a.admit("[r4] t :- p.", Evidence("src"))  # a's next transition starts from b's commit
    assert d.reason == "UNSUPPORTED_BY_SOURCE" and a.version == b.version == 4
    assert a.verify_log().ok and a.check_invariants() == []
    b.close()
