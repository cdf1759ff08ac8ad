"""The ``cotaudit`` command line (R-4): build the parser from the command modules listed in
:data:`COMMANDS` and :data:`ENGINE_GROUPS`, run the chosen handler, turn errors into one line
and an exit code. Nothing here knows how an engine works.

Exit codes: 0 every item passed; 1 some item failed, abstained or was invalid; 2 usage error
or unreadable input; 3 an optional dependency is missing. Every error is one line on stderr
starting with ``cotaudit: `` and never a traceback (set ``COTAUDIT_DEBUG=1`` to get one).

Decisions where R-4 is silent (``check`` and ``audit`` have theirs in :mod:`cotaudit.cli.check`):
- A bug inside cotaudit itself (not inside an engine) also exits 2, with an "internal error"
  line; Ctrl-C exits 130.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from cotaudit import __version__
from cotaudit.cli import batch, certify, check, serve, te, type6, vericot
from cotaudit.cli import eval as eval_command
from cotaudit.cli import export as export_command
from cotaudit.cli.check import EXIT_FINDINGS, EXIT_OK, exit_code
from cotaudit.errors import CotauditError, UsageError
from cotaudit.report.text import one_line

EXIT_USAGE = 2
EXIT_DEPENDENCY = 3

Handler = Callable[[argparse.Namespace], int]
Register = Callable[["argparse._SubParsersAction[_Parser]"], None]

__all__ = ["EXIT_DEPENDENCY", "EXIT_FINDINGS", "EXIT_OK", "EXIT_USAGE", "build_parser", "exit_code", "main"]


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of printing usage and exiting, so errors stay one line."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


# The top-level commands before the engine groups, in the order ``--help`` lists them.
COMMANDS: tuple[Register, ...] = (
    check.add_check_command,
    check.add_audit_command,
    batch.add_command,
    serve.add_command,
)
# ``cotaudit <engine> <tool>``: each module defines ``add_commands(tools)``.
ENGINE_GROUPS: tuple[tuple[str, Register], ...] = (
    ("te", te.add_commands),
    ("type6", type6.add_commands),
    ("vericot", vericot.add_commands),
    ("certify", certify.add_commands),
)
# After the engine groups: ``cotaudit eval <engine>``.
LAST_COMMANDS: tuple[Register, ...] = (eval_command.add_command, export_command.add_command)


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


def build_parser() -> _Parser:
    parser = _Parser(prog="cotaudit", description="Mechanical audits of language-model reasoning traces.")
    parser.add_argument("--version", action="version", version=f"cotaudit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for register in COMMANDS:
        register(sub)
    for engine, register_tools in ENGINE_GROUPS:
        _add_engine_group(sub, engine, register_tools)
    for register in LAST_COMMANDS:
        register(sub)
    return parser


def _fail(message: str, code: int) -> int:
    sys.stderr.write(f"cotaudit: {one_line(message)}\n")
    sys.stderr.flush()
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return the exit code (the console script passes it to ``sys.exit``)."""
    debug = bool(os.environ.get("COTAUDIT_DEBUG"))
    try:
        parser = build_parser()
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help and --version print and exit 0
            return exc.code if isinstance(exc.code, int) else EXIT_OK
        handler: Handler | None = getattr(args, "handler", None)
        if handler is None:
            raise UsageError("missing command: check, audit or te (see 'cotaudit --help')")
        return handler(args)
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
