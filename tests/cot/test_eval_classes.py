"""``eval cot`` disagreement classes: "label looks wrong" only with positive evidence."""

from __future__ import annotations

import json

import pytest
from tests.cot.puzzles import GOOD, PUZZLE, with_step

from cotaudit import api
from cotaudit.eval.cot import classify

pytest.importorskip("z3")


def report(steps: list[str], problem: str | None = None) -> object:
    record: dict[str, object] = {"steps": steps}
    if problem is not None:
        record["input"] = problem
    return api.check(json.dumps(record), "cot")


def test_a_labelled_step_read_in_full_and_recomputed_equal_is_evidence() -> None:
    r = report(GOOD, PUZZLE)
    kind, why = classify(r, None, 4)
    assert (
        kind == "label looks wrong" and "fully read and replayed" in why and "third is the white book" in why
    )


def test_a_labelled_step_only_partly_read_is_our_miss() -> None:
    steps = with_step(2, GOOD[2] + " The white book has a torn cover.")
    r = report(steps, PUZZLE)
    assert classify(r, None, 0)[0] == "our miss"  # the plan sentence is not read
    kind, why = classify(r, None, 2)
    assert kind == "our miss" and "not every statement in it was read" in why and "torn cover" in why


def test_arithmetic_that_recomputes_true_is_not_a_demonstration() -> None:
    # the numbers hold, but whether they are the right numbers is not checked: our miss
    r = report(["She has 16 - 3 = 13 eggs left.", "She sells them for 13 * 2 = 26 dollars."])
    assert r.details["steps"][0]["status"] == "verified"
    assert classify(r, None, 0)[0] == "our miss"


def test_an_earlier_false_claim_is_shown_with_claimed_and_computed_values() -> None:
    r = report(["She has 16 - 3 = 12 eggs left.", "She sells them for 12 * 2 = 24 dollars."])
    kind, why = classify(r, 0, 1)
    assert kind == "label looks wrong" and "claimed 12, computed 13" in why
    assert classify(r, 0, None)[0] == "label looks wrong"


def test_the_naive_floor_flags_the_first_false_a_op_b_equals_c() -> None:
    from cotaudit.eval.cot import naive_first_wrong

    assert naive_first_wrong(["3 + 4 = 7", "7 x 2 = 15", "1 + 1 = 3"]) == 1
    assert naive_first_wrong(["3 + 4 = 7", "so 2(3 + 4) = 14", "7 / 0 = 1"]) is None  # near-miss
