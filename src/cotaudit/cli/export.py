"""``cotaudit export RUN.jsonl --to csv|parquet [--findings] [-o OUT]``: a run log as a table
(:mod:`cotaudit.dataio.export`), one row per item or, with ``--findings``, one per finding.

The table goes to ``OUT``, else beside the run log (``run.csv``, ``run.findings.parquet``);
``-o -`` writes CSV to stdout. A run log that cannot be read exits 2; a missing pyarrow for
Parquet exits 3 with its install hint.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from cotaudit.cli.io import emit
from cotaudit.errors import UsageError


def add_command(sub: argparse._SubParsersAction[Any]) -> None:
    """Register ``cotaudit export``."""
    p = sub.add_parser(
        "export",
        help="write a run log as a CSV or Parquet table",
        description="One row per item (id, path, engine, verdict, score, first_code, first_line, "
        "first_message, errors, warnings, ms), or with --findings one row per finding.",
    )
    p.add_argument("run_log", metavar="RUN.jsonl", help="a run log written by batch or check --format jsonl")
    p.add_argument("--to", choices=("csv", "parquet"), required=True, help="the table format")
    p.add_argument("--findings", action="store_true", help="one row per finding instead of per item")
    p.add_argument(
        "-o", "--output", metavar="OUT", help="where to write (default: beside RUN.jsonl; - stdout)"
    )
    p.set_defaults(handler=_cmd_export)


def default_output(run_log: str, fmt: str, findings: bool) -> Path:
    """``run.jsonl`` → ``run.csv`` (``run.findings.csv`` with ``--findings``)."""
    path = Path(run_log)
    stem = path.name[: -len(".jsonl")] if path.name.endswith(".jsonl") else path.stem
    return path.with_name(f"{stem}{'.findings' if findings else ''}.{fmt}")


def _cmd_export(args: argparse.Namespace) -> int:
    from cotaudit.dataio.export import render_csv, rows_of, write_parquet

    out = args.output or default_output(args.run_log, args.to, args.findings).as_posix()
    if out == "-" and args.to == "parquet":
        raise UsageError("Parquet is not written to stdout; give -o OUT.parquet")
    columns, rows = rows_of(args.run_log, findings=args.findings)
    if args.to == "csv":
        text, count = render_csv(columns, rows)
        emit(text, out)
    else:
        count = write_parquet(out, columns, rows)
    if out != "-":
        what = "findings" if args.findings else "items"
        sys.stderr.write(f"cotaudit: wrote {count} {what} to {out}\n")
    return 0
