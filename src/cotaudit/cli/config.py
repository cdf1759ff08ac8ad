"""The configuration file: ``[tool.cotaudit]`` in ``pyproject.toml`` or a ``cotaudit.toml``.

Found like ruff finds its own: from the first input's directory (the working directory when
there is none, or stdin) upwards, the first directory with a ``cotaudit.toml`` (top-level keys)
or a ``pyproject.toml`` that has a ``[tool.cotaudit]`` table wins; ``--config FILE`` names one,
``--isolated`` ignores them all. Keys, the same as the flags::

    select = ["TE", "T6_E"]          # codes or prefixes; default ["ALL"]
    extend-select = ["T6_W3"]
    ignore = ["TE_W001"]
    fail-on = "warning"              # or "error" (the default)
    time-limit = 30                  # seconds per input, 0 / "none": no limit
    memory-limit = 1024              # MiB per input
    [tool.cotaudit.engine.certify]   # per-engine limits ([engine.certify] in cotaudit.toml)
    time-limit = 120

The command line wins over the file key by key: ``--select`` replaces ``select``, while
``--extend-select`` and ``--ignore`` add to the file's lists (ruff's rule); a plain
``--time-limit`` replaces the file's time limits for every engine, ``--time-limit te=5`` only
te's. :func:`apply_config` merges the file into the parsed arguments before a handler runs.
"""

from __future__ import annotations

import argparse
import difflib
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from cotaudit.errors import UsageError

PROJECT_FILE = "pyproject.toml"
OWN_FILE = "cotaudit.toml"
KEYS = ("select", "extend-select", "ignore", "fail-on", "time-limit", "memory-limit", "engine")
LIMIT_KEYS = ("time-limit", "memory-limit")
# [tool.cotaudit...], tool.cotaudit.x = ..., or cotaudit = {...} inside [tool]
_MENTIONS_TABLE = re.compile(r"tool\s*\.\s*\"?cotaudit|^\s*\"?cotaudit\"?\s*=", re.M)


class ConfigFile(NamedTuple):
    """A configuration that was found: where, and its (checked) table."""

    path: Path | None  # None: no file, the defaults
    table: Mapping[str, Any]

    @property
    def label(self) -> str:
        if self.path is None:
            return "(none: defaults)"
        where = self.path.as_posix()
        return f"{where} [tool.cotaudit]" if self.path.name == PROJECT_FILE else where


NO_FILE = ConfigFile(None, {})


def _load_toml(path: Path) -> dict[str, Any]:
    import tomllib

    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise UsageError(f"{path.as_posix()}: cannot read ({exc.strerror or type(exc).__name__})") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path.as_posix()}: not valid TOML ({exc})") from None


def _table_of(path: Path) -> dict[str, Any] | None:
    """The cotaudit table of ``path`` (``None``: a pyproject.toml without one)."""
    if path.name == PROJECT_FILE:
        try:
            if not _MENTIONS_TABLE.search(path.read_text(encoding="utf-8", errors="replace")):
                return None  # most projects: no need to parse the TOML at all
        except OSError as exc:
            raise UsageError(
                f"{path.as_posix()}: cannot read ({exc.strerror or type(exc).__name__})"
            ) from None
    data = _load_toml(path)
    if path.name != PROJECT_FILE:
        tool = data.get("tool")
        if isinstance(tool, dict) and isinstance(tool.get("cotaudit"), dict):
            return dict(tool["cotaudit"])  # a cotaudit.toml written like a pyproject.toml
        return data
    tool = data.get("tool")
    table = tool.get("cotaudit") if isinstance(tool, dict) else None
    return dict(table) if isinstance(table, dict) else None


def find_config(start: Path) -> ConfigFile:
    """The first configuration at or above ``start`` (a file or a directory)."""
    here = start if start.is_dir() else start.parent
    for directory in [here.resolve(), *here.resolve().parents]:
        for name in (OWN_FILE, PROJECT_FILE):
            candidate = directory / name
            if candidate.is_file():
                table = _table_of(candidate)
                if table is not None:
                    return ConfigFile(candidate, check_table(table, candidate))
    return NO_FILE


