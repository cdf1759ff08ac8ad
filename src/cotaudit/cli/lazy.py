"""Build only the part of the parser a command line needs: start-up for ``cotaudit check``.

Building every sub-parser of every command costs more than parsing the command line. When the
command is known (the first argument that is not an option), :class:`OnlyCommand` lets its
register function add the real parser and hands every other command a :class:`Discard` that
swallows what registration does to it. Anything unusual -- no command, ``--help``, a name no
command has -- builds the whole parser, so ``--help`` and "did you mean" see every command.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

# Top-level options that take a value: the command is not the token after them.
VALUED_OPTIONS = frozenset({"--color"})


def wanted_command(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names, or ``None`` when it names none (or asks for help)."""
    skip = False
    for token in argv:
        if skip:
            skip = False
            continue
        if token in ("-h", "--help", "--version"):
            return None
        if token in VALUED_OPTIONS:
            skip = True
            continue
        if token.startswith("-"):
            continue
        return token
    return None


class Discard:
    """Stands in for the parser of a command that is not being run: every call is a no-op that
    returns the stand-in again, so registration code runs unchanged."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: self


class OnlyCommand:
    """A sub-parsers action that creates a real parser for one command name only."""

    def __init__(self, real: argparse._SubParsersAction[Any], wanted: str) -> None:
        self.real = real
        self.wanted = wanted
        self.names: list[str] = []

    def add_parser(self, name: str, **kwargs: Any) -> Any:
        self.names.append(name)
        if name == self.wanted:
            return self.real.add_parser(name, **kwargs)
        return Discard()

    @property
    def found(self) -> bool:
        return self.wanted in self.names
