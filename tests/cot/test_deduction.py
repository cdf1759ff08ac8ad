"""Logical deduction: placement claims entailed by the statements stated so far (Z3), position
lists, "can be any", alternatives, answers; each behaviour fires and has a near-miss."""

from __future__ import annotations

import json

import pytest

from cotaudit import api
from cotaudit.cot.replay import deduction
from cotaudit.cot.replay.ordering import Lexicon, Solver, at, before, neg, parse_puzzle

pytest.importorskip("z3")

from tests.cot.puzzles import GOOD, PLAN, PUZZLE, with_step


def replay(steps: list[str], problem: str = PUZZLE) -> deduction.Replay:
    return deduction.REPLAYER.replay(problem, steps)


def failing(steps: list[str]) -> list[tuple[int, str]]:
    return [(c.step, c.claimed) for c in replay(steps).checks if not c.ok]


def test_a_sound_trace_holds_and_every_step_is_complete() -> None:
    r = replay(GOOD)
    assert [c for c in r.checks if not c.ok] == []
    assert r.complete == {1, 2, 3, 4, 5}
    assert any("stated" in c.what for c in r.checks if c.step == 1)


def test_a_placement_before_its_statement_is_quoted_is_wrong_even_if_true_at_the_end() -> None:
    early = with_step(
        2,
        "The black book is the rightmost. So from left to right: first can be any book, then second is "
        "the green book, then third is the white book, then fourth can be any book, then fifth is the "
        "black book.",
    )
    assert failing(early)[0] == (2, "third is the white book")
    assert failing(GOOD) == []  # near-miss: the same placement once its statements are stated (step 4)


def test_the_shown_counter_order_satisfies_the_premises_and_breaks_the_claim() -> None:
    puzzle = parse_puzzle(PUZZLE)
    assert puzzle is not None
    solver = Solver(puzzle)
    premises = [0, 2]  # green second from the left, black rightmost
    claim = at(3, 3)  # the white book third
    assert solver.entails(premises, claim) is False
    order = solver.counter_order(premises, claim)
    assert order is not None
    assert all(puzzle.statements[k][1].holds(order) for k in premises) and not claim.holds(order)
    assert solver.entails([0, 1, 2, 3], claim) is True
    assert solver.counter_order([0, 1, 2, 3], claim) is None


def test_a_misplaced_statement_is_wrong() -> None:
    bad = with_step(
        2,
        "The black book is the rightmost. So from left to right: first can be any book, then second is "
        "the green book, then third and fourth can be any book, then fifth can be any book.",
    )
    assert failing(bad) and failing(bad)[0][0] == 2  # "fifth can be any": only the black book fits


@pytest.mark.parametrize(
    ("text", "fires"),
    [
        # the white book cannot be first once it is right of the green (second) book
        ("The white book is to the right of the green book. So from left to right: first can be any "
         "book, then second is the green book, then third and fourth can be any book, then fifth is the "
         "black book.", True),
        ("The white book is to the right of the green book. So from left to right: first can be any book "
         "except the white book, then second is the green book, then third and fourth can be any book, "
         "then fifth is the black book.", False),
        # alternatives: each must be possible (the white book cannot be first)
        ("The white book is to the right of the green book. So from left to right: first can be the blue "
         "book or the white book, then second is the green book, then third and fourth can be any book, "
         "then fifth is the black book.", True),
    ],
)  # fmt: skip
def test_can_be_any_and_alternatives(text: str, fires: bool) -> None:
    assert bool(failing(with_step(3, text))) is fires


def test_except_names_objects_that_must_be_elsewhere() -> None:
    wrong = with_step(
        3,
        "The white book is to the right of the green book. So from left to right: first can be the blue "
        "book or the red book, then second is the green book, then third and fourth can be any book except "
        "the white book, then fifth is the black book.",
    )
    assert failing(wrong) == [(3, "third and fourth can be any book except the white book")]


def test_a_position_past_the_end_is_wrong() -> None:
    past = [*GOOD[:4], GOOD[4] + " So then sixth is the blue book."]
    assert (4, "sixth is the blue book") in failing(past)


def test_prose_conclusions_and_negations() -> None:
    steps = [
        PLAN,
        "The green book is the second from the left, so the green book cannot be the leftmost.",
        "The white book is to the right of the green book, so the white book must be the leftmost.",
    ]
    assert failing(steps) == [(2, "the white book must be the leftmost")]
    near = [*steps[:2], "The white book is to the right of the green book, so it cannot be the leftmost."]
    assert failing(near) == []


def test_the_answer_must_name_an_entailed_option() -> None:
    assert failing(with_step(5, "So the answer is (D)")) == [(5, "the answer is (d)")]
    assert failing(with_step(5, "So the answer is (H)")) == [(5, "the answer is (h)")]
    assert failing(with_step(5, "So the answer is (C)")) == []


def test_orientation_from_the_other_end() -> None:
    reversed_list = with_step(
        4,
        "The red book is to the right of the white book. So from right to left: first is the black book, "
        "then second is the red book, then third is the white book, then fourth is the green book, then "
        "fifth is the blue book.",
    )
    assert failing(reversed_list) == []
    swapped = (
        reversed_list[4]
        .replace("second is the red book", "second is the white book")
        .replace("third is the white book", "third is the red book")
    )
    assert failing([*reversed_list[:4], swapped, reversed_list[5]])[0][0] == 4


