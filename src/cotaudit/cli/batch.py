"""``cotaudit batch``: argument parsing, rule selection and exit codes only.

The work lives in :mod:`cotaudit.batch`, imported when the command runs, so the CLI starts
fast and needs no Ray to show ``--help``.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any

from cotaudit import api
from cotaudit.cli.fields import FORMATS_HELP, add_field_options, fields_from_args
from cotaudit.cli.limits import add_limit_options, engine_limits, limits_from_args
from cotaudit.cli.select import add_selection_options, selection_of
from cotaudit.errors import UsageError
from cotaudit.progress import active as progress_active

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_INTERRUPTED = 130
EXIT_CODES = """\
The rule selection (--select, --extend-select, --ignore, or [tool.cotaudit]) is applied to
each report as 'cotaudit check' applies it; the run log's header records it, and --resume
under another selection is refused.

exit codes (over every item of the run log, earlier runs' included):
  0    every item passed (with --fail-on warning: and none reports a warning)
  1    some item failed, abstained or was invalid (--fail-on warning: or reports a warning)
  2    usage error or unreadable input, before any item is checked (one line on stderr)
  3    an optional dependency is missing (--backend ray without Ray)
  130  interrupted (the message says how to continue with --resume)"""


def add_command(sub: argparse._SubParsersAction[Any]) -> None:
    """Register ``cotaudit batch IN.jsonl -o OUT.jsonl ...``."""
    engines = [s.name for s in api.engines()]
    p = sub.add_parser(
        "batch",
        help="check a JSONL file of items into a resumable run log",
        description="Check every item of IN.jsonl ({id, engine, text} per line) and write the R-2 run log\n"
        "to OUT.jsonl, one report per line in input order. Stopped runs continue with --resume.",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("input", metavar="IN.jsonl", help=f"the items: {FORMATS_HELP}")
    p.add_argument("-o", "--output", metavar="OUT.jsonl", required=True, help="the run log to write")
    p.add_argument("--engine", choices=engines, help="engine for items without an 'engine' field")
    p.add_argument("--workers", type=int, default=1, metavar="N", help="worker processes (default 1)")
    p.add_argument("--backend", choices=("local", "ray"), default="local", help="where items run")
    p.add_argument("--ray-address", metavar="ADDR", help="Ray cluster to use (default: start a local one)")
    p.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="seconds per item before its worker is killed and the item reported abstain "
        "(default 60; 0 = no limit)",
    )
    add_limit_options(p)
    add_selection_options(p)
    p.add_argument("--resume", action="store_true", help="continue OUT.jsonl, skipping ids already in it")
    p.add_argument("--no-timing", action="store_true", help="leave out timing_ms (byte-identical output)")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no summary line")
    add_field_options(p)
    p.set_defaults(handler=_cmd_batch)


def _cmd_batch(args: argparse.Namespace) -> int:
    from cotaudit.batch.runner import BatchOptions, run_batch
    from cotaudit.cli.config import apply_config

    apply_config(args)  # selection, fail-on and the limits (one budget for every engine) from the file
    selection = selection_of(args)  # a bad selector is a usage error before anything is read
    if args.timeout < 0:
        raise UsageError("--timeout must not be negative")
    if args.ray_address and args.backend != "ray":
        raise UsageError("--ray-address needs --backend ray")
    options = BatchOptions(
        input=args.input,
        output=args.output,
        engine=args.engine,
        workers=args.workers,
        backend=args.backend,
        ray_address=args.ray_address,
        timeout=args.timeout or None,
        resume=args.resume,
        timing=not args.no_timing,
        limits=limits_from_args(args),
        engine_limits=engine_limits(args) or None,
        fields=fields_from_args(args),
        selection=selection,
    )
    preload = (args.engine,) if args.engine else tuple(s.name for s in api.engines() if s.implemented)
    stream = None if args.quiet else sys.stderr
    # The CLI's rich bar (cotaudit.progress) draws the live line when it is active.
    live = stream is not None and sys.stderr.isatty() and not progress_active()
    try:
        result = run_batch(options, stream=stream, live=live, preload=preload)
    except KeyboardInterrupt:
        sys.stderr.write(f"cotaudit: interrupted; continue with: {_resume_command(args)}\n")
        return EXIT_INTERRUPTED
    return EXIT_FINDINGS if result.exceeds(args.fail_on) else EXIT_OK


def _resume_command(args: argparse.Namespace) -> str:
    """The command that continues this run: the same arguments (a resume under another
    selection or limit is refused) with ``--resume``."""
    argv = list(getattr(args, "command_line", None) or ["batch", args.input, "-o", args.output])
    if "--resume" not in argv:
        argv.append("--resume")
    return shlex.join(["cotaudit", *argv])
