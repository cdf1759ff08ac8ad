"""Rewards from audits: a TRL ``GRPOTrainer`` reward function and a verl ``compute_score``.

Reward shaping (:class:`Shaping`, all values configurable):

| report | reward |
|---|---|
| ``pass`` | 1.0 — or, for a graded engine, 1.0 × score / max score (type6: coherence / 5) |
| ``fail`` | 0.0 |
| ``abstain`` | ``abstain_reward``: 0.0 by default; ``None`` means "no reward for this sample" |
| ``invalid`` | 0.0 (the completion is not a trace the engine can read) |

The reward judges the reasoning, not the final answer: ``ground_truth`` (verl) and dataset
columns (TRL) are accepted as those libraries pass them, and only ``engine`` is read from them.
Combine with an answer-checking reward for correctness (TRL sums its ``reward_funcs``).

How the libraries call these (checked against their sources):

- TRL ``GRPOTrainer._calculate_rewards`` calls each custom reward function as
  ``reward_func(prompts=..., completions=..., completion_ids=..., **reward_kwargs)`` where
  ``reward_kwargs`` holds every dataset column but ``prompt``/``completion`` (one value per
  completion) plus ``trainer_state``; it needs a list of floats back (``None`` → NaN, "not
  applicable") and reads ``reward_func.__name__``. Completions are strings (standard format) or
  lists of messages (conversational format: the last message's ``content`` is the trace).
- verl's reward managers call ``compute_score(data_source=..., solution_str=...,
  ground_truth=..., extra_info=...)`` with the ``custom_reward_function.reward_kwargs`` merged
  in as keywords, and take a float (or a dict with ``"score"``) back.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cotaudit import api
from cotaudit.errors import CotauditError
from cotaudit.report import Report

DEFAULT_ENGINE = "te"
# Engines whose ``score`` grades a passing trace, with the score's maximum (one line per engine).
GRADED_SCALES: dict[str, float] = {"type6": 5.0}


@dataclass(frozen=True)
class Shaping:
    """How a report becomes a reward (see the module docstring for the table)."""

    pass_reward: float = 1.0
    fail_reward: float = 0.0
    abstain_reward: float | None = 0.0
    invalid_reward: float = 0.0
    graded: bool = True
    score_scales: Mapping[str, float] = field(default_factory=lambda: dict(GRADED_SCALES))

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any] | None) -> Shaping:
        """A shaping from plain JSON values (``{"abstain_reward": null, "graded": false}``)."""
        known = {"pass_reward", "fail_reward", "abstain_reward", "invalid_reward", "graded", "score_scales"}
        values = dict(values or {})
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown shaping field(s): {', '.join(unknown)}")
        for name in ("pass_reward", "fail_reward", "invalid_reward", "abstain_reward"):
            if name in values and not (
                _is_number(values[name]) or (name == "abstain_reward" and values[name] is None)
            ):
                allowed = "a number or null" if name == "abstain_reward" else "a number"
                raise ValueError(f"shaping field {name} must be {allowed}, got {values[name]!r}")
        if "graded" in values and not isinstance(values["graded"], bool):
            raise ValueError(f"shaping field graded must be true or false, got {values['graded']!r}")
        if "score_scales" in values:
            scales = values["score_scales"]
            if not isinstance(scales, Mapping) or not all(
                isinstance(k, str) and _is_number(v) and v > 0 for k, v in scales.items()
            ):
                raise ValueError("shaping field score_scales must map engine names to positive numbers")
            values["score_scales"] = dict(scales)
        return cls(**values)


def _is_number(value: object) -> bool:
    """An int or a finite float, not a bool (JSON ``true`` is not a reward)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return math.isfinite(value)


DEFAULT_SHAPING = Shaping()


def reward_for(report: Report, shaping: Shaping = DEFAULT_SHAPING) -> float | None:
    """The reward of one report (``None`` only for ``abstain`` with ``abstain_reward=None``)."""
    if report.verdict == "pass":
        scale = shaping.score_scales.get(report.engine)
        if shaping.graded and scale and isinstance(report.score, int | float):
            return float(shaping.pass_reward) * min(1.0, max(0.0, float(report.score) / scale))
        return float(shaping.pass_reward)
    if report.verdict == "fail":
        return float(shaping.fail_reward)
    if report.verdict == "abstain":
        return None if shaping.abstain_reward is None else float(shaping.abstain_reward)
    return float(shaping.invalid_reward)


