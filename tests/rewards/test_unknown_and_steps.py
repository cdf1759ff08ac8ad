""" "Could not check" is never "wrong", every reward call is time-bounded, and per-step rewards
come out for te, vericot and cot (issue 17)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.batch.slow_engine import slow_check
from tests.rewards.completions import FIVE, GOOD, WRONG, chat

from cotaudit import api
from cotaudit.rewards import (
    Shaping,
    compute_score,
    make_step_reward,
    make_trl_reward,
    score_batch,
    score_completion,
    status_of,
    step_rewards,
)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


@pytest.fixture
def slow() -> str:
    api.register_engine("slow", slow_check)
    return "slow"


def test_a_budget_overrun_is_unknown_not_wrong(slow: str) -> None:
    out = score_completion("WORK 600", slow, time_limit=0.2)
    assert out.status == "unknown" and out.reward is None
    assert out.report is not None and out.report.findings[0].code == "COTAUDIT_W001"
    assert (
        score_completion("WORK 600", slow, time_limit=0.2, shaping=Shaping(abstain_reward=0.25)).reward
        == 0.25
    )
    # near miss: a quick item in the same engine is judged
    assert score_completion("fine", slow, time_limit=5).status == "pass"
    assert score_completion("BAD", slow, time_limit=5).status == "fail"


def test_the_whole_call_is_bounded_too(slow: str) -> None:
    fn = make_trl_reward(engine=slow, time_limit=0.2, call_time_limit=0.3)
    assert fn(completions=["WORK 600", "WORK 600", "WORK 600", "fine"]) == [None, None, None, None]
    outcomes = score_batch(["fine", "fine"], {}, engine=slow, call_time_limit=0)
    assert [o.reason for o in outcomes] == ["time: the call's time limit was reached"] * 2


def test_crashes_and_resource_limits_are_unknown() -> None:
    crash = score_completion("CRASH", "fake")
    assert crash.status == "unknown" and crash.reward is None and "could not check" in crash.reason
    huge = "GIVEN:\n  a := 10\nGOAL: b\nEQ[e1]: b = a ** a ** a ** a = 1\nANS: b\n"
    out = score_completion(huge)
    assert out.report is not None and [f.code for f in out.report.findings] == ["TE_E014"]
    assert out.status == "unknown" and out.reward is None
    # near miss: a real error beside the resource limit is a fail
    both = huge.replace("ANS: b", "EQ[e2]: c = a + 1 = 12\nANS: b")
    assert status_of(api.check(both)) == "fail" and score_completion(both).reward == 0.0


def test_unsure_engines_and_verl_numbers() -> None:
    assert score_completion("UNSURE", "fake").status == "unknown"
    assert compute_score("fake", "UNSURE", None, None) == 0.0  # verl needs a number...
    assert compute_score("fake", "UNSURE", None, None, unknown_reward=-0.5) == -0.5
    tagged = compute_score("fake", "UNSURE", None, None, return_dict=True)
    assert isinstance(tagged, dict) and tagged["checked"] is False and tagged["status"] == "unknown"
    wrong = compute_score("fake", "BAD", None, None, return_dict=True)
    assert isinstance(wrong, dict) and wrong["checked"] is True and wrong["score"] == 0.0


def test_te_step_rewards_mark_the_line_that_broke() -> None:
    steps = make_step_reward()
    # steps: STEP s1, EQ e1, CHECK c1, EQ e2, ANS
    assert steps(completions=FIVE) == [[1.0] * 5, [1.0, 0.0, 1.0, 1.0, 1.0], [1.0] * 5, [1.0] * 5, []]
    assert steps(completions=[chat(WRONG)]) == [[1.0, 0.0, 1.0, 1.0, 1.0]]
    least = make_step_reward(reduce="min")
    assert least(completions=FIVE) == [1.0, 0.0, 1.0, 1.0, None]
    with pytest.raises(ValueError, match="unknown reduction"):
        make_step_reward(reduce="max")


def test_te_steps_that_could_not_be_checked() -> None:
    huge = "GIVEN:\n  a := 10\nGOAL: b\nEQ[e1]: b = a ** a ** a ** a = 1\nANS: b\n"
    assert make_step_reward()(completions=[huge]) == [[0.5, 1.0]]
    unknown = make_step_reward(values={"verified": 1.0, "wrong": 0.0, "unchecked": None})
    assert unknown(completions=[huge]) == [[None, 1.0]]


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("  a := 4\n  a := 5\n  b := 5\n", [1.0, 0.0, 1.0]),  # a declared twice: e2 uses a
        ("  a := 4 +\n  b := 5\n", [1.0, 0.0, 1.0]),  # a malformed declaration of a
        ("  a := 4\n  b := 5\n  z := 1/0\n", [0.0, 1.0, 1.0]),  # z used by no step: the first
        ("  a := 4\n  b := 5\n", [1.0, 1.0, 1.0]),  # near miss: clean premises charge nothing
    ],
)
def test_te_an_error_on_a_given_line_is_charged_to_the_step_that_builds_on_it(
    given: str, expected: list[float]
) -> None:
    from cotaudit.rewards import step_rewards

    trace = "GIVEN:\n" + given + "GOAL: d\nEQ[e1]: c = 2 * 3 = 6\nEQ[e2]: d = a + b = 9\nANS: d\n"
    steps, trace_reward = step_rewards(trace, "te")
    assert steps == expected
    assert trace_reward == (1.0 if expected == [1.0, 1.0, 1.0] else 0.0)


def test_vericot_step_rewards() -> None:
    text = (EXAMPLES / "vericot" / "B_sara_contradicted.vcot.json").read_text(encoding="utf-8")
    per_step, reward = step_rewards(text, "vericot")
    assert per_step == [1.0, 1.0, 1.0, 1.0, 0.0] and reward == 0.0
    fenced = "Let me formalise.\n```json\n" + text + "```"
    assert make_step_reward("vericot")(completions=[fenced]) == [[1.0, 1.0, 1.0, 1.0, 0.0]]
    valid = json.loads((EXAMPLES / "vericot" / "A_sara_valid.vcot.json").read_text(encoding="utf-8"))
    assert make_step_reward("vericot", reduce="min")(completions=[json.dumps(valid)]) == [1.0]


def test_cot_step_rewards_read_the_reasoning_block() -> None:
    slip = (EXAMPLES / "cot" / "bakery_slip.txt").read_text(encoding="utf-8")
    assert step_rewards(slip)[0] == [1.0, 1.0, 0.0, 1.0]
    # inside an R1-style reasoning block the chain is still the chain
    steps = make_step_reward("cot")(completions=["<think>\n" + slip + "\n</think>\nThe answer is 70."])
    assert 0.0 in steps[0] and steps[0].count(0.0) == 1
    assert step_rewards(GOOD, "type6")[0] == []  # an engine without steps: no list


def test_a_structured_trace_states_only_the_answer_its_engine_reads() -> None:
    from pathlib import Path

    from cotaudit.rewards import score_completion

    root = Path(__file__).resolve().parents[2] / "examples" / "vericot"
    # a SARA trace reads no answer: its last line ("}") is not one, so gold finds none
    sara = (root / "A_sara_valid.vcot.json").read_text(encoding="utf-8")
    out = score_completion(sara, "vericot", gold="}", mode="answer")
    assert out.answer is not None and out.answer.status == "fail"
    assert out.answer.reason == "no final answer found" and out.answer.check.extracted is None
    # near miss: a ProntoQA trace whose predicted label the engine reads
    chain = (root / "F_prontoqa_1_chain.vcot.json").read_text(encoding="utf-8")
    out = score_completion(chain, "vericot", gold="B", mode="answer")
    assert out.answer is not None and out.answer.status == "pass"
    # te still falls back to what the text states when it has no ANS value
    te = "GIVEN:\n  a := 4\nGOAL: c\nEQ[e1]: c = a + 5 = 9\nThe answer is 9.\n"
    out = score_completion(te, "te", gold="9", mode="answer")
    assert out.answer is not None and out.answer.check.extracted is not None
