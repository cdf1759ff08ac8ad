"""The verifiers rubric on a toy environment built from local data: no model, no network — the
completions are given, and scored through the rubric API the library itself calls (issue 17)."""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest
from tests.rewards.completions import FIVE, WRONG_QUANTITY

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
vf = pytest.importorskip("verifiers", reason="verifiers is not installed (pip install 'cotaudit[verifiers]')")
datasets = pytest.importorskip("datasets", reason="datasets is not installed (pip install 'cotaudit[data]')")

from cotaudit.integrations.verifiers import cotaudit_reward_func, cotaudit_rubric  # noqa: E402

UNCHECKABLE = "GIVEN:\n  a := 10\nGOAL: b\nEQ[e1]: b = a ** a ** a ** a = 1\nANS: b\n"  # TE_E014 only
COMPLETIONS = [*FIVE, WRONG_QUANTITY, UNCHECKABLE]


def _env(rubric: Any) -> Any:
    rows = [{"question": f"Janet's ducks, take {i}", "answer": "18"} for i in range(len(COMPLETIONS))]
    return vf.SingleTurnEnv(dataset=datasets.Dataset.from_list(rows), rubric=rubric)


def _states(env: Any) -> list[Any]:
    states = []
    for row, text in zip(env.get_dataset(), COMPLETIONS, strict=True):
        state = vf.State(
            input={
                "prompt": row["prompt"],
                "answer": row["answer"],
                "example_id": row["example_id"],
                "info": {},
            }
        )
        state["completion"] = [vf.AssistantMessage(content=text)]  # what the model "answered"
        state["trajectory"] = []
        states.append(state)
    return states


def test_the_rubric_scores_a_group_of_rollouts() -> None:
    rubric = cotaudit_rubric()
    assert isinstance(rubric, vf.Rubric)
    env = _env(rubric)
    states = _states(env)
    asyncio.run(env.rubric.score_group(states))
    assert [s["reward"] for s in states] == [1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0]
    # the 0.0 of the last one is "could not check", and the metric says so
    assert [s["metrics"]["cotaudit_checked"] for s in states] == [1.0] * 6 + [0.0]
    assert states[-1]["cotaudit"]["te/process"].status == "unknown"


def test_answer_aware_rubric_reads_the_dataset_answer() -> None:
    env = _env(cotaudit_rubric(mode="process*answer"))
    states = _states(env)
    asyncio.run(env.rubric.score_group(states))
    assert [s["reward"] for s in states] == [1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0]
    assert states[5]["cotaudit"]["te/process*answer"].answer.check.extracted == "9"


def test_one_rollout_and_a_rubric_of_your_own() -> None:
    mine = vf.Rubric(funcs=[cotaudit_reward_func(unknown_reward=-1.0, name="audit")], weights=[0.5])
    env = _env(mine)
    states = _states(env)
    for state in (states[0], states[-1]):
        asyncio.run(mine.score_rollout(state))
    assert (states[0]["reward"], states[0]["metrics"]) == (0.5, {"audit": 1.0})
    assert states[-1]["reward"] == -0.5  # unknown_reward -1.0, weighted


def test_bad_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown reward mode"):
        cotaudit_rubric(mode="sum")
