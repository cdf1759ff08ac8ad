"""The executor's and the parser's fast paths give what the general paths give (C-21, C-22, C-2).

The two-literal projected join, the copy-rule path and the semi-join prefilter must choose the
same witnesses as the general nested-loop join (``record_instances=True`` runs every rule
through it); the whole-text regex of the parser must see the same lines as ``split("\\n")``.
"""

from __future__ import annotations

import gc
import pickle

from hypothesis import given, settings
from hypothesis import strategies as st

from cotaudit.certify.engine.closure import Closure
from cotaudit.certify.engine.evaluation import evaluate
from cotaudit.certify.engine.facts import Source
from cotaudit.certify.lang.parse import _FAST_FACT, _FAST_LINES, parse_literal, parse_program
from cotaudit.certify.lang.syntax import Const, Fact, Literal, make_fact, make_literal
from cotaudit.certify.proof.kernelview import KernelView
from cotaudit.certify.proof.recheck import recheck
from cotaudit.gcpause import PROMOTE_AT, paused_collector

ARITY = {"e": 2, "f": 2, "g": 1, "h": 2, "k": 3}
TERMS = ["X", "Y", "Z", "a", "b"]


@st.composite
def join_programs(draw: st.DrawFn) -> str:
    """Facts over a few constants and one- to three-literal rules: copies, chains, repeated
    variables and constants in the Δ literal, heads from either side or both."""
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 30))):
        p = draw(st.sampled_from(["e", "f", "g", "k"]))
        lines.append(f"{p}({','.join(draw(st.sampled_from('abcd')) for _ in range(ARITY[p]))}).")
    for _ in range(draw(st.integers(1, 6))):
        body = []
        for _ in range(draw(st.integers(1, 3))):
            p = draw(st.sampled_from(sorted(ARITY)))
            body.append(f"{p}({','.join(draw(st.sampled_from(TERMS)) for _ in range(ARITY[p]))})")
        bound = sorted({v for b in body for v in "XYZ" if v in b})
        head = draw(st.sampled_from(["h", "f", "e"]))
        hargs = [draw(st.sampled_from([*bound, "c"])) for _ in range(2)]
        lines.append(f"{head}({','.join(hargs)}) :- {', '.join(body)}.")
    return "\n".join(lines)


def table(closure: Closure) -> list[tuple[str, int, tuple[int, ...]]]:
    s = closure.store
    return [(s.literal(f).text(), s.depth[f], s.wit[f]) for f in range(len(closure))]


@settings(max_examples=150, deadline=None)
@given(join_programs())
def test_fast_paths_choose_the_general_join_witnesses(text: str) -> None:
    units = parse_program(text)
    fast = evaluate(units)
    general = evaluate(units, record_instances=True)  # every rule through the general join
    assert table(fast) == table(general)


def test_transitive_closure_witnesses_are_rechecked() -> None:
    edges = [(0, 1), (1, 2), (2, 3), (0, 2), (3, 4), (1, 4)]
    text = "path(X,Y) :- edge(X,Y).\npath(X,Z) :- path(X,Y), edge(Y,Z).\n"
    text += "".join(f"edge(n{a},n{b}).\n" for a, b in edges)
    units = parse_program(text)
    closure = evaluate(units)
    assert table(closure) == table(evaluate(units, record_instances=True))
    kernel = KernelView(0, {i + 1: u for i, u in enumerate(units)})
    lit = parse_literal("path(n0,n4)")
    assert closure.depth(lit) == 2
    for fact in closure.facts("path"):
        assert recheck(closure.certificate(fact, 5), kernel).ok


def test_prefilter_keeps_the_join_results_and_counts_skipped_steps() -> None:
    text = (
        "exposed(X) :- controls(X,Y), located(Y,K), embargoed(K).\n"
        "controls(a,b). controls(a,c). controls(d,e). controls(f,f).\n"
        "located(c,k1). located(e,k2). located(f,k1). embargoed(k1).\n"
    )
    closure = evaluate(parse_program(text))
    assert [lit.text() for lit in closure.facts("exposed")] == ["exposed(a)", "exposed(f)"]
    assert table(closure) == table(evaluate(parse_program(text), record_instances=True))
    # as without the prefilter: a skipped Δ fact still counts its one step (C-25 counts steps)
    # Δ controls: 4 + located 3 + embargoed 2; Δ located: 3 + 2 matches; Δ embargoed: 1 + 0
    assert closure.stats["join_steps"] == 13


