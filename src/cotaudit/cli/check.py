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
import sys
from collections.abc import Sequence
from typing import Any

from cotaudit import __version__, api
from cotaudit.cli.fields import add_field_options, with_fields
from cotaudit.cli.io import emit
from cotaudit.cli.limits import add_limit_options, limits_from_args
from cotaudit.errors import UsageError
from cotaudit.report import Report
from cotaudit.report.jsonout import render_json
from cotaudit.report.runlog import render_run_log
from cotaudit.report.sarif import render_sarif
from cotaudit.report.summary import render_summary
from cotaudit.report.text import STDIN_LABEL, finding_lines, render_text, verdict_line

EXIT_OK = 0
EXIT_FINDINGS = 1


def exit_code(reports: Sequence[Report]) -> int:
    """0 if every report passed, else 1 (fail, abstain and invalid all count)."""
    return EXIT_OK if all(r.verdict == "pass" for r in reports) else EXIT_FINDINGS


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
    audit.add_argument("paths", nargs="+", metavar="PATH", help="file or directory")
    audit.set_defaults(handler=with_fields(_cmd_audit))


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
        from cotaudit.cli import html

        out = html.render(reports, sources=[item.text for item in items], timing=timing)
    else:
        out = render_text(reports)
    emit(out, args.output)
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
        emit(render_json(result.reports, timing=timing), args.output)
        return exit_code(result.reports) if args.strict else EXIT_OK
    lines = finding_lines(result.reports, ("error", "warning"))
    lines += [verdict_line(r) for r in result.reports if r.verdict == "invalid"]
    lines += [
        f"{s.path}: skipped ({s.reason})" for s in result.skipped if s.kind in ("unavailable", "unreadable")
    ]
    counts = _skip_counts(result.skipped)
    head = "".join(line + "\n" for line in lines)
    summary = render_summary(result.reports, timing=timing, skipped=counts)
    emit(head + ("\n" if head else "") + summary, args.output)
    return exit_code(result.reports) if args.strict else EXIT_OK


def _write_audit_html(reports: Sequence[Report], directory: str, timing: bool) -> None:
    """The HTML report of an audit; where it went is said on a terminal only (stdout and a
    redirected stderr stay as they were)."""
    from cotaudit.cli import html

    path = html.write_report_dir(reports, directory, timing=timing)
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
