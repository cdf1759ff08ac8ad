"""``lint()``: size caps → classification → structural rules → semantic pass → E012 (TE-42).

The fast path runs in the calling thread with exact Fractions only. The first expression
that needs SymPy re-runs the whole trace symbolically: in the worker process by default
(hard deadlines), or in-process with ``LintConfig(symbolic="inprocess")``. Both give
byte-identical results.
"""

from __future__ import annotations

import time

import cotaudit.limits as budget
from cotaudit.report import Report
from cotaudit.te.config import LintConfig
from cotaudit.te.numeric import NeedsSymbolic
from cotaudit.te.pipeline import run
from cotaudit.te.result import LintResult
from cotaudit.te.worker import lint_in_worker


def lint(text: str, config: LintConfig | None = None) -> LintResult:
    """Lint one TE trace. Never raises on any ``str``."""
    config = config or LintConfig()
    try:
        return run(text, config, symbolic=False)
    except NeedsSymbolic:
        pass
    if config.symbolic == "inprocess":
        return run(text, config, symbolic=True)
    if config.limits.trace_timeout <= 0:
        # No time at all for symbolic work: fail closed at the first symbolic line (TE-25)
        # without handing the trace to the worker, whatever the machine's speed.
        return run(text, config, symbolic=False, fallback=True)
    result = lint_in_worker(text, config)
    if result is not None:
        return result
    budget.checkpoint()  # the caller's budget (cotaudit.limits) ran out, not te's own: W001
    return run(text, config, symbolic=False, fallback=True)


def check(
    text: str, *, path: str | None = None, item_id: str | None = None, config: LintConfig | None = None
) -> Report:
    """Lint ``text`` and return the shared R-1 report (TE-46)."""
    start = time.perf_counter()
    result = lint(text, config)
    elapsed = (time.perf_counter() - start) * 1000.0
    return result.to_report(text, path=path, item_id=item_id, timing_ms=round(elapsed, 3))