def completion_text(completion: Any) -> str:
    """The trace in a completion: a string as is; for a conversation, the last message's text."""
    if isinstance(completion, str):
        return completion
    message = completion[-1] if isinstance(completion, Sequence) and completion else completion
    if isinstance(message, Mapping):
        content = message.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, Sequence):  # multimodal parts: [{"type": "text", "text": ...}]
            parts = [p.get("text", "") for p in content if isinstance(p, Mapping) and p.get("type") == "text"]
            return "".join(str(p) for p in parts)
    return "" if completion is None else str(completion)


def score_text(text: str, engine: str = DEFAULT_ENGINE, shaping: Shaping = DEFAULT_SHAPING) -> float | None:
    """Audit one text and shape its report; an engine that cannot run gives ``invalid_reward``."""
    try:
        report = api.check(text, engine)
    except CotauditError:
        return shaping.invalid_reward
    return reward_for(report, shaping)


def _engine_at(columns: Mapping[str, Any], index: int, default: str) -> str:
    """The ``engine`` dataset column's value for sample ``index``, if the dataset has one."""
    value = columns.get("engine")
    if isinstance(value, Sequence) and not isinstance(value, str) and index < len(value):
        value = value[index]
    return value if isinstance(value, str) and value else default


def make_trl_reward(
    engine: str = DEFAULT_ENGINE, shaping: Shaping = DEFAULT_SHAPING, name: str = "cotaudit_reward"
) -> Callable[..., list[float | None]]:
    """A TRL ``reward_funcs`` entry auditing every completion with ``engine`` (or the dataset's
    ``engine`` column, per sample). Use it as ``GRPOTrainer(..., reward_funcs=[fn])``."""

    def reward(
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] = (),
        completion_ids: Sequence[Any] | None = None,
        **columns: Any,
    ) -> list[float | None]:
        return [
            score_text(completion_text(c), _engine_at(columns, i, engine), shaping)
            for i, c in enumerate(completions)
        ]

    reward.__name__ = reward.__qualname__ = name
    reward.__doc__ = f"cotaudit reward ({engine}): pass 1, fail 0, abstain {shaping.abstain_reward}."
    return reward


#: The ready-made TRL reward function (te engine, default shaping).
cotaudit_reward = make_trl_reward()


def compute_score(
    data_source: str | None = None,
    solution_str: str = "",
    ground_truth: Any = None,
    extra_info: Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> float:
    """verl's ``compute_score``: the shaped reward of ``solution_str`` as a float.

    The engine is ``kwargs["engine"]`` (verl's ``custom_reward_function.reward_kwargs``), else
    ``extra_info["engine"]``, else ``data_source`` when it names an engine, else ``te``.
    ``kwargs["shaping"]`` (a mapping) overrides the shaping. ``ground_truth`` is not used (see
    the module docstring). An ``abstain_reward`` of ``None`` becomes 0.0: verl needs a number.
    """
    info = extra_info if isinstance(extra_info, Mapping) else {}
    known = {s.name for s in api.engines()}
    engine = kwargs.get("engine") or info.get("engine")
    if not isinstance(engine, str) or not engine:
        engine = data_source if isinstance(data_source, str) and data_source in known else DEFAULT_ENGINE
    shaping = Shaping.from_mapping(kwargs.get("shaping")) if kwargs.get("shaping") else DEFAULT_SHAPING
    value = score_text(solution_str if isinstance(solution_str, str) else str(solution_str), engine, shaping)
    return 0.0 if value is None else float(value)


# Per-step (PRM-style) rewards for engines that judge every step (cot: details.steps[*].status).
STEP_REWARDS: dict[str, float] = {"verified": 1.0, "wrong": 0.0, "unchecked": 0.5}


def step_rewards_for(report: Report, values: Mapping[str, float] = STEP_REWARDS) -> list[float]:
    """One float per step of ``report`` (``details.steps``), by status; ``[]`` when it has none.

    A step after the first wrong one keeps its own status (it is judged on its own numbers),
    as process reward models score steps one by one. Unknown statuses get the ``unchecked`` value.
    """
    steps = report.details.get("steps")
    if not isinstance(steps, list):
        return []
    default = values.get("unchecked", 0.5)
    return [float(values.get(str(s.get("status")), default)) for s in steps if isinstance(s, Mapping)]


def step_rewards(
    text: str, engine: str = "cot", values: Mapping[str, float] = STEP_REWARDS
) -> tuple[list[float], float | None]:
    """Audit ``text`` and return (per-step rewards, trace reward); an engine that cannot run
    gives ``([], invalid_reward)``. The trace reward is :func:`reward_for` with default shaping."""
    try:
        report = api.check(text, engine)
    except CotauditError:
        return [], DEFAULT_SHAPING.invalid_reward
    return step_rewards_for(report, values), reward_for(report)
