"""C-21 … C-28: the semi-naive executor against the reference evaluator and clingo."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cotaudit.certify.core.canon import canonical_json
from cotaudit.certify.core.errors import ComputationCap, ProgramError, ResourceCap
from cotaudit.certify.engine.evaluation import evaluate
from cotaudit.certify.engine.limits import EvalLimits
from cotaudit.certify.lang.parse import parse_literal, parse_program
from cotaudit.certify.lang.syntax import Fact, Unit
from cotaudit.certify.proof.kernelview import KernelView
from cotaudit.certify.proof.naive import naive_evaluate
from cotaudit.certify.proof.recheck import recheck

clingo = pytest.importorskip("clingo")

PREDS = {f"p{i}": i % 3 for i in range(8)}  # p0/0, p1/1, p2/2, p3/0 …
CONSTS = ["a", "b", "c", "1", "2"]
VARS = ["X", "Y", "Z"]


@st.composite
def programs(draw: st.DrawFn, naf: bool = False, neg: bool = False) -> str:
    heads = draw(st.sets(st.sampled_from(sorted(PREDS)), min_size=1, max_size=5))
    edb = sorted(set(PREDS) - heads) or ["p0"]
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 25))):  # facts
        p = draw(st.sampled_from(sorted(PREDS)))
        sign = "-" if neg and draw(st.booleans()) else ""
        args = [draw(st.sampled_from(CONSTS)) for _ in range(PREDS[p])]
        lines.append(sign + p + (f"({','.join(args)})" if args else "") + ".")
    for _ in range(draw(st.integers(1, 15))):  # rules
        body = []
        for _ in range(draw(st.integers(1, 3))):
            p = draw(st.sampled_from(sorted(PREDS)))
            args = [draw(st.sampled_from(VARS + CONSTS[:2])) for _ in range(PREDS[p])]
            sign = "-" if neg and draw(st.booleans()) else ""
            body.append(sign + p + (f"({','.join(args)})" if args else ""))
        bound = sorted({a for b in body for a in VARS if a in b.split("(", 1)[-1]})
        if naf and bound and draw(st.booleans()):
            q = draw(st.sampled_from(edb))
            args = [draw(st.sampled_from([*bound, "a"])) for _ in range(PREDS[q])]
            body.append("not " + q + (f"({','.join(args)})" if args else ""))
        h = draw(st.sampled_from(sorted(heads)))
        hargs = [draw(st.sampled_from([*bound, "a"])) for _ in range(PREDS[h])]
        lines.append(h + (f"({','.join(hargs)})" if hargs else "") + " :- " + ", ".join(body) + ".")
    return "\n".join(lines)


def clingo_model(text: str) -> set[str]:
    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], text.replace("-p", "neg_p"))
    ctl.ground([("base", [])])
    out: set[str] = set()

    def on_model(m: clingo.Model) -> None:
        out.update(str(s).replace("neg_p", "-p") for s in m.symbols(atoms=True))

    assert ctl.solve(on_model=on_model).satisfiable
    return out


def certify_all(units: list[Unit], closure_facts: list[str]) -> None:
    kv = KernelView(0, {i + 1: u for i, u in enumerate(units)})
    cl = evaluate(units)
    for text in closure_facts:
        lit = parse_literal(text)
        cert = cl.certificate(lit, 10**6)
        report = recheck(cert, kv)
        assert report.ok, (text, report.failures)
        assert cert["depth"] == cl.depth(lit)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_closure_equals_clingo_and_reference(text: str) -> None:
    units = parse_program(text)
    cl = evaluate(units)
    ours = {f.text() for f in cl.facts()}
    ref = naive_evaluate(units)
    assert ours == set(ref.texts()) == clingo_model(text)
    for lit, d in ref.depth.items():
        assert cl.depth(lit) == d, lit.text()
    certify_all(units, sorted(ours))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(naf=True))
def test_stratified_naf_equals_clingo(text: str) -> None:
    units = parse_program(text)
    cl = evaluate(units)
    ours = {f.text() for f in cl.facts()}
    ref = naive_evaluate(units)
    assert ours == set(ref.texts()) == clingo_model(text)
    for lit, d in ref.depth.items():
        assert cl.depth(lit) == d
    certify_all(units, sorted(ours))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(neg=True), st.integers(0, 4))
def test_strong_negation_and_max_depth(text: str, max_depth: int) -> None:
    units = parse_program(text)
    full = evaluate(units)
    bounded = evaluate(units, max_depth=max_depth)
    assert {f.text() for f in bounded.facts()} == {
        f.text() for f in full.facts() if (full.depth(f) or 0) <= max_depth
    }
    assert set(naive_evaluate(units, max_depth=max_depth).texts()) == {f.text() for f in bounded.facts()}
    for p, n in full.conflicts():
        assert full.contains(p) and full.contains(n) and n.neg


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    programs(),
    st.lists(st.sampled_from(["p1(a)", "p1(c)", "p2(b,a)", "p3", "p4(2)"]), max_size=4, unique=True),
)
def test_overlay_equals_from_scratch(text: str, extra: list[str]) -> None:
    units = parse_program(text)
    overlay = [Fact(f"q{i}", parse_literal(e)) for i, e in enumerate(extra)]
    with_overlay = evaluate(units, overlay)
    scratch = naive_evaluate(units, overlay)
    assert {f.text() for f in with_overlay.facts()} == set(scratch.texts())
    for lit, d in scratch.depth.items():
        assert with_overlay.depth(lit) == d


def test_witness_and_deps_api() -> None:
    units = parse_program("p.\n[r1] q :- p.\n[r2] s :- q, p.\n")
    cl = evaluate(units)
    w = cl.witness(parse_literal("s"))
    assert w is not None and w.rule.label == "r2" and w.rule_unit_id == 3
    assert [cl.store.literal(f).text() for f in w.premises] == ["p", "q"]  # canonical body order
    assert cl.deps(parse_literal("s")) == [1, 2, 3]
    assert cl.witness(parse_literal("p")) is None
    assert cl.stats["rounds"] == 2 and cl.stats["facts"] == 3


def test_calc_rule_fires_and_domain_error_derives_nothing() -> None:
    units = parse_program(
        "weight(c1, 70). height(c1, 175). weight(c2, 70). height(c2, 0).\n"
        "[calc:bmi] bmi(C, V) :- weight(C, W), height(C, H) {V = bmi@1(W, H)}.\n"
    )
    cl = evaluate(units)
    assert [f.text() for f in cl.facts("bmi")] == ["bmi(c1,22.85714)"]
    assert any("bmi@1" in d for d in cl.diagnostics)
    cert = cl.certificate(parse_literal("bmi(c1, 22.85714)"), 6)
    edge = cert["nodes"][-1]["edge"]
    assert (
        edge["kind"] == "calc" and edge["fn"] == "bmi" and edge["output"] == "22.85714" and cert["depth"] == 1
    )
    assert cert["flags"] == ["calc"]
    assert recheck(cert, KernelView(0, {i + 1: u for i, u in enumerate(units)})).ok


def test_unstratified_program_is_rejected() -> None:
    with pytest.raises(ProgramError) as err:
        evaluate(parse_program("p(a).\nq(X) :- p(X), not r(X).\nr(X) :- p(X), not q(X).\n"))
    assert err.value.reason == "UNSTRATIFIED"


def test_limits_raise_computation_cap() -> None:
    text = "e(1,2). e(2,3). e(3,4). e(4,5).\np(X,Y) :- e(X,Y).\np(X,Z) :- p(X,Y), e(Y,Z).\n"
    with pytest.raises(ComputationCap):
        evaluate(parse_program(text), limits=EvalLimits(max_facts=6))
    with pytest.raises(ComputationCap):
        evaluate(parse_program(text), limits=EvalLimits(timeout_s=0.0))


def test_max_rounds_is_a_bound_never_a_truncated_closure() -> None:
    # a closure cut after max_rounds would answer "no" for p(1,5); it must raise instead
    text = "e(1,2). e(2,3). e(3,4). e(4,5).\np(X,Y) :- e(X,Y).\np(X,Z) :- p(X,Y), e(Y,Z).\n"
    with pytest.raises(ComputationCap) as err:
        evaluate(parse_program(text), limits=EvalLimits(max_rounds=3))
    assert not isinstance(err.value, ResourceCap) and err.value.what == "more than 3 rounds"
    # near miss: p(1,5) appears in round 4, and round 5 adds nothing
    assert len(evaluate(parse_program(text), limits=EvalLimits(max_rounds=4))) == 4 + 10
    # max_depth (a query's δ, the oracle's k) still truncates on purpose
    assert len(evaluate(parse_program(text), max_depth=1)) == 8


def test_time_and_memory_caps_are_resource_caps_work_caps_are_not() -> None:
    text = "e(1,2). e(2,3). e(3,4). e(4,5).\np(X,Y) :- e(X,Y).\np(X,Z) :- p(X,Y), e(Y,Z).\n"
    with pytest.raises(ResourceCap) as err:
        evaluate(parse_program(text), limits=EvalLimits(timeout_s=0.0))
    assert err.value.bound == "time"
    with pytest.raises(ComputationCap) as work:
        evaluate(parse_program(text), limits=EvalLimits(max_facts=6))
    assert not isinstance(work.value, ResourceCap) and work.value.bound == "work"
    nodes = "".join(f"n({i}).\n" for i in range(200))
    with pytest.raises(ComputationCap) as steps:
        evaluate(parse_program("q :- n(X), n(Y), n(Z).\n" + nodes), limits=EvalLimits(max_join_steps=5000))
    assert not isinstance(steps.value, ResourceCap) and steps.value.what == "more than 5000 join steps"
    # near miss: the same program within its join steps
    assert (
        len(evaluate(parse_program("q :- n(X), n(Y).\n" + nodes), limits=EvalLimits(max_join_steps=10**6)))
        == 201
    )


def test_transitive_closure_counts_and_min_depth() -> None:
    edges = [(i, j) for i in range(12) for j in range(i + 1, min(i + 3, 12))]
    text = "path(X,Y) :- edge(X,Y).\npath(X,Z) :- path(X,Y), edge(Y,Z).\n" + "".join(
        f"edge(n{a},n{b}).\n" for a, b in edges
    )
    units = parse_program(text)
    cl = evaluate(units)
    assert cl.count("path") == len(clingo_model(text) - {f"edge(n{a},n{b})" for a, b in edges})
    lit = parse_literal("path(n0,n11)")
    assert cl.depth(lit) == 6  # 11 = 6 edges of at most 2; one round per edge
    cert = cl.certificate(lit, 6)
    assert recheck(cert, KernelView(0, {i + 1: u for i, u in enumerate(units)})).ok


DETERMINISM = r"""
import json, sys
from cotaudit.certify.core.canon import canonical_json
from cotaudit.certify.engine.evaluation import evaluate
from cotaudit.certify.lang.parse import parse_program, parse_literal
units = parse_program(sys.stdin.read())
cl = evaluate(units)
certs = [cl.certificate(f, 99) for f in cl.facts()]
sys.stdout.write(canonical_json([c["sha256"] for c in certs]) + canonical_json([f.text() for f in cl.facts()]))
"""


def test_byte_identical_across_hash_seeds() -> None:
    text = "e(a,b). e(b,c). e(c,a). e(c,d). -k(a).\np(X,Y) :- e(X,Y).\np(X,Z) :- p(X,Y), e(Y,Z).\nk(X) :- p(X,X).\n"
    outs = set()
    for seed in ("0", "1", "12345"):
        proc = subprocess.run(
            [sys.executable, "-c", DETERMINISM],
            input=text,
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=True,
        )
        outs.add(proc.stdout)
    assert len(outs) == 1
    units = parse_program(text)
    cl = evaluate(units)
    kv = KernelView(0, {i + 1: u for i, u in enumerate(units)})
    shas = []
    for f in cl.facts():
        cert = cl.certificate(f, 99)
        assert recheck(cert, kv).ok
        shas.append(cert["sha256"])
    assert outs.pop().startswith(canonical_json(shas))
    assert json.loads(canonical_json(shas)) == shas


def test_the_collector_is_paused_only_inside_and_restored() -> None:
    import gc

    from cotaudit.gcpause import paused_collector

    seen: list[bool] = []
    assert gc.isenabled()
    with pytest.raises(ComputationCap), paused_collector():
        seen.append(gc.isenabled())
        evaluate(parse_program("e(1,2). e(2,3).\np(X,Y) :- e(X,Y).\n"), limits=EvalLimits(max_facts=1))
    assert seen == [False] and gc.isenabled()  # restored after an exception
    gc.disable()
    try:
        evaluate(parse_program("p(1).\n"))
        assert not gc.isenabled()  # a caller that had it off keeps it off
    finally:
        gc.enable()
