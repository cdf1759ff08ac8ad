"""``POST /v1/reward``: the in-process rewards (:mod:`cotaudit.rewards`) behind an HTTP route.

A request becomes a :class:`RewardSpec` here, in the service (:func:`parse`: every field is
checked, a bad one is a :class:`BadRequest` with a stable code). Each completion then runs in a
worker process of the pool as a :data:`~cotaudit.batch.jobs.TASK`: :func:`score` *is*
:func:`cotaudit.rewards.score_completion` (find the trace, audit it, compare its final answer
with gold, per-step rewards), so a reward from the service is the in-process reward for the
same engine, mode, gold and shaping. There math-verify runs on a worker's main thread, where
its own deadline can be armed (:mod:`cotaudit.cot.mathverify`), and the pool kills a worker at
the item time limit whatever it is doing: the event loop never waits on a comparison.

What comes back from a worker is a small report: the audit's envelope (its verdict) and one
``details`` entry, ``reward``, with the :class:`~cotaudit.rewards.Outcome` as a dict and its
per-step rewards; never the audit's findings. A completion the worker could not score (killed at
the time limit, a worker that died) is *could not check*: ``unknown``, ``abstain_reward``, never
``fail`` and never ``pass``. :func:`answer` puts the response together, off the event loop.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from cotaudit import api
from cotaudit.batch.jobs import TASK, Payload
from cotaudit.report import Report, sha256_text
from cotaudit.report.encoded import EncodedReport
from cotaudit.rewards import (
    DEFAULT_TIME_LIMIT,
    MODES,
    STEP_ENGINES,
    Shaping,
    normalise_gold,
    score_completion,
)

MAX_GOLD_CHARS = 20_000
"""The longest gold answer taken (a whole MATH solution fits; math-verify compares 2,000 at most)."""

DETAIL = "reward"
# Outcome.to_dict()'s keys in its own order (the canonical JSON a worker sends sorts them).
OUTCOME_KEYS = ("score", "status", "reason", "process", "answer", "answer_extracted")
_DETAIL_KEY = json.dumps(DETAIL).encode() + b":"
_ERROR_KEY = b'"error":'


class BadRequest(ValueError):
    """A request field the service cannot take: answered 422 with ``code``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class RewardSpec:
    """What one ``/v1/reward`` request asks for, checked (it travels to the workers pickled)."""

    engine: str
    shaping: Shaping
    mode: str = "process"
    steps: bool = False
    time_limit: float = DEFAULT_TIME_LIMIT

    @property
    def plain(self) -> bool:
        """Whether the answer is ``{"rewards", "verdicts"}`` alone (as before modes and steps)."""
        return self.mode == "process" and not self.steps


# --------------------------------------------------------------------------- the service's side


def parse(
    engine: str,
    shaping: Mapping[str, Any] | None,
    *,
    count: int,
    gold: Any = None,
    mode: Any = "process",
    steps: Any = False,
    time_limit: Any = None,
    max_time_limit: float,
) -> tuple[RewardSpec, list[Any]]:
    """The request's spec and one raw gold value per completion (``None`` without gold).

    ``time_limit`` (seconds per completion, for the audit and the answer together, as
    in-process) defaults to the in-process 10 s and may not exceed ``max_time_limit``, the
    service's item time limit, where the pool kills the worker anyway.
    """
    try:
        shape = Shaping.from_mapping(shaping)
    except (TypeError, ValueError) as exc:
        raise BadRequest("bad_shaping", str(exc)) from None
    if not isinstance(mode, str) or mode not in MODES:
        raise BadRequest("bad_mode", f"mode must be one of {', '.join(MODES)}; got {_show(mode)}")
    if not isinstance(steps, bool):
        raise BadRequest("bad_steps", f"steps must be true or false; got {_show(steps)}")
    limit = min(DEFAULT_TIME_LIMIT, max_time_limit)
    if time_limit is not None:
        if not _is_number(time_limit) or not 0 < time_limit <= max_time_limit:
            raise BadRequest(
                "bad_time_limit",
                f"time_limit must be a number of seconds above 0 and at most {max_time_limit:g} "
                f"(this service's item time limit); got {_show(time_limit)}",
            )
        limit = float(time_limit)
    golds = [None] * count if gold is None else check_gold(gold, count)
    return RewardSpec(engine, shape, mode, steps, limit), golds


