"""``cotaudit te <tool>``: the te engine's tools on the command line (thin, like cli.py).

- ``te convert GSM8K.jsonl -o OUT``: GSM8K gold solutions → TE traces (TE-50), as a JSONL of
  items ``cotaudit check`` reads back, or a directory of ``.te`` files;
- ``te np TRACE.te``: the Natural Program rendering (TE-49);
- ``te extract RAW.txt``: cut the trace out of a raw completion (TE-5);
- ``te emit PROBLEM.txt``: ask a language model for a trace (the 5-shot prompt, then TE-5 and
  the structural check; ``--llm-*`` options, see docs/llm.md). Exit 0 when the trace is
  structurally compliant, 1 when not (the reason goes to stderr).

Engine modules are imported inside the handlers so ``cotaudit --help`` stays fast.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from cotaudit.cli.io import emit as _emit
from cotaudit.cli.io import read_text as _read
from cotaudit.cli.io import write_file
from cotaudit.cli.llm import add_llm_options, llm_client
from cotaudit.errors import InputError, UsageError
from cotaudit.progress import task


def _count_lines(path: str, limit: int | None) -> int | None:
    """Non-blank lines of ``path`` (the bar's total), capped by ``limit``; ``None`` if unreadable."""
    try:
        with open(path, "rb") as fh:
            n = sum(1 for line in fh if line.strip())
    except OSError:
        return None
    return min(n, limit) if limit is not None else n


def add_commands(subparsers: Any) -> None:
    convert = subparsers.add_parser("convert", help="convert GSM8K JSONL items into TE traces")
    convert.add_argument("input", metavar="GSM8K.jsonl", help="GSM8K items with question/answer fields")
    convert.add_argument(
        "-o", "--output", required=True, metavar="OUT", help="output JSONL file or directory"
    )
    convert.add_argument(
        "--format", choices=("jsonl", "dir"), default="jsonl", help="JSONL items or .te files"
    )
    convert.add_argument("--limit", type=int, default=None, help="convert only the first N items")
    convert.add_argument("--checks", type=float, default=0.5, help="probability of a CHECK after an EQ")
    convert.add_argument("--value-refs", type=float, default=0.25, help="probability of writing e<j>.value")
    convert.add_argument("--no-currency-units", action="store_true", help="do not append [USD] to $ values")
    convert.add_argument("--no-steps", action="store_true", help="emit no STEP lines")
    convert.add_argument("--seed", type=int, default=0, help="seed of the style knobs")
    convert.set_defaults(handler=_cmd_convert)

    corrupt = subparsers.add_parser("corrupt", help="build the adversarial corpus (TE-52 … TE-54) as JSONL")
    corrupt.add_argument(
        "--scale", choices=("paper", "full"), default="paper", help="266 traces, or every base x category"
    )
    corrupt.add_argument("--seed", type=int, default=20260513)
    corrupt.add_argument("--gsm8k", help="GSM8K test.jsonl (default: $COTAUDIT_DATA or ../shared/data)")
    corrupt.add_argument("-o", "--output", required=True, metavar="OUT.jsonl")
    corrupt.set_defaults(handler=_cmd_corrupt)

    np_ = subparsers.add_parser("np", help="render a TE trace as a Natural Program (one line per line)")
    np_.add_argument("path", metavar="TRACE.te")
    np_.add_argument("-o", "--output", metavar="OUT")
    np_.set_defaults(handler=_cmd_np)

    extract = subparsers.add_parser(
        "extract",
        help="cut the TE trace out of a raw model completion (text, or a JSON list of chat messages)",
    )
    extract.add_argument("path", metavar="RAW.txt")
    extract.add_argument("-o", "--output", metavar="OUT")
    extract.set_defaults(handler=_cmd_extract)

    emit = subparsers.add_parser("emit", help="ask a language model for a TE trace of a problem (5-shot)")
    emit.add_argument("path", metavar="PROBLEM.txt", help="the problem statement, or - (stdin)")
    emit.add_argument("-o", "--output", metavar="OUT", help="write the trace here (default: stdout)")
    emit.add_argument(
        "--raw", action="store_true", help="write the whole completion, not the extracted trace"
    )
    emit.add_argument(
        "--prompt-version",
        type=int,
        default=None,
        help="te_emit prompt version (default: the latest; 1 replays the committed recordings)",
    )
    add_llm_options(emit)
    emit.set_defaults(handler=_cmd_emit)


def _cmd_convert(args: argparse.Namespace) -> int:
    from cotaudit.te.corpus.gsm8k import Style, convert_jsonl, summarise

    for name in ("checks", "value_refs"):
        if not 0.0 <= getattr(args, name) <= 1.0:
            raise UsageError(f"--{name.replace('_', '-')} must be a probability between 0 and 1")
    if not Path(args.input).is_file():
        raise InputError(args.input, "no such file")
    style = Style(
        checks=args.checks,
        value_refs=args.value_refs,
        currency_units=not args.no_currency_units,
        steps=not args.no_steps,
        seed=args.seed,
    )
    out = Path(args.output)
    if args.format == "dir":
        out.mkdir(parents=True, exist_ok=True)
    results = []
    lines: list[str] = []
    skips: list[str] = []
    try:
        with task("te convert", _count_lines(args.input, args.limit)) as bar:
            for index, converted in convert_jsonl(args.input, style, limit=args.limit):
                results.append(converted)
                bar.advance()
                item_id = f"gsm8k-{index + 1:04d}"
                if converted.trace is None:
                    detail = converted.meta.get("detail")
                    if isinstance(detail, str) and len(detail) > 200:  # a hostile item: one short line
                        detail = detail[:200] + "…"
                    skips.append(
                        f"cotaudit: skipped {item_id}: {converted.skip_reason}"
                        + (f" ({detail})" if detail else "")
                    )
                    continue
                if args.format == "dir":
                    write_file(out / f"{item_id}.te", converted.trace)
                else:
                    record = {"id": item_id, "engine": "te", "text": converted.trace, "meta": converted.meta}
                    lines.append(json.dumps(record, ensure_ascii=False, sort_keys=True))
    except (ValueError, KeyError) as exc:
        raise InputError(args.input, f"not GSM8K JSONL ({exc})") from None
    if args.format == "jsonl":
        _emit("".join(line + "\n" for line in lines), args.output)
    summary = summarise(results)
    skipped = ", ".join(f"{reason} {n}" for reason, n in sorted(summary.skipped.items()))
    sys.stderr.write("".join(line + "\n" for line in skips))  # every skip with its reason
    sys.stderr.write(
        f"cotaudit: converted {summary.converted} of {summary.total} items"
        + (f" (skipped: {skipped})" if skipped else "")
        + "\n"
    )
    if summary.converted == 0:  # nothing came out: a failure, with the reason
        why = (
            "the file holds no items"
            if summary.total == 0
            else "no item is a GSM8K item with a question and an answer ending '#### N' that converts"
        )
        sys.stderr.write(f"cotaudit: {args.input}: nothing converted: {why}\n")
        return 1
    return 0


def _cmd_corrupt(args: argparse.Namespace) -> int:
    from cotaudit.cli.io import gsm8k_path
    from cotaudit.te.corpus.adversarial import build_corpus, write_jsonl

    with task(f"te corrupt ({args.scale})", None):
        items = build_corpus(gsm8k_path(args.gsm8k), args.seed, args.scale)
    write_jsonl(items, args.output)
    adversarial = sum(i.adversarial for i in items)
    sys.stderr.write(
        f"cotaudit: wrote {len(items)} traces ({adversarial} adversarial, {len(items) - adversarial} clean) "
        f"to {args.output}\n"
    )
    return 0


def _cmd_np(args: argparse.Namespace) -> int:
    from cotaudit.te.corpus.np import render_np

    _emit(render_np(_read(args.path)).text, args.output)
    return 0


def _cmd_extract(args: argparse.Namespace) -> int:
    # The same extraction as the RL rewards and the inspect/verifiers scorers: a JSON list of
    # chat messages, a reasoning block, fences and prose around the trace are all handled.
    from cotaudit.completions import find_trace, parse_messages

    located = find_trace(parse_messages(_read(args.path)), "te")
    if not located.found:  # nothing to cut out: say so, and do not echo the text back
        sys.stderr.write(f"cotaudit: {args.path}: no TE trace found (no line starts with GIVEN:)\n")
        return 1
    _emit(located.text, args.output)
    sys.stderr.write(f"cotaudit: trace starts at line {located.line_offset + 1}\n")
    return 0


def _cmd_emit(args: argparse.Namespace) -> int:
    problem = _read(args.path)
    if not problem.strip():
        raise UsageError(f"{args.path}: the problem is empty")
    client = llm_client(args)
    from cotaudit.frontends.te_emit import emit

    emission = emit(client, problem, tag=Path(args.path).name, prompt_version=args.prompt_version)
    _emit(emission.completion if args.raw else emission.trace, args.output)
    verdict = f", full linter: {emission.verdict}" if emission.verdict else ""
    status = emission.status if emission.reason is None else f"{emission.status} ({emission.reason})"
    sys.stderr.write(f"cotaudit: {status}{verdict}\n")
    return 0 if emission.status == "compliant" else 1
