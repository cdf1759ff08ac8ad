"""The verifiers rubric (``pip install 'cotaudit[verifiers]'``; the one module importing verifiers).

```python
import verifiers as vf
from cotaudit.integrations.verifiers import cotaudit_rubric

env = vf.SingleTurnEnv(dataset=ds, rubric=cotaudit_rubric(engine="te", mode="process*answer"))
```

:func:`cotaudit_rubric` is a ``vf.Rubric`` with two functions, both scored through
:func:`cotaudit.rewards.score_completion` on the rollout's ``completion`` (the trace is found in
it as in every reward; ``answer`` is the gold answer of the answer-aware modes):

- ``cotaudit_reward`` (weight 1): the reward — pass 1.0, fail 0.0, no trace ``invalid_reward``;
  "could not check" gives ``unknown_reward`` (0.0 by default: verifiers sums floats, and turns
  ``None`` or an exception into 0.0 with only a log line);
- ``cotaudit_checked`` (weight 0, a metric): 1.0 when the completion was checked, 0.0 when it
  could not be. It lands in ``state["metrics"]`` beside the reward, so a trainer can mask or
  drop unchecked rollouts instead of reading their 0.0 as "wrong".

Each rollout is scored once: the outcome is kept in ``state["cotaudit"]`` for the metric. Use
:func:`cotaudit_reward_func` alone to add the reward to a rubric of your own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from cotaudit.errors import MissingDependency
from cotaudit.rewards import Outcome, Shaping, score_completion
from cotaudit.rewards.answer import normalise_gold
from cotaudit.rewards.score import DEFAULT_TIME_LIMIT, MODES

INSTALL_HINT = "pip install 'cotaudit[verifiers]'"
try:
    import verifiers as vf
except ModuleNotFoundError:
    raise MissingDependency("verifiers", INSTALL_HINT) from None

STATE_KEY = "cotaudit"
RewardFunc = Callable[..., Any]


def _outcome_for(
    completion: Any,
    answer: Any,
    state: Any,
    *,
    engine: str,
    mode: str,
    shaping: Shaping,
    time_limit: float | None,
) -> Outcome:
    key = f"{engine}/{mode}"
    kept = state.get(STATE_KEY) if isinstance(state, dict) else None
    found = kept.get(key) if isinstance(kept, dict) else None
    if isinstance(found, Outcome):
        return found
    gold = normalise_gold(answer) if mode != "process" else None
    outcome = score_completion(
        completion, engine, gold=gold, mode=mode, shaping=shaping, time_limit=time_limit
    )
    if isinstance(state, dict):  # vf.State is a dict: keep the outcome for the metric
        if not isinstance(kept, dict):
            kept = {}
            state[STATE_KEY] = kept
        kept[key] = outcome
    return outcome


def _func(
    name: str,
    engine: str,
    mode: str,
    shaping: Shaping | None,
    time_limit: float | None,
    value: Callable[[Outcome], float],
) -> RewardFunc:
    """A verifiers function ``(completion, answer, state) -> float``: ``value`` of the rollout's
    outcome, scored once per rollout (off the event loop) and shared through ``state``."""
    shape = shaping or Shaping()

    async def func(completion: Any, answer: Any = "", state: Any = None, **kwargs: Any) -> float:
        outcome = await asyncio.to_thread(
            _outcome_for,
            completion,
            answer,
            state,
            engine=engine,
            mode=mode,
            shaping=shape,
            time_limit=time_limit,
        )
        return float(value(outcome))

    func.__name__ = func.__qualname__ = name
    return func


def cotaudit_reward_func(
    engine: str = "te",
    mode: str = "process",
    *,
    shaping: Shaping | None = None,
    unknown_reward: float = 0.0,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    name: str = "cotaudit_reward",
) -> RewardFunc:
    """A verifiers reward function ``(completion, answer, state) -> float`` (see the module doc)."""
    if mode not in MODES:
        raise ValueError(f"unknown reward mode {mode!r} (choose from {', '.join(MODES)})")
    return _func(
        name, engine, mode, shaping, time_limit, lambda o: unknown_reward if o.reward is None else o.reward
    )


def cotaudit_checked_func(
    engine: str = "te",
    mode: str = "process",
    *,
    shaping: Shaping | None = None,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    name: str = "cotaudit_checked",
) -> RewardFunc:
    """A metric: 1.0 when the rollout could be checked, 0.0 when it could not."""
    return _func(name, engine, mode, shaping, time_limit, lambda o: 0.0 if o.status == "unknown" else 1.0)


def cotaudit_rubric(
    engine: str = "te",
    mode: str = "process",
    *,
    weight: float = 1.0,
    shaping: Shaping | None = None,
    unknown_reward: float = 0.0,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    parser: Any = None,
) -> Any:
    """A ``vf.Rubric`` with the reward (``weight``) and the ``cotaudit_checked`` metric (weight 0)."""
    reward = cotaudit_reward_func(
        engine, mode, shaping=shaping, unknown_reward=unknown_reward, time_limit=time_limit
    )
    checked = cotaudit_checked_func(engine, mode, shaping=shaping, time_limit=time_limit)
    return vf.Rubric(funcs=[reward, checked], weights=[weight, 0.0], parser=parser)
