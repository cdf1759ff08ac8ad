"""Rewards on completions as models write them (issue 17), called as TRL and verl call them."""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import pytest
from tests.rewards.completions import FENCED, FIVE, GOOD, PROSE, THINK, WRONG, WRONG_QUANTITY, chat

from cotaudit import api
from cotaudit.rewards import (
    Shaping,
    compute_score,
    cotaudit_answer_reward,
    cotaudit_process_answer_reward,
    cotaudit_reward,
    make_trl_reward,
    score_completion,
)


def _trl(reward_func: Any, completions: list[Any], **columns: list[Any]) -> list[float]:
    """TRL GRPOTrainer._calculate_rewards for one custom reward function, minus torch."""
    kwargs: dict[str, Any] = {**columns, "trainer_state": object()}
    _ = reward_func.__name__
    out = reward_func(
        prompts=["q"] * len(completions), completions=completions, completion_ids=None, **kwargs
    )
    return [math.nan if r is None else float(r) for r in out]


def test_the_five_completions_of_the_issue() -> None:
    assert cotaudit_reward(completions=FIVE) == [1.0, 0.0, 1.0, 1.0, 0.0]
    # the last 0.0 is invalid_reward (no trace), not fail_reward: tell them apart by shaping
    shaped = make_trl_reward(shaping=Shaping(invalid_reward=-1.0))
    assert shaped(completions=FIVE) == [1.0, 0.0, 1.0, 1.0, -1.0]
    # the same in TRL's conversational format, with the dataset's columns beside them
    assert _trl(shaped, [chat(c) for c in FIVE], ground_truth=["18"] * 5) == [1.0, 0.0, 1.0, 1.0, -1.0]


def test_outcomes_say_why() -> None:
    wrong = score_completion(FENCED.replace("= 9\n", "= 8\n", 1))
    assert wrong.status == "fail" and wrong.reason.startswith("line 11: TE_E006")  # line in the completion
    assert wrong.line_offset == 3 and wrong.report is not None and wrong.report.verdict == "fail"
    none = score_completion(PROSE)
    assert none.status == "invalid" and none.reason == "no trace found in the completion"
    assert score_completion(THINK).status == "pass" and score_completion(THINK).reason == ""


def test_answer_reward_reads_gold_and_catches_the_wrong_quantity() -> None:
    gold = {"ground_truth": ["18"] * 5}
    assert cotaudit_answer_reward(completions=FIVE, **gold) == [1.0, 1.0, 1.0, 1.0, 0.0]
    # the wrong trace still states 18 (its slip is in the process), so only the product drops it
    assert cotaudit_process_answer_reward(completions=FIVE, **gold) == [1.0, 0.0, 1.0, 1.0, 0.0]
    # a clean trace that computes the wrong quantity: process 1, answer 0, process × answer 0
    assert cotaudit_reward(completions=[WRONG_QUANTITY]) == [1.0]
    assert cotaudit_answer_reward(completions=[WRONG_QUANTITY], answer=["18"]) == [0.0]
    assert cotaudit_process_answer_reward(completions=[WRONG_QUANTITY], gold=["$18"]) == [0.0]
    # near miss: the quantity it computes is the one asked for
    assert cotaudit_process_answer_reward(completions=[WRONG_QUANTITY], gold=["9"]) == [1.0]


def test_gold_comes_from_the_usual_columns_in_their_usual_shapes() -> None:
    for column, value in [
        ("gold", "18"),
        ("ground_truth", 18),
        ("answer", "She makes 9 * 2 = 18 dollars.\n#### 18"),
        ("solution", "So the answer is $\\boxed{18}$."),
        ("ground_truth", {"ground_truth": "18", "style": "rule"}),
    ]:
        assert cotaudit_answer_reward(completions=[GOOD], **{column: [value]}) == [1.0], column
    pick = make_trl_reward(mode="answer", gold_column="target")
    assert pick(completions=[GOOD], target=["18"], answer=["7"]) == [1.0]
    # no gold: the answer could not be checked, which is not "wrong"
    assert cotaudit_answer_reward(completions=[GOOD]) == [None]
    assert cotaudit_answer_reward(completions=[GOOD], answer=[""]) == [None]


