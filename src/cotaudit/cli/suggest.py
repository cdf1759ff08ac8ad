""" "Did you mean" for a mistyped command, tool, choice or flag.

argparse's own messages name what was wrong; :func:`did_you_mean` adds the nearest valid
spelling (``difflib``, as git and cargo do). A mistyped flag is matched against the flags of the
command it was given to, found by walking the command line down the parser tree.
"""

from __future__ import annotations

import argparse
import difflib
import re
from collections.abc import Sequence

_CHOICE = re.compile(r"invalid choice: '(?P<word>[^']*)' \(choose from (?P<choices>.*)\)")
_UNRECOGNIZED = "unrecognized arguments: "


def _close(word: str, candidates: Sequence[str]) -> list[str]:
    return difflib.get_close_matches(word, list(candidates), n=2, cutoff=0.6)


def command_parser(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.ArgumentParser:
    """The parser of the (sub)command ``argv`` names, following sub-commands down."""
    current = parser
    for token in argv:
        if token.startswith("-"):
            continue
        sub = next((a for a in current._actions if isinstance(a, argparse._SubParsersAction)), None)
        if sub is None or token not in sub.choices:
            continue
        current = sub.choices[token]
    return current


def did_you_mean(message: str, parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> str:
    """``message`` with a suggestion appended when one is close enough."""
    match = _CHOICE.search(message)
    if match:
        choices = re.findall(r"'([^']*)'", match["choices"])
        close = _close(match["word"], choices)
        if close:
            return f"{message}; did you mean {' or '.join(repr(c) for c in close)}?"
        return message
    if message.startswith(_UNRECOGNIZED) and argv is not None:
        target = command_parser(parser, argv)
        flags = [s for a in target._actions for s in a.option_strings if s.startswith("--")]
        hints = []
        tokens = [t for t in message[len(_UNRECOGNIZED) :].split() if t.startswith("-")]
        for token in tokens:
            close = _close(token.partition("=")[0], flags)
            if close:
                hints.append(f"'{close[0]}'" if len(tokens) == 1 else f"'{close[0]}' for '{token}'")
        if hints:
            return f"{message}; did you mean {', '.join(hints)}?"
    return message


def help_prog(message: str, parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> str:
    """The command whose ``--help`` to point at: the one an unrecognized flag was given to."""
    if message.startswith(_UNRECOGNIZED) and argv is not None:
        return command_parser(parser, argv).prog
    return parser.prog
