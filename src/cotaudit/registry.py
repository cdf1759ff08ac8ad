"""The engine registry (R-3): engines by name, their lazily resolved entry points and the file
extensions they own.

An engine is registered with an entry point ``"module:function"`` (or a callable) that is
imported only when something is checked with it, so ``import cotaudit`` and the CLI start fast.
The built-in engines are registered at the end of this module. :mod:`cotaudit.api` re-exports
everything here.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NamedTuple

from cotaudit.errors import EngineUnavailable, MissingDependency, UnknownEngine, UnsupportedInput, UsageError
from cotaudit.report import Report

EngineCheck = Callable[..., Report]
StrPath = str | os.PathLike[str]

JSONL_EXTENSION = ".jsonl"


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


def path_label(path: StrPath) -> str:
    """How a path is named in messages and reports (POSIX separators)."""
    return Path(path).as_posix()


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
            f"{path_label(path)}: cannot tell the engine from the file name "
            f"(known extensions: {', '.join([*exts, JSONL_EXTENSION])}); give --engine"
        )
    return engine


def item_id_for(path: StrPath) -> str:
    """``examples/te/janet.te`` → ``janet`` (the registered extension, possibly compound, removed)."""
    name = Path(path).name
    engine = engine_for_path(path)
    if engine is not None:
        for ext in sorted(_REGISTRY[engine].extensions, key=len, reverse=True):
            if name.endswith(ext):
                return name[: -len(ext)]
    return Path(path).stem


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