def test_answer_compared_with_math_verify_for_latex_gold() -> None:
    pytest.importorskip("math_verify", reason="math-verify is not installed (pip install 'cotaudit[cot]')")
    half = "GIVEN:\n  a := 1\n  b := 2\nGOAL: r\nEQ[e1]: r = a / b = 1/2\nANS: r\n"
    assert cotaudit_answer_reward(completions=[half], gold=["\\frac{1}{2}"]) == [1.0]
    assert cotaudit_answer_reward(completions=[half], gold=["\\frac{1}{3}"]) == [0.0]
    assert cotaudit_answer_reward(completions=[half], gold=["0.5"]) == [1.0]  # numbers: exact


def test_an_answer_listing_several_numbers_earns_nothing() -> None:
    hedge = "Step 1: 3 + 4 = 7.\nThe answer is 7 or 8."
    out = score_completion(hedge, "cot", gold="7", mode="answer")
    assert out.status == "unknown" and out.reward is None and "several" in out.reason
    assert (
        score_completion("Step 1: 3 + 4 = 7.\nThe answer is 7.", "cot", gold="7", mode="answer").reward == 1.0
    )
    assert (
        score_completion("Step 1: 3 + 4 = 7.\nThe answer is 8.", "cot", gold="7", mode="answer").reward == 0.0
    )


def test_modes_combine_the_two_halves() -> None:
    def reward(text: str, mode: str, gold: str = "18") -> float | None:
        return score_completion(text, gold=gold, mode=mode).reward

    assert [reward(WRONG, m) for m in ("process", "answer", "process*answer", "process+answer", "min")] == [
        0.0,
        1.0,
        0.0,
        0.5,
        0.0,
    ]
    assert reward(WRONG_QUANTITY, "process+answer") == 0.5
    assert reward(GOOD, "process+answer") == 1.0
    # a known fail decides a product even when the other half could not be checked
    assert score_completion(WRONG, mode="process*answer").status == "fail"
    assert score_completion(GOOD, mode="process*answer").status == "unknown"  # no gold
    assert score_completion(PROSE, gold="18", mode="process*answer").status == "invalid"
    with pytest.raises(ValueError, match="unknown reward mode"):
        score_completion(GOOD, mode="sum")
    with pytest.raises(ValueError, match="unknown reward mode"):
        make_trl_reward(mode="product")


def test_verl_compute_score_reads_ground_truth_in_answer_modes() -> None:
    assert compute_score("gsm8k", WRONG_QUANTITY, "18", None) == 1.0  # process only: the default
    assert compute_score("gsm8k", WRONG_QUANTITY, "18", None, mode="process*answer") == 0.0
    assert compute_score("gsm8k", FENCED, "#### 18", {"index": 3}, mode="process*answer") == 1.0
    assert compute_score("gsm8k", PROSE, "18", None, mode="answer") == 0.0


def test_verl_dict_form_has_the_same_keys_on_every_call() -> None:
    extra: dict[str, list[Any]] = defaultdict(list)
    for text in FIVE:
        out = compute_score("gsm8k", text, "18", None, mode="process*answer", return_dict=True)
        assert isinstance(out, dict)
        for key, value in out.items():
            extra[key].append(value)
    assert all(len(v) == 5 for v in extra.values())
    assert extra["score"] == [1.0, 0.0, 1.0, 1.0, 0.0]
    assert extra["status"] == ["pass", "fail", "pass", "pass", "invalid"]
    assert extra["checked"] == [True] * 5


def test_engine_column_and_unknown_engines() -> None:
    fn = make_trl_reward(engine="te")
    assert fn(completions=["fine", GOOD], engine=["fake", "te"]) == [1.0, 1.0]
    assert api.engine_spec("fake").name == "fake"
    assert fn(completions=[GOOD], engine=["nope"]) == [0.0]  # an engine that cannot run: invalid
