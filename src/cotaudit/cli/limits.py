"""``--time-limit`` and ``--memory-limit``: the per-input budget of ``check``, ``audit`` and ``batch``.

Both end up as one :class:`cotaudit.limits.Limits` passed to ``api.check(limits=...)``; an input
past either gets an ``abstain`` report with COTAUDIT_W001 (time) or COTAUDIT_W002 (memory). ``0``
or ``none`` switches a bound off. Either flag may be repeated as ``ENGINE=VALUE`` for one engine
(``--time-limit certify=60``); ``limits_from_args(args, engine)`` picks that engine's value, else
the last plain one, else the default. A configuration file adds its values in front of the
command line's (:mod:`cotaudit.cli.config`), so the command line wins.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import TypeVar

from cotaudit.limits import DEFAULT_MEMORY_MB, DEFAULT_WALL_S, Limits

OFF = ("0", "none")
T = TypeVar("T")
EngineValue = tuple[str | None, T]


def seconds_or_none(value: str) -> float | None:
    """``--time-limit`` values: positive seconds, or ``0`` / ``none`` for no bound."""
    text = value.strip().lower()
    if text in OFF:
        return None
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, 0 or 'none', got {value!r}") from None
    if not math.isfinite(seconds) or seconds < 0:
        raise argparse.ArgumentTypeError(f"expected positive seconds, 0 or 'none', got {value!r}")
    return seconds or None


def mebibytes_or_none(value: str) -> int | None:
    """``--memory-limit`` values: a positive whole number of MiB, or ``0`` / ``none`` for no bound."""
    text = value.strip().lower()
    if text in OFF:
        return None
    if not text.isdigit():  # ASCII digits only: no sign, no fraction, no exponent
        raise argparse.ArgumentTypeError(f"expected whole MiB, 0 or 'none', got {value!r}")
    return int(text) or None


def per_engine(convert: Callable[[str], T]) -> Callable[[str], EngineValue[T]]:
    """``VALUE`` or ``ENGINE=VALUE`` (one engine's own bound), converted by ``convert``."""

    def parse(value: str) -> EngineValue[T]:
        engine, sep, rest = value.partition("=")
        if not sep:
            return None, convert(value)
        engine = engine.strip()
        if not engine or not engine.replace("_", "").isalnum():
            raise argparse.ArgumentTypeError(f"expected VALUE or ENGINE=VALUE, got {value!r}")
        return engine, convert(rest)

    return parse


def add_limit_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--time-limit",
        type=per_engine(seconds_or_none),
        action="append",
        default=None,
        metavar="[ENGINE=]SECONDS",
        help=f"wall time per input before it is reported abstain COTAUDIT_W001 "
        f"(default {DEFAULT_WALL_S:g}; 0 or none: no limit; ENGINE=S for one engine, repeatable)",
    )
    parser.add_argument(
        "--memory-limit",
        type=per_engine(mebibytes_or_none),
        action="append",
        default=None,
        metavar="[ENGINE=]MIB",
        help=f"memory growth per input before it is reported abstain COTAUDIT_W002 "
        f"(default {DEFAULT_MEMORY_MB}; 0 or none: no limit; ENGINE=MIB for one engine, repeatable)",
    )


def _pick(entries: list[EngineValue[T]] | None, engine: str | None, default: T) -> T:
    value = default
    for name, given in entries or ():
        if name is None:
            value = given
    for name, given in entries or ():
        if engine is not None and name == engine:
            value = given
    return value


def limits_from_args(args: argparse.Namespace, engine: str | None = None) -> Limits:
    """The budget for ``engine``'s inputs (``None``: the one every engine shares)."""
    wall: float | None = _pick(getattr(args, "time_limit", None), engine, DEFAULT_WALL_S)
    memory: int | None = _pick(getattr(args, "memory_limit", None), engine, DEFAULT_MEMORY_MB)
    return Limits(wall_s=wall, memory_mb=memory)


def engine_limits(args: argparse.Namespace) -> dict[str, Limits]:
    """Every engine named in an ``ENGINE=VALUE`` bound, with its budget."""
    names = {name for key in ("time_limit", "memory_limit") for name, _ in getattr(args, key, None) or ()}
    return {name: limits_from_args(args, name) for name in sorted(n for n in names if n is not None)}
