"""Run a callable in a forked child under a wall-clock bound, so a regression fails, never hangs.

A super-linear regular expression or an unbounded evaluation cannot be interrupted from Python
(the C regex engine holds the interpreter), so the tests that guard against them run the work
in a child process and kill it when the bound passes. The child reports its result, its wall
time and how far its resident set grew (peak ``ru_maxrss`` minus the RSS at the start).
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Outcome:
    value: Any
    seconds: float
    rss_growth_mb: float  # peak resident set of the child minus its resident set at the start


def _rss_mb() -> float:
    with open("/proc/self/statm", "rb") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / (1024.0 * 1024.0)


def _child(conn: Any, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    base = _rss_mb()
    start = time.perf_counter()
    try:
        value: Any = ("ok", fn(*args))
    except BaseException as exc:  # reported to the parent, which fails the test with it
        value = ("raised", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}")
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux
    conn.send((value, seconds, max(0.0, peak - base)))
    conn.close()
    os._exit(0)


def run_bounded(fn: Callable[..., Any], *args: Any, timeout: float) -> Outcome:
    """``fn(*args)`` in a forked child; fails the test if it raises or runs past ``timeout`` s."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, fn, args))
    proc.start()
    child.close()
    try:
        if not parent.poll(timeout):
            raise AssertionError(f"{getattr(fn, '__name__', fn)} still running after {timeout} s")
        (status, value), seconds, peak = parent.recv()
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        parent.close()
    if status != "ok":
        raise AssertionError(f"{getattr(fn, '__name__', fn)} raised {value}")
    return Outcome(value, seconds, peak)
