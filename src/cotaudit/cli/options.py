"""Options every command takes: ``--color``, ``-q/--quiet``, ``-v/--verbose``.

They are accepted before the command (``cotaudit -q check x.te``) and after it
(``cotaudit check -q x.te``): :func:`add_everywhere` adds them to the top-level parser with
their defaults and to every sub-parser with ``SUPPRESS`` defaults, so a sub-parser never
overwrites what was given before the command. A command that has its own ``--quiet`` keeps it
(its default becomes ``SUPPRESS`` too). Handlers read them through :func:`output_of`.
"""

from __future__ import annotations

import argparse
from typing import NamedTuple

from cotaudit.cli.color import CHOICES, use_color


class Output(NamedTuple):
    """How much to print and whether to colour it."""

    color: bool
    quiet: bool
    verbose: bool


def _add(parser: argparse.ArgumentParser, *, top: bool) -> None:
    existing = {s for a in parser._actions for s in a.option_strings}
    default = None if top else argparse.SUPPRESS
    if "--color" not in existing:
        parser.add_argument(
            "--color",
            choices=CHOICES,
            default="auto" if top else argparse.SUPPRESS,
            help="colour the output: auto (a terminal, NO_COLOR unset), always or never",
        )
    if "--quiet" in existing:
        for action in parser._actions:
            if "--quiet" in action.option_strings:
                action.default = argparse.SUPPRESS
                if "-q" not in existing:  # the short spelling every other command has
                    action.option_strings = [*action.option_strings, "-q"]
                    parser._option_string_actions["-q"] = action
    else:
        flags = ["-q", "--quiet"] if "-q" not in existing else ["--quiet"]
        parser.add_argument(
            *flags,
            action="store_true",
            default=False if top else default,
            help="print findings only: no summary, no progress",
        )
    if "--verbose" not in existing:
        flags = ["-v", "--verbose"] if "-v" not in existing else ["--verbose"]
        parser.add_argument(
            *flags,
            action="store_true",
            default=False if top else default,
            help="print more: every item's verdict, timings, where files went",
        )


def _subparsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    found: list[argparse.ArgumentParser] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):  # aliases share a parser
                found.append(child)
                found.extend(_subparsers(child))
    return found


def add_everywhere(parser: argparse.ArgumentParser) -> None:
    """Add the options to ``parser`` and to every parser under it."""
    _add(parser, top=True)
    for child in _subparsers(parser):
        _add(child, top=False)


def output_of(args: argparse.Namespace) -> Output:
    quiet = bool(getattr(args, "quiet", False))
    return Output(
        color=use_color(getattr(args, "color", "auto")),
        quiet=quiet,
        verbose=bool(getattr(args, "verbose", False)) and not quiet,
    )
