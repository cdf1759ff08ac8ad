"""``cotaudit vericot <tool>``: the vericot engine's tools (thin; shared/spec/vericot.md V-57).

- ``formalize proofwriter|prontoqa --split dev --mode question|chain``: items as JSONL, one
  ``{"id", "engine": "vericot", "text": <the trace as JSON>}`` per line, which ``check`` and
  ``batch`` take as they are (``--bare`` writes the bare traces instead);
- ``labels proofwriter|prontoqa --split dev,test --semantics classical|proofwriter``;
- ``chains proofwriter``: V-42 synthesised gold chains, checked in chain mode;
- ``folio``: FOLIO validation gold FOL through the core, every disagreement with its reason;
- ``inject prontoqa [--kinds NF,NT,D,U] [--split real_ontologies]``: error injection (V-52).

``formalize``, ``labels`` and ``inject`` take ``--file ITEMS.json`` for any file in the corpus
shape (e.g. freshly generated ProntoQA items) instead of a split of the data folder.
- ``metrics REPORTS.jsonl``: "n/a" where correctness is unknown; an empty log, or one holding no
  vericot reports, exits 2; ``reflect IN.jsonl --rounds 3``;
- ``export-sft REPORTS.jsonl -o sft.jsonl [--require-correct]``; ``export-dpo REPORTS.jsonl -o dpo.jsonl``:
  writing nothing is exit 1, with the reason.

The chain, end to end: ``vericot formalize prontoqa --mode chain -o pq.jsonl``, then
``batch pq.jsonl -o run.jsonl``, then ``vericot metrics run.jsonl`` (and ``export-dpo run.jsonl
--traces pq.jsonl``). Traces themselves go through ``cotaudit check --engine vericot``. The
engine is imported inside the handlers so ``cotaudit --help`` stays fast.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from cotaudit.cli.io import emit as _emit
from cotaudit.cli.io import read_text
from cotaudit.errors import InputError, UsageError


def add_commands(subparsers: Any) -> None:
    """Register the ``vericot`` tools; each handler returns the exit code."""
    f = subparsers.add_parser("formalize", help="formalise a logic corpus into vericot traces (JSONL)")
    f.add_argument("dataset", choices=("proofwriter", "prontoqa"))
    f.add_argument("--split", default="dev")
    f.add_argument("--mode", choices=("question", "chain"), default="question")
    f.add_argument("--semantics", choices=("classical", "proofwriter"), default="classical")
    f.add_argument("--encoding", choices=("forall", "ground"), default="forall")
    _add_file_arg(f)
    f.add_argument("-o", "--output", metavar="OUT")
    f.add_argument("--bare", action="store_true", help="write bare traces, not check/batch items")
    f.set_defaults(handler=_cmd_formalize)

    lab = subparsers.add_parser("labels", help="label agreement in question mode (no model)")
    lab.add_argument("dataset", choices=("proofwriter", "prontoqa"))
    lab.add_argument("--split", default="dev", help="comma-separated splits (default dev)")
    lab.add_argument("--semantics", choices=("classical", "proofwriter"), default="classical")
    lab.add_argument("--encoding", choices=("forall", "ground"), default="forall")
    lab.add_argument("--json", action="store_true", help="print the result as JSON")
    _add_file_arg(lab)
    _add_solver_args(lab)
    lab.set_defaults(handler=_cmd_labels)

    ch = subparsers.add_parser(
        "chains", help="V-42: synthesised ProofWriter gold chains, checked in chain mode"
    )
    ch.add_argument("dataset", choices=("proofwriter",))
    ch.add_argument("--split", default="dev,test")
    ch.add_argument("--semantics", choices=("classical", "proofwriter"), default="proofwriter")
    ch.set_defaults(handler=_cmd_chains)

    fo = subparsers.add_parser("folio", help="FOLIO validation gold FOL vs gold labels, disagreements listed")
    fo.add_argument("--json", action="store_true")
    _add_solver_args(fo)
    fo.set_defaults(handler=_cmd_folio)

    inj = subparsers.add_parser("inject", help="error injection on ProntoQA (chain mode, no model)")
    inj.add_argument("dataset", choices=("prontoqa",))
    inj.add_argument("--split", default="dev", help="dev (default) or real_ontologies")
    _add_file_arg(inj)
    inj.add_argument("--kinds", default="G0,NF,NT,D,U", help="comma-separated (default G0,NF,NT,D,U)")
    inj.add_argument("--limit", type=int, default=None, help="first N items only")
    inj.add_argument("--full", action="store_true", help="re-run every perturbed trace from scratch")
    inj.add_argument("--json", action="store_true")
    inj.set_defaults(handler=_cmd_inject)

    m = subparsers.add_parser("metrics", help="Pass Rate, Precision, VCAR, Task Accuracy of reports")
    m.add_argument("reports", metavar="REPORTS.jsonl")
    m.add_argument("-o", "--output", metavar="OUT.json", help="also write the metrics as JSON")
    m.set_defaults(handler=_cmd_metrics)

    r = subparsers.add_parser("reflect", help="self-reflection rounds with an LLM reasoner (V-49)")
    r.add_argument("input", metavar="IN.jsonl", help="vericot traces, one JSON object per line")
    r.add_argument("--rounds", type=int, default=3)
    r.add_argument("--feedback", choices=("solver", "solver+judge"), default="solver")
    r.add_argument("-o", "--output", metavar="OUT.jsonl", help="final reports with details.reflection")
    _add_solver_args(r)
    from cotaudit.cli.llm import add_llm_options

    add_llm_options(r)
    r.set_defaults(handler=_cmd_reflect)

    for name, fn, helptext in (
        ("export-sft", _cmd_export_sft, "SFT examples from valid traces"),
        ("export-dpo", _cmd_export_dpo, "DPO pairs: valid chosen, invalid rejected"),
    ):
        e = subparsers.add_parser(name, help=helptext)
        e.add_argument(
            "reports", metavar="REPORTS.jsonl", help="vericot reports (R-1 JSONL) with their traces"
        )
        e.add_argument(
            "--traces", metavar="TRACES.jsonl", help="the traces, one per report (default: from reports)"
        )
        e.add_argument("-o", "--output", metavar="OUT.jsonl", required=True)
        e.add_argument("--require-correct", action="store_true")
        e.set_defaults(handler=fn)


def _add_file_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--file",
        metavar="ITEMS.json",
        help="items from this JSON file (a list in the corpus shape) instead of --split",
    )


def _items(args: argparse.Namespace, split: str) -> tuple[str, list[dict[str, Any]]]:
    """(label, items): ``--file`` when given, else the split of the data folder."""
    from cotaudit.vericot.datasets import load_items, load_items_file

    if getattr(args, "file", None):
        return Path(args.file).name, _data(load_items_file, args.file)
    return split, _data(load_items, args.dataset, split)


def _add_solver_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--timeout-ms", type=int, default=None, help="per-check solver timeout (default 2000)")
    p.add_argument("--timings", action="store_true", help="print timings")


def _config(args: argparse.Namespace) -> Any:
    from cotaudit.vericot.config import VerifierConfig

    opts: dict[str, Any] = {}
    if getattr(args, "timeout_ms", None) is not None:
        opts["timeout_ms"] = args.timeout_ms
    return VerifierConfig().with_options(**opts)


def _data(fn: Any, *a: Any, **kw: Any) -> Any:
    from cotaudit.vericot.datasets import DataInvalid, DataMissing

    try:
        return fn(*a, **kw)
    except (DataMissing, DataInvalid) as exc:
        raise InputError("data", str(exc)) from None


def _cmd_formalize(args: argparse.Namespace) -> int:
    from cotaudit.vericot.formalizers import formalize_item

    lines = []
    for item in _items(args, args.split)[1]:
        t = formalize_item(
            item, dataset=args.dataset, semantics=args.semantics, encoding=args.encoding, mode=args.mode
        )
        trace = json.dumps(t.model_dump(mode="json", exclude_none=True), sort_keys=True, ensure_ascii=False)
        if args.bare:
            lines.append(trace)
        else:  # an item, as check and batch read them
            lines.append(json.dumps({"id": t.id, "engine": "vericot", "text": trace}, ensure_ascii=False))
    _emit("\n".join(lines) + "\n", args.output)
    return 0


def _cmd_labels(args: argparse.Namespace) -> int:
    from cotaudit.vericot.datasets import run_labels

    cfg = _config(args)
    out: list[dict[str, Any]] = []
    splits = [s.strip() for s in args.split.split(",") if s.strip()]
    for split in splits[:1] if args.file else splits:
        label, items = _items(args, split)
        run = run_labels(args.dataset, label, args.semantics, encoding=args.encoding, config=cfg, items=items)
        misses = [
            {
                "id": r.id,
                "gold": r.gold,
                "predicted": r.predicted,
                "status": r.status,
                "kb_consistent": r.kb_consistent,
            }
            for r in run.misses()
        ]
        out.append(
            {
                "dataset": args.dataset,
                "split": label,
                "semantics": args.semantics,
                "agree": run.agree,
                "n": len(run.rows),
                "inconsistent_theories": run.inconsistent(),
                "misses": misses,
                "seconds": round(run.seconds, 1),
            }
        )
    if args.json:
        _emit(json.dumps(out, indent=2, sort_keys=True) + "\n", None)
        return 0
    lines = []
    for o in out:
        pct = 100.0 * o["agree"] / o["n"] if o["n"] else 0.0
        head = f"{o['dataset']} {o['split']} ({o['semantics']}): {o['agree']}/{o['n']} = {pct:.1f}% agree"
        lines.append(head + (f"  [{o['seconds']} s]" if args.timings else ""))
        if o["inconsistent_theories"]:
            lines.append(
                f"  classically inconsistent theories (VC_E004): {', '.join(o['inconsistent_theories'])}"
            )
        for miss in o["misses"]:
            why = (
                "inconsistent theory: everything is entailed"
                if miss["kb_consistent"] is False
                else "classical logic decides what ProofWriter leaves open (contraposition / case reasoning)"
                if miss["gold"] == "C"
                else f"status {miss['status']}"
            )
            lines.append(f"  miss {miss['id']}: gold {miss['gold']}, predicted {miss['predicted']} ({why})")
    _emit("\n".join(lines) + "\n", None)
    return 0


def _cmd_chains(args: argparse.Namespace) -> int:
    from cotaudit.vericot.datasets import run_synth

    splits = tuple(s.strip() for s in args.split.split(",") if s.strip())
    run = _data(run_synth, args.semantics, splits)
    total = sum(run.statuses.values())
    entailed = run.statuses.get("entailed", 0)
    lines = [
        f"proofwriter {','.join(splits)} ({args.semantics}): {run.items} True/False items, "
        f"{run.items - len(run.no_chain)} chains, {entailed}/{total} steps entailed",
        "  pool inconsistent (classically inconsistent theories): "
        + (", ".join(run.pool_inconsistent) or "none"),
    ]
    lines += [f"  no chain: {i}" for i in run.no_chain]
    lines += [f"  not entailed: {i} step {k}: {st}" for i, k, st in run.not_entailed]
    _emit("\n".join(lines) + "\n", None)
    return 0


def _cmd_folio(args: argparse.Namespace) -> int:
    from cotaudit.vericot.datasets import run_folio

    rows = _data(run_folio, _config(args))
    agree = sum(r.predicted == r.gold for r in rows)
    if args.json:
        data = {
            "agree": agree,
            "n": len(rows),
            "rows": [
                {
                    "index": r.index,
                    "gold": r.gold,
                    "predicted": r.predicted,
                    "status": r.status,
                    "problems": r.problems,
                    "reason": r.reason,
                }
                for r in rows
            ],
        }
        _emit(json.dumps(data, indent=2, sort_keys=True) + "\n", None)
        return 0
    share = 100.0 * agree / max(1, len(rows))
    lines = [f"FOLIO validation gold FOL: {agree}/{len(rows)} = {share:.1f}% agree with gold labels"]
    for r in rows:
        if r.predicted != r.gold:
            lines.append(f"  row {r.index}: gold {r.gold}, derived {r.predicted}: {r.reason}")
    noted = [r for r in rows if r.problems and r.predicted == r.gold]
    for r in noted:
        lines.append(f"  row {r.index} (agrees; annotation notes): {'; '.join(r.problems)}")
    _emit("\n".join(lines) + "\n", None)
    return 0


def _cmd_inject(args: argparse.Namespace) -> int:
    from cotaudit.vericot.inject import KINDS, run_inject

    kinds = tuple(k.strip().upper() for k in args.kinds.split(",") if k.strip())
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        raise UsageError(f"unknown kind {bad[0]!r} (known: {', '.join(KINDS)})")
    label, items = _items(args, args.split)
    if args.limit is not None:
        items = items[: args.limit]
    run = run_inject(items, kinds, full=args.full)
    table = run.table()
    if args.json:
        misses = [
            {"kind": c.kind, "id": c.item_id, "index": c.index, "status": c.status} for c in run.misses()
        ]
        _emit(json.dumps({"table": table, "misses": misses}, indent=2, sort_keys=True) + "\n", None)
        return 0
    setup = "chain mode, classical, pool provider, deterministic judge"
    lines = [f"{args.dataset} {label}, {len(items)} items, {setup}"]
    for kind, row in table.items():
        pct = 100.0 * row["flagged"] / row["cases"] if row["cases"] else 0.0
        statuses = ", ".join(f"{k} {v}" for k, v in row["statuses"].items())
        lines.append(f"  {kind:<3} {row['flagged']}/{row['cases']} = {pct:.1f}% flagged  ({statuses})")
    for c in run.misses():
        lines.append(f"  miss {c.kind} {c.item_id} step {c.index}: {c.status}")
    _emit("\n".join(lines) + "\n", None)
    return 0


def _read_jsonl(path: str) -> list[dict[str, Any]]:
    text = read_text(path)
    from cotaudit.boundedjson import JSONRejected, decode

    out = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = decode(line)  # bounded nesting and numbers: a hostile line is a diagnostic
        except JSONRejected as exc:
            raise InputError(path, f"line {n}: {exc.message}") from None
        if not isinstance(row, dict):
            raise InputError(path, f"line {n}: not a JSON object")
        out.append(row)
    return out


def _cmd_metrics(args: argparse.Namespace) -> int:
    from cotaudit.vericot.metrics import compute, render_table

    reports = _reports(args.reports, need=True)
    m = compute(reports)
    _emit(render_table(m), None)
    if args.output:
        _emit(json.dumps(m, indent=2, sort_keys=True) + "\n", args.output)
    return 0


def _reports(path: str, need: bool = False) -> list[dict[str, Any]]:
    """The vericot report rows of an R-1 JSONL file (header and summary lines skipped); with
    ``need``, a file without any is an :class:`InputError` that says what it holds instead."""
    rows = _read_jsonl(path)
    reports = [r for r in rows if r.get("engine") == "vericot" and "verdict" in r]
    if reports or not need:
        return reports
    if not rows:
        raise InputError(
            path, "empty: no vericot reports (write them with 'cotaudit batch' or 'check --format jsonl')"
        )
    items = sum(1 for r in rows if "text" in r and "verdict" not in r)
    if items:
        raise InputError(
            path,
            f"holds {items} items, not reports: run 'cotaudit batch {path} -o run.jsonl' first, "
            "then metrics on run.jsonl",
        )
    engines = sorted({str(r.get("engine")) for r in rows if "verdict" in r})
    if engines:
        raise InputError(path, f"no vericot reports (reports of engine {', '.join(engines)})")
    raise InputError(path, "no vericot reports: not a run log or a JSONL of R-1 reports")


def _traces_for(args: argparse.Namespace, reports: list[dict[str, Any]]) -> list[Any]:
    from cotaudit.vericot.schema import TraceInput

    if args.traces:
        rows = _read_jsonl(args.traces)
        if len(rows) != len(reports):
            raise UsageError(f"{len(reports)} reports but {len(rows)} traces")
    else:
        rows = [r.get("details", {}).get("trace") or {} for r in reports]
        if any(not r for r in rows):
            raise UsageError("the reports do not carry their traces; give --traces TRACES.jsonl")
    try:
        return [TraceInput.model_validate((r.get("text") and json.loads(r["text"])) or r) for r in rows]
    except Exception as exc:
        raise InputError(args.traces or args.reports, f"not a vericot trace: {exc}") from None


def _cmd_export_sft(args: argparse.Namespace) -> int:
    from cotaudit.vericot.export import export_sft

    reports = _reports(args.reports, need=True)
    traces = _traces_for(args, reports)
    rows = export_sft(reports, traces, require_correct=args.require_correct)
    return _write_export(args, rows, reports, traces, pairs=False)


def _cmd_export_dpo(args: argparse.Namespace) -> int:
    from cotaudit.vericot.export import export_dpo

    reports = _reports(args.reports, need=True)
    traces = _traces_for(args, reports)
    rows = export_dpo(reports, traces, require_correct=args.require_correct)
    return _write_export(args, rows, reports, traces, pairs=True)


def _write_export(
    args: argparse.Namespace, rows: list[dict[str, Any]], reports: Any, traces: Any, *, pairs: bool
) -> int:
    """Write the rows; none at all is exit 1 with the reason on stderr (the file is still written)."""
    import sys

    from cotaudit.vericot.export import why_no_rows

    _emit("".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in rows), args.output)
    if rows:
        return 0
    what = "DPO pairs" if pairs else "SFT examples"
    why = why_no_rows(reports, traces, require_correct=args.require_correct, pairs=pairs)
    sys.stderr.write(f"cotaudit: wrote 0 {what}: {why}\n")
    return 1


def _cmd_reflect(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from cotaudit.cli.llm import llm_client
    from cotaudit.frontends.vericot_llm import LLMReflector, VericotLLM
    from cotaudit.vericot import check_trace
    from cotaudit.vericot.metrics import compute
    from cotaudit.vericot.reflect import reflect
    from cotaudit.vericot.schema import TraceError, load_trace, validate_trace

    if args.rounds < 1:
        raise UsageError("--rounds must be at least 1")
    stages = VericotLLM(llm_client(args))
    cfg = _config(args).with_options(formalizer="llm", llm=stages, max_rounds=3)
    before, after, lines = [], [], []
    for n, row in enumerate(_read_jsonl(args.input), start=1):
        text = row.get("text")
        trace = load_trace(text) if isinstance(text, str) else validate_trace(row)
        if isinstance(trace, TraceError):
            raise InputError(args.input, f"line {n}: {trace.message}")
        report0 = check_trace(trace, config=cfg)
        final_trace, final, rounds = reflect(
            trace,
            report0,
            LLMReflector(stages),
            lambda t: check_trace(t, config=cfg),
            max_rounds=args.rounds,
            feedback=args.feedback,
        )
        final = replace(final, details={**final.details, "reflection": rounds})
        before.append(report0.to_dict())
        after.append(final.to_dict())
        lines.append(json.dumps(final.to_dict(), sort_keys=True, ensure_ascii=False))
        del final_trace
    m0, m1 = compute(before), compute(after)

    def delta(key: str) -> str:
        a, b = m0[key]["value"], m1[key]["value"]
        return "-" if a is None or b is None else f"{b - a:+.1f}"

    _emit(
        f"{len(after)} traces, up to {args.rounds} rounds: "
        f"ΔPass Rate {delta('pass_rate')}, ΔVCAR {delta('vcar')} (round 0 → final)\n",
        None,
    )
    if args.output:
        _emit("".join(line + "\n" for line in lines), args.output)
    return 0
