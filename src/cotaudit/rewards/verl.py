"""verl's ``compute_score(data_source, solution_str, ground_truth, extra_info)``.

verl's reward managers call it with ``custom_reward_function.reward_kwargs`` merged in as
keywords and take a float back, or a dict with ``"score"`` whose other keys go, one list per
key, into ``reward_extra_info`` (so every call must return the same keys).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cotaudit import api
from cotaudit.rewards.answer import normalise_gold
from cotaudit.rewards.score import DEFAULT_TIME_LIMIT, score_completion
from cotaudit.rewards.shaping import DEFAULT_ENGINE, DEFAULT_SHAPING, Shaping

# The keys of the dict form, the same on every call (verl stacks them into per-key lists).
DICT_KEYS = ("score", "status", "checked", "process", "answer", "reason")


def compute_score(
    data_source: str | None = None,
    solution_str: str = "",
    ground_truth: Any = None,
    extra_info: Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> float | dict[str, Any]:
    """The shaped reward of ``solution_str`` (a float; a dict with ``return_dict=True``).

    Keywords (verl's ``reward_kwargs``): ``engine`` (else ``extra_info["engine"]``, else
    ``data_source`` when it names an engine, else ``te``); ``mode`` (``"process"`` by default;
    ``"answer"``, ``"process*answer"``, ... read ``ground_truth``); ``shaping`` (a mapping of
    :class:`~cotaudit.rewards.Shaping` fields); ``time_limit`` (seconds, default 10);
    ``unknown_reward`` (default 0.0: verl needs a number where the check could not be done);
    ``return_dict`` (``{"score", "status", "checked", "process", "answer", "reason"}``, where
    ``checked`` is False exactly when the score stands for "could not check": filter or mask
    those samples with it).
    """
    info = extra_info if isinstance(extra_info, Mapping) else {}
    known = {s.name for s in api.engines()}
    engine = kwargs.get("engine") or info.get("engine")
    if not isinstance(engine, str) or not engine:
        engine = data_source if isinstance(data_source, str) and data_source in known else DEFAULT_ENGINE
    shaping = Shaping.from_mapping(kwargs.get("shaping")) if kwargs.get("shaping") else DEFAULT_SHAPING
    mode = str(kwargs.get("mode") or "process")
    time_limit = kwargs.get("time_limit", DEFAULT_TIME_LIMIT)
    gold = normalise_gold(ground_truth) if ground_truth is not None else normalise_gold(info.get("gold"))
    text = solution_str if isinstance(solution_str, str) else str(solution_str)
    outcome = score_completion(text, engine, gold=gold, mode=mode, shaping=shaping, time_limit=time_limit)
    unknown = kwargs.get("unknown_reward", 0.0)
    score = float(outcome.reward) if outcome.reward is not None else float(unknown)
    if not kwargs.get("return_dict"):
        return score
    return {
        "score": score,
        "status": outcome.status,
        "checked": outcome.status != "unknown",
        "process": outcome.process or "",
        "answer": outcome.answer.status if outcome.answer is not None else "",
        "reason": outcome.reason,
    }
