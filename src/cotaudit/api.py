"""The one composition point: the engine registry, input detection and the public API (R-3, R-5).

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
import importlib
import importlib.util
import inspect
import json
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal, NamedTuple

from cotaudit.errors import (
    CotauditError,
    EngineUnavailable,
    InputError,
    MissingDependency,
    UnknownEngine,
    UnsupportedInput,
    UsageError,
)
from cotaudit.limits import BudgetExceeded, Limits
from cotaudit.limits import budget as _budget
from cotaudit.report import Finding, Location, Report, make_report, sha256_text
from cotaudit.version import __version__

EngineCheck = Callable[..., Report]
StrPath = str | os.PathLike[str]

JSONL_EXTENSION = ".jsonl"
# Engines that read a JSONL line without a "text" field as a record of their own.
RECORD_ENGINES = frozenset({"cot"})


# Result types here are NamedTuples rather than dataclasses: this module is on the CLI's
# start-up path and a NamedTuple costs a fraction of a dataclass to define.
class EngineSpec(NamedTuple):
    """A registered engine: its name, entry point (``None``: not implemented yet) and extensions."""

    name: str
    entry_point: str | EngineCheck | None
    extensions: tuple[str, ...] = ()

    @property
    def implemented(self) -> bool:
        return self.entry_point is not None


_REGISTRY: dict[str, EngineSpec] = {}
_RESOLVED: dict[str, EngineCheck] = {}


def register_engine(
    name: str, entry_point: str | EngineCheck | None, extensions: Iterable[str] = ()
) -> EngineSpec:
    """Register (or replace) engine ``name``.

    ``entry_point`` is ``"package.module:function"`` (imported on first use), a callable, or
    ``None`` for an engine that is known but not implemented in this version. ``extensions``
    start with a dot and may be compound (``".vcot.json"``); each belongs to one engine.
    """
    if not name or not name.replace("_", "").isalnum():
        raise UsageError(f"engine name must be alphanumeric, got {name!r}")
    exts = tuple(extensions)
    for ext in exts:
        if not ext.startswith(".") or len(ext) < 2 or ext == JSONL_EXTENSION:
            raise UsageError(f"engine '{name}': invalid extension {ext!r}")
        owner = next((s.name for s in _REGISTRY.values() if ext in s.extensions and s.name != name), None)
        if owner is not None:
            raise UsageError(f"engine '{name}': extension {ext!r} already belongs to engine '{owner}'")
    if isinstance(entry_point, str) and entry_point.count(":") != 1:
        raise UsageError(f"engine '{name}': entry point must be 'module:function', got {entry_point!r}")
    spec = EngineSpec(name, entry_point, exts)
    _REGISTRY[name] = spec
    _RESOLVED.pop(name, None)
    return spec


def unregister_engine(name: str) -> None:
    """Forget engine ``name`` (tests use this to undo a registration)."""
    _REGISTRY.pop(name, None)
    _RESOLVED.pop(name, None)


def engines() -> tuple[EngineSpec, ...]:
    """Every registered engine, implemented or not, sorted by name."""
    return tuple(sorted(_REGISTRY.values(), key=lambda s: s.name))


def engine_spec(name: str) -> EngineSpec:
    """The registry entry for ``name``; :class:`UnknownEngine` if there is none."""
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(s.name for s in engines())
        raise UnknownEngine(f"unknown engine '{name}' (known engines: {known})") from None


def get_engine(name: str) -> EngineCheck:
    """Resolve the entry point of engine ``name``, importing its module on first use."""
    fn = _RESOLVED.get(name)
    if fn is not None:
        return fn
    spec = engine_spec(name)
    if spec.entry_point is None:
        raise EngineUnavailable(name)
    entry = spec.entry_point
    fn = entry if callable(entry) else _load_entry_point(name, entry)
    _RESOLVED[name] = fn
    return fn


def _load_entry_point(name: str, entry_point: str) -> EngineCheck:
    module_name, _, attr = entry_point.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing == module_name or module_name.startswith(missing + ".") or missing.startswith("cotaudit"):
            raise EngineUnavailable(name, f"module {missing or module_name} not found") from None
        raise MissingDependency.from_import_error(exc) from None
    except Exception as exc:  # a broken engine module must not crash the front end
        raise EngineUnavailable(name, f"{module_name} failed to load: {type(exc).__name__}: {exc}") from None
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise EngineUnavailable(name, f"{entry_point} is missing")
    return fn  # type: ignore[no-any-return]


def engine_for_path(path: StrPath) -> str | None:
    """The engine that owns ``path``'s extension (longest match wins), or ``None``.

    ``.jsonl`` files hold items for any engine and map to ``None`` here; see :func:`is_jsonl`.
    """
    name = Path(path).name
    best: tuple[int, str] | None = None
    for spec in _REGISTRY.values():
        for ext in spec.extensions:
            if name.endswith(ext) and len(name) > len(ext) and (best is None or len(ext) > best[0]):
                best = (len(ext), spec.name)
    return best[1] if best else None


def is_jsonl(path: StrPath) -> bool:
    name = Path(path).name
    return name.endswith(JSONL_EXTENSION) and len(name) > len(JSONL_EXTENSION)


def detect_engine(path: StrPath) -> str:
    """R-3 detection by extension; :class:`UnsupportedInput` when no engine owns the extension."""
    engine = engine_for_path(path)
    if engine is None:
        exts = sorted(ext for s in _REGISTRY.values() for ext in s.extensions)
        raise UnsupportedInput(
            f"{_label(path)}: cannot tell the engine from the file name "
            f"(known extensions: {', '.join([*exts, JSONL_EXTENSION])}); give --engine"
        )
    return engine


def _item_id_for(path: StrPath) -> str:
    """``examples/te/janet.te`` → ``janet`` (the registered extension, possibly compound, removed)."""
    name = Path(path).name
    engine = engine_for_path(path)
    if engine is not None:
        for ext in sorted(_REGISTRY[engine].extensions, key=len, reverse=True):
            if name.endswith(ext):
                return name[: -len(ext)]
    return Path(path).stem


# --------------------------------------------------------------------------- reading input


def decode_utf8(data: bytes, label: str) -> str:
    """Strict UTF-8; :class:`InputError` naming the first bad byte and its offset."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = f"0x{data[exc.start]:02x}"
        raise InputError(label, f"not UTF-8 text (byte {bad} at offset {exc.start})") from None


