"""``cotaudit report RUN.jsonl -o DIR``: the HTML report of a batch run log, built to scale.

The site (:mod:`cotaudit.report.html_site`) is a summary page with plots, paged item lists and
per-item detail in side files, so a 10,000-item run opens at once. Reading and writing happen
here; the writer itself takes reports and returns files.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from cotaudit.errors import InputError, UsageError


def add_command(sub: argparse._SubParsersAction[Any]) -> None:
    p = sub.add_parser(
        "report",
        help="build the HTML report of a batch run log (summary plots, paged items)",
        description="Read RUN.jsonl (the run log of 'cotaudit batch' or 'cotaudit check --format jsonl') "
        "and write DIR/index.html with a summary page, paged item lists and per-item detail files.",
    )
    p.add_argument("run_log", metavar="RUN.jsonl")
    p.add_argument("-o", "--output", metavar="DIR", required=True, help="directory to write (created)")
    p.add_argument("--title", default="", help="page title (default: the run log's name)")
    p.add_argument(
        "--page-size", type=int, default=200, metavar="N", help="items per list page (default 200)"
    )
    p.add_argument("--no-timing", action="store_true", help="leave out timings (byte-identical output)")
    p.set_defaults(handler=_cmd_report)


def _cmd_report(args: argparse.Namespace) -> int:
    from cotaudit import __version__
    from cotaudit.cli import html
    from cotaudit.cli.io import cannot_write
    from cotaudit.cli.options import output_of
    from cotaudit.progress import task
    from cotaudit.report.html_site import write_site
    from cotaudit.report.runlog import read_run_log

    if args.page_size < 10:
        raise UsageError("--page-size must be at least 10")
    path = Path(args.run_log)
    if not path.is_file():
        raise InputError(args.run_log, "no such file")
    with task("reading the run log", None):
        log = read_run_log(path)
    if not log.reports:
        raise InputError(args.run_log, "the run log holds no reports")
    html.register_builtin_visuals()
    with task("reading the traces", None):
        sources = html.sources_for(log.reports)
    try:
        with task("writing the report", len(log.reports)) as bar:
            index = write_site(
                log.reports,
                Path(args.output),
                title=args.title or path.name,
                page_size=args.page_size,
                sources=sources,
                timing=not args.no_timing,
                version=__version__,
                on_item=bar.advance,
            )
    except OSError as exc:
        raise cannot_write(Path(args.output), exc) from None
    out = output_of(args)
    if not out.quiet:
        sys.stdout.write(f"{index.as_posix()}\n")
    return 0
