"""One completion → one :class:`Outcome`: find the trace, audit it under a time bound, check the
answer, combine. Every reward function of :mod:`cotaudit.rewards` is a thin shape around
:func:`score_completion`.

**Modes** (how the process and the answer halves combine; ``mode=``):

- ``process``: the audit alone (:mod:`~cotaudit.rewards.shaping`): "is every step right?";
- ``answer``: the final answer against gold (:mod:`~cotaudit.rewards.answer`): an outcome reward;
- ``process*answer``: process × answer, 1 only for a clean trace that reaches the gold answer
  (the strict choice for RL on verifiable tasks);
- ``process+answer``: (process + answer) / 2, partial credit for either (a denser signal);
- ``min``: the smaller of the two (the product's twin for graded type6 process rewards).

In every mode, no trace at all is ``invalid`` (``invalid_reward``); a known ``fail`` of either
half decides ``process*answer`` and ``min`` even when the other half is unknown (the product
is 0 whatever it is); otherwise an ``unknown`` half makes the whole ``unknown``
(``abstain_reward``, ``None`` by default).

**Time bound**: ``time_limit`` seconds (default 10) per completion, for the audit and the answer
comparison together (:mod:`cotaudit.limits`; math-verify gets what is left). A completion that
runs over is ``unknown`` with the reason ``time``, never ``fail``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from cotaudit import api
from cotaudit.completions import find_trace
from cotaudit.errors import CotauditError
from cotaudit.limits import Limits
from cotaudit.limits import budget as _budget
from cotaudit.report import Report
from cotaudit.report.summary import lead_finding
from cotaudit.rewards.answer import AnswerOutcome, check_answer
from cotaudit.rewards.shaping import DEFAULT_ENGINE, DEFAULT_SHAPING, Shaping, Status, reward_for, status_of
from cotaudit.rewards.steps import STEP_REWARDS, step_rewards_for

Mode = Literal["process", "answer", "process*answer", "process+answer", "min"]
MODES: tuple[str, ...] = ("process", "answer", "process*answer", "process+answer", "min")
DEFAULT_TIME_LIMIT = 10.0


@dataclass(frozen=True)
class Outcome:
    """What a reward function decided about one completion, and why.

    ``reward`` is the shaped value (``None``: could not check, with ``abstain_reward=None``);
    ``status`` tells the four outcomes apart whatever the shaping; ``reason`` says why for
    anything but ``pass``; ``steps`` holds per-step rewards when they were asked for.
    """

    reward: float | None
    status: Status
    reason: str = ""
    process: Status | None = None
    answer: AnswerOutcome | None = None
    report: Report | None = None
    trace: str = ""
    line_offset: int = 0
    steps: list[float | None] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (no report): what verl's dict form and the scorers log."""
        out: dict[str, Any] = {"score": self.reward, "status": self.status, "reason": self.reason}
        if self.process is not None:
            out["process"] = self.process
        if self.answer is not None:
            out["answer"] = self.answer.status
            out["answer_extracted"] = self.answer.check.extracted
        return out


def _combine(mode: str, process: float | None, answer: float | None) -> float | None:
    if process is None or answer is None:
        return None
    if mode == "process*answer":
        return process * answer
    if mode == "process+answer":
        return (process + answer) / 2
    return min(process, answer)


def combine_status(mode: str, p: Status, a: Status) -> Status:
    """The outcome of a combined mode from its two halves (see the module docstring)."""
    if "invalid" in (p, a):
        return "invalid"
    if mode in ("process*answer", "min") and "fail" in (p, a):
        return "fail"
    if "unknown" in (p, a):
        return "unknown"
    return "fail" if "fail" in (p, a) else "pass"


def score_completion(
    completion: Any,
    engine: str = DEFAULT_ENGINE,
    *,
    gold: str | None = None,
    mode: str = "process",
    shaping: Shaping = DEFAULT_SHAPING,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    steps: bool = False,
    step_values: Mapping[str, float | None] = STEP_REWARDS,
) -> Outcome:
    """Score one completion (a string or chat messages): see the module docstring."""
    if mode not in MODES:
        raise ValueError(f"unknown reward mode {mode!r} (choose from {', '.join(MODES)})")
    located = find_trace(completion, engine)
    if not located.found:
        return Outcome(shaping.invalid_reward, "invalid", "no trace found in the completion", "invalid")
    limits = Limits(wall_s=time_limit) if time_limit else Limits(wall_s=None)
    start = time.monotonic()
    try:
        report = api.check(located.text, engine, limits=limits)
    except CotauditError as exc:
        return Outcome(shaping.invalid_reward, "invalid", str(exc), "invalid", trace=located.text)
    p_status = status_of(report)
    p_reward = reward_for(report, shaping)
    per_step = step_rewards_for(report, step_values, located.text) if steps else []
    common: dict[str, Any] = {
        "report": report,
        "trace": located.text,
        "line_offset": located.line_offset,
        "steps": per_step,
    }
    reason = _process_reason(report, p_status, located.line_offset)
    if mode == "process":
        return Outcome(p_reward, p_status, reason, p_status, **common)
    left = None if time_limit is None else time_limit - (time.monotonic() - start)
    if left is not None and left <= 0:
        ans = None
    else:
        with _budget(Limits(wall_s=left) if left else Limits(wall_s=None)):
            ans = check_answer(report, located.text, gold)
    if ans is None:
        return Outcome(shaping.value("unknown"), "unknown", "time", p_status, **common)
    a_reward = shaping.value(ans.status)
    if mode == "answer":
        return Outcome(a_reward, ans.status, ans.reason, p_status, ans, **common)
    status = combine_status(mode, p_status, ans.status)
    if status in ("invalid", "unknown") or (status == "fail" and mode != "process+answer"):
        value = shaping.value(status)  # a known fail decides a product or a minimum on its own
    else:
        value = _combine(mode, p_reward, a_reward)
    why = "; ".join(r for r in (reason, ans.reason) if r)
    return Outcome(value, status, why, p_status, ans, **common)


def _process_reason(report: Report, status: Status, line_offset: int = 0) -> str:
    """The lead finding (first error, else warning, else note), with its line counted in the
    completion (not in the extracted trace)."""
    if status == "pass":
        return ""
    first = lead_finding(report.findings) if report.findings else None
    if status == "unknown":
        detail = report.details.get("reason") or report.details.get("error")
        if first is not None:
            return f"could not check: {first.code} {first.message}"
        return f"could not check: {detail or report.verdict}"
    if first is not None:
        line = first.location.line
        where = f"line {line + line_offset}: " if line is not None else ""
        return f"{where}{first.code} {first.message}"
    return str(report.details.get("error") or report.verdict)
