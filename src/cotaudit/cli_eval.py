"""``cotaudit eval <engine> ...``: run an evaluation and write its Markdown and JSON reports."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from cotaudit.errors import InputError, UsageError


def default_data_dir() -> Path:
    """``$COTAUDIT_DATA``, else ``../shared/data`` beside the working directory (the repo layout)."""
    env = os.environ.get("COTAUDIT_DATA")
    return Path(env) if env else Path.cwd().parent / "shared" / "data"


def gsm8k_path(given: str | None) -> Path:
    path = Path(given) if given else default_data_dir() / "gsm8k" / "test.jsonl"
    if not path.is_file():
        raise InputError(str(path), "GSM8K test split not found (pass --gsm8k PATH or set COTAUDIT_DATA)")
    return path


def add_eval_command(sub: Any) -> None:
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
    te.set_defaults(handler=_cmd_eval_te)
    ev.set_defaults(handler=_need_engine)


def _need_engine(args: argparse.Namespace) -> int:
    raise UsageError("'cotaudit eval' needs an engine: te")


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
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    title = f"te evaluation — corpus {Path(corpus).name if corpus not in ('paper266', 'large') else corpus}"
    text = render(report, title=title)
    _write(text, args.output)
    if args.json_out:
        _write(json.dumps(report, indent=2, sort_keys=True, default=_jsonable) + "\n", args.json_out)
    return 0


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple | set):
        return list(value)
    return str(value)


def _write(text: str, output: str | None) -> None:
    if output in (None, "-"):
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {output}: {exc.strerror or exc}") from None
