"""``cotaudit eval <engine> ...``: run an evaluation and write its Markdown and JSON reports."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from cotaudit.cli.io import append_file, data_dir, gsm8k_path
from cotaudit.cli.io import emit as _write
from cotaudit.cli.limits import add_limit_options, limits_from_args
from cotaudit.cli.llm import add_llm_options, llm_client, optional_llm_client
from cotaudit.errors import InputError, UsageError


def add_command(sub: Any) -> None:
    ev = sub.add_parser("eval", help="evaluate an engine on a labelled corpus and report the figures")
    engines = ev.add_subparsers(dest="eval_engine", metavar="ENGINE")
    te = engines.add_parser("te", help="the te linter on the adversarial corpus (TE-55 … TE-59)")
    te.add_argument(
        "--corpus", default="paper266", help="paper266, large, or a corpus JSONL from `te corrupt`"
    )
    te.add_argument("--methods", default="M1,M2,M3,M4", help="comma-separated: M1 M2 M3 M4")
    te.add_argument("--runs", type=int, default=3, help="reruns per method, for determinism (default 3)")
    te.add_argument("--no-ablation", action="store_true", help="skip the per-rule ablation")
    te.add_argument("--no-determinism", action="store_true", help="skip the cross-process digest check")
    te.add_argument("--iterations", type=int, default=10_000, help="bootstrap resamples (default 10,000)")
    te.add_argument("--seed", type=int, default=20260513)
    te.add_argument("--gsm8k", help="GSM8K test.jsonl (default: $COTAUDIT_DATA or ../shared/data)")
    te.add_argument("--log", help="resumable JSONL run log of every outcome")
    te.add_argument("--json", dest="json_out", help="write the figures as JSON")
    te.add_argument("-o", "--output", help="write the Markdown report here (default: stdout)")
    add_llm_options(te)
    te.set_defaults(handler=_cmd_eval_te)
    _add_te_emit(engines)
    _add_type6(engines)
    _add_cot(engines)
    from cotaudit.cli.certify_eval import add_eval_certify

    cert = engines.add_parser("certify", help="the certify engine on its data sets (C-120)")
    add_eval_certify(cert.add_subparsers(dest="certify_eval", metavar="DATASET"))
    ev.set_defaults(handler=_need_engine)


def _need_engine(args: argparse.Namespace) -> int:
    raise UsageError("'cotaudit eval' needs an engine: te, te-emit, type6, certify, cot")


def _cmd_eval_te(args: argparse.Namespace) -> int:
    from cotaudit.eval import te as te_eval
    from cotaudit.eval.report import render

    names = [m.strip() for m in args.methods.split(",") if m.strip()]
    if args.runs < 1 or args.iterations < 100:
        raise UsageError("--runs must be >= 1 and --iterations >= 100")
    corpus = args.corpus
    if corpus not in ("paper266", "large") and not Path(corpus).is_file():
        raise InputError(corpus, "no such corpus (paper266, large, or a JSONL file)")
    gsm8k = gsm8k_path(args.gsm8k) if corpus in ("paper266", "large") else Path(".")
    items = te_eval.load_corpus(corpus, gsm8k, args.seed)
    llm, llm_reason = None, None
    if {"M3", "M4"} & set(names):
        llm, llm_reason = optional_llm_client(args)
    try:
        report = te_eval.evaluate(
            items,
            names,
            runs=args.runs,
            ablate=not args.no_ablation,
            determinism=not args.no_determinism,
            iterations=args.iterations,
            seed=args.seed,
            log=args.log,
            llm=llm,
            llm_reason=llm_reason,
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if llm is not None and args.log:
        _append_call_log(args.log, llm)
    title = f"te evaluation — corpus {Path(corpus).name if corpus not in ('paper266', 'large') else corpus}"
    text = render(report, title=title) + _llm_section(report)
    _write(text, args.output)
    if args.json_out:
        _write(json.dumps(report, indent=2, sort_keys=True, default=_jsonable) + "\n", args.json_out)
    return 0


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple | set):
        return list(value)
    return str(value)


def _llm_section(report: dict[str, Any]) -> str:
    from cotaudit.eval.baselines import llm_markdown

    section = llm_markdown(report)
    return "\n" + section if section else ""


def _append_call_log(path: str, client: Any) -> None:
    """The LLM call log joins the run log: one ``llm_call`` record per request (no message text)."""
    lines = [
        json.dumps({"kind": "llm_call", **record.to_dict()}, sort_keys=True) + "\n"
        for record in client.log.records()
    ]
    append_file(path, "".join(lines))


def _add_te_emit(engines: Any) -> None:
    emit = engines.add_parser(
        "te-emit", help="a model writes TE for GSM8K / MATH500 problems: structural compliance and accuracy"
    )
    emit.add_argument("--datasets", default="gsm8k,math500", help="comma-separated: gsm8k, math500")
    emit.add_argument("--limit", type=int, default=50, help="problems per dataset (default 50)")
    emit.add_argument("--offset", type=int, default=0, help="skip the first N problems of each dataset")
    emit.add_argument(
        "--data", help="directory holding gsm8k/ and math500/ (default: $COTAUDIT_DATA or ../shared/data)"
    )
    emit.add_argument("--json", dest="json_out", help="write the figures and every item as JSON")
    emit.add_argument(
        "--prompt-version", type=int, default=None, help="te_emit prompt version (default: the latest)"
    )
    emit.add_argument("-o", "--output", help="write the Markdown report here (default: stdout)")
    add_llm_options(emit)
    emit.set_defaults(handler=_cmd_eval_te_emit)


def _cmd_eval_te_emit(args: argparse.Namespace) -> int:
    from cotaudit.eval import te_emit

    datasets = [d.strip() for d in args.datasets.split(",") if d.strip()]
    unknown = [d for d in datasets if d not in te_emit.DATASETS]
    if unknown or not datasets:
        raise UsageError(f"unknown dataset(s): {', '.join(unknown) or '(none)'} (known: gsm8k, math500)")
    if args.limit < 1 or args.offset < 0:
        raise UsageError("--limit must be >= 1 and --offset >= 0")
    root = Path(args.data) if args.data else data_dir()
    problems = []
    for name in datasets:
        path = root / name / "test.jsonl"
        if not path.is_file():
            raise InputError(str(path), f"{name} test split not found (pass --data DIR or set COTAUDIT_DATA)")
        problems += te_emit.load_problems(name, path, limit=args.limit, offset=args.offset)
    client = llm_client(args)  # no model: a one-line "not configured" error, never made-up figures
    report = te_emit.evaluate(client, problems, prompt_version=args.prompt_version)
    _write(te_emit.render(report), args.output)
    if args.json_out:
        _write(json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False) + "\n", args.json_out)
    return 0


def _add_type6(engines: Any) -> None:
    t6 = engines.add_parser(
        "type6",
        help="type6 on a corpus: annotated traces -> the paper's corpus-level tables; "
        "raw chains of thought -> the baseline comparison (Type-6, LLM judge, Trivial)",
    )
    t6.add_argument(
        "traces",
        metavar="PATH",
        help="annotated: a folder with *.t6 traces (e.g. examples/type6), a .t6/.json trace or a "
        'type6 JSONL; raw: a folder of *.txt traces or JSONL of {"id", "text", "question"}',
    )
    t6.add_argument("--json", dest="json_out", help="write the figures and every item as JSON")
    t6.add_argument("-o", "--output", help="write the Markdown report here (default: stdout)")
    add_limit_options(t6)
    add_llm_options(t6)
    t6.set_defaults(handler=_cmd_eval_type6)


def _cmd_eval_type6(args: argparse.Namespace) -> int:
    from cotaudit.eval.type6_corpus import is_annotated

    if is_annotated(Path(args.traces)):
        return _eval_type6_corpus(args)
    from cotaudit.eval.type6_compare import TraceInputError, compare, load_traces
    from cotaudit.eval.type6_compare import render as render_type6

    try:
        traces = load_traces(Path(args.traces))
    except TraceInputError as exc:
        raise UsageError(str(exc)) from None
    client, reason = optional_llm_client(args)  # no model: Trivial only, the rest "not run"
    report = compare(client, traces, not_configured=reason)
    _write(render_type6(report), args.output)
    if args.json_out:
        _write(json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False) + "\n", args.json_out)
    return 0


def _eval_type6_corpus(args: argparse.Namespace) -> int:
    """An annotated corpus needs no model: every trace is verified under its own budget."""
    from cotaudit.eval.type6_corpus import CorpusError, aggregate, verify_corpus
    from cotaudit.eval.type6_tables import render

    try:
        facts = verify_corpus(Path(args.traces), limits_from_args(args))
    except CorpusError as exc:
        raise UsageError(str(exc)) from None
    figures = aggregate(facts)
    _write(render(figures, title=args.traces), args.output)
    if args.json_out:
        _write(json.dumps(figures, indent=2, ensure_ascii=False) + "\n", args.json_out)
    return 0


def _add_cot(engines: Any) -> None:
    cot = engines.add_parser(
        "cot", help="the cot engine on BIG-Bench Mistake, ProcessBench, Natural Program labels"
    )
    cot.add_argument("--bench", required=True, choices=("bbm", "processbench", "np-human"))
    cot.add_argument(
        "--data", help="the benchmark's directory (default: $COTAUDIT_DATA or ../shared/data/<bench>)"
    )
    cot.add_argument("--task", help="bbm: one task (default: all five)")
    cot.add_argument("--split", help="processbench: one split (default: gsm8k and math)")
    cot.add_argument("--json", dest="json_out", help="write the figures and every disagreement as JSON")
    cot.add_argument("-o", "--output", help="write the Markdown report here (default: stdout)")
    cot.set_defaults(handler=_cmd_eval_cot)


def _cmd_eval_cot(args: argparse.Namespace) -> int:
    import sys

    from cotaudit.eval import cot as cot_eval

    folder = {"bbm": "bbm", "processbench": "processbench", "np-human": "np_human_annotation"}[args.bench]
    data = Path(args.data) if args.data else data_dir() / folder
    if not data.is_dir():
        raise InputError(str(data), f"{args.bench} data not found (pass --data DIR or set COTAUDIT_DATA)")
    if args.bench == "bbm":
        tasks = [args.task] if args.task else list(cot_eval.BBM_TASKS)
        missing = [t for t in tasks if not (data / f"{t}.jsonl").is_file()]
        if missing:
            raise InputError(str(data / f"{missing[0]}.jsonl"), "no such task file")
        report = cot_eval.eval_bbm(data, tasks)
    elif args.bench == "processbench":
        splits = [args.split] if args.split else list(cot_eval.PROCESSBENCH_SPLITS)
        missing = [s for s in splits if not (data / f"{s}.json").is_file()]
        if missing:
            raise InputError(str(data / f"{missing[0]}.json"), "no such split file")
        report = cot_eval.eval_processbench(data, splits)
    else:
        report = cot_eval.eval_np_human(data)
    command = (
        "cotaudit eval cot " + " ".join(a for a in sys.argv[3:] if a)
        if len(sys.argv) > 3
        else "cotaudit eval cot"
    )
    _write(cot_eval.render(report, command), args.output)
    if args.json_out:
        _write(json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False) + "\n", args.json_out)
    return 0
