"""Apply methods to every item, with a resumable JSONL run log and a progress line."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

import cotaudit.progress as shared_progress
from cotaudit import __version__
from cotaudit.eval.model import EvalItem, Method, Outcome, Results


def _read_log(path: Path) -> list[Outcome]:
    """Outcomes already written; a torn last line (an interrupted run) is ignored."""
    out: list[Outcome] = []
    if not path.exists():
        return out
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if record.get("kind") == "outcome":
                out.append(Outcome.from_dict(record))
    return out


class _Progress:
    def __init__(self, total: int, stream: IO[str] | None) -> None:
        self.total = total
        self.done = 0
        self.stream = stream if stream is not None and stream.isatty() else None
        self.last = 0.0

    def step(self, label: str) -> None:
        self.done += 1
        now = time.monotonic()
        if self.stream is not None and (now - self.last > 0.2 or self.done == self.total):
            self.last = now
            self.stream.write(f"\r{label:<24} {self.done}/{self.total}")
            if self.done == self.total:
                self.stream.write("\n")
            self.stream.flush()


def run_methods(
    items: Sequence[EvalItem],
    methods: Sequence[Method],
    *,
    runs: int = 1,
    log: str | Path | None = None,
    config: dict[str, Any] | None = None,
    progress: IO[str] | None = sys.stderr,
) -> Results:
    """Every available method on every item, ``runs`` times (TE-56 measures determinism on
    the reruns, so deterministic methods are rerun too rather than assumed identical)."""
    results = Results()
    log_path = Path(log) if log is not None else None
    if log_path is not None:
        for outcome in _read_log(log_path):
            results.add(outcome)
    writer: IO[str] | None = None
    if log_path is not None:
        fresh = not log_path.exists() or log_path.stat().st_size == 0
        torn = not fresh and not log_path.read_bytes().endswith(b"\n")
        writer = log_path.open("a", encoding="utf-8")
        if torn:  # an interrupted run left half a line: end it, so the next record stands alone
            writer.write("\n")
        if fresh:
            header = {
                "schema_version": 1,
                "kind": "header",
                "cotaudit_version": __version__,
                "config": config or {},
            }
            writer.write(json.dumps(header, sort_keys=True) + "\n")
    try:
        live = [m for m in methods if m.unavailable() is None]
        # A front end's bar (cotaudit.progress) replaces the plain counter when it is drawn.
        bar = _Progress(len(items) * runs * len(live), None if shared_progress.active() else progress)
        for method in live:
            for run in range(runs):
                label = f"{method.name}, run {run + 1} of {runs}" if runs > 1 else method.name
                with shared_progress.task(label, len(items)) as task:
                    for item in items:
                        bar.step(method.name)
                        task.advance()
                        if results.get(method.name, item.id, run) is not None:
                            continue
                        outcome = method.run(item, run)
                        results.add(outcome)
                        if writer is not None:
                            writer.write(json.dumps(outcome.to_dict(), sort_keys=True) + "\n")
    finally:
        if writer is not None:
            writer.close()
    return results
