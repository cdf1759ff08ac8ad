"""``cotaudit batch``: stream a JSONL file through a backend into the R-2 run log, resumably.

Items are submitted in file order and their reports written in file order (a bounded window
of items is in flight), one flushed line each. A run stopped at any point — Ctrl-C, a crash,
``kill -9`` — leaves a log whose complete lines are exactly a prefix of the items; ``--resume``
skips the ids already written and appends the rest, so every item is reported exactly once and
a resumed log (with ``--no-timing``) is byte-identical to an uninterrupted one.

A rule selection (``--select/--extend-select/--ignore``) is applied to each report in the
worker that made it (:data:`~cotaudit.batch.jobs.SELECTION`), so the log holds exactly what
``cotaudit check --format json`` gives for the item under the same selection; the header
records it and ``--resume`` under another one is refused.
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
from cotaudit.batch.jobs import SELECTION, Payload
from cotaudit.batch.progress import Progress
from cotaudit.dataio import FieldMap, open_records
from cotaudit.errors import InputError, UsageError
from cotaudit.limits import Limits
from cotaudit.report import RunLogWriter
from cotaudit.report.encoded import EncodedReport, encode_report
from cotaudit.selection import FailOn, Selection, apply_selection, fails

BACKENDS = ("local", "ray")
DEFAULT_LIMITS = Limits()
EVERY_CODE = Selection()


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
    selection: Selection = EVERY_CODE  # what the reports keep (cotaudit.selection); default: all
    engine_limits: Mapping[str, Limits] | None = None  # engines with a budget of their own

    def limits_for(self, engine: str) -> Limits:
        """The budget ``engine``'s items run under (its own, else ``limits``)."""
        own = self.engine_limits.get(engine) if self.engine_limits else None
        return own if own is not None else self.limits

    @property
    def worker_memory_mb(self) -> int | None:
        """The largest memory budget any item may use (``None``: one is unbounded), which sizes
        the workers' address-space cap."""
        sizes = [self.limits.memory_mb, *(lim.memory_mb for lim in (self.engine_limits or {}).values())]
        return None if any(m is None for m in sizes) else max(m for m in sizes if m is not None)


class BatchResult(NamedTuple):
    """What a run did: items in the input, checked now, found done already, all verdicts, and
    how many items report a warning (verdicts and ``warned`` count the earlier runs' items too)."""

    total: int
    checked: int
    resumed: int
    verdicts: Counter[str]
    seconds: float
    warned: int = 0

    @property
    def all_passed(self) -> bool:
        return set(self.verdicts) <= {"pass"}

    def exceeds(self, fail_on: FailOn = "error") -> bool:
        """:func:`cotaudit.selection.exceeds` over the whole log (``--fail-on``): an item that
        did not pass, or with ``warning`` an item that reports a warning."""
        return not self.all_passed or fails("pass", self.warned, fail_on)


def make_backend(options: BatchOptions, preload: tuple[str, ...] = ()) -> Backend:
    """The backend ``options`` ask for (Ray is imported only here, and only when asked)."""
    if options.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {options.workers}")
    if options.backend == "local":
        from cotaudit.batch.pool import LocalPool

        return LocalPool(
            options.workers, timeout=options.timeout, preload=preload, memory_mb=options.worker_memory_mb
        )
    if options.backend == "ray":
        from cotaudit.batch.ray_backend import RayPool

        return RayPool(
            options.workers,
            address=options.ray_address,
            timeout=options.timeout,
            preload=preload,
            memory_mb=options.worker_memory_mb,
        )
    raise UsageError(f"unknown backend {options.backend!r} (choose from {', '.join(BACKENDS)})")


def _config(options: BatchOptions) -> dict[str, Any]:
    """The run log's header config: everything that decides what the reports say."""
    selection = _selection_record(options.selection)
    return {
        "command": "batch",
        "input": Path(options.input).as_posix(),
        "engine": options.engine,
        "timeout": options.timeout,
        "time_limit": options.limits.wall_s,
        "memory_limit": options.limits.memory_mb,
        "timing": options.timing,
        # only when set, so logs of runs without a field map or a selection read as before
        **({"fields": options.fields.to_dict()} if options.fields and not options.fields.identity else {}),
        **({"selection": selection} if selection is not None else {}),
        **({"engine_limits": own} if (own := _engine_limits_record(options)) else {}),
    }


def _engine_limits_record(options: BatchOptions) -> dict[str, dict[str, Any]]:
    return {
        name: {"time_limit": lim.wall_s, "memory_limit": lim.memory_mb}
        for name, lim in sorted((options.engine_limits or {}).items())
    }


def _selection_record(selection: Selection) -> dict[str, list[str]] | None:
    """The header's ``config.selection``: sorted, without repeats; ``None`` (left out) for the
    default, which is also what a log written before selections were recorded means."""
    normal = selection.normalized()
    return None if normal.is_default else normal.to_dict()


