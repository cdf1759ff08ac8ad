"""The batch progress line: a bar, counts, rate, ETA and verdicts, redrawn on a terminal.

```
[##########..........]  512/1,024  50%  48.2 items/s  ETA 0:00:10  fail 12  abstain 1  invalid 0
```
The rate counts the items this run checked (not the ones a resumed run skipped), averaged
since the run started, so it settles instead of jumping. On a terminal the line is redrawn in
place at most ten times a second; elsewhere (a log file, CI) nothing is drawn and only the
closing summary is printed, so logs stay readable.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from typing import TextIO

from cotaudit.report.model import VERDICTS

BAR = 20


def format_duration(seconds: float) -> str:
    """``0:00:07``, ``1:02:03``; ``--:--:--`` when unknown."""
    if seconds != seconds or seconds < 0 or seconds == float("inf"):
        return "--:--:--"
    whole = round(seconds)
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


class Progress:
    """Counts finished items and draws the progress line on ``stream`` when ``live`` is set."""

    def __init__(
        self,
        total: int,
        *,
        resumed: int = 0,
        earlier: Counter[str] | None = None,
        stream: TextIO | None = None,
        live: bool = False,
        clock: Callable[[], float] = time.monotonic,
        interval: float = 0.1,
    ) -> None:
        self.total = total
        self.resumed = resumed
        self.earlier: Counter[str] = earlier or Counter()  # verdicts of the items already done
        self.done = 0
        self.verdicts: Counter[str] = Counter()
        self._stream = stream
        self._live = live and stream is not None
        self._clock = clock
        self._interval = interval
        self._start = clock()
        self._last_draw = float("-inf")

    @property
    def elapsed(self) -> float:
        return self._clock() - self._start

    @property
    def rate(self) -> float:
        """Items per second this run (0 before the first item)."""
        elapsed = self.elapsed
        return self.done / elapsed if elapsed > 0 and self.done else 0.0

    @property
    def eta(self) -> float:
        remaining = max(0, self.total - self.resumed - self.done)
        rate = self.rate
        if remaining == 0:
            return 0.0
        return remaining / rate if rate > 0 else float("nan")

    def advance(self, verdict: str) -> None:
        """One more item finished with ``verdict``; redraw if it is time."""
        self.done += 1
        self.verdicts[verdict] += 1
        now = self._clock()
        if self._live and now - self._last_draw >= self._interval:
            self._last_draw = now
            self._draw(self.line())

    def line(self) -> str:
        """The progress line (without a line break)."""
        finished = self.resumed + self.done
        fraction = finished / self.total if self.total else 1.0
        filled = min(BAR, int(fraction * BAR))
        width = len(f"{self.total:,}")
        counts = "  ".join(f"{v} {self.verdicts[v]}" for v in VERDICTS if v != "pass")
        return (
            f"[{'#' * filled}{'.' * (BAR - filled)}] {finished:>{width},}/{self.total:,} {fraction:4.0%}"
            f"  {self.rate:.1f} items/s  ETA {format_duration(self.eta)}  {counts}"
        )

    def summary(self) -> str:
        """The closing line: counts, time and rate of this run (and, when it continued a log,
        the whole log's counts, which the exit code is decided on)."""
        counts = "  ".join(f"{v}: {self.verdicts[v]}" for v in VERDICTS)
        resumed = f", {self.resumed:,} already done" if self.resumed else ""
        items = "item" if self.done == 1 else "items"
        line = (
            f"batch: {self.done:,} {items} checked{resumed} in {self.elapsed:.1f} s "
            f"({self.rate:.1f} items/s)  {counts}"
        )
        if self.resumed and self.earlier:
            whole = self.earlier + self.verdicts
            line += "  (whole log: " + "  ".join(f"{v}: {whole[v]}" for v in VERDICTS) + ")"
        return line

    def close(self, *, summary: bool = True) -> None:
        """Finish the live line and print the summary."""
        if self._stream is None:
            return
        if self._live:
            self._draw(self.line())
            self._stream.write("\n")
        if summary:
            self._stream.write(self.summary() + "\n")
        self._stream.flush()

    def _draw(self, text: str) -> None:
        assert self._stream is not None
        self._stream.write("\r" + text + "\x1b[K")
        self._stream.flush()
