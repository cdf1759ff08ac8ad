"""``--time-limit`` and ``--memory-limit``: the per-input budget of ``check``, ``audit`` and ``batch``.

Both end up as one :class:`cotaudit.limits.Limits` passed to ``api.check(limits=...)``; an input
past either gets an ``abstain`` report with COTAUDIT_W001 (time) or COTAUDIT_W002 (memory). ``0``
or ``none`` switches a bound off.
"""

from __future__ import annotations

import argparse
import math

from cotaudit.limits import DEFAULT_MEMORY_MB, DEFAULT_WALL_S, Limits

OFF = ("0", "none")


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


def add_limit_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--time-limit",
        type=seconds_or_none,
        default=DEFAULT_WALL_S,
        metavar="SECONDS",
        help=f"wall time per input before it is reported abstain COTAUDIT_W001 "
        f"(default {DEFAULT_WALL_S:g}; 0 or none: no limit)",
    )
    parser.add_argument(
        "--memory-limit",
        type=mebibytes_or_none,
        default=DEFAULT_MEMORY_MB,
        metavar="MIB",
        help=f"memory growth per input before it is reported abstain COTAUDIT_W002 "
        f"(default {DEFAULT_MEMORY_MB}; 0 or none: no limit)",
    )


def limits_from_args(args: argparse.Namespace) -> Limits:
    return Limits(wall_s=args.time_limit, memory_mb=args.memory_limit)