def check_gold(gold: Any, count: int) -> list[Any]:
    """``gold`` as given, once it is known to be one string, finite number or null per
    completion, each at most :data:`MAX_GOLD_CHARS` long and encodable as UTF-8."""
    if not isinstance(gold, list):
        raise BadRequest("bad_gold", f"gold must be a list (one answer per completion); got {_show(gold)}")
    if len(gold) != count:
        raise BadRequest(
            "bad_gold",
            f"gold has {len(gold)} answer(s) for {count} completion(s): give one per completion "
            "(null where there is none)",
        )
    for i, value in enumerate(gold):
        if value is None:
            continue
        if not (isinstance(value, str) or _is_number(value)):
            raise BadRequest(
                "bad_gold", f"gold[{i}] must be a string, a finite number or null; got {_show(value)}"
            )
        text = value if isinstance(value, str) else str(value)
        if len(text) > MAX_GOLD_CHARS:
            raise BadRequest(
                "bad_gold", f"gold[{i}] is {len(text)} characters long; the limit is {MAX_GOLD_CHARS}"
            )
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            code = ord(text[exc.start])
            raise BadRequest(
                "bad_gold",
                f"gold[{i}] holds a lone surrogate (U+{code:04X}) at character {exc.start}, "
                "which no answer can state",
            ) from None
    return list(gold)


def options(spec: RewardSpec, completion: Any, gold: Any) -> dict[str, Any]:
    """The pool options that make a worker run :func:`score` on one completion."""
    return {TASK: score, "spec": spec, "completion": completion, "gold": gold}


def answer(reports: Sequence[EncodedReport], spec: RewardSpec) -> dict[str, Any]:
    """The response for the workers' reports, in order (see :func:`read`)."""
    read_back = [read(r, spec) for r in reports]
    out: dict[str, Any] = {
        "rewards": [outcome["score"] for _, outcome, _ in read_back],
        "verdicts": [verdict for verdict, _, _ in read_back],
    }
    if not spec.plain:
        out["outcomes"] = [outcome for _, outcome, _ in read_back]
    if spec.steps:
        out["step_rewards"] = [steps for _, _, steps in read_back]
    return out


def read(report: EncodedReport, spec: RewardSpec) -> tuple[str, dict[str, Any], list[Any] | None]:
    """(verdict, outcome, per-step rewards) of one completion from what its worker sent back.

    Only the ``reward`` and ``error`` entries of ``details`` are parsed. A report without the
    first was made by the pool, not by :func:`score` (the item's time limit, a dead worker):
    *could not check*. Per-step rewards are ``None`` for an engine without steps.
    """
    entry: Any = None
    error: Any = None
    for i in range(report.detail_count):
        raw = report.detail(i)
        if raw.startswith(_DETAIL_KEY):
            entry = json.loads(raw[len(_DETAIL_KEY) :])
        elif raw.startswith(_ERROR_KEY):
            error = json.loads(raw[len(_ERROR_KEY) :])
    if not isinstance(entry, dict) or not isinstance(entry.get("outcome"), dict):
        why = error if isinstance(error, str) and error else f"the worker's report is {report.verdict}"
        reason = f"could not check: {why}"
        unknown = {"score": spec.shaping.value("unknown"), "status": "unknown", "reason": reason}
        return report.verdict, {**unknown, "process": "unknown"}, None
    got: dict[str, Any] = entry["outcome"]
    outcome = {k: got[k] for k in OUTCOME_KEYS if k in got}
    value = outcome.get("score")
    outcome["score"] = None if value is None else float(value)  # a shaping's 1 is answered 1.0
    steps = entry.get("steps") if spec.engine in STEP_ENGINES else None
    return report.verdict, outcome, steps if isinstance(steps, list) else None


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _show(value: object) -> str:
    """A short description of a wrong value for an error message."""
    if value is None or isinstance(value, bool | int | float):
        return json.dumps(value)
    if isinstance(value, str):
        return f"a string of {len(value)} characters" if len(value) > 40 else repr(value)
    return f"a JSON {'array' if isinstance(value, list) else 'object'}"


# --------------------------------------------------------------------------- the worker's side


def score(payload: Payload, opts: Mapping[str, Any]) -> Report:
    """One completion scored by :func:`~cotaudit.rewards.score_completion` (in a worker), as a
    small report: the audit's envelope and ``details.reward`` (the outcome and its steps)."""
    spec: RewardSpec = opts["spec"]
    outcome = score_completion(
        opts["completion"],
        payload.engine,
        gold=normalise_gold(opts["gold"]),
        mode=spec.mode,
        shaping=spec.shaping,
        time_limit=spec.time_limit,
        steps=spec.steps,
    )
    entry: dict[str, Any] = {"outcome": outcome.to_dict()}
    if spec.steps:
        entry["steps"] = list(outcome.steps)
    base = outcome.report
    if base is None:  # no trace, or one the engine refused: no audit to take the envelope from
        base = api.invalid_report(
            engine=payload.engine,
            path=None,
            item_id=payload.item_id,
            sha256=sha256_text(outcome.trace),
            error=outcome.reason,
        )
    return replace(base, findings=(), details={DETAIL: entry})
