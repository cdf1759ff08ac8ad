"""The ``cotaudit`` command line (R-4): parse arguments, call :mod:`cotaudit.api`, pick a writer,
set the exit code. Nothing here knows how an engine works.

Exit codes: 0 every item passed; 1 some item failed, abstained or was invalid; 2 usage error
or unreadable input; 3 an optional dependency is missing. Every error is one line on stderr
starting with ``cotaudit: `` and never a traceback (set ``COTAUDIT_DEBUG=1`` to get one).

Decisions where R-4 is silent:
- ``check`` reads and resolves every input before running any engine, so an unreadable
  input (missing, a directory, not UTF-8) exits 2 with no report output at all.
- ``audit`` is the report-producing main job: it exits 0 once every file was audited, whatever
  the verdicts, and ``audit --strict`` applies the exit codes above (use ``check`` to gate CI).
  It never stops on one bad file: unreadable files become ``invalid`` reports; a tree without
  a single supported file is a usage error (exit 2, "no supported files found").
- A bug inside cotaudit itself (not inside an engine) also exits 2, with an "internal error"
  line; Ctrl-C exits 130.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from cotaudit import __version__, api
from cotaudit.cli_io import write_stdout
from cotaudit.cli_limits import add_limit_options, limits_from_args
from cotaudit.errors import CotauditError, UsageError
from cotaudit.report import Report
from cotaudit.report.encoding import utf8_bytes
from cotaudit.report.jsonout import render_json
from cotaudit.report.runlog import render_run_log
from cotaudit.report.sarif import render_sarif
from cotaudit.report.summary import render_summary
from cotaudit.report.text import STDIN_LABEL, finding_lines, one_line, render_text, verdict_line

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
EXIT_DEPENDENCY = 3

Handler = Callable[[argparse.Namespace], int]


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of printing usage and exiting, so errors stay one line."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def exit_code(reports: Sequence[Report]) -> int:
    """0 if every report passed, else 1 (fail, abstain and invalid all count)."""
    return EXIT_OK if all(r.verdict == "pass" for r in reports) else EXIT_FINDINGS


def _write(text: str, output: str | None) -> None:
    """UTF-8 bytes to ``output`` or stdout, never translated, so output is byte-identical."""
    data = utf8_bytes(text)  # a lone surrogate is written as \uXXXX, never an exception
    if output is not None and output != "-":
        try:
            Path(output).write_bytes(data)
        except OSError as exc:
            raise UsageError(f"{output}: cannot write ({exc.strerror or type(exc).__name__})") from None
        return
    write_stdout(data)


# --------------------------------------------------------------------------- check


def _cmd_check(args: argparse.Namespace) -> int:
    paths: list[str] = args.paths
    if paths.count("-") > 1:
        raise UsageError("stdin ('-') can be given only once")
    if "-" in paths and args.engine is None:
        raise UsageError("reading stdin ('-') needs --engine")
    if args.engine is not None:
        api.get_engine(args.engine)  # an unavailable engine is a usage error before any input is read
    items: list[api.InputItem] = []
    for path in paths:
        if path == "-":
            text = api.decode_utf8(sys.stdin.buffer.read(), STDIN_LABEL)
            items.append(api.InputItem(engine=args.engine, text=text, path=None, item_id=None))
        else:
            items.extend(api.load_inputs(path, args.engine))
    limits = limits_from_args(args)
    reports = [api.run_item(item, limits=limits) for item in items]
    timing = not args.no_timing
    if args.format == "json":
        single = len(paths) == 1 and len(reports) == 1 and not api.is_jsonl(paths[0])
        out = render_json(reports, single=single, timing=timing)
    elif args.format == "jsonl":
        config = {"command": "check", "engine": args.engine, "inputs": paths}
        out = render_run_log(reports, config, version=__version__, timing=timing)
    elif args.format == "sarif":
        out = render_sarif(reports, version=__version__)
    elif args.format == "html":
        from cotaudit import cli_html

        out = cli_html.render(reports, sources=[item.text for item in items], timing=timing)
    else:
        out = render_text(reports)
    _write(out, args.output)
    return exit_code(reports)


# --------------------------------------------------------------------------- audit


def _cmd_audit(args: argparse.Namespace) -> int:
    result = api.audit(args.paths, limits=limits_from_args(args))
    if not result.reports:
        counts = _skip_counts(result.skipped)
        why = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items()))
        where = " ".join(args.paths)
        raise UsageError(f"no supported files found in {where}" + (f" (skipped: {why})" if why else ""))
    timing = not args.no_timing
    if not args.no_html:
        _write_audit_html(result.reports, args.html_dir, timing)
    if args.format == "json":
        _write(render_json(result.reports, timing=timing), args.output)
        return exit_code(result.reports) if args.strict else EXIT_OK
    lines = finding_lines(result.reports, ("error", "warning"))
    lines += [verdict_line(r) for r in result.reports if r.verdict == "invalid"]
    lines += [
        f"{s.path}: skipped ({s.reason})" for s in result.skipped if s.kind in ("unavailable", "unreadable")
    ]
    counts = _skip_counts(result.skipped)
    head = "".join(line + "\n" for line in lines)
    summary = render_summary(result.reports, timing=timing, skipped=counts)
    _write(head + ("\n" if head else "") + summary, args.output)
    return exit_code(result.reports) if args.strict else EXIT_OK


def _write_audit_html(reports: Sequence[Report], directory: str, timing: bool) -> None:
    """The HTML report of an audit; where it went is said on a terminal only (stdout and a
    redirected stderr stay as they were)."""
    from cotaudit import cli_html

    path = cli_html.write_report_dir(reports, directory, timing=timing)
    if sys.stderr.isatty():
        sys.stderr.write(f"cotaudit: HTML report: {path.as_posix()}\n")


_SKIP_WORDS = {
    "unavailable": "engine not available",
    "unsupported": "not a trace file",
    "jsonl": ".jsonl not named explicitly",
    "unreadable": "unreadable directory",
}


def _skip_counts(skipped: Sequence[api.SkippedFile]) -> dict[str, int]:
    """Skipped files counted by the reason they were skipped, in words."""
    counts: dict[str, int] = {}
    for s in skipped:
        word = _SKIP_WORDS.get(s.kind, s.kind)
        counts[word] = counts.get(word, 0) + 1
    return counts


# --------------------------------------------------------------------------- engine tools


def add_te_commands(subparsers: argparse._SubParsersAction[_Parser]) -> None:
    """Register ``cotaudit te <tool>`` subcommands (``te convert``, ``te np``, ``te extract``).

    Each tool adds a parser with its arguments and ``set_defaults(handler=fn)`` where
    ``fn(args) -> int`` returns the exit code; engines are imported inside ``fn``.
    """
    from cotaudit.cli_te import add_te_commands as register

    register(subparsers)


def _cmd_group_help(group: str, tools: Sequence[str]) -> Handler:
    def handler(args: argparse.Namespace) -> int:
        if not tools:
            raise UsageError(f"no '{group}' tools in this version of cotaudit")
        raise UsageError(f"'cotaudit {group}' needs a tool: {', '.join(tools)}")

    return handler


# --------------------------------------------------------------------------- parser and main


def build_parser() -> _Parser:
    parser = _Parser(prog="cotaudit", description="Mechanical audits of language-model reasoning traces.")
    parser.add_argument("--version", action="version", version=f"cotaudit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    engines = [s.name for s in api.engines()]
    check = sub.add_parser("check", help="check traces and print their reports")
    check.add_argument("--engine", choices=engines, help="engine to use (default: from the file extension)")
    check.add_argument("--format", choices=("text", "json", "jsonl", "sarif", "html"), default="text")
    check.add_argument("-o", "--output", metavar="OUT", help="write the output to OUT instead of stdout")
    check.add_argument("--no-timing", action="store_true", help="leave out timing_ms (byte-identical output)")
    add_limit_options(check)
    check.add_argument("paths", nargs="+", metavar="PATH", help="trace file, .jsonl file, or - (stdin)")
    check.set_defaults(handler=_cmd_check)

    audit = sub.add_parser("audit", help="check every supported file under PATHs and print a summary")
    audit.add_argument("--format", choices=("text", "json"), default="text")
    audit.add_argument("-o", "--output", metavar="OUT", help="write the output to OUT instead of stdout")
    audit.add_argument("--no-timing", action="store_true", help="leave out timings (byte-identical output)")
    audit.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 when any item fails (default: exit 0 once the audit ran)",
    )
    audit.add_argument(
        "--html-dir",
        metavar="DIR",
        default="cotaudit-report",
        help="write the HTML report to DIR/index.html (default: cotaudit-report)",
    )
    audit.add_argument("--no-html", action="store_true", help="do not write the HTML report")
    add_limit_options(audit)
    audit.add_argument("paths", nargs="+", metavar="PATH", help="file or directory")
    audit.set_defaults(handler=_cmd_audit)
    from cotaudit.cli_batch import add_batch_command, add_serve_command

    add_batch_command(sub)
    add_serve_command(sub)

    te = sub.add_parser("te", help="tools of the te engine")
    te_sub = te.add_subparsers(dest="te_command", metavar="TOOL", parser_class=_Parser)
    add_te_commands(te_sub)
    te.set_defaults(handler=_cmd_group_help("te", sorted(te_sub.choices)))
    for engine in ("type6", "vericot", "certify"):
        _add_engine_group(sub, engine)
    from cotaudit.cli_eval import add_eval_command

    add_eval_command(sub)
    return parser


def _add_engine_group(sub: argparse._SubParsersAction[_Parser], engine: str) -> None:
    """``cotaudit <engine> <tool>``: each engine's tools live in ``cotaudit/cli_<engine>.py``,
    which defines ``add_commands(subparsers)``; the group exists once that module does."""
    import importlib
    import importlib.util

    module_name = f"cotaudit.cli_{engine}"
    if importlib.util.find_spec(module_name) is None:
        return
    group = sub.add_parser(engine, help=f"tools of the {engine} engine")
    tools = group.add_subparsers(dest=f"{engine}_command", metavar="TOOL", parser_class=_Parser)
    importlib.import_module(module_name).add_commands(tools)
    group.set_defaults(handler=_cmd_group_help(engine, sorted(tools.choices)))


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
