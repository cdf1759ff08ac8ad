"""``cotaudit batch``: stream a JSONL file through a backend into the R-2 run log, resumably.

Items are submitted in file order and their reports written in file order (a bounded window
of items is in flight), one flushed line each. A run stopped at any point — Ctrl-C, a crash,
``kill -9`` — leaves a log whose complete lines are exactly a prefix of the items; ``--resume``
skips the ids already written and appends the rest, so every item is reported exactly once and
a resumed log (with ``--no-timing``) is byte-identical to an uninterrupted one.
"""

from __future__ import annotations

import json
import time
from collections import Counter, deque
from collections.abc import Mapping
from concurrent.futures import Future
from pathlib import Path
from typing import Any, NamedTuple, Protocol, TextIO

import cotaudit.progress as shared_progress
from cotaudit import __version__, api
from cotaudit.batch.items import items_of
from cotaudit.batch.jobs import Payload
from cotaudit.batch.progress import Progress
from cotaudit.dataio import FieldMap, open_records
from cotaudit.errors import InputError, UsageError
from cotaudit.limits import Limits
from cotaudit.report import RunLogWriter
from cotaudit.report.encoded import EncodedReport, encode_report

BACKENDS = ("local", "ray")
DEFAULT_LIMITS = Limits()


class Backend(Protocol):
    """Where items run: :class:`~cotaudit.batch.pool.LocalPool` or the Ray backend. Reports come
    back encoded, as the workers made them (the run log writes their bytes as they are)."""

    workers: int

    def submit(self, payload: Payload, options: Mapping[str, Any] | None = None) -> Future[EncodedReport]: ...

    def close(self) -> None: ...


class BatchOptions(NamedTuple):
    """One batch run. ``timeout`` is seconds per item before its worker is killed (``None``: no
    limit); ``limits`` is the budget each check runs under (``api.check(limits=...)``), and its
    ``memory_mb`` also sizes the local workers' address-space cap."""

    input: str
    output: str
    engine: str | None = None
    workers: int = 1
    backend: str = "local"
    ray_address: str | None = None
    timeout: float | None = 60.0
    resume: bool = False
    timing: bool = True
    limits: Limits = DEFAULT_LIMITS
    fields: FieldMap | None = None  # other column names for text, id and engine (cotaudit.dataio)


class BatchResult(NamedTuple):
    """What a run did: items in the input, checked now, found done already, and all verdicts."""

    total: int
    checked: int
    resumed: int
    verdicts: Counter[str]
    seconds: float

    @property
    def all_passed(self) -> bool:
        return set(self.verdicts) <= {"pass"}


def make_backend(options: BatchOptions, preload: tuple[str, ...] = ()) -> Backend:
    """The backend ``options`` ask for (Ray is imported only here, and only when asked)."""
    if options.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {options.workers}")
    if options.backend == "local":
        from cotaudit.batch.pool import LocalPool

        return LocalPool(
            options.workers, timeout=options.timeout, preload=preload, memory_mb=options.limits.memory_mb
        )
    if options.backend == "ray":
        from cotaudit.batch.ray_backend import RayPool

        return RayPool(
            options.workers,
            address=options.ray_address,
            timeout=options.timeout,
            preload=preload,
            memory_mb=options.limits.memory_mb,
        )
    raise UsageError(f"unknown backend {options.backend!r} (choose from {', '.join(BACKENDS)})")


def _config(options: BatchOptions) -> dict[str, Any]:
    """The run log's header config: everything that decides what the reports say."""
    return {
        "command": "batch",
        "input": Path(options.input).as_posix(),
        "engine": options.engine,
        "timeout": options.timeout,
        "time_limit": options.limits.wall_s,
        "memory_limit": options.limits.memory_mb,
        "timing": options.timing,
        # only when set, so logs of runs without a field map read as before
        **({"fields": options.fields.to_dict()} if options.fields and not options.fields.identity else {}),
    }


# Header keys a resumed run must match (the reports would differ otherwise), with how the
# refusal names them; workers, backend and Ray address change where items run, not their reports.
RESUME_MUST_MATCH = {
    "input": "input",
    "engine": "--engine",
    "timeout": "--timeout",
    "time_limit": "--time-limit",
    "memory_limit": "--memory-limit",
    "timing": "--no-timing",
}


def _setting(key: str, value: Any) -> str:
    """``for input 'in.jsonl'``, ``with --time-limit 60``, ``with --memory-limit none``, ..."""
    if key == "input":
        return f"for input {value!r}"
    if key == "timing":
        return "without --no-timing" if value else "with --no-timing"
    if value is None:
        shown = "none"
    elif isinstance(value, float):
        shown = f"{value:g}"
    else:
        shown = repr(value) if isinstance(value, str) else str(value)
    return f"with {RESUME_MUST_MATCH[key]} {shown}"


