"""The one composition point: the public API (R-3, R-5) over the engine registry
(:mod:`cotaudit.registry`) and input reading (:mod:`cotaudit.inputs`), whose names it re-exports.

Engines are registered by name with a lazily resolved entry point (``"module:function"``) and
the file extensions they own. Nothing here imports an engine until it is asked to check
something, so ``import cotaudit`` and the CLI start fast.

An engine entry point is called as ``fn(text, path=..., item_id=..., **options)`` and returns
an R-1 :class:`~cotaudit.report.Report`. An unexpected exception inside it becomes an
``invalid`` report whose ``details.error`` names the exception; a missing third-party module
becomes :class:`~cotaudit.errors.MissingDependency`.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal, NamedTuple

from cotaudit.errors import (
    EngineUnavailable,
    InputError,
    MissingDependency,
    UsageError,
)
from cotaudit.inputs import (
    RECORD_ENGINES,
    InputItem,
    decode_utf8,
    is_record_source,
    load_inputs,
    load_records,
    parse_jsonl_items,
    parse_jsonl_line,
    read_input,
)
from cotaudit.limits import BudgetExceeded, Limits
from cotaudit.limits import budget as _budget
from cotaudit.registry import (
    JSONL_EXTENSION,
    EngineCheck,
    EngineSpec,
    StrPath,
    detect_engine,
    engine_for_path,
    engine_spec,
    engines,
    get_engine,
    is_jsonl,
    item_id_for,
    path_label,
    register_engine,
    unregister_engine,
)
from cotaudit.report import Finding, Location, Report, make_report, sha256_text
from cotaudit.version import __version__

# --------------------------------------------------------------------------- running engines


def invalid_report(
    *,
    engine: str,
    path: str | None,
    item_id: str | None,
    sha256: str,
    error: str,
    extra: Mapping[str, Any] | None = None,
) -> Report:
    """An ``invalid`` report made by the front end (engine_version ``cotaudit/<version>``)."""
    return make_report(
        engine,
        f"cotaudit/{__version__}",
        "invalid",
        sha256=sha256,
        path=path,
        item_id=item_id,
        details={"error": error, **(extra or {})},
    )


DEFAULT_LIMITS = Limits()


def check(
    text: str,
    engine: str = "te",
    *,
    path: str | None = None,
    item_id: str | None = None,
    limits: Limits | None = DEFAULT_LIMITS,
    **options: Any,
) -> Report:
    """Check one text with one engine and return its R-1 report.

    ``options`` go to the engine unchanged (te: ``config=LintConfig(...)``). ``limits`` bounds
    the wall time and memory of this one check (:mod:`cotaudit.limits`; ``None`` keeps an
    enclosing budget, if any); an input that overruns it gets an ``abstain`` report with
    ``COTAUDIT_W001`` (time) or ``COTAUDIT_W002`` (memory). Raises :class:`UnknownEngine`,
    :class:`EngineUnavailable`, :class:`MissingDependency`, or :class:`UsageError` for an
    option the engine does not take. An unexpected exception inside the engine gives an
    ``invalid`` report with ``details.error``.
    """
    fn = get_engine(engine)
    if options:
        import inspect  # deferred: ~5 ms of start-up that a plain check never needs

        try:
            inspect.signature(fn).bind(text, path=path, item_id=item_id, **options)
        except TypeError as exc:
            raise UsageError(f"engine '{engine}': {exc}") from None
        except ValueError:  # no signature (builtins): let the call decide
            pass
    start = time.perf_counter()
    try:
        with _budget(limits):
            report = fn(text, path=path, item_id=item_id, **options)
    except BudgetExceeded as exc:
        return budget_report(engine, text, path, item_id, exc.kind, exc.limit)
    except MemoryError:  # a process limit (limits.limit_process_memory) hit inside the engine
        mb = limits.memory_mb if limits is not None and limits.memory_mb is not None else 0
        return budget_report(engine, text, path, item_id, "memory", mb)
    except (UsageError, MissingDependency):  # the caller's to fix: an option, an extra
        raise
    except ModuleNotFoundError as exc:
        if exc.name and not exc.name.startswith("cotaudit"):
            raise MissingDependency.from_import_error(exc) from None
        return _crash_report(engine, text, path, item_id, exc)
    except Exception as exc:  # keep going: one broken input must not stop a run
        return _crash_report(engine, text, path, item_id, exc)
    elapsed = round((time.perf_counter() - start) * 1000.0, 3)
    if not isinstance(report, Report):
        return invalid_report(
            engine=engine,
            path=path,
            item_id=item_id,
            sha256=sha256_text(text),
            error=f"internal error: engine '{engine}' returned {type(report).__name__}, not a Report",
        )
    if report.timing_ms is None:
        report = replace(report, timing_ms=elapsed)
    return report


def budget_report(
    engine: str,
    text: str,
    path: str | None,
    item_id: str | None,
    kind: str,
    limit: float,
) -> Report:
    """``abstain``: the input overran its time or memory budget, so nothing was decided."""
    code = "COTAUDIT_W001" if kind == "time" else "COTAUDIT_W002"
    unit = "s" if kind == "time" else "MiB"
    message = f"{kind} budget of {limit:g} {unit} exceeded; the input was not checked to the end"
    evidence: dict[str, Any] = {"limit": f"{limit:g} {unit}", "kind": kind}
    return make_report(
        engine,
        f"cotaudit/{__version__}",
        "abstain",
        text=text,
        path=path,
        item_id=item_id,
        findings=(Finding(code, "warning", Location(line=None), message, evidence),),
        details={"reason": f"{kind}_budget"},
    )


def _crash_report(engine: str, text: str, path: str | None, item_id: str | None, exc: Exception) -> Report:
    message = " ".join(str(exc).split()) or "(no message)"
    return invalid_report(
        engine=engine,
        path=path,
        item_id=item_id,
        sha256=sha256_text(text),
        error=f"internal error in engine '{engine}': {type(exc).__name__}: {message}",
        extra={"exception": type(exc).__name__},
    )


def run_item(item: InputItem, **options: Any) -> Report:
    """The report for one loaded item (``invalid`` straight away if the item carries an error)."""
    if item.error is not None:
        return invalid_report(
            engine=item.engine,
            path=item.path,
            item_id=item.item_id,
            sha256=sha256_text(item.text),
            error=item.error,
        )
    return check(item.text, item.engine, path=item.path, item_id=item.item_id, **options)


def check_file(path: StrPath, engine: str | None = None, **options: Any) -> list[Report]:
    """Reports for a file: one for a trace, one per item for ``.jsonl`` (engine from extension)."""
    return [run_item(item, **options) for item in load_inputs(path, engine)]


def iter_reports(paths: Iterable[StrPath], engine: str | None = None, **options: Any) -> Iterator[Report]:
    """Reports for several files, in order. Every file is read and resolved before any runs,
    so a usage error or unreadable input is raised before the first engine call."""
    items = [item for p in paths for item in load_inputs(p, engine)]
    for item in items:
        yield run_item(item, **options)


# --------------------------------------------------------------------------- audit

SkipKind = Literal["unsupported", "unavailable", "jsonl", "unreadable"]


class SkippedFile(NamedTuple):
    """A file ``audit`` found but did not check, and why."""

    path: str
    reason: str
    kind: SkipKind


class AuditResult(NamedTuple):
    """What ``audit`` checked (reports, in walk order) and what it skipped."""

    reports: tuple[Report, ...]
    skipped: tuple[SkippedFile, ...]


def _walk(root: Path) -> Iterator[Path | SkippedFile]:
    """Files under ``root`` depth-first, entries sorted by name, hidden directories pruned."""
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError as exc:
        yield SkippedFile(path_label(root), f"cannot list directory ({exc.strerror})", "unreadable")
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            if not entry.name.startswith("."):
                yield from _walk(Path(entry.path))
        elif entry.is_file():
            yield Path(entry.path)


def _audit_files(paths: Iterable[StrPath]) -> tuple[list[tuple[Path, str]], list[SkippedFile]]:
    """The files ``audit`` would check, each with its engine, and the skipped ones.

    Directories are walked recursively in sorted order (hidden directories skipped); a file
    is picked when its extension maps to an engine that can run here. ``.jsonl`` files are
    checked only when named explicitly: a tree may hold run logs that are not item files.
    """
    picked: list[tuple[Path, str]] = []
    skipped: list[SkippedFile] = []
    seen: set[str] = set()
    for given in paths:
        root = Path(given)
        if str(given) == "-":  # items on standard input (cotaudit.dataio)
            picked.append((root, ""))
            continue
        if not root.exists():
            raise InputError(path_label(given), "no such file or directory")
        explicit = not root.is_dir() or is_record_source(root)
        candidates = [root] if explicit else list(_walk(root))
        for cand in candidates:
            if isinstance(cand, SkippedFile):
                skipped.append(cand)
                continue
            key = os.path.realpath(cand)
            if key in seen:
                continue
            seen.add(key)
            label = path_label(cand)
            if is_jsonl(cand) or (explicit and is_record_source(cand)):
                if explicit:
                    picked.append((cand, ""))
                else:
                    skipped.append(SkippedFile(label, "JSONL files are checked only when named", "jsonl"))
                continue
            name = engine_for_path(cand)
            if name is None:
                skipped.append(SkippedFile(label, "no engine for this file type", "unsupported"))
                continue
            try:
                get_engine(name)
            except EngineUnavailable as exc:
                skipped.append(SkippedFile(label, str(exc), "unavailable"))
                continue
            picked.append((cand, name))
    return picked, skipped


def audit(
    paths: Iterable[StrPath],
    *,
    engine_limits: Mapping[str, Limits] | None = None,
    on_file: Callable[[int, int], None] | None = None,
    **options: Any,
) -> AuditResult:
    """Check every supported file under ``paths`` (the main job).

    Unlike :func:`check_file`, a file that cannot be read (not UTF-8, permission denied) does
    not stop the audit: it becomes an ``invalid`` report. A path that does not exist raises
    :class:`InputError`; a missing optional dependency raises :class:`MissingDependency`.
    ``engine_limits`` gives some engines a budget of their own instead of ``limits``;
    ``on_file(done, total)`` is called after each file (a progress bar's hook).
    """
    picked, skipped = _audit_files(paths)
    reports: list[Report] = []
    for done, (path, name) in enumerate(picked, start=1):
        if on_file is not None and done > 1:
            on_file(done - 1, len(picked))
        try:
            items = load_inputs(path, name or None)
        except InputError as exc:
            reports.append(_unreadable_report(path, name, exc.reason))
            continue
        for item in items:
            own = engine_limits.get(item.engine) if engine_limits else None
            reports.append(run_item(item, **(options if own is None else {**options, "limits": own})))
    if on_file is not None and picked:
        on_file(len(picked), len(picked))
    return AuditResult(tuple(reports), tuple(skipped))


def _unreadable_report(path: Path, engine: str, error: str) -> Report:
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        digest = ""
    return invalid_report(
        engine=engine or "unknown",
        path=path_label(path),
        item_id=None if is_jsonl(path) else item_id_for(path),
        sha256=digest,
        error=error,
    )


__all__ = [
    "DEFAULT_LIMITS",
    "JSONL_EXTENSION",
    "RECORD_ENGINES",
    "AuditResult",
    "EngineCheck",
    "EngineSpec",
    "InputItem",
    "SkippedFile",
    "StrPath",
    "audit",
    "budget_report",
    "check",
    "check_file",
    "decode_utf8",
    "detect_engine",
    "engine_for_path",
    "engine_spec",
    "engines",
    "get_engine",
    "invalid_report",
    "is_jsonl",
    "is_record_source",
    "item_id_for",
    "iter_reports",
    "load_inputs",
    "load_records",
    "parse_jsonl_items",
    "parse_jsonl_line",
    "path_label",
    "read_input",
    "register_engine",
    "run_item",
    "unregister_engine",
]
