"""The progress bar on the terminal: :mod:`cotaudit.progress` tasks drawn with rich, on stderr.

Drawn only when stderr is a terminal and ``--quiet`` was not given, so stdout (reports, Markdown)
and redirected logs never see a control character. Each task is one line: its label, a bar, done
of total, the rate in items per second and the time left (a spinner and the elapsed time when
the total is unknown). rich is imported only when a bar is actually drawn.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from cotaudit.progress import Reporter, Task


class _RichTask:
    def __init__(self, bar: Any, task_id: Any) -> None:
        self.bar = bar
        self.task_id = task_id

    def advance(self, steps: int = 1) -> None:
        self.bar.advance(self.task_id, steps)

    def total(self, total: int | None) -> None:
        self.bar.update(self.task_id, total=total)


class RichReporter:
    """One rich ``Progress`` for the whole command; tasks come and go on it."""

    def __init__(self, stream: TextIO, *, color: bool = True) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            ProgressColumn,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.text import Text

        class RateColumn(ProgressColumn):
            def render(self, task: Any) -> Any:
                speed = task.finished_speed or task.speed
                return Text(
                    "-- items/s" if speed is None else f"{speed:,.1f} items/s", style="progress.data.speed"
                )

        console = Console(file=stream, no_color=not color, highlight=False)
        self.bar = Progress(
            SpinnerColumn(),
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            RateColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=False,
            refresh_per_second=8,
        )
        self.open = 0

    def start(self, label: str, total: int | None) -> Task:
        if self.open == 0:
            self.bar.start()
        self.open += 1
        return _RichTask(self.bar, self.bar.add_task(label, total=total))

    def finish(self, task: Task) -> None:
        assert isinstance(task, _RichTask)
        self.bar.stop_task(task.task_id)
        self.open -= 1
        if self.open == 0:
            self.bar.stop()


def reporter_for(quiet: bool, color: bool, stream: TextIO | None = None) -> Reporter | None:
    """A bar on ``stream`` (stderr) when it is a terminal and output is not quiet, else ``None``."""
    target = stream if stream is not None else sys.stderr
    isatty = getattr(target, "isatty", None)
    if quiet or not (isatty and isatty()):
        return None
    try:
        return RichReporter(target, color=color)
    except ImportError:  # rich missing from a broken install: no bar, the work still runs
        return None