def load_config(path: str) -> ConfigFile:
    """``--config FILE``: that file, which must exist and have the table."""
    file = Path(path)
    if not file.is_file():
        raise UsageError(f"--config {path}: no such file")
    table = _table_of(file)
    if table is None:
        raise UsageError(f"--config {path}: no [tool.cotaudit] table")
    return ConfigFile(file, check_table(table, file))


def _unknown(key: str, where: str, known: Sequence[str]) -> UsageError:
    close = difflib.get_close_matches(key, known, n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    return UsageError(f"{where}: unknown key '{key}'{hint}")


def _limit(value: Any, key: str, where: str) -> float | int | None:
    if isinstance(value, str) and value.strip().lower() in ("none", "0"):
        return None
    ok = (
        isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value >= 0
    )
    if key == "memory-limit":
        ok = ok and isinstance(value, int)
    if not ok:
        raise UsageError(f"{where}: '{key}' must be a non-negative number or \"none\", got {value!r}")
    return value or None


def check_table(table: Mapping[str, Any], path: Path) -> dict[str, Any]:
    """Every key known and well typed; selectors checked against the code table."""
    from cotaudit import api
    from cotaudit.selection import FAIL_ON, check_selector

    where = path.as_posix()
    out: dict[str, Any] = {}
    for key, value in table.items():
        if key not in KEYS:
            raise _unknown(key, where, KEYS)
        if key in ("select", "extend-select", "ignore"):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise UsageError(f"{where}: '{key}' must be a list of codes or prefixes")
            out[key] = [check_selector(v) for v in value]
        elif key == "fail-on":
            if value not in FAIL_ON:
                raise UsageError(f"{where}: 'fail-on' must be one of {', '.join(FAIL_ON)}, got {value!r}")
            out[key] = value
        elif key in LIMIT_KEYS:
            out[key] = _limit(value, key, where)
        else:  # engine tables
            if not isinstance(value, dict):
                raise UsageError(f"{where}: 'engine' must be a table of engine tables")
            engines = [s.name for s in api.engines()]
            out[key] = {}
            for name, limits in value.items():
                if name not in engines:
                    raise _unknown(name, f"{where}: [engine]", engines)
                if not isinstance(limits, dict):
                    raise UsageError(f"{where}: [engine.{name}] must be a table")
                for k in limits:
                    if k not in LIMIT_KEYS:
                        raise _unknown(k, f"{where}: [engine.{name}]", LIMIT_KEYS)
                out[key][name] = {k: _limit(v, k, f"{where}: [engine.{name}]") for k, v in limits.items()}
    return out


def config_for(args: argparse.Namespace) -> ConfigFile:
    """The configuration the arguments point at (``--config``, ``--isolated``, the inputs)."""
    if getattr(args, "isolated", False):
        return NO_FILE
    given = getattr(args, "config_file", None)
    if given:
        return load_config(given)
    paths = [p for p in _inputs(args) if p != "-"]
    return find_config(Path(paths[0]) if paths else Path.cwd())


def _inputs(args: argparse.Namespace) -> list[str]:
    for name in ("paths", "input"):
        value = getattr(args, name, None)
        if isinstance(value, list):
            return [str(v) for v in value]
        if isinstance(value, str):
            return [value]
    return []


def apply_config(args: argparse.Namespace) -> ConfigFile:
    """Merge the configuration file into ``args`` (the command line wins); return the file."""
    config = config_for(args)
    table = config.table
    if hasattr(args, "select"):  # commands with the selection flags (check, audit, batch, config)
        if args.select is None and "select" in table:
            args.select = list(table["select"])
        args.extend_select = [*table.get("extend-select", ()), *(args.extend_select or ())]
        args.ignore = [*table.get("ignore", ()), *(args.ignore or ())]
        if args.fail_on is None:
            args.fail_on = table.get("fail-on", "error")
    for key in LIMIT_KEYS:
        attr = key.replace("-", "_")
        if not hasattr(args, attr):
            continue
        given: list[tuple[str | None, Any]] = getattr(args, attr) or []
        plain_given = any(name is None for name, _ in given)
        from_file: list[tuple[str | None, Any]] = []
        if not plain_given:
            if key in table:
                from_file.append((None, table[key]))
            for engine, limits in table.get("engine", {}).items():
                mine = {name for name, _ in given}
                if key in limits and engine not in mine:
                    from_file.append((engine, limits[key]))
        setattr(args, attr, [*from_file, *given] or None)
    args.config_source = config
    return config
