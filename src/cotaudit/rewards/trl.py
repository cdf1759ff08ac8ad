"""TRL reward functions: ``reward(prompts=..., completions=..., completion_ids=..., **columns)``.

TRL's ``GRPOTrainer._calculate_rewards`` calls each custom reward function with every dataset
column but ``prompt``/``completion`` as a keyword (one value per completion) plus
``trainer_state``, needs one float per completion back (``None`` → NaN: "no reward for this
sample", left out of TRL's means) and reads the function's ``__name__``. Completions are strings
(standard format) or lists of messages (conversational format).

A dataset column ``engine`` picks the engine per sample; the gold answer of the answer-aware
modes comes from ``gold``, ``ground_truth``, ``answer`` or ``solution`` (``gold_column=``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from cotaudit.rewards.answer import gold_from
from cotaudit.rewards.score import DEFAULT_TIME_LIMIT, MODES, Outcome, score_completion
from cotaudit.rewards.shaping import DEFAULT_ENGINE, DEFAULT_SHAPING, Shaping
from cotaudit.rewards.steps import STEP_REWARDS

RewardFn = Callable[..., list[float | None]]
StepRewardFn = Callable[..., list[Any]]
REDUCTIONS = ("min", "mean", "last")


def _engine_at(columns: Mapping[str, Any], index: int, default: str) -> str:
    """The ``engine`` dataset column's value for sample ``index``, if the dataset has one."""
    value = columns.get("engine")
    if isinstance(value, Sequence) and not isinstance(value, str) and index < len(value):
        value = value[index]
    return value if isinstance(value, str) and value else default


def score_batch(
    completions: Sequence[Any],
    columns: Mapping[str, Any],
    *,
    engine: str = DEFAULT_ENGINE,
    shaping: Shaping = DEFAULT_SHAPING,
    mode: str = "process",
    gold_column: str | None = None,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    call_time_limit: float | None = None,
    steps: bool = False,
    step_values: Mapping[str, float | None] = STEP_REWARDS,
) -> list[Outcome]:
    """Outcomes for a batch of completions with TRL-style columns. Once ``call_time_limit``
    seconds have gone, the remaining completions are ``unknown`` without being checked."""
    deadline = None if call_time_limit is None else time.monotonic() + call_time_limit
    out: list[Outcome] = []
    for i, completion in enumerate(completions):
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            out.append(
                Outcome(shaping.value("unknown"), "unknown", "time: the call's time limit was reached")
            )
            continue
        bound = time_limit if left is None else min(left, time_limit or left)
        gold = gold_from(columns, i, gold_column) if mode != "process" else None
        out.append(
            score_completion(
                completion,
                _engine_at(columns, i, engine),
                gold=gold,
                mode=mode,
                shaping=shaping,
                time_limit=bound,
                steps=steps,
                step_values=step_values,
            )
        )
    return out


def make_trl_reward(
    engine: str = DEFAULT_ENGINE,
    shaping: Shaping = DEFAULT_SHAPING,
    name: str = "cotaudit_reward",
    *,
    mode: str = "process",
    gold_column: str | None = None,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    call_time_limit: float | None = None,
) -> RewardFn:
    """A TRL ``reward_funcs`` entry: ``GRPOTrainer(..., reward_funcs=[fn])``.

    ``mode`` is one of :data:`~cotaudit.rewards.score.MODES` (``"process"``: the audit alone;
    ``"answer"``; ``"process*answer"``; ...). ``time_limit`` bounds each completion,
    ``call_time_limit`` the whole call."""
    if mode not in MODES:
        raise ValueError(f"unknown reward mode {mode!r} (choose from {', '.join(MODES)})")

    def reward(
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] = (),
        completion_ids: Sequence[Any] | None = None,
        **columns: Any,
    ) -> list[float | None]:
        outcomes = score_batch(
            completions,
            columns,
            engine=engine,
            shaping=shaping,
            mode=mode,
            gold_column=gold_column,
            time_limit=time_limit,
            call_time_limit=call_time_limit,
        )
        return [o.reward for o in outcomes]

    reward.__name__ = reward.__qualname__ = name
    reward.__doc__ = (
        f"cotaudit reward ({engine}, {mode}): pass {shaping.pass_reward}, fail {shaping.fail_reward}, "
        f"could not check {shaping.abstain_reward}, no trace {shaping.invalid_reward}."
    )
    return reward


def make_step_reward(
    engine: str = DEFAULT_ENGINE,
    values: Mapping[str, float | None] = STEP_REWARDS,
    name: str = "cotaudit_step_reward",
    *,
    reduce: str | None = None,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
) -> StepRewardFn:
    """Per-step rewards in TRL's calling convention: one list per completion (te, vericot, cot;
    ``[]`` when no trace was found). ``reduce`` (``"min"``, ``"mean"``, ``"last"``) turns each
    list into one float, for trainers that take one reward per completion (GRPO); a completion
    without steps, or whose steps are all unchecked with ``values["unchecked"] = None``, then
    gets ``None``."""
    if reduce is not None and reduce not in REDUCTIONS:
        raise ValueError(f"unknown reduction {reduce!r} (choose from {', '.join(REDUCTIONS)})")

    def step_reward(
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] = (),
        completion_ids: Sequence[Any] | None = None,
        **columns: Any,
    ) -> list[Any]:
        outcomes = score_batch(
            completions, columns, engine=engine, time_limit=time_limit, steps=True, step_values=values
        )
        if reduce is None:
            return [list(o.steps) for o in outcomes]
        return [_reduce(o.steps, reduce) for o in outcomes]

    step_reward.__name__ = step_reward.__qualname__ = name
    return step_reward


def _reduce(steps: list[float | None], how: str) -> float | None:
    known = [s for s in steps if s is not None]
    if not known:
        return None
    if how == "min":
        return min(known)
    if how == "mean":
        return sum(known) / len(known)
    return known[-1]


#: The ready-made TRL reward functions (te engine, default shaping).
cotaudit_reward = make_trl_reward()
cotaudit_answer_reward = make_trl_reward(mode="answer", name="cotaudit_answer_reward")
cotaudit_process_answer_reward = make_trl_reward(mode="process*answer", name="cotaudit_process_answer_reward")