def scan_log(path: Path) -> tuple[dict[str, Any], set[str], Counter[str]]:
    """Header, ids and verdict counts of an existing run log.

    A last line without its newline counts by the writer's own rule (``RunLogWriter``): kept
    if it is a whole JSON object (the writer then only adds the newline), dropped if it was cut
    off mid-write (the writer truncates it), so an item is never written twice on resume.
    """
    header: dict[str, Any] = {}
    ids: set[str] = set()
    verdicts: Counter[str] = Counter()
    with path.open("rb") as fh:
        for raw in fh:
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError):
                if not raw.endswith(b"\n"):
                    break  # cut off mid-write: the writer drops it
                raise InputError(path.as_posix(), "not a cotaudit run log (a line is not JSON)") from None
            if not isinstance(obj, dict):
                if not raw.endswith(b"\n"):
                    break
                raise InputError(path.as_posix(), "not a cotaudit run log (a line is not an object)")
            if obj.get("kind") == "header":
                header = obj
                continue
            ref = obj.get("input") or {}
            if isinstance(ref.get("id"), str):
                ids.add(ref["id"])
                verdicts[str(obj.get("verdict"))] += 1
    return header, ids, verdicts


def _prepare_output(options: BatchOptions) -> tuple[set[str], Counter[str]]:
    out = Path(options.output)
    if out.resolve() == Path(options.input).resolve():
        raise UsageError("the output must not be the input file")
    if not out.exists() or out.stat().st_size == 0:
        return set(), Counter()
    if not options.resume:
        raise UsageError(f"{out.as_posix()} exists (give --resume to continue it, or remove it)")
    header, ids, verdicts = scan_log(out)
    if header.get("kind") != "header":
        raise InputError(out.as_posix(), "not a cotaudit run log (no header line)")
    had = header.get("config")
    had = had if isinstance(had, dict) else {}
    want = _config(options)
    for key, name in RESUME_MUST_MATCH.items():
        if key not in had:  # a log from before this setting was recorded: cannot tell
            raise UsageError(
                f"{out.as_posix()} does not record its {name}, so its reports may not match this "
                "run's; start a new run log"
            )
        if had[key] != want[key]:
            raise UsageError(
                f"{out.as_posix()} was written {_setting(key, had[key])}, not {_setting(key, want[key])}; "
                f"resume with the same {name}"
            )
    if had.get("fields", {}) != want.get("fields", {}):
        raise UsageError(
            f"{out.as_posix()} was written with the field map {had.get('fields', {})}, not "
            f"{want.get('fields', {})}; resume with the same --text-field, --id-field and --engine-field"
        )
    return ids, verdicts


def run_batch(
    options: BatchOptions,
    *,
    stream: TextIO | None = None,
    live: bool = False,
    backend: Backend | None = None,
    preload: tuple[str, ...] = (),
) -> BatchResult:
    """Run a batch; progress and the summary go to ``stream`` (a live bar when ``live``).

    Everything that can refuse the run (input, output, backend) is checked before the first
    line is written. The summary is printed when the run ends or is interrupted.
    """
    if options.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {options.workers}")
    if options.engine is not None:
        api.engine_spec(options.engine)  # before anything is read or written
    records = open_records(options.input, options.fields)  # standard input is spooled here
    total = records.count()
    done_ids, done_verdicts = _prepare_output(options)
    items = items_of(records, options.engine)
    runner = backend or make_backend(options, preload)
    progress = Progress(total, resumed=len(done_ids), stream=stream, live=live)
    start = time.monotonic()
    ended = False
    try:
        writer = _open_log(options)
        try:
            window = max(16, 8 * runner.workers)
            check_options = {"limits": options.limits}
            pending: deque[Future[EncodedReport]] = deque()
            with shared_progress.task("batch", max(0, total - len(done_ids))) as bar:
                for item in items:
                    if item.item_id in done_ids:
                        continue
                    if item.error is not None:
                        future: Future[EncodedReport] = Future()
                        future.set_result(encode_report(api.run_item(item)))
                    else:
                        future = runner.submit(Payload.of(item), check_options)
                    pending.append(future)
                    _drain(pending, writer, progress, keep=window, bar=bar)
                _drain(pending, writer, progress, keep=0, bar=bar)
            ended = True
        except KeyboardInterrupt:
            ended = True
            raise
        finally:
            writer.close()
    finally:
        records.close()
        if backend is None:
            runner.close()
        if ended:
            progress.close(summary=True)
    verdicts = done_verdicts + progress.verdicts
    return BatchResult(total, progress.done, len(done_ids), verdicts, time.monotonic() - start)


def _open_log(options: BatchOptions) -> RunLogWriter:
    try:
        return RunLogWriter(
            options.output,
            _config(options),
            version=__version__,
            resume=options.resume,
            timing=options.timing,
        )
    except OSError as exc:
        raise UsageError(f"{options.output}: cannot write ({exc.strerror or type(exc).__name__})") from None


def _drain(
    pending: deque[Future[EncodedReport]],
    writer: RunLogWriter,
    progress: Progress,
    *,
    keep: int,
    bar: shared_progress.Task = shared_progress.SILENT,
) -> None:
    """Write finished reports from the head: wait while more than ``keep`` are in flight."""
    while pending and (len(pending) > keep or pending[0].done()):
        report = pending.popleft().result()
        writer.write(report)
        progress.advance(report.verdict)
        bar.advance()
