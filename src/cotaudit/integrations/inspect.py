"""The inspect_ai scorer (``pip install 'cotaudit[inspect]'``; the one module importing inspect_ai).

```python
from inspect_ai import Task
from inspect_ai.solver import generate
from cotaudit.integrations.inspect import cotaudit_scorer

Task(dataset=..., solver=generate(), scorer=cotaudit_scorer(engine="te"))
```

Each sample's ``state.output.completion`` is scored by :func:`cotaudit.rewards.score_completion`
(the trace is found in it as in every reward: fences, reasoning blocks, prose). The score:

- ``value``: the reward (pass 1.0, fail 0.0, no trace ``invalid_reward``; type6 graded), with
  ``mode="process*answer"`` (or ``"answer"``, ...) the sample's ``target`` is the gold answer;
- "could not check" (a time budget, a solver's unknown, an engine crash) is
  ``Score.unscored(reason="scoring_failed")``: recorded, and left out of every metric;
- ``answer``: the trace's final answer when one was read; ``explanation``: the verdict and the
  first finding, its line counted in the model's output; ``metadata``: ``status``, ``reason``,
  ``engine``, ``line_offset`` (where the trace starts in the output) and the R-1 ``report``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from cotaudit.errors import MissingDependency
from cotaudit.rewards import Outcome, Shaping, score_completion
from cotaudit.rewards.answer import normalise_gold, stated_answer
from cotaudit.rewards.score import DEFAULT_TIME_LIMIT, MODES

INSTALL_HINT = "pip install 'cotaudit[inspect]'"
try:
    from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
    from inspect_ai.solver import TaskState
except ModuleNotFoundError:
    raise MissingDependency("inspect_ai", INSTALL_HINT) from None


@scorer(metrics=[mean(), stderr()], name="cotaudit")
def cotaudit_scorer(
    engine: str = "te",
    mode: str = "process",
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    shaping: Mapping[str, Any] | None = None,
) -> Scorer:
    """Audit each sample's output with ``engine`` (see the module docstring). ``shaping`` takes
    the fields of :class:`cotaudit.rewards.Shaping` as plain values (inspect logs them)."""
    if mode not in MODES:
        raise ValueError(f"unknown reward mode {mode!r} (choose from {', '.join(MODES)})")
    shape = Shaping.from_mapping(shaping)

    async def score(state: TaskState, target: Target) -> Score:
        completion = state.output.completion
        gold = normalise_gold(target.text) if mode != "process" and target.text else None
        outcome = await asyncio.to_thread(
            score_completion, completion, engine, gold=gold, mode=mode, shaping=shape, time_limit=time_limit
        )
        return to_score(outcome, engine)

    return score


def to_score(outcome: Outcome, engine: str) -> Score:
    """An inspect ``Score`` for one :class:`~cotaudit.rewards.Outcome`."""
    report = outcome.report
    answer = outcome.answer.check.extracted if outcome.answer is not None else None
    if answer is None and report is not None:
        answer, _source = stated_answer(report, outcome.trace)
    verdict = report.verdict if report is not None else "no trace"
    explanation = f"{engine}: {verdict}" + (f"; {outcome.reason}" if outcome.reason else "")
    metadata: dict[str, Any] = {
        "status": outcome.status,
        "reason": outcome.reason,
        "engine": engine,
        "line_offset": outcome.line_offset,
        "report": report.to_dict(timing=False) if report is not None else None,
    }
    if outcome.status == "unknown" or outcome.reward is None:
        return Score.unscored(
            reason="scoring_failed", answer=answer, explanation=explanation, metadata=metadata
        )
    reason = "invalid_response_format" if outcome.status == "invalid" else None
    return Score(
        value=outcome.reward, answer=answer, explanation=explanation, reason=reason, metadata=metadata
    )
