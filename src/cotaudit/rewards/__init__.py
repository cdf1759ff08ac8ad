"""Rewards from audits, for RL trainers: TRL reward functions, verl's ``compute_score``, per-step
rewards and the :class:`Outcome` behind each of them.

- The trace is found in real completions — chat messages, ```` ``` ```` fences, after a
  ``<think>…</think>`` block, inside prose — by :func:`cotaudit.completions.find_trace`, the
  extraction ``cotaudit te extract`` uses too. No trace at all scores ``invalid_reward``.
- **Process** reward: the audit's verdict, shaped (:mod:`cotaudit.rewards.shaping`).
- **Answer** reward: the trace's final answer against the gold answer
  (:mod:`cotaudit.rewards.answer`); the two combine by ``mode`` (:mod:`cotaudit.rewards.score`):
  ``process``, ``answer``, ``process*answer``, ``process+answer``, ``min``.
- **Per-step** rewards for te, vericot and cot (:mod:`cotaudit.rewards.steps`).
- Each completion is audited under a time bound (``time_limit``, default 10 s; a call can also
  be bounded whole with ``call_time_limit``), and **"could not check" is never "wrong"**: it
  has its own outcome (``unknown``) and value (``abstain_reward``, ``None`` by default).

Default rewards: pass 1.0 (type6: coherence / 5); fail 0.0; invalid (no trace) 0.0; unknown
(could not check) ``None`` — TRL: no reward for this sample; verl: ``unknown_reward`` (0.0)
with ``checked`` False in its dict form.
"""

from __future__ import annotations

from typing import Any

from cotaudit.completions import completion_text, find_trace
from cotaudit.rewards.answer import GOLD_COLUMNS, AnswerOutcome, check_answer, gold_from, normalise_gold
from cotaudit.rewards.score import DEFAULT_TIME_LIMIT, MODES, Outcome, combine_status, score_completion
from cotaudit.rewards.shaping import (
    DEFAULT_ENGINE,
    DEFAULT_SHAPING,
    GRADED_SCALES,
    NOT_CHECKED_CODES,
    Shaping,
    Status,
    reward_for,
    status_of,
)
from cotaudit.rewards.steps import STEP_ENGINES, STEP_REWARDS, step_rewards_for, step_statuses
from cotaudit.rewards.trl import (
    cotaudit_answer_reward,
    cotaudit_process_answer_reward,
    cotaudit_reward,
    make_step_reward,
    make_trl_reward,
    score_batch,
)
from cotaudit.rewards.verl import compute_score

__all__ = [
    "DEFAULT_ENGINE",
    "DEFAULT_SHAPING",
    "DEFAULT_TIME_LIMIT",
    "GOLD_COLUMNS",
    "GRADED_SCALES",
    "MODES",
    "NOT_CHECKED_CODES",
    "STEP_ENGINES",
    "STEP_REWARDS",
    "AnswerOutcome",
    "Outcome",
    "Shaping",
    "Status",
    "check_answer",
    "combine_status",
    "completion_text",
    "compute_score",
    "cotaudit_answer_reward",
    "cotaudit_process_answer_reward",
    "cotaudit_reward",
    "find_trace",
    "gold_from",
    "make_step_reward",
    "make_trl_reward",
    "normalise_gold",
    "reward_for",
    "score_batch",
    "score_completion",
    "score_text",
    "status_of",
    "step_rewards",
    "step_rewards_for",
    "step_statuses",
]


def score_text(text: Any, engine: str = DEFAULT_ENGINE, shaping: Shaping = DEFAULT_SHAPING) -> float | None:
    """The process reward of one completion (a string or chat messages)."""
    return score_completion(text, engine, shaping=shaping).reward


def step_rewards(
    text: Any, engine: str = "cot", values: Any = STEP_REWARDS
) -> tuple[list[float | None], float | None]:
    """(per-step rewards, process reward) of one completion; ``([], invalid_reward)`` when no
    trace was found or the engine cannot run."""
    outcome = score_completion(text, engine, steps=True, step_values=values)
    return list(outcome.steps), outcome.reward
