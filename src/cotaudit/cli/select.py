"""``--select`` / ``--extend-select`` / ``--ignore`` / ``--fail-on`` / ``--config`` / ``--isolated``,
and ``cotaudit config``, which prints the configuration a run would use.

The flags take codes or prefixes, comma-separated or repeated (``--ignore TE_W001,T6_W4``).
Handlers call :func:`selection_of` (after :func:`cotaudit.cli.config.apply_config` merged the
file in) and :func:`cotaudit.selection.apply_selection` on every report; the run's exit code is
:func:`cotaudit.selection.exceeds` with ``--fail-on``. How selection changes a verdict is
documented once, in :mod:`cotaudit.selection`.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from cotaudit.cli.config import ConfigFile, apply_config
from cotaudit.cli.io import emit
from cotaudit.report.model import Report
from cotaudit.selection import FAIL_ON, Selection, apply_selection


def _codes(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


class _Extend(argparse.Action):
    """Comma-separated values, the flag repeatable: one flat list."""

    def __call__(self, parser: Any, namespace: argparse.Namespace, values: Any, option: Any = None) -> None:
        current = getattr(namespace, self.dest, None) or []
        setattr(namespace, self.dest, [*current, *_codes(str(values))])


def add_selection_options(parser: argparse.ArgumentParser) -> None:
    """The rule-selection and configuration flags (ruff's names)."""
    group = parser.add_argument_group("rule selection and configuration (or [tool.cotaudit])")
    group.add_argument(
        "--select",
        action=_Extend,
        metavar="CODES",
        help="report only these codes or prefixes, e.g. TE_E0,T6_W (default ALL)",
    )
    group.add_argument(
        "--extend-select", action=_Extend, metavar="CODES", help="add codes or prefixes to the selection"
    )
    group.add_argument(
        "--ignore", action=_Extend, metavar="CODES", help="do not report these codes or prefixes"
    )
    group.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default=None,
        help="exit 1 on any item that did not pass (error, the default), or also on a warning",
    )
    add_config_options(group)


def add_config_options(parser: Any) -> None:
    """``--config FILE`` and ``--isolated`` (also for a command that reads the file but selects nothing)."""
    parser.add_argument(
        "--config",
        dest="config_file",
        metavar="FILE",
        help="read this configuration (pyproject.toml or TOML)",
    )
    parser.add_argument("--isolated", action="store_true", help="ignore every configuration file")


def selection_of(args: argparse.Namespace) -> Selection:
    return Selection.of(args.select, args.extend_select or (), args.ignore or ())


def select_reports(reports: Sequence[Report], args: argparse.Namespace) -> list[Report]:
    selection = selection_of(args)
    if selection.is_default:
        return list(reports)
    return [apply_selection(r, selection) for r in reports]


# --------------------------------------------------------------------------- cotaudit config


def add_command(sub: argparse._SubParsersAction[Any]) -> None:
    """Register ``cotaudit config [PATH] [--format toml|json]``."""
    p = sub.add_parser(
        "config",
        help="print the resolved configuration (file, flags and defaults)",
        description="Print the configuration 'cotaudit check PATH' would use: which file was found, "
        "each key with where its value came from, and the codes the selection reports.",
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="where to look from (default: here)")
    p.add_argument("--format", choices=("toml", "json"), default="toml")
    from cotaudit.cli.limits import add_limit_options

    add_limit_options(p)
    add_selection_options(p)
    p.set_defaults(handler=_cmd_config)


def resolved(args: argparse.Namespace, config: ConfigFile) -> dict[str, Any]:
    """The merged configuration as a dict (what ``cotaudit config`` prints)."""
    from cotaudit.cli.limits import engine_limits, limits_from_args
    from cotaudit.codes import CODES

    selection = selection_of(args)
    limits = limits_from_args(args)
    enabled = selection.enabled_codes()
    return {
        "file": config.path.as_posix() if config.path else None,
        **selection.to_dict(),
        "fail-on": args.fail_on,
        "time-limit": limits.wall_s,
        "memory-limit": limits.memory_mb,
        "engine": {
            name: {"time-limit": lim.wall_s, "memory-limit": lim.memory_mb}
            for name, lim in engine_limits(args).items()
        },
        "codes": {
            "enabled": len(enabled),
            "of": len(CODES),
            "not_reported": sorted(set(CODES) - set(enabled)),
        },
    }


def _toml_value(value: Any) -> str:
    if value is None:
        return '"none"'
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return json.dumps(value)


def render_toml(data: dict[str, Any]) -> str:
    lines = [f"# configuration file: {data['file'] or '(none found: defaults)'}"]
    for key in ("select", "extend-select", "ignore", "fail-on", "time-limit", "memory-limit"):
        lines.append(f"{key} = {_toml_value(data[key])}")
    for engine, limits in data["engine"].items():
        lines += ["", f"[engine.{engine}]"]
        lines += [f"{k} = {_toml_value(v)}" for k, v in limits.items()]
    codes = data["codes"]
    lines += ["", f"# reported codes: {codes['enabled']} of {codes['of']}"]
    if codes["not_reported"]:
        lines.append(f"# not reported: {', '.join(codes['not_reported'])}")
    return "\n".join(lines) + "\n"


def _cmd_config(args: argparse.Namespace) -> int:
    config = apply_config(args)
    data = resolved(args, config)
    out = json.dumps(data, indent=2) + "\n" if args.format == "json" else render_toml(data)
    emit(out, None)
    return 0
