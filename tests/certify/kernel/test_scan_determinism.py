"""The kernel never depends on machine speed (issue 14/19, C-26, C-118).

A loaded machine is simulated by a clock that jumps on every read (:mod:`tests.certify.clocks`),
never by depending on real speed. Before, a unit whose check ran past a 10 s time slice was
CAPPED and kept in the kernel, so the same scan gave another kernel on a busy machine (with
clock steps of 1–5 s per read, 1 to 251 of ~300 units moved between K and J). Now every
decision depends on work counters only; the wall-time and memory bounds end the whole scan
with :class:`ResourceCap`, and the admission around it abstains.
"""

from __future__ import annotations

from typing import Any

import pytest

from cotaudit.certify.core.errors import ComputationCap
from cotaudit.certify.engine.facts import Source
from cotaudit.certify.engine.limits import EvalLimits
from cotaudit.certify.gate.decision import Outcome
from cotaudit.certify.kernel.scan import essential, kernel_scan
from cotaudit.certify.lang.parse import parse_program
from cotaudit.certify.sources.records import Evidence, SourceRecord

from ..clocks import loaded
from ..support import clock, iface
from .test_kernel import _lib_text

EXTRA = "[z] derivable(X) :- axiom(X), axiom(Y).\n"  # a non-covering rule: joins and fallbacks
NAF = (
    "[copy:big] big(X) :- big_src(X).\n[copy:red] red(X) :- red_src(X).\n"
    "[r1] kind(X) :- big(X), not red(X).\n[r2] kind(X) :- big(X), not red(X), big(X).\n"
    + "".join(f"big_src(b{i}).\n" for i in range(30))
    + "red_src(b3).\n"
)


def sources(text: str) -> list[Source]:
    return [Source(i + 1, u) for i, u in enumerate(parse_program(text))]


def outcome(S: list[Source], **kw: Any) -> tuple[Any, ...] | str:
    try:
        r = kernel_scan(S, **kw)
    except ComputationCap as exc:  # only a ResourceCap may leave the scan: "time" / "memory"
        return f"abstained: {exc.bound}"
    return (tuple(r.A), tuple(r.R), tuple(r.J), tuple(r.capped))


CASES = [
    pytest.param(_lib_text(300), {}, id="lib-exact"),
    pytest.param(_lib_text(300, EXTRA), {}, id="lib+join-exact"),
    pytest.param(_lib_text(300), {"k": 2}, id="lib-k2"),
    pytest.param(_lib_text(300, EXTRA), {"k": 2}, id="lib+join-k2"),
    pytest.param(NAF, {"naf": True}, id="naf-model-equality"),
]


@pytest.mark.parametrize(("text", "kw"), CASES)
@pytest.mark.parametrize("step", [0.01, 1.0, 5.0, 50.0])
def test_loaded_machine_gives_the_same_kernel_or_abstains(text: str, kw: dict[str, Any], step: float) -> None:
    S = sources(text)
    idle = outcome(S, **kw)
    assert isinstance(idle, tuple)
    with loaded(step) as clock_:
        generous = outcome(S, limits=EvalLimits(timeout_s=1e9), **kw)  # the load never reaches the bound
        tight = outcome(S, limits=EvalLimits(timeout_s=60.0), **kw)
    assert clock_.reads > 0  # the scan did read the clock
    assert generous == idle
    assert tight == idle or tight == "abstained: time"
    if step >= 50.0:
        assert tight == "abstained: time"  # 60 s pass within two reads: an explicit abstention


def test_work_bounds_still_decide_and_decide_the_same_everywhere() -> None:
    # a tiny cap retains units (CAPPED) — on an idle and on a loaded machine alike
    edges = "".join(f"e({i},{i + 1}).\n" for i in range(30))
    S = sources(
        edges + "[c] p(X,Y) :- e(X,Y).\n[t] p(X,Z) :- p(X,Y), p(Y,Z).\n[t2] p(X,Z) :- p(X,Y), e(Y,Z).\n"
    )
    idle = outcome(S, cap=5)
    assert isinstance(idle, tuple) and idle[3]  # something was capped
    with loaded(1.0):
        assert outcome(S, cap=5, limits=EvalLimits(timeout_s=1e9)) == idle


def test_essential_set_does_not_depend_on_the_clock() -> None:
    S = sources(_lib_text(300, EXTRA))
    idle = essential(S)
    with loaded(5.0):
        assert essential(S, limits=EvalLimits(timeout_s=1e9)) == idle
        with pytest.raises(ComputationCap) as err:
            essential(S, limits=EvalLimits(timeout_s=60.0))
        assert err.value.bound == "time"


def _state(config: Any = None) -> Any:
    from cotaudit.certify.state.config import CertifyConfig
    from cotaudit.certify.state.machine import CertState

    interface = iface({"axiom": 1, "derivable": 1}, ["axiom"])
    state = CertState.open(":memory:", interface, config or CertifyConfig(), clock=clock)
    state.add_record(SourceRecord("src", "rules", _lib_text(120, EXTRA)))
    return state