def leaf(closure: Closure, text: str) -> Source:
    fid = closure.fid(parse_literal(text))
    assert fid is not None
    return closure.leaf_unit(fid)


def test_sources_are_wrapped_on_demand_with_their_ids_and_scopes() -> None:
    units = parse_program("p(a).\nq(X) :- p(X).\n")
    extra = parse_program("p(b).\n")
    closure = evaluate(units, extra)
    assert leaf(closure, "p(a)") == Source(1, units[0], "kernel")
    assert leaf(closure, "p(b)") == Source(3, extra[0], "query")
    given_srcs = [Source(10, units[0]), Source(20, units[1])]
    closure = evaluate(given_srcs, [Source(30, extra[0], "temp")])
    assert leaf(closure, "p(b)") == Source(30, extra[0], "temp")
    assert sorted(closure.sources) == [10, 20, 30] and closure.rules == [given_srcs[1]]
    assert closure.deps(parse_literal("q(b)")) == [20, 30]


def test_make_fact_equals_the_constructor() -> None:
    lit = make_literal("p", True, (Const("sym", "a"), Const("num", "1.5")))
    assert lit == Literal("p", True, (Const("sym", "a"), Const("num", "1.5"))) and type(lit) is Literal
    fact = make_fact("l1", lit, (3, 1), "f:-p(a,1.5)")
    made = Fact("l1", lit, (3, 1))
    assert fact == made and hash(fact) == hash(made) and fact.key == made.key and fact.pos == (3, 1)
    assert pickle.loads(pickle.dumps(fact)) == made


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="p(a,1.5) \t\r\n%[l]-X:", max_size=40))
def test_one_regex_match_per_line(text: str) -> None:
    lines = text.split("\n")
    matches = _FAST_LINES.findall(text)
    assert len(matches) == len(lines)
    for line, (_, _, _, pred, _, other) in zip(lines, matches, strict=True):
        assert bool(pred) == (_FAST_FACT.fullmatch(line) is not None)
        assert pred or other == line


def test_fast_parse_of_new_and_non_canonical_constants() -> None:
    text = "p(1.50,a).\np(1.5, a).\n[l] p(b,-0).\np(a,b).\nq( a ,b).\np(0,a).% c\n"
    fast = parse_program(text)
    slow = parse_program(text, fast=False)
    assert fast == slow
    assert (
        [u.key for u in fast]
        == [u.key for u in slow]
        == [
            "f:p(1.5,a)",
            "f:p(1.5,a)",
            "f:p(b,0)",
            "f:p(a,b)",
            "f:q(a,b)",
            "f:p(0,a)",
        ]
    )
    assert [u.pos for u in fast] == [u.pos for u in slow]


def test_evaluation_leaves_no_cyclic_garbage() -> None:
    """Promoted garbage cycles would wait for a full collection: the executor makes none."""
    text = "e(a,b). e(b,c). f(b,x). f(c,x).\nh(X,Z) :- e(X,Y), e(Y,Z), f(Z,W).\nh(X,Y) :- h(Y,X).\n"
    gc.collect()
    gc.disable()
    try:
        closure = evaluate(parse_program(text))
        assert len(closure.facts("h")) == 2
        del closure
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_promoting_collector_restores_state_and_respects_frozen_objects() -> None:
    assert gc.isenabled()
    with paused_collector(promote=True):
        keep = [(i, i) for i in range(PROMOTE_AT)]
    assert gc.isenabled() and gc.get_count()[0] < 1000 and len(keep) == PROMOTE_AT
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with paused_collector(promote=True):
            pass
        assert gc.get_freeze_count() == frozen  # somebody else's frozen objects stay frozen
    finally:
        gc.unfreeze()
