"""``cotaudit certify eval DATASET`` and ``cotaudit certify replay-h5``: the evaluations of the
certify engine on its data sets (C-120), also reachable as ``cotaudit eval certify``.

The evaluation code lives in :mod:`cotaudit.eval.certify`, imported inside the handlers so
``cotaudit --help`` stays fast.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from cotaudit.cli.io import data_dir, emit, write_file
from cotaudit.cli.llm import add_llm_options
from cotaudit.errors import InputError, UsageError


def add_eval_certify(datasets: Any) -> None:
    """The data sets of ``cotaudit certify eval`` (and of ``cotaudit eval certify``, C-120)."""
    p = datasets.add_parser("proofwriter", help="ProofWriter dev/test: C/W/A, kinds, depths, abstentions")
    p.add_argument(
        "--data", metavar="DIR", help="folder with dev.json and test.json (default: $COTAUDIT_DATA)"
    )
    p.add_argument("--split", action="append", choices=("dev", "test"), help="default: dev and test")
    p.add_argument("--delta", type=int, action="append", help="depth budget(s) (default: 6 and 5)")
    p.add_argument("--limit", type=int, help="only the first N items of each split")
    p.add_argument("--json", dest="json_out", metavar="OUT", help="also write the report as JSON")
    p.add_argument("-o", "--output", metavar="OUT", help="write the text table here (default: stdout)")
    p.set_defaults(handler=_cmd_eval_proofwriter)

    p = datasets.add_parser("legal", help="generated legal cases: certified serving vs the raw solver")
    p.add_argument("--n-pos", type=int, default=120)
    p.add_argument("--n-neg", type=int, default=120)
    p.add_argument("--seed", type=int, default=0)
    _report_options(p)
    p.set_defaults(handler=_cmd_eval_legal)

    p = datasets.add_parser(
        "medcalc", help="MedCalc-Bench rows of calculators 2, 4, 5, 6, 7 from gold entities"
    )
    p.add_argument("--data", metavar="DIR", help="the medcalc folder (default: $COTAUDIT_DATA/medcalc)")
    _report_options(p)
    p.set_defaults(handler=_cmd_eval_medcalc)

    p = datasets.add_parser("depdag", help="dependency-DAG tasks: certified answers vs BFS")
    p.add_argument(
        "--library", metavar="FILE", help="C-106 JSONL or a Metamath *_dag.json (default: ql_dag.json)"
    )
    p.add_argument("-n", type=int, default=200, help="tasks (default 200)")
    p.add_argument("--seed", type=int, default=0)
    _report_options(p)
    p.set_defaults(handler=_cmd_eval_depdag)

    p = datasets.add_parser(
        "contractnli",
        help="ContractNLI: agreement only vs agreement + source recheck over the same model votes",
    )
    p.add_argument(
        "--data", metavar="DIR", help="the contractnli folder (default: $COTAUDIT_DATA/contractnli)"
    )
    p.add_argument("--split", choices=("dev", "test"), default="dev", help="default: dev")
    p.add_argument("--documents", type=int, metavar="N", help="only the first N documents")
    p.add_argument(
        "--doc", action="append", default=[], metavar="ID", help="only this document id (repeatable)"
    )
    p.add_argument("--clauses", type=int, default=12, help="clauses shown to the model per pair (0 = all)")
    p.add_argument("--temperature", type=float, default=0.7, help="sampling temperature of the votes")
    add_llm_options(p)
    _report_options(p)
    p.set_defaults(handler=_cmd_eval_contractnli)


def _report_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", dest="json_out", metavar="OUT", help="also write the report as JSON")
    p.add_argument("-o", "--output", metavar="OUT", help="write the text table here (default: stdout)")


def _cmd_eval_contractnli(args: argparse.Namespace) -> int:
    from cotaudit.certify.adapters.contractnli import ContractNLIError
    from cotaudit.cli.llm import optional_llm_client
    from cotaudit.eval.certify_contractnli import evaluate

    folder = Path(args.data) if args.data else data_dir() / "contractnli"
    path = folder / f"{args.split}.json"
    if not path.is_file():
        raise InputError(str(path), "ContractNLI split not found (pass --data DIR or set COTAUDIT_DATA)")
    if args.documents is not None and args.documents < 1:
        raise UsageError("--documents must be ≥ 1")
    if not 0.0 <= args.temperature <= 2.0:
        raise UsageError("--temperature must lie in 0..2")
    client, reason = optional_llm_client(args)  # no model: the gold row only, model rows "not run"
    try:
        doc, text = evaluate(
            path,
            client=client,
            not_configured=reason,
            documents=args.documents,
            doc_ids=args.doc,
            clauses=args.clauses,
            temperature=args.temperature,
        )
    except ContractNLIError as exc:
        raise InputError(str(path), str(exc)) from None
    _write_report(args, doc, text)
    gold = doc["counts"][0]
    return 0 if gold["W"] == 0 and gold["A"] == 0 and not any(doc["recheck_failures"].values()) else 1


def _cmd_eval_legal(args: argparse.Namespace) -> int:
    from cotaudit.eval.certify.evalsets import eval_legal

    if args.n_pos < 0 or args.n_neg < 0 or args.n_pos + args.n_neg > 100_000:
        raise UsageError("--n-pos/--n-neg must be ≥ 0 with at most 100,000 items")
    doc, text = eval_legal(args.n_pos, args.n_neg, args.seed)
    _write_report(args, doc, text)
    return 0 if doc["counts"][0]["W"] == 0 and not doc["recheck_failures"] else 1


def _cmd_eval_medcalc(args: argparse.Namespace) -> int:
    from cotaudit.eval.certify.evalsets import eval_medcalc

    folder = Path(args.data) if args.data else data_dir() / "medcalc"
    for name in ("one_shot_data_verified.csv", "test_data_v1.0.csv"):
        if not (folder / name).is_file():
            raise InputError(
                str(folder / name), "MedCalc-Bench file not found (pass --data DIR or set COTAUDIT_DATA)"
            )
    try:
        doc, text = eval_medcalc(folder)
    except (KeyError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(str(folder), f"unreadable MedCalc-Bench CSV: {exc}") from None
    _write_report(args, doc, text)
    one = doc["verified_one_shot"]
    return 0 if one["correct"] == one["rows"] else 1


def _cmd_eval_depdag(args: argparse.Namespace) -> int:
    from cotaudit.certify.adapters.depdag import load_library
    from cotaudit.eval.certify.evalsets import eval_depdag

    path = Path(args.library) if args.library else data_dir() / "proofdag" / "metamath" / "ql_dag.json"
    if not path.is_file():
        raise InputError(str(path), "library not found (pass --library FILE or set COTAUDIT_DATA)")
    if not 1 <= args.n <= 100_000:
        raise UsageError("-n must lie in 1..100,000")
    try:
        lib = load_library(path)
    except (KeyError, TypeError, ValueError, UnicodeDecodeError) as exc:
        raise InputError(str(path), f"not a library: {exc}") from None
    doc, text = eval_depdag(lib, n=args.n, seed=args.seed, name=path.name)
    _write_report(args, doc, text)
    return 0 if doc["bfs_agreement"] == doc["tasks"] and not doc["recheck_failures"] else 1


def _write_report(args: argparse.Namespace, doc: Any, text: str) -> None:
    if args.json_out:  # sorted keys, fixed rounding: byte-identical across runs (C-93)
        write_file(args.json_out, json.dumps(doc, sort_keys=True, ensure_ascii=False, indent=1) + "\n")
    if args.output:
        write_file(args.output, text)
    else:
        emit(text if text.endswith("\n") else text + "\n", None)


def cmd_replay_h5(args: argparse.Namespace) -> int:
    from cotaudit.certify.adapters.legal import generate_items
    from cotaudit.eval.certify.replay import h5_report, replay_h5

    if args.n_pos < 0 or args.n_neg < 0 or args.n_pos + args.n_neg > 100_000:
        raise UsageError("--n-pos/--n-neg must be ≥ 0 with at most 100,000 items")
    rows = replay_h5(generate_items(args.n_pos, args.n_neg, args.seed), variants=not args.no_variants)
    if args.proofwriter:
        from cotaudit.eval.certify.pweval import load_items
        from cotaudit.eval.certify.replay import replay_proofwriter

        try:
            pw_items = load_items(args.proofwriter)
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            raise InputError(args.proofwriter, str(exc).split(": ", 1)[-1]) from None
        rows += replay_proofwriter(pw_items, max(0, args.pw_limit))
    doc, text = h5_report(rows)
    _write_report(args, doc, text)
    by = {r.name: r for r in rows}
    injected = [r for r in rows if r.name.startswith("barrier: in")]
    ok = all(r.rejected == r.injected and r.wrong == 0 for r in injected) and by["barrier: clean"].wrong == 0
    return 0 if ok else 1


def _cmd_eval_proofwriter(args: argparse.Namespace) -> int:
    from cotaudit.eval.certify.pweval import load_items, pw_report, run_proofwriter

    folder = Path(args.data) if args.data else data_dir() / "logic" / "proofwriter"
    runs = []
    for split in args.split or ["dev", "test"]:
        path = folder / f"{split}.json"
        if not path.is_file():
            raise InputError(str(path), "ProofWriter split not found (pass --data DIR or set COTAUDIT_DATA)")
        try:
            items = load_items(path)
        except (ValueError, UnicodeDecodeError) as exc:
            raise InputError(str(path), str(exc).split(": ", 1)[-1]) from None
        if args.limit is not None:
            items = items[: max(0, args.limit)]
        for delta in args.delta or [6, 5]:
            if not 0 <= delta <= 64:
                raise UsageError("--delta must lie in 0..64")
            runs.append(run_proofwriter(items, split, delta))
    doc, text = pw_report(runs)
    _write_report(args, doc, text)
    return 0 if all(r.counts.wrong == 0 for r in runs) else 1
