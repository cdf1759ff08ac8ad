"""``cotaudit codes [--engine E]`` and ``cotaudit explain CODE``: the code table at the terminal.

Both read :mod:`cotaudit.codes` and its explanations (:mod:`cotaudit.codes.explain`), the same
table ``docs/codes.md`` is generated from, so the terminal and the docs cannot disagree.
"""

from __future__ import annotations

import argparse
import difflib
import json
from typing import Any

from cotaudit.cli.color import paint
from cotaudit.cli.io import emit
from cotaudit.cli.options import output_of
from cotaudit.errors import UsageError


def add_codes_command(sub: argparse._SubParsersAction[Any]) -> None:
    p = sub.add_parser("codes", help="list the stable codes: code, severity, summary")
    p.add_argument(
        "--engine", metavar="E", help="only this engine's codes (te, type6, vericot, certify, cot)"
    )
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(handler=_cmd_codes)


def add_explain_command(sub: argparse._SubParsersAction[Any]) -> None:
    p = sub.add_parser("explain", help="explain a code: what it means, an example, its near miss, the fix")
    p.add_argument("code", metavar="CODE", help="a stable code, e.g. TE_E006")
    p.set_defaults(handler=_cmd_explain)


def _cmd_codes(args: argparse.Namespace) -> int:
    from cotaudit.codes import ALL

    entries = list(ALL)
    if args.engine is not None:
        engines = sorted({c.engine for c in ALL})
        if args.engine not in engines:
            close = difflib.get_close_matches(args.engine, engines, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise UsageError(f"--engine {args.engine}: no such engine (known: {', '.join(engines)}){hint}")
        entries = [c for c in entries if c.engine == args.engine]
    if args.format == "json":
        rows = [
            {"code": c.code, "engine": c.engine, "name": c.name, "severity": c.severity, "summary": c.summary}
            for c in entries
        ]
        emit(json.dumps(rows, indent=2, ensure_ascii=False) + "\n", None)
        return 0
    color = output_of(args).color
    width = max(len(c.code) for c in entries)
    lines = [f"{'code'.ljust(width)}  {'severity':<8}  summary"]
    for c in entries:
        code = paint(c.code.ljust(width), c.severity, color)
        lines.append(f"{code}  {c.severity:<8}  {c.summary}")
    emit("\n".join(lines) + "\n", None)
    return 0


def _cmd_explain(args: argparse.Namespace) -> int:
    from cotaudit.codes import CODES
    from cotaudit.codes.explain import explanations, render_explanation

    code = args.code.strip().upper()
    if code not in CODES:
        close = difflib.get_close_matches(code, list(CODES), n=3, cutoff=0.6)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        raise UsageError(f"unknown code '{args.code}' (see 'cotaudit codes'){hint}")
    text = render_explanation(CODES[code], explanations()[code])
    if output_of(args).color:
        head, _, rest = text.partition("\n")
        text = paint(head, "bold", True) + "\n" + rest
    emit(text, None)
    return 0
