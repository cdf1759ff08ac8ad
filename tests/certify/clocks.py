"""A simulated loaded machine: a monotonic clock that jumps on every read (never real sleeping).

``loaded(step)`` makes every ``time.monotonic()`` read by the certify engine modules advance by
``step`` seconds, as on a machine so busy that each bit of work takes that long. Tests use it to
show that a decision never depends on machine speed: the same work gives the same answer, or an
explicit abstention, whatever the clock does. The patch is undone when the block ends (before
the suite's teardown rechecks every stored certificate with the real clock).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

from cotaudit.certify.engine import evaluation, executor
from cotaudit.certify.kernel import oracle, scan
from cotaudit.certify.proof import naive

MODULES = (executor, evaluation, scan, naive, oracle)


class JumpingClock:
    """``time`` for the patched modules: ``monotonic`` and ``perf_counter`` advance by ``step``."""

    def __init__(self, step: float) -> None:
        self.now = 1_000.0
        self.step = step
        self.reads = 0

    def monotonic(self) -> float:
        self.reads += 1
        self.now += self.step
        return self.now

    def perf_counter(self) -> float:
        return self.monotonic()

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


@contextlib.contextmanager
def loaded(step: float) -> Iterator[JumpingClock]:
    clock = JumpingClock(step)
    saved = [(m, m.time) for m in MODULES]
    for m in MODULES:
        m.time = clock  # type: ignore[assignment]
    try:
        yield clock
    finally:
        for m, t in saved:
            m.time = t  # type: ignore[assignment]
