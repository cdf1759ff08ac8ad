"""Per-input resource budgets: one wall-time and one memory bound around every engine call.

Each engine bounds its own work where its spec says how (te's 2 s per SymPy call, vericot's
solver timeout, certify's join-step limits, type6's path budget). This module is the backstop
that holds for *every* input of *every* engine, whatever path the work takes:

- :func:`budget` opens a budget for one check (``api.check`` does this for every call) and
  makes it the *current* one for the calling thread or task (a :mod:`contextvars` variable,
  so concurrent checks in threads or asyncio tasks never see each other's budget).
- Engines call :func:`checkpoint` from their loops. It costs one clock read; every
  :data:`MEMORY_POLL_S` seconds it also reads the process's resident set size, and it raises
  :class:`BudgetExceeded` once the deadline has passed or the RSS has grown more than
  ``memory_mb`` above its value when the budget opened. Code that hands work to C libraries
  (Z3, SymPy) asks :func:`remaining` how long it may run and passes that down as a timeout.
- ``api.check`` turns :class:`BudgetExceeded` (and a :class:`MemoryError` from a process
  limit, see :func:`limit_process_memory`) into an ``abstain`` report with the stable code
  ``COTAUDIT_W001`` (time) or ``COTAUDIT_W002`` (memory): nothing was decided about the
  input, so it is never a ``fail`` and never a ``pass``.

Worker processes (batch, service) add a hard floor under the cooperative bound with
:func:`limit_process_memory` (``RLIMIT_AS``), so even a C extension that allocates without
returning to Python gets a ``MemoryError`` instead of taking the machine down.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Literal

DEFAULT_WALL_S = 60.0
DEFAULT_MEMORY_MB = 2048
MEMORY_POLL_S = 0.05  # how often checkpoint() reads the RSS (a /proc read costs ~10 µs)

BudgetKind = Literal["time", "memory"]

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


@dataclass(frozen=True, slots=True)
class Limits:
    """The bounds of one check: ``wall_s`` seconds of wall time, ``memory_mb`` MiB of RSS growth.

    ``None`` switches a bound off. Both must be positive when set.
    """

    wall_s: float | None = DEFAULT_WALL_S
    memory_mb: int | None = DEFAULT_MEMORY_MB

    def __post_init__(self) -> None:
        if self.wall_s is not None and not self.wall_s > 0:
            raise ValueError(f"wall_s must be positive, got {self.wall_s!r}")
        if self.memory_mb is not None and not self.memory_mb > 0:
            raise ValueError(f"memory_mb must be positive, got {self.memory_mb!r}")

    def to_dict(self) -> dict[str, float | int | None]:
        return {"wall_s": self.wall_s, "memory_mb": self.memory_mb}


UNLIMITED = Limits(wall_s=None, memory_mb=None)


class BudgetExceeded(Exception):  # control flow, caught by api.check; deliberately not a CotauditError
    """The current input overran its wall-time or memory budget."""

    def __init__(self, kind: BudgetKind, limit: float, used: float) -> None:
        self.kind = kind
        self.limit = limit
        self.used = used
        unit = "s" if kind == "time" else "MiB"
        super().__init__(f"{kind} budget exceeded: {used:.4g} {unit} used, limit {limit:g} {unit}")


def rss_bytes() -> int | None:
    """The resident set size of this process now, or ``None`` where it cannot be read cheaply."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            return int(fh.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


class Budget:
    """A running budget: a deadline on the monotonic clock and a ceiling on the RSS."""

    __slots__ = ("_next_poll", "deadline", "limits", "rss_ceiling", "started")

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.started = time.monotonic()
        self.deadline = self.started + limits.wall_s if limits.wall_s is not None else None
        self.rss_ceiling: int | None = None
        if limits.memory_mb is not None:
            base = rss_bytes()
            if base is not None:
                self.rss_ceiling = base + limits.memory_mb * 1024 * 1024
        self._next_poll = self.started + MEMORY_POLL_S

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def remaining(self) -> float | None:
        """Seconds left before the deadline (never negative), ``None`` without a time bound."""
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - time.monotonic())

    def check(self) -> None:
        """Raise :class:`BudgetExceeded` if the deadline has passed or the RSS is over its ceiling."""
        now = time.monotonic()
        if self.deadline is not None and now > self.deadline:
            assert self.limits.wall_s is not None
            raise BudgetExceeded("time", self.limits.wall_s, now - self.started)
        if self.rss_ceiling is not None and now >= self._next_poll:
            self._next_poll = now + MEMORY_POLL_S
            self.check_memory()

    def check_memory(self) -> None:
        """Read the RSS now (whatever the poll interval) and raise if it is over the ceiling."""
        if self.rss_ceiling is None:
            return
        rss = rss_bytes()
        if rss is not None and rss > self.rss_ceiling:
            assert self.limits.memory_mb is not None
            base = self.rss_ceiling - self.limits.memory_mb * 1024 * 1024
            raise BudgetExceeded("memory", self.limits.memory_mb, (rss - base) / (1024 * 1024))


_CURRENT: ContextVar[Budget | None] = ContextVar("cotaudit_budget", default=None)


def current() -> Budget | None:
    """The budget of the check running in this thread or task, if any."""
    return _CURRENT.get()


def checkpoint() -> None:
    """Raise :class:`BudgetExceeded` if the current check is over its budget (cheap; call often)."""
    b = _CURRENT.get()
    if b is not None:
        b.check()


def remaining(default: float | None = None) -> float | None:
    """Seconds the current check may still run (``default`` when no budget bounds it)."""
    b = _CURRENT.get()
    if b is None:
        return default
    left = b.remaining()
    if left is None:
        return default
    return left if default is None else min(left, default)


@contextlib.contextmanager
def budget(limits: Limits | None) -> Iterator[Budget | None]:
    """Make a fresh budget for ``limits`` current for the block (``None``: leave things as they are).

    Nested budgets are allowed: the inner one is current inside its block, but it never outlives
    the outer deadline (the tighter of the two wins).
    """
    if limits is None:
        yield _CURRENT.get()
        return
    outer = _CURRENT.get()
    b = Budget(limits)
    outer_deadline = outer.deadline if outer is not None else None
    if outer_deadline is not None and (b.deadline is None or outer_deadline < b.deadline):
        b.deadline = outer_deadline
        b.limits = Limits(wall_s=max(outer_deadline - b.started, 1e-9), memory_mb=limits.memory_mb)
    token = _CURRENT.set(b)
    try:
        yield b
    finally:
        _CURRENT.reset(token)


def limit_process_memory(megabytes: int | None) -> bool:
    """Cap this process's address space at ``megabytes`` MiB above what it maps now (``RLIMIT_AS``).

    For worker processes only: the limit is process-wide and cannot be raised again by an
    unprivileged process. Returns whether a limit was set (``False`` where ``resource`` or
    ``/proc`` is unavailable, or for ``None``).
    """
    if megabytes is None:
        return False
    try:
        import resource
    except ImportError:  # not POSIX
        return False
    try:
        with open("/proc/self/statm", "rb") as fh:
            vms = int(fh.read().split()[0]) * _PAGE
    except (OSError, ValueError, IndexError):
        return False
    cap = vms + megabytes * 1024 * 1024
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    if soft != resource.RLIM_INFINITY and soft <= cap:
        return True  # already tighter
    try:
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    except (ValueError, OSError):
        return False
    return True
