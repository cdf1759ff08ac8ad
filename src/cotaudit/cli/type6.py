"""``cotaudit type6 <tool>``: the type6 engine's tools on the command line (thin, like cli.py).

- ``type6 render TRACE.t6 -o OUT.svg|OUT.html|OUT.dot``: the reasoning graph, laid out in pure
  Python (``--graphviz`` pipes the DOT text through a ``dot`` binary when one is installed);
- ``type6 verify TRACE.t6``: the full type6 result document (summary and the three reports);
- ``type6 convert TRACE --to t6|json``: between the ``.t6`` line format and its JSON form;
- ``type6 annotate RAW.txt -o OUT.t6``: a language model annotates a raw chain of thought (the
  paper's stages 1-3, checked by the parser; ``--llm-*`` options, see docs/llm.md).

The engine is imported inside the handlers so ``cotaudit --help`` stays fast.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import Any

from cotaudit.cli.io import emit as _emit
from cotaudit.cli.io import read_text as _read
from cotaudit.cli.llm import add_llm_options, llm_client
from cotaudit.errors import InputError, UsageError
from cotaudit.report.encoding import utf8_bytes

_RENDER_FORMATS = ("svg", "html", "dot")


def add_commands(subparsers: Any) -> None:
    """Register the ``type6`` tools; each handler returns the exit code."""
    render = subparsers.add_parser("render", help="draw the reasoning graph of a trace (SVG, HTML or DOT)")
    render.add_argument("path", metavar="TRACE.t6", help="a .t6 or JSON trace, or - for stdin")
    render.add_argument(
        "-o", "--output", metavar="OUT", help="OUT.svg, OUT.html or OUT.dot (default: stdout)"
    )
    render.add_argument(
        "--format", choices=_RENDER_FORMATS, help="default: from the extension of OUT, else svg"
    )
    render.add_argument("--columns", type=int, default=9, help="ranks per row of the SVG layout (default 9)")
    render.add_argument(
        "--graphviz", action="store_true", help="lay out with Graphviz 'dot' when it is installed"
    )
    _add_config_arguments(render)
    render.set_defaults(handler=_cmd_render)

    verify = subparsers.add_parser("verify", help="print the full type6 result (JSON)")
    verify.add_argument("path", metavar="TRACE.t6", help="a .t6 or JSON trace, or - for stdin")
    verify.add_argument("-o", "--output", metavar="OUT")
    verify.add_argument("--indent", type=int, default=None, help="pretty-print with this indent")
    _add_config_arguments(verify)
    verify.set_defaults(handler=_cmd_verify)

    convert = subparsers.add_parser("convert", help="convert a trace between .t6 and JSON")
    convert.add_argument("path", metavar="TRACE", help="a .t6 or JSON trace, or - for stdin")
    convert.add_argument("--to", choices=("t6", "json"), required=True)
    convert.add_argument("-o", "--output", metavar="OUT")
    convert.set_defaults(handler=_cmd_convert)

    add_type6_annotate(subparsers)


# Config fields a flag sets (``--max-events-per-code`` -> ``max_events_per_code``): the path
# search, then what the result document lists (docs/type6.md, decision 15). The analysis always
# covers everything; these bound only the listings, and ``truncated`` says what was cut.
_CONFIG_FLAGS: tuple[tuple[str, str], ...] = (
    ("seed", "seed of path sampling (default 0)"),
    ("max_paths", "K, the path cap (default 10000)"),
    ("path_detail_limit", "paths listed in per_path.paths (default 200)"),
    ("max_events_per_code", "events (and diagnostics) listed per code (default 100)"),
    ("max_listed_path_ids", "path ids listed per value in S05/D02 data (default 100)"),
    ("report_floor_bytes", "listing allowance: fixed part, in bytes (default 524288)"),
    ("report_bytes_per_input_byte", "listing allowance: bytes per byte of the trace (default 8)"),
)


def _add_config_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--path-mode", choices=("auto", "enumerate", "sample", "off"), default=None)
    for name, help_text in _CONFIG_FLAGS:
        parser.add_argument(
            "--" + name.replace("_", "-"), dest=name, type=int, default=None, metavar="N", help=help_text
        )


def _config(args: argparse.Namespace) -> Any:
    from cotaudit.type6.r1 import make_config

    names = ("path_mode", *(name for name, _ in _CONFIG_FLAGS))
    options = {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}
    return make_config(None, options)  # a negative N is a one-line UsageError (exit 2)


def _load(path: str, config: Any) -> Any:
    from cotaudit.type6 import parse_any, verify

    trace_id = None if path == "-" else Path(path).stem
    return verify(parse_any(_read(path), trace_id, config.limits), config)


def _cmd_render(args: argparse.Namespace) -> int:
    from cotaudit.type6 import to_dot, to_html, to_svg

    fmt = args.format
    if fmt is None:
        suffix = Path(args.output).suffix.lower().lstrip(".") if args.output not in (None, "-") else "svg"
        fmt = suffix if suffix in _RENDER_FORMATS else None
        if fmt is None:
            raise UsageError(
                f"cannot tell the format from {args.output!r}: use .svg, .html, .dot or --format"
            )
    if args.columns < 2:
        raise UsageError("--columns must be at least 2")
    result = _load(args.path, _config(args))
    if fmt == "dot":
        text = to_dot(result)
    elif fmt == "html":
        text = to_html(result)
    elif args.graphviz and shutil.which("dot"):
        text = _graphviz_svg(to_dot(result)) or to_svg(result, columns=args.columns)
    else:
        text = to_svg(result, columns=args.columns)
    _emit(text, args.output)
    if result.status == "invalid":
        sys.stderr.write("cotaudit: the trace is invalid; the picture lists its diagnostics\n")
    return 0


def _graphviz_svg(dot: str) -> str | None:
    """SVG from a ``dot`` binary, or None when it fails (the pure-Python layout is the fallback)."""
    import subprocess  # deferred: start-up of every other command

    try:
        proc = subprocess.run(
            ["dot", "-Tsvg"], input=utf8_bytes(dot), capture_output=True, timeout=60, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.decode("utf-8", "replace") if proc.returncode == 0 else None


def _cmd_verify(args: argparse.Namespace) -> int:
    result = _load(args.path, _config(args))
    _emit(result.model_dump_json(indent=args.indent) + "\n", args.output)
    return 0


def _cmd_convert(args: argparse.Namespace) -> int:
    from cotaudit.type6 import parse_any

    trace = parse_any(_read(args.path), None if args.path == "-" else Path(args.path).stem)
    if trace.diagnostics:
        first = trace.diagnostics[0]
        where = f"line {first.line}: " if first.line is not None else ""
        raise InputError(args.path, f"{where}{first.code} {first.message}")
    _emit(trace.to_t6() if args.to == "t6" else trace.to_json() + "\n", args.output)
    return 0


def add_type6_annotate(subparsers: Any) -> None:
    """Register ``type6 annotate RAW.txt -o OUT.t6``.

    Exit 0 when the type6 parser accepts the annotation, 1 when the model's annotation stayed
    invalid or the server failed (the reason goes to stderr; the rejected text is still written,
    so it can be inspected).
    """
    ann = subparsers.add_parser("annotate", help="annotate a raw chain of thought with a language model")
    ann.add_argument("path", metavar="RAW.txt", help="the raw chain of thought, or - (stdin)")
    ann.add_argument(
        "-o", "--output", metavar="OUT.t6", help="write the annotated trace here (default: stdout)"
    )
    ann.add_argument("--question", help="the user prompt; it becomes the source statement q")
    ann.add_argument("--id", dest="trace_id", help="trace id (default: the file stem)")
    ann.add_argument("--repairs", type=int, default=2, help="parser-feedback rounds (default 2)")
    add_llm_options(ann)
    ann.set_defaults(handler=_cmd_type6_annotate)


def _cmd_type6_annotate(args: argparse.Namespace) -> int:
    raw = _read(args.path)
    if not raw.strip():
        raise UsageError(f"{args.path}: the trace is empty")
    if args.repairs < 0:
        raise UsageError("--repairs must be >= 0")
    client = llm_client(args)
    from cotaudit.frontends.type6_annotate import annotate

    trace_id = args.trace_id or (Path(args.path).stem if args.path != "-" else "trace")
    result = annotate(client, raw, question=args.question, trace_id=trace_id, repairs=args.repairs)
    _emit(result.t6, args.output)
    detail = f" ({result.reason})" if result.reason else ""
    sys.stderr.write(
        f"cotaudit: {result.status}{detail}; {result.statements} statements, {result.symbols} symbols, "
        f"{result.reasks} re-asks, {result.repairs} repair round(s)\n"
    )
    for note in result.notes:
        sys.stderr.write(f"cotaudit: note: {note}\n")
    return 0 if result.status == "ok" else 1
