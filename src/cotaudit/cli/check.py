"""``cotaudit check`` and ``cotaudit audit``: run engines over inputs through :mod:`cotaudit.api`
and write their reports (text, JSON, JSONL run log, SARIF, HTML).

``check`` reads and resolves every input before running any engine, so an unreadable input
(missing, a directory, not UTF-8) exits 2 with no report output at all. ``audit`` is the
report-producing main job: it exits 0 once every file was audited, whatever the verdicts, and
``audit --strict`` applies the exit codes of :mod:`cotaudit.cli.entry`. It never stops on one bad
file: unreadable files become ``invalid`` reports; a tree without a single supported file is a
usage error (exit 2, "no supported files found").
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from cotaudit import __version__, api
from cotaudit.cli.config import apply_config
from cotaudit.cli.fields import add_field_options, with_fields
from cotaudit.cli.io import emit
from cotaudit.cli.limits import add_limit_options, engine_limits, limits_from_args
from cotaudit.cli.options import output_of
from cotaudit.cli.select import add_selection_options, select_reports
from cotaudit.cli.textout import finding_text
from cotaudit.errors import UsageError
from cotaudit.progress import task
from cotaudit.report import Report
from cotaudit.report.jsonout import render_json
from cotaudit.report.runlog import render_run_log
from cotaudit.report.sarif import render_sarif
from cotaudit.report.summary import render_summary
from cotaudit.report.text import STDIN_LABEL, verdict_line
from cotaudit.selection import exceeds

EXIT_OK = 0
EXIT_FINDINGS = 1
FEW_ITEMS = 3
WARMUP_ENV = "COTAUDIT_TE_WARMUP"  # read by cotaudit.te.worker (the CLI imports no engine)


def exit_code(reports: Sequence[Report], fail_on: str | None = "error") -> int:
    """0 if every report passed, else 1 (fail, abstain and invalid all count); with
    ``fail_on="warning"`` a reported warning is 1 too."""
    return EXIT_FINDINGS if exceeds(reports, "warning" if fail_on == "warning" else "error") else EXIT_OK


def add_check_command(sub: argparse._SubParsersAction[Any]) -> None:
    """Register ``cotaudit check [--engine E] [--format F] PATH...``."""
    engines = [s.name for s in api.engines()]
    check = sub.add_parser("check", help="check traces and print their reports")
    check.add_argument("--engine", choices=engines, help="engine to use (default: from the file extension)")
    check.add_argument("--format", choices=("text", "json", "jsonl", "sarif", "html"), default="text")
    add_field_options(check)
    check.add_argument("-o", "--output", metavar="OUT", help="write the output to OUT instead of stdout")
    check.add_argument("--no-timing", action="store_true", help="leave out timing_ms (byte-identical output)")
    add_limit_options(check)
    add_selection_options(check)
    check.add_argument("paths", nargs="+", metavar="PATH", help="trace file, .jsonl file, or - (stdin)")
    check.set_defaults(handler=with_fields(_cmd_check))


def add_audit_command(sub: argparse._SubParsersAction[Any]) -> None:
    """Register ``cotaudit audit [--strict] [--html-dir DIR] PATH...``."""
    audit = sub.add_parser("audit", help="check every supported file under PATHs and print a summary")
    audit.add_argument("--format", choices=("text", "json"), default="text")
    add_field_options(audit)
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
    add_selection_options(audit)
    audit.add_argument("paths", nargs="+", metavar="PATH", help="file or directory")
    audit.set_defaults(handler=with_fields(_cmd_audit))


# --------------------------------------------------------------------------- check


def _cmd_check(args: argparse.Namespace) -> int:
    apply_config(args)
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
    with _short_run(len(items)):
        reports = [api.run_item(item, limits=limits_from_args(args, item.engine)) for item in items]
    reports = select_reports(reports, args)
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
        from cotaudit.cli import html

        out = html.render(reports, sources=[item.text for item in items], timing=timing)
    else:
        from cotaudit.cli.textout import render_check_text

        out = render_check_text(reports, output_of(args), timing=timing)
    emit(out, args.output)
    return exit_code(reports, args.fail_on)


@contextmanager
def _short_run(items: int) -> Iterator[None]:
    """A check of a few items: te's SymPy worker, if one starts, skips its warm-up (~250 ms,
    worth it only over many traces). The variable is put back afterwards."""
    if items > FEW_ITEMS or WARMUP_ENV in os.environ:
        yield
        return
    os.environ[WARMUP_ENV] = "0"
    try:
        yield
    finally:
        os.environ.pop(WARMUP_ENV, None)


# --------------------------------------------------------------------------- audit


def _cmd_audit(args: argparse.Namespace) -> int:
    apply_config(args)
    with task("audit (files)", None) as bar:

        def on_file(done: int, total: int) -> None:
            if done == 1:
                bar.total(total)
            bar.advance()

        result = api.audit(
            args.paths, limits=limits_from_args(args), engine_limits=engine_limits(args), on_file=on_file
        )
    result = result._replace(reports=tuple(select_reports(result.reports, args)))
    if not result.reports:
        counts = _skip_counts(result.skipped)
        why = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items()))
        where = " ".join(args.paths)
        raise UsageError(f"no supported files found in {where}" + (f" (skipped: {why})" if why else ""))
    timing = not args.no_timing
    out = output_of(args)
    if not args.no_html:
        _write_audit_html(result.reports, args.html_dir, timing, out.verbose)
    if args.format == "json":
        emit(render_json(result.reports, timing=timing), args.output)
        return exit_code(result.reports, args.fail_on) if args.strict else EXIT_OK
    lines = [
        finding_text(r, f, out.color) for r in result.reports for f in r.findings if f.severity != "info"
    ]
    lines += [verdict_line(r) for r in result.reports if r.verdict == "invalid"]
    lines += [
        f"{s.path}: skipped ({s.reason})" for s in result.skipped if s.kind in ("unavailable", "unreadable")
    ]
    counts = _skip_counts(result.skipped)
    head = "".join(line + "\n" for line in lines)
    if out.quiet:  # findings (and unreadable inputs) only
        emit(head, args.output)
        return exit_code(result.reports, args.fail_on) if args.strict else EXIT_OK
    summary = render_summary(result.reports, timing=timing, skipped=counts)
    emit(head + ("\n" if head else "") + summary, args.output)
    return exit_code(result.reports, args.fail_on) if args.strict else EXIT_OK


def _write_audit_html(reports: Sequence[Report], directory: str, timing: bool, verbose: bool = False) -> None:
    """The HTML report of an audit; where it went is said on a terminal or with ``--verbose``
    (stdout and a redirected stderr stay as they were otherwise)."""
    from cotaudit.cli import html

    path = html.write_report_dir(reports, directory, timing=timing)
    if verbose or sys.stderr.isatty():
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