def test_a_statement_in_other_words_is_a_quote() -> None:
    lex = Lexicon(["red book", "green book", "blue book", "white book", "black book"], "books")
    assert lex.position("the fourth from the right") == lex.position("the second from the left") == 2
    steps = [PLAN, "The green book is the fourth from the right. So the green book cannot be the leftmost."]
    r = replay(steps)
    assert [c for c in r.checks if not c.ok] == [] and 1 in r.complete


def test_what_is_not_read_is_never_a_finding_and_leaves_the_step_incomplete() -> None:
    steps = [PLAN, "The green book is the second from the left. The green book feels lonely on the shelf."]
    r = replay(steps)
    assert [c for c in r.checks if not c.ok] == [] and 1 not in r.complete
    assert any("not read" in n for n in r.notes)


def test_a_true_conclusion_with_a_needless_reason_is_not_counted_complete() -> None:
    steps = [
        PLAN,
        "The white book is to the right of the green book, so the white book cannot be the leftmost.",
        "The red book is to the right of the white book, so the white book cannot be the leftmost.",
    ]
    r = replay(steps)
    assert [c for c in r.checks if not c.ok] == []
    assert 1 in r.complete and 2 not in r.complete  # step 2's reason is not why it holds


def test_an_unreadable_puzzle_judges_nothing() -> None:
    odd = PUZZLE.replace("- The black book is the rightmost.", "- The black book is quite dusty.")
    r = replay(GOOD, odd)
    assert r.checks == [] and r.notes


def test_golf_ranks_and_relations_to_a_position() -> None:
    golf = """The following statements each describe a set of three objects arranged in a fixed order.
- In a golf tournament, there were three golfers: Ann, Bea, and Cy.
- Bea finished first.
- Cy finished below Ann."""
    good = [
        "Bea finished first. So Ann finished second or lower.",
        "Cy finished below Ann, so Cy finished last.",
    ]
    checks = deduction.REPLAYER.replay(golf, good).checks
    assert len(checks) == 4 and all(c.ok for c in checks)
    bad = ["Bea finished first. So Ann finished second or higher.", "So Cy finished last."]
    assert [c.ok for c in deduction.REPLAYER.replay(golf, bad).checks] == [True, False, False]


def test_facts_render_and_evaluate_alike() -> None:
    f = neg(before(0, 1))
    assert f.smt() == "(not (< o0 o1))"
    assert f.holds([2, 1, 3]) and not f.holds([1, 2, 3]) and f.compile()([2, 1, 3])


def test_through_the_engine_a_complete_step_carries_its_evidence() -> None:
    record = {"input": PUZZLE, "steps": GOOD, "target": "(C)"}
    report = api.check(json.dumps(record), "cot")
    assert report.verdict == "pass" and report.details["task"] == "logical_deduction"
    rows = report.details["steps"]
    assert rows[4]["complete"] is True and rows[4]["replayed"]
    assert "complete" not in rows[0]  # the plan sentence is not read
    bad = api.check(json.dumps({**record, "steps": with_step(5, "So the answer is (D)")}), "cot")
    assert bad.verdict == "fail" and bad.details["first_wrong_step"] == 5


def test_hostile_traces_stay_bounded_and_never_flag_what_was_not_decided() -> None:
    import time

    from cotaudit.cot.replay import ordering

    many = GOOD + GOOD[4:] * 200 + ["\ud800 the white book \udfff is " + "very " * 3000 + "old."]
    start = time.perf_counter()
    r = replay(many)
    assert time.perf_counter() - start < 60 and [c for c in r.checks if not c.ok] == []
    old = ordering.MAX_QUERIES
    ordering.MAX_QUERIES = 3
    try:
        capped = replay(GOOD)
    finally:
        ordering.MAX_QUERIES = old
    assert [c for c in capped.checks if not c.ok] == [] and capped.complete != {1, 2, 3, 4, 5}


def test_reports_are_byte_identical_across_processes_and_hash_seeds() -> None:
    import os
    import subprocess
    import sys

    script = (
        "import json\n"
        "from cotaudit import api\n"
        "from tests.cot.puzzles import GOOD, PUZZLE, with_step\n"
        "for steps in (GOOD, with_step(3, GOOD[4]), with_step(5, 'So the answer is (D)')):\n"
        "    r = api.check(json.dumps({'input': PUZZLE, 'steps': steps}), 'cot')\n"
        "    print(json.dumps(r.to_dict(timing=False), sort_keys=True))\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    outs = []
    for seed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        env["PYTHONPATH"] = os.pathsep.join([os.path.join(root, "src"), root, env.get("PYTHONPATH", "")])
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300, cwd=root
        )
        assert done.returncode == 0, done.stderr[-2000:]
        outs.append(done.stdout)
    assert outs[0] == outs[1] and outs[0].count("\n") == 3


def test_long_blank_runs_inside_a_clause_cost_linear_time() -> None:
    import time

    steps = ["the red book" + " " * 3_900 + "is left of the blue book.", "a" + " " * 3_990 + "so b"] * 300
    start = time.perf_counter()
    replay(steps)
    assert (
        time.perf_counter() - start < 15.0
    )  # quadratic patterns took about 0.05 s a step here (25 s in all)