def _selection_flags(record: Any, keys: list[str]) -> str:
    """``--select TE --ignore TE_W001,T6_W4`` for the ``keys`` of a header's selection record."""
    record = record if isinstance(record, dict) else {}
    shown = []
    for key in keys:
        value = record.get(key, ["ALL"] if key == "select" else [])
        text = ",".join(map(str, value)) if isinstance(value, list) and value else "none"
        shown.append(f"--{key} {text}")
    return " ".join(shown)


def _check_selection(out: str, had: Any, want: dict[str, list[str]] | None) -> None:
    """Refuse to continue a log written under another selection (its reports would differ)."""
    default = EVERY_CODE.to_dict()
    had_record, want_record = had if had is not None else default, want if want is not None else default
    if had_record == want_record:
        return
    keys = [k for k in default if not isinstance(had_record, dict) or had_record.get(k) != want_record[k]]
    raise UsageError(
        f"{out} was written with {_selection_flags(had_record, keys)}, not with "
        f"{_selection_flags(want_record, keys)}; resume with the same selection "
        "(--select, --extend-select, --ignore, [tool.cotaudit])"
    )


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


class LogScan(NamedTuple):
    """What an existing run log holds: its header, the ids reported, their verdicts, and how many
    of those reports have a warning."""

    header: dict[str, Any]
    ids: set[str]
    verdicts: Counter[str]
    warned: int = 0


def scan_log(path: Path) -> LogScan:
    """Header, ids, verdict counts and reports with a warning of an existing run log.

    A last line without its newline counts by the writer's own rule (``RunLogWriter``): kept
    if it is a whole JSON object (the writer then only adds the newline), dropped if it was cut
    off mid-write (the writer truncates it), so an item is never written twice on resume.
    """
    header: dict[str, Any] = {}
    ids: set[str] = set()
    verdicts: Counter[str] = Counter()
    warned = 0
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
                findings = obj.get("findings")
                warned += isinstance(findings, list) and any(
                    isinstance(f, dict) and f.get("severity") == "warning" for f in findings
                )
    return LogScan(header, ids, verdicts, warned)


def _prepare_output(options: BatchOptions) -> LogScan:
    out = Path(options.output)
    if out.resolve() == Path(options.input).resolve():
        raise UsageError("the output must not be the input file")
    if not out.exists() or out.stat().st_size == 0:
        return LogScan({}, set(), Counter())
    if not options.resume:
        raise UsageError(f"{out.as_posix()} exists (give --resume to continue it, or remove it)")
    scan = scan_log(out)
    header = scan.header
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
    _check_selection(out.as_posix(), had.get("selection"), want.get("selection"))
    if had.get("engine_limits", {}) != want.get("engine_limits", {}):
        raise UsageError(
            f"{out.as_posix()} was written with the per-engine limits {had.get('engine_limits', {})}, "
            f"not {want.get('engine_limits', {})}; resume with the same ENGINE=VALUE limits"
        )
    return scan


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
    done = _prepare_output(options)
    done_ids = done.ids
    items = items_of(records, options.engine)
    runner = backend or make_backend(options, preload)
    progress = Progress(total, resumed=len(done_ids), earlier=done.verdicts, stream=stream, live=live)
    start = time.monotonic()
    ended = False
    warned = done.warned
    try:
        writer = _open_log(options)
        try:
            window = max(16, 8 * runner.workers)
            check_options: dict[str, Any] = {"limits": options.limits}
            if not options.selection.is_default:  # applied in the worker (see the module docstring)
                check_options[SELECTION] = options.selection
            per_engine = {
                name: {**check_options, "limits": lim} for name, lim in (options.engine_limits or {}).items()
            }
            pending: deque[Future[EncodedReport]] = deque()
            with shared_progress.task("batch", max(0, total - len(done_ids))) as bar:
                for item in items:
                    if item.item_id in done_ids:
                        continue
                    if item.error is not None:  # no findings: selection leaves it as it is
                        future: Future[EncodedReport] = Future()
                        unreadable = apply_selection(api.run_item(item), options.selection)
                        future.set_result(encode_report(unreadable))
                    else:
                        future = runner.submit(Payload.of(item), per_engine.get(item.engine, check_options))
                    pending.append(future)
                    warned += _drain(pending, writer, progress, keep=window, bar=bar)
                warned += _drain(pending, writer, progress, keep=0, bar=bar)
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
    verdicts = done.verdicts + progress.verdicts
    return BatchResult(total, progress.done, len(done_ids), verdicts, time.monotonic() - start, warned)


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
) -> int:
    """Write finished reports from the head: wait while more than ``keep`` are in flight.
    Returns how many of the reports written have a warning (``--fail-on warning``)."""
    warned = 0
    while pending and (len(pending) > keep or pending[0].done()):
        report = pending.popleft().result()
        writer.write(report)
        progress.advance(report.verdict)
        bar.advance()
        warned += report.warnings > 0
    return warned