def read_input(path: StrPath) -> str:
    """The UTF-8 text of a file; :class:`InputError` if it is missing, a directory or not text."""
    _check_readable(path)
    label = _label(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(label, "no such file") from None
    except OSError as exc:
        raise InputError(label, f"cannot read ({exc.strerror or type(exc).__name__})") from None
    return decode_utf8(data, label)


def _check_readable(path: StrPath) -> None:
    p = Path(path)
    if p.is_dir():
        raise InputError(_label(path), "is a directory (use 'cotaudit audit' to check a tree)")
    if not p.exists():
        raise InputError(_label(path), "no such file")


def _label(path: StrPath) -> str:
    return Path(path).as_posix()


class InputItem(NamedTuple):
    """One thing to check: a text and the engine for it, or the reason it cannot be checked."""

    engine: str
    text: str
    path: str | None
    item_id: str | None
    error: str | None = None


def load_inputs(path: StrPath, engine: str | None = None) -> list[InputItem]:
    """Read ``path`` into items: one for a trace file, one per non-blank line of a ``.jsonl``.

    ``engine`` overrides detection for trace files and fills a missing ``engine`` field of
    JSONL items. Raises :class:`InputError`, :class:`UnsupportedInput`, :class:`UnknownEngine`,
    :class:`EngineUnavailable` or :class:`MissingDependency` for the file as a whole; a bad
    JSONL line becomes an item with ``error`` set instead.
    """
    if engine is not None:
        engine_spec(engine)
    if _is_record_source(path):
        return load_records(path, engine)
    _check_readable(path)
    if is_jsonl(path):
        return parse_jsonl_items(read_input(path), path=_label(path), engine=engine)
    name = engine or detect_engine(path)
    get_engine(name)  # fail before reading the bytes if the engine cannot run
    text = read_input(path)
    return [InputItem(engine=name, text=text, path=_label(path), item_id=_item_id_for(path))]


def _is_record_source(path: StrPath) -> bool:
    """A data file other than plain JSONL (``.jsonl.gz``, Parquet, a saved dataset, stdin), or
    JSONL read through a field map: :mod:`cotaudit.dataio` reads those."""
    from cotaudit import dataio  # deferred: not on the start-up path

    return dataio.is_item_source(path) or (is_jsonl(path) and not dataio.current_fields().identity)


def load_records(path: StrPath, engine: str | None = None) -> list[InputItem]:
    """The items of a data file read by :mod:`cotaudit.dataio` (``-``: standard input), with the
    field map in force; each record becomes an item exactly as a JSONL line does."""
    from cotaudit import dataio

    with dataio.open_records(path) as records:
        items = []
        for n, raw in records.lines():
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                error = f"line {n}: not UTF-8 text (offset {exc.start})"
                items.append(InputItem(engine or "unknown", "", records.label, f"line-{n}", error))
                continue
            items.append(parse_jsonl_line(line, n, path=records.label, engine=engine))
        return items


def parse_jsonl_items(text: str, *, path: str | None, engine: str | None = None) -> list[InputItem]:
    """Items ``{"id": ..., "engine": ..., "text": ...}``, one per non-blank line.

    A line that is not such an object, or names an engine that cannot run here, becomes an
    item with ``error`` set (reported ``invalid``); it never aborts the other items. A missing
    ``id`` defaults to ``line-N`` (N is the 1-based line number in the file).
    """
    items: list[InputItem] = []
    for lineno, raw in enumerate(text.split("\n"), start=1):
        if raw.strip():
            items.append(parse_jsonl_line(raw, lineno, path=path, engine=engine))
    return items


def _engine_problem(name: str) -> str | None:
    try:
        get_engine(name)
    except (UnknownEngine, EngineUnavailable) as exc:
        return str(exc)
    return None


def parse_jsonl_line(
    raw: str,
    lineno: int,
    *,
    path: str | None,
    engine: str | None = None,
    engine_problem: Callable[[str], str | None] = _engine_problem,
) -> InputItem:
    """One JSONL line as an item (``error`` set when it cannot be one; see
    :func:`parse_jsonl_items`). ``engine_problem(name)`` says why an engine cannot run, or
    ``None`` (batch runs pass a memoising one)."""
    item_id = f"line-{lineno}"
    name = engine or "unknown"
    try:
        obj = json.loads(raw)
    except json.JSONDecodeError as exc:
        return InputItem(name, raw, path, item_id, f"line {lineno}: not JSON ({exc.msg})")
    if not isinstance(obj, dict):
        return InputItem(name, raw, path, item_id, f"line {lineno}: not a JSON object")
    error: str | None = None
    raw_id = obj.get("id")
    if isinstance(raw_id, str):
        item_id = raw_id
    elif isinstance(raw_id, int) and not isinstance(raw_id, bool):
        item_id = str(raw_id)
    elif raw_id is not None:
        error = f"line {lineno}: 'id' must be a string or an integer"
    raw_engine = obj.get("engine")
    if isinstance(raw_engine, str):
        name = raw_engine
    elif raw_engine is not None:
        error = error or f"line {lineno}: 'engine' must be a string"
    elif engine is None:
        error = error or f"line {lineno}: no 'engine' field (give --engine)"
    item_text = obj.get("text")
    if item_text is None and name in RECORD_ENGINES:
        item_text = raw  # the line is the engine's own record (cot: a ProcessBench / BBM row)
    if not isinstance(item_text, str):
        error = error or f"line {lineno}: 'text' must be a string"
        item_text = raw
    if error is None:
        problem = engine_problem(name)
        if problem is not None:
            error = f"line {lineno}: {problem}"
    return InputItem(name, item_text, path, item_id, error)


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
    except CotauditError:
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
        yield SkippedFile(_label(root), f"cannot list directory ({exc.strerror})", "unreadable")
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
            raise InputError(_label(given), "no such file or directory")
        explicit = not root.is_dir() or _is_record_source(root)
        candidates = [root] if explicit else list(_walk(root))
        for cand in candidates:
            if isinstance(cand, SkippedFile):
                skipped.append(cand)
                continue
            key = os.path.realpath(cand)
            if key in seen:
                continue
            seen.add(key)
            label = _label(cand)
            if is_jsonl(cand) or (explicit and _is_record_source(cand)):
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


def audit(paths: Iterable[StrPath], **options: Any) -> AuditResult:
    """Check every supported file under ``paths`` (the main job).

    Unlike :func:`check_file`, a file that cannot be read (not UTF-8, permission denied) does
    not stop the audit: it becomes an ``invalid`` report. A path that does not exist raises
    :class:`InputError`; a missing optional dependency raises :class:`MissingDependency`.
    """
    picked, skipped = _audit_files(paths)
    reports: list[Report] = []
    for path, name in picked:
        try:
            items = load_inputs(path, name or None)
        except InputError as exc:
            reports.append(_unreadable_report(path, name, exc.reason))
            continue
        reports.extend(run_item(item, **options) for item in items)
    return AuditResult(tuple(reports), tuple(skipped))


def _unreadable_report(path: Path, engine: str, error: str) -> Report:
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        digest = ""
    return invalid_report(
        engine=engine or "unknown",
        path=_label(path),
        item_id=None if is_jsonl(path) else _item_id_for(path),
        sha256=digest,
        error=error,
    )


# --------------------------------------------------------------------------- built-in engines


def _builtin(name: str, extensions: tuple[str, ...], entry_point: str | None = None) -> None:
    """Register a built-in engine: available once its subpackage is installed."""
    present = importlib.util.find_spec(f"cotaudit.{name}") is not None
    register_engine(name, (entry_point or f"cotaudit.{name}:check") if present else None, extensions)


_builtin("te", (".te",))
_builtin("type6", (".t6",))
# vericot runs through its front end: a raw chain of thought needs a formaliser, which is the
# LLM layer when COTAUDIT_LLM_* configures a model (the engine itself never imports it).
_builtin("vericot", (".vcot.json",), "cotaudit.frontends.vericot_llm:check")
_builtin("certify", (".kb", ".cert.json"))
# Raw chains of thought: .txt is read as one by default; .md needs --engine cot (a tree's
# README files are not chains). A .cot.json holds one record with its own steps.
_builtin("cot", (".cot.json", ".txt"))
