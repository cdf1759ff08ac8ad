"""How a report becomes a reward: four outcomes, each with its own configurable value.

- ``pass`` — the report passed: ``pass_reward`` 1.0; a graded engine's pass is 1.0 × score /
  max (type6: coherence / 5);
- ``fail`` — the engine found an error: ``fail_reward`` 0.0;
- ``unknown`` — *could not check*: ``abstain`` (a time or memory budget, a solver's unknown),
  a crash inside an engine, or a ``fail`` whose only errors say "not analysed" (``TE_E014``
  resource limits, ``TE_X001``): ``abstain_reward``, ``None``;
- ``invalid`` — no trace in the completion, or not one the engine can read: ``invalid_reward`` 0.0.

"Could not check" is never "wrong": by default it is ``None``, which TRL reads as "no reward
for this sample" (NaN, left out of its means) and which verl's :func:`~cotaudit.rewards.compute_score`
turns into its ``unknown_reward`` number while its dict form keeps the status. Set
``abstain_reward`` to a number to train on it anyway.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from cotaudit.report import Report

Status = Literal["pass", "fail", "unknown", "invalid"]
DEFAULT_ENGINE = "te"
# Engines whose ``score`` grades a passing trace, with the score's maximum (one line per engine).
GRADED_SCALES: dict[str, float] = {"type6": 5.0}
# Error codes that mean "this part was not analysed" rather than "this part is wrong": a fail
# made of these alone is a check that could not be done (te's resource limits and internal errors).
NOT_CHECKED_CODES = frozenset({"TE_E014", "TE_X001", "T6_X001", "COTAUDIT_W001", "COTAUDIT_W002"})


@dataclass(frozen=True)
class Shaping:
    """How a report becomes a reward (see the module docstring for the table)."""

    pass_reward: float = 1.0
    fail_reward: float = 0.0
    abstain_reward: float | None = None
    invalid_reward: float = 0.0
    graded: bool = True
    score_scales: Mapping[str, float] = field(default_factory=lambda: dict(GRADED_SCALES))

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any] | None) -> Shaping:
        """A shaping from plain JSON values (``{"abstain_reward": 0.5, "graded": false}``)."""
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

    def value(self, status: Status) -> float | None:
        """The reward of an outcome, ungraded (``pass`` is ``pass_reward``)."""
        if status == "pass":
            return float(self.pass_reward)
        if status == "fail":
            return float(self.fail_reward)
        if status == "unknown":
            return None if self.abstain_reward is None else float(self.abstain_reward)
        return float(self.invalid_reward)


def _is_number(value: object) -> bool:
    """An int or a finite float, not a bool (JSON ``true`` is not a reward)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return math.isfinite(value)


DEFAULT_SHAPING = Shaping()


def status_of(report: Report) -> Status:
    """The reward outcome of a report (see the module docstring)."""
    if report.verdict == "pass":
        return "pass"
    if report.verdict == "abstain":
        return "unknown"
    if report.verdict == "invalid":
        return "unknown" if "exception" in report.details else "invalid"
    errors = [f.code for f in report.findings if f.severity == "error"]
    if errors and all(code in NOT_CHECKED_CODES for code in errors):
        return "unknown"
    return "fail"


def reward_for(report: Report, shaping: Shaping = DEFAULT_SHAPING) -> float | None:
    """The reward of one report (``None`` only for "could not check" with ``abstain_reward=None``)."""
    status = status_of(report)
    if status == "pass":
        scale = shaping.score_scales.get(report.engine)
        if shaping.graded and scale and isinstance(report.score, int | float):
            return float(shaping.pass_reward) * min(1.0, max(0.0, float(report.score) / scale))
    return shaping.value(status)
