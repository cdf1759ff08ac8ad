"""Progress of long work, reported as data: the code that loops says how far it is, the front end
decides whether and how to draw it.

A loop wraps itself in :func:`task` and calls ``advance()``; nothing is drawn unless a front end
installed a :class:`Reporter` with :func:`reporting` (the CLI draws a rich bar on a terminal's
stderr, see :mod:`cotaudit.cli.progress`). Without one, a task costs a function call per step.
Like :mod:`cotaudit.limits`, this module is a leaf: anything may import it, it imports nothing
of cotaudit's. Engines themselves never report progress (a check is short); corpus tools,
evaluations and batch runs do.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol


class Task(Protocol):
    def advance(self, steps: int = 1) -> None: ...

    def total(self, total: int | None) -> None: ...


class Reporter(Protocol):
    """Draws tasks: ``start`` returns the handle the loop advances; ``finish`` ends it."""

    def start(self, label: str, total: int | None) -> Task: ...

    def finish(self, task: Task) -> None: ...


class _Silent:
    def advance(self, steps: int = 1) -> None:
        pass

    def total(self, total: int | None) -> None:
        pass


SILENT: Task = _Silent()
_REPORTER: ContextVar[Reporter | None] = ContextVar("cotaudit_progress", default=None)


@contextmanager
def task(label: str, total: int | None = None) -> Iterator[Task]:
    """A unit of long work: ``total`` steps (``None``: unknown), advanced by the caller."""
    reporter = _REPORTER.get()
    if reporter is None:
        yield SILENT
        return
    handle = reporter.start(label, total)
    try:
        yield handle
    finally:
        reporter.finish(handle)


@contextmanager
def reporting(reporter: Reporter | None) -> Iterator[None]:
    """Draw every :func:`task` started inside the block with ``reporter`` (``None``: nothing)."""
    token = _REPORTER.set(reporter)
    try:
        yield
    finally:
        _REPORTER.reset(token)


def active() -> bool:
    """Whether progress is being drawn (a loop may then skip work done only for the bar)."""
    return _REPORTER.get() is not None
