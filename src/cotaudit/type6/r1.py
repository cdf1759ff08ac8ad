"""The R-1 report for one ``.t6`` input (shared/spec/report.md): ``check``.

Verdict: ``fail`` iff ``hard_fail``, ``pass`` otherwise, ``invalid`` for unreadable input (with
the diagnostics as error findings). ``score`` is the configured coherence scalar on [0, 5]
(graded by default); ``details`` is the type6 result document (docs/type6.md) plus ``verdict``,
the engine's own word: ``hard_fail``, ``ok`` or ``invalid``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

from cotaudit.errors import UsageError
from cotaudit.limits import BudgetExceeded
from cotaudit.report import Finding, Location, Report, Severity, make_report
from cotaudit.type6.config import Config
from cotaudit.type6.jsonform import parse_any
from cotaudit.type6.pipeline import verify
from cotaudit.type6.result import Type6Result, diagnostic_finding, finding_record

ENGINE_VERSION = "type6/1"


def _findings(result: Type6Result) -> list[Finding]:
    """One finding per listed diagnostic and per listed event (``details.truncated`` counts the
    ones the listing left out; ``summary.event_counts`` counts them all)."""
    records = [diagnostic_finding(d) for d in result.diagnostics]
    records += [finding_record(e) for e in result.events]
    return [Finding.from_dict(r) for r in records]


def to_report(
    result: Type6Result, text: str, *, path: str | None, item_id: str | None, timing_ms: float | None
) -> Report:
    """The R-1 report of a computed result."""
    status = result.status
    if status == "invalid":
        verdict: Any = "invalid"
        word = "invalid"
    else:
        verdict = "fail" if result.hard_fail else "pass"
        word = "hard_fail" if result.hard_fail else "ok"
    return make_report(
        "type6",
        ENGINE_VERSION,
        verdict,
        text=text,
        path=path,
        item_id=item_id,
        findings=_findings(result),
        details={"verdict": word, **result.document},
        score=result.score,
        timing_ms=timing_ms,
    )


def make_config(config: Config | Mapping[str, Any] | None, overrides: Mapping[str, Any]) -> Config:
    """A Config from ``config=`` and keyword overrides; bad options raise :class:`UsageError`."""
    try:
        base = config if isinstance(config, Config) else Config().with_options(**dict(config or {}))
        return base.with_options(**overrides) if overrides else base
    except (TypeError, ValueError) as exc:
        raise UsageError(f"engine 'type6': {exc}") from None


def check(
    text: str,
    *,
    path: str | None = None,
    item_id: str | None = None,
    config: Config | Mapping[str, Any] | None = None,
    **options: Any,
) -> Report:
    """Verify ``text`` (``.t6``, JSON or single-trace JSONL) and return the R-1 report.

    ``options`` are :class:`Config` fields (``path_mode="off"``, ``seed=3`` …). The trace id is
    ``item_id``, else the file stem of ``path``, unless the trace names itself (``#@ id``).
    """
    cfg = make_config(config, options)
    start = time.perf_counter()
    trace_id = item_id or (PurePath(path).stem if path else None)
    try:
        result = verify(parse_any(text, trace_id, cfg.limits), cfg)
    except (BudgetExceeded, MemoryError):
        raise  # the caller's budget ran out: api.check reports abstain (W001/W002), not a bug
    except Exception as exc:  # a bug must not take a batch down: report it as T6_X001
        return _internal(text, path, item_id, exc)
    elapsed = round((time.perf_counter() - start) * 1000.0, 3)
    return to_report(result, text, path=path, item_id=item_id, timing_ms=elapsed)


def _internal(text: str, path: str | None, item_id: str | None, exc: BaseException) -> Report:
    severity: Severity = "error"
    return make_report(
        "type6",
        ENGINE_VERSION,
        "invalid",
        text=text,
        path=path,
        item_id=item_id,
        findings=(Finding("T6_X001", severity, Location(), f"internal error ({type(exc).__name__})", {}),),
        details={"verdict": "invalid", "error": type(exc).__name__},
    )
