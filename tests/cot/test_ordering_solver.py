"""The ordering solver against two references: Z3 on the SMT-LIB text of each fact (what the
API-built terms replace) and exhaustive enumeration of the orders (what the shown counter-order
must equal: the first order, in enumeration order, that satisfies the premises and breaks the
claim)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("z3")

from cotaudit.cot.replay.ordering import Fact, Lexicon, Puzzle, Solver, any_of, at, before, neg
from cotaudit.vericot.smt import Z3Session

NAMES = ["apple", "pear", "plum", "fig", "kiwi", "lime", "date"]


def _facts(n: int) -> st.SearchStrategy[Fact]:
    objs = st.integers(0, n - 1)
    atoms = st.one_of(
        st.builds(at, objs, st.integers(1, n)),
        st.builds(before, objs, objs),
    )

    def extend(inner: st.SearchStrategy[Fact]) -> st.SearchStrategy[Fact]:
        return st.one_of(
            inner.map(neg),
            inner.map(lambda f: Fact("not", (f,))),
            st.lists(inner, min_size=2, max_size=3).map(any_of),
            st.lists(inner, min_size=2, max_size=3).map(lambda fs: Fact("and", tuple(fs))),
        )

    return st.recursive(atoms, extend, max_leaves=4)


@st.composite
def problems(draw: st.DrawFn) -> tuple[Puzzle, list[int], Fact]:
    n = draw(st.integers(2, 5))
    statements = draw(st.lists(_facts(n), min_size=0, max_size=4))
    puzzle = Puzzle(Lexicon(NAMES[:n], "fruits"), [(f"s{k}", f) for k, f in enumerate(statements)], {})
    premises = sorted(draw(st.sets(st.integers(0, len(statements) - 1))) if statements else set())
    return puzzle, premises, draw(_facts(n))


def _orders(n: int) -> list[tuple[int, ...]]:
    return list(itertools.permutations(range(1, n + 1)))


def _smtlib_entails(puzzle: Puzzle, premises: list[int], claim: Fact) -> bool:
    n = puzzle.lex.n
    session = Z3Session(timeout_ms=2000)
    decls = "".join(f"(declare-const o{j} Int)" for j in range(n))
    text = decls + "".join(f"(assert (and (<= 1 o{j}) (<= o{j} {n})))" for j in range(n))
    text += "(assert (distinct " + " ".join(f"o{j}" for j in range(n)) + "))"
    text += "".join(f"(assert {puzzle.statements[k][1].smt()})" for k in premises)
    tags = [session.new_tag(t) for t in session.parse(text)]
    goal = session.parse(decls + f"(assert (not {claim.smt()}))")[0]
    raw = session.check(tags, goal, 2000)
    assert raw.result in ("sat", "unsat")
    return raw.result == "unsat"


@settings(max_examples=150, deadline=None)
@given(problems())
def test_entailment_agrees_with_smtlib_text_and_with_every_order(
    problem: tuple[Puzzle, list[int], Fact],
) -> None:
    puzzle, premises, claim = problem
    solver = Solver(puzzle)
    verdict = solver.entails(premises, claim)
    models = [o for o in _orders(puzzle.lex.n) if all(puzzle.statements[k][1].holds(o) for k in premises)]
    by_orders = all(claim.holds(o) for o in models)
    assert verdict is by_orders
    assert verdict is _smtlib_entails(puzzle, premises, claim)
    counter = solver.counter_order(premises, claim)
    first = next((list(o) for o in models if not claim.holds(o)), None)
    assert counter == first
    assert (counter is None) is verdict


def test_a_counter_order_is_never_shown_past_seven_objects() -> None:
    names = [f"o{j}" for j in range(8)]
    puzzle = Puzzle(Lexicon(names, "objects"), [], {})
    assert Solver(puzzle).counter_order([], at(0, 1)) is None
