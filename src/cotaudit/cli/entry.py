"""The ``cotaudit`` command line (R-4): build the parser from the command modules listed in
:data:`COMMANDS` and :data:`ENGINE_GROUPS`, run the chosen handler, turn errors into one line
and an exit code. Nothing here knows how an engine works.

Exit codes: 0 every item passed; 1 some item failed, abstained or was invalid; 2 usage error
or unreadable input; 3 an optional dependency is missing. Every error is one line on stderr
starting with ``cotaudit: `` and never a traceback (set ``COTAUDIT_DEBUG=1`` to get one).

Decisions where R-4 is silent (``check`` and ``audit`` have theirs in :mod:`cotaudit.cli.check`):
- A bug inside cotaudit itself (not inside an engine) also exits 2, with an "internal error"
  line; Ctrl-C exits 130.
- A reader that goes away (``| head``) ends the output quietly: no traceback, no error line;
  the exit code is the command's when it got that far, else 141 (128 + SIGPIPE, as for a
  process the signal ended).
- A mistyped command, choice or flag gets "did you mean" (:mod:`cotaudit.cli.suggest`); a
  bare ``cotaudit`` names every command.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from cotaudit import __version__
from cotaudit.cli import (
    batch,
    certify,
    check,
    explain,
    options,
    report_cmd,
    select,
    serve,
    te,
    type6,
    vericot,
)
from cotaudit.cli import eval as eval_command
from cotaudit.cli import export as export_command
from cotaudit.cli.check import EXIT_FINDINGS, EXIT_OK, exit_code
from cotaudit.cli.color import use_color
from cotaudit.cli.io import closed_pipe
from cotaudit.cli.lazy import OnlyCommand, wanted_command
from cotaudit.cli.progress import reporter_for
from cotaudit.cli.suggest import did_you_mean, help_prog
from cotaudit.errors import CotauditError, UsageError
from cotaudit.progress import reporting
from cotaudit.report.text import one_line

EXIT_USAGE = 2
EXIT_DEPENDENCY = 3
EXIT_CLOSED_PIPE = 141

Handler = Callable[[argparse.Namespace], int]
Register = Callable[["argparse._SubParsersAction[_Parser]"], None]

__all__ = ["EXIT_DEPENDENCY", "EXIT_FINDINGS", "EXIT_OK", "EXIT_USAGE", "build_parser", "exit_code", "main"]


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of printing usage and exiting, so errors stay one line."""

    argv: Sequence[str] | None = None  # the command line, for "did you mean" on a flag

    def error(self, message: str) -> NoReturn:
        prog = help_prog(message, self, _Parser.argv)
        raise UsageError(f"{did_you_mean(message, self, _Parser.argv)} (see '{prog} --help')")


# The top-level commands before the engine groups, in the order ``--help`` lists them.
COMMANDS: tuple[Register, ...] = (
    check.add_check_command,
    check.add_audit_command,
    batch.add_command,
    serve.add_command,
    report_cmd.add_command,
    export_command.add_command,
    explain.add_codes_command,
    explain.add_explain_command,
    select.add_command,
)
# ``cotaudit <engine> <tool>``: each module defines ``add_commands(tools)``.
ENGINE_GROUPS: tuple[tuple[str, Register], ...] = (
    ("te", te.add_commands),
    ("type6", type6.add_commands),
    ("vericot", vericot.add_commands),
    ("certify", certify.add_commands),
)
# After the engine groups: ``cotaudit eval <engine>``.
LAST_COMMANDS: tuple[Register, ...] = (eval_command.add_command,)


def _cmd_group_help(group: str, tools: Sequence[str]) -> Handler:
    def handler(args: argparse.Namespace) -> int:
        if not tools:
            raise UsageError(f"no '{group}' tools in this version of cotaudit")
        raise UsageError(f"'cotaudit {group}' needs a tool: {', '.join(tools)}")

    return handler


def _add_engine_group(sub: argparse._SubParsersAction[_Parser], engine: str, register: Register) -> None:
    group = sub.add_parser(engine, help=f"tools of the {engine} engine")
    tools = group.add_subparsers(dest=f"{engine}_command", metavar="TOOL", parser_class=_Parser)
    register(tools)
    group.set_defaults(handler=_cmd_group_help(engine, sorted(tools.choices)))


def build_parser(argv: Sequence[str] | None = None) -> _Parser:
    """The parser; given ``argv`` naming a command, only that command's part is built."""
    wanted = wanted_command(argv) if argv is not None else None
    if wanted is not None:
        parser = _build(wanted)
        if parser is not None:
            return parser
    parser = _build(None)
    assert parser is not None
    return parser


def _build(wanted: str | None) -> _Parser | None:
    parser = _Parser(prog="cotaudit", description="Mechanical audits of language-model reasoning traces.")
    parser.add_argument("--version", action="version", version=f"cotaudit {__version__}")
    real = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub: Any = real if wanted is None else OnlyCommand(real, wanted)
    for register in COMMANDS:
        register(sub)
    for engine, register_tools in ENGINE_GROUPS:
        if wanted is None or engine == wanted:
            _add_engine_group(real, engine, register_tools)
        else:
            sub.add_parser(engine)  # its name only
    for register in LAST_COMMANDS:
        register(sub)
    if isinstance(sub, OnlyCommand) and not sub.found:
        return None  # no such command: the whole parser, for "did you mean"
    options.add_everywhere(parser)
    return parser


def _commands(parser: argparse.ArgumentParser) -> list[str]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return list(sub.choices)


def _fail(message: str, code: int) -> int:
    sys.stderr.write(f"cotaudit: {one_line(message)}\n")
    sys.stderr.flush()
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return the exit code (the console script passes it to ``sys.exit``)."""
    debug = bool(os.environ.get("COTAUDIT_DEBUG"))
    try:
        _Parser.argv = list(argv) if argv is not None else sys.argv[1:]
        parser = build_parser(_Parser.argv)
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help and --version print and exit 0
            return exc.code if isinstance(exc.code, int) else EXIT_OK
        args.command_line = list(_Parser.argv)  # as given: e.g. what batch's resume hint repeats
        handler: Handler | None = getattr(args, "handler", None)
        if handler is None:
            names = _commands(build_parser())
            raise UsageError(f"missing command: {', '.join(names)} (see 'cotaudit --help')")
        # Long work reports progress (cotaudit.progress); a bar is drawn on a terminal's stderr.
        bar = reporter_for(
            bool(getattr(args, "quiet", False)), use_color(getattr(args, "color", None), sys.stderr)
        )
        with reporting(bar):
            return handler(args)
    except BrokenPipeError:
        closed_pipe()
        return EXIT_CLOSED_PIPE
    except CotauditError as exc:
        if debug:
            raise
        return _fail(str(exc), exc.exit_code)
    except KeyboardInterrupt:
        return _fail("interrupted", 130)
    except Exception as exc:  # a bug in cotaudit: still one line, never a traceback
        if debug:
            raise
        return _fail(f"internal error: {type(exc).__name__}: {exc} (set COTAUDIT_DEBUG=1 for a traceback)", 2)