def _admit(state: Any) -> list[Any]:
    return state.admit_batch(
        [(line, Evidence("src"), "deploy", None) for line in _lib_text(120, EXTRA).splitlines()]
    )


def test_admission_on_a_loaded_machine_is_the_same_state_or_an_explicit_abstention() -> None:
    from cotaudit.certify.state.config import CertifyConfig

    idle = _state()
    _admit(idle)
    assert idle.version == 1
    slow = _state(CertifyConfig(limits=EvalLimits(timeout_s=1e9)))
    with loaded(1.0):
        _admit(slow)
    assert slow.dump()["units"] == idle.dump()["units"]
    assert slow.dump()["kernel_versions"] == idle.dump()["kernel_versions"]
    assert slow.dump()["justifications"] == idle.dump()["justifications"]
    # with C-25's 60 s the same load abstains from the whole batch: nothing admitted, logged
    tight = _state()
    with loaded(1.0):
        decisions = _admit(tight)
    assert {(d.outcome, d.reason, d.detail["bound"]) for d in decisions} == {
        (Outcome.REJECT, "UNDECIDED", "time")
    }
    assert tight.version == 0 and tight.dump()["units"] == [] and tight.verify_state() == []


def _chain_kb(timeout_s: float) -> str:
    import json

    interface = {
        "format": "cotaudit.certify.interface/1",
        "roles": {"n": {"type": "any"}},
        "predicates": {"edge": {"args": ["n", "n"]}, "path": {"args": ["n", "n"]}},
        "source_whitelist": ["edge"],
        "query_predicates": ["path"],
    }
    program = "[r1] path(X, Y) :- edge(X, Y).\n[r2] path(X, Z) :- path(X, Y), edge(Y, Z).\n"
    program += "".join(f"edge(n{i}, n{i + 1}).\n" for i in range(40))
    return (
        f"%% interface\n{json.dumps(interface)}\n%% config\n{json.dumps({'limits': {'timeout_s': timeout_s}})}\n"
        f"%% record src kind=rules\n{program}%% units evidence=src\n{program}%% queries\n?- path(n0, n5) => yes.\n"
    )


def test_an_abstention_for_time_is_the_same_report_however_loaded_the_machine() -> None:
    """The report states the configured bound, never the time that happened to be left."""
    import json

    from cotaudit.certify.kb.check import check_kb

    def to_json(report: Any) -> str:
        return json.dumps(report.to_dict(), sort_keys=True)

    text = _chain_kb(60.0)
    reports = []
    for step in (7.0, 13.0, 40.0):
        with loaded(step):
            reports.append(to_json(check_kb(text)))
    assert reports[0] == reports[1] == reports[2]
    assert json.loads(reports[0])["verdict"] == "abstain"
    assert "time bound of 60 s" in reports[0]
    assert to_json(check_kb(text)) != reports[0] and check_kb(text).verdict == "pass"  # near miss: idle


@pytest.mark.parametrize("where", ["justify", "rebuild"])
def test_a_time_bound_in_justification_or_revalidation_abstains_the_admission(
    where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """X-10: admitting [broad] justifies [narrow] (now J) and rebuilds the cached h(k1). A time
    bound met there used to skip the justification / evict the entry: a state that depended on
    the machine. Now the admission abstains and nothing changes."""
    from cotaudit.certify.core import errors
    from cotaudit.certify.state import admission
    from cotaudit.certify.state.config import CertifyConfig
    from cotaudit.certify.state.machine import CertState

    from ..state.test_state import UNARY, X10, X10_CORPUS, cached, warm
    from ..support import new_state

    state = new_state(UNARY, X10, CertifyConfig(rho=0.0), corpus=X10_CORPUS)
    warm(state, "h(k1)")
    cached(state, "h(k1)")
    before = state.dump()
    real = CertState.closure
    first = state.version

    def closure(self: CertState) -> Any:  # the new version's closure is out of time
        if self.version > first:
            cap = getattr(errors, "ResourceCap", None)  # (on older code: a plain time cap)
            raise cap("evaluation exceeded 60.0 s", {}, "time") if cap else errors.ComputationCap("60 s", {})
        return real(self)

    with monkeypatch.context() as patch:
        patch.setattr(CertState, "closure", closure)
        if where == "rebuild":  # get past the justifications to the cache's revalidation
            patch.setattr(admission, "justify", lambda state, scan: [])
        d = state.admit("[broad] h(X) :- a(X), b(X).", Evidence("src"))
    assert (d.outcome, d.reason, d.detail["bound"]) == (Outcome.REJECT, "UNDECIDED", "time")
    after = state.dump()
    for table in ("units", "cache", "justifications", "kernel_versions"):
        assert after[table] == before[table], table
    assert state.verify_state() == []
    # near miss: the same admission with time to spare justifies and rebuilds
    assert state.admit("[broad] h(X) :- a(X), b(X).", Evidence("src")).outcome is Outcome.SOURCE_ADMIT
    assert state.cache["f:h(k1)"].deps == [1, 2, 5] and state.check_invariants() == []
