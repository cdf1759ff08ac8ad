"""``cotaudit certify <tool>``: the certify engine's tools (C-120, part 1), thin like cli.py.

Tools: ``check-program``, ``admit``, ``query``, ``erase``, ``evict``, ``tick``, ``export``,
``recheck``, ``kernel-report``, ``verify-log``. Exit codes: 0 ok, 1 rejected / abstained /
failed check, 2 usage or input error (one line, never a traceback). Engine modules are
imported inside the handlers so ``cotaudit --help`` stays fast.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from cotaudit.cli_io import emit
from cotaudit.cli_io import read_text as _read
from cotaudit.cli_llm import add_llm_options
from cotaudit.errors import InputError, UsageError
from cotaudit.report.encoding import ENCODE_ERRORS


def add_commands(subparsers: Any) -> None:
    p = subparsers.add_parser("check-program", help="parse a program, check safety, types and Proposition 1")
    p.add_argument("program", metavar="PROGRAM")
    p.add_argument("--interface", metavar="I", help="interface file (JSON or YAML)")
    p.set_defaults(handler=_cmd_check_program)

    p = subparsers.add_parser("admit", help="admit the units of a .kb file, or one unit, into a state")
    _db(p, must_exist=False)
    p.add_argument("kb", nargs="?", metavar="FILE.kb", help="admit every %% units section of this file")
    p.add_argument("--interface", metavar="I", help="interface for a new state (--unit mode)")
    p.add_argument("--unit", metavar="TEXT", help="one unit in the text syntax")
    p.add_argument("--writer", default="deploy", choices=("deploy", "operator", "grounder"))
    p.add_argument("--record", metavar="ID", help="evidence record id")
    p.add_argument(
        "--record-file", action="append", default=[], metavar="ID=PATH[:KIND]", help="store a source record"
    )
    p.add_argument("--quote", metavar="Q", help="evidence quote")
    p.add_argument(
        "--span", action="append", default=[], metavar="START:END", help="evidence span (code points)"
    )
    p.set_defaults(handler=_cmd_admit)

    p = subparsers.add_parser("query", help="answer a goal with a certificate or an explicit abstention")
    _db(p)
    p.add_argument("goal", metavar="GOAL")
    p.add_argument("--delta", type=int)
    p.add_argument("--space", choices=("yesno", "tfu", "numeric"))
    p.add_argument("--json", action="store_true", help="print the result and certificate as JSON")
    p.set_defaults(handler=_cmd_query)

    p = subparsers.add_parser("erase", help="erase a kernel unit (evicts dependent cache entries)")
    _db(p)
    p.add_argument("unit_id", type=int)
    p.add_argument("--reason", default="")
    p.set_defaults(handler=_cmd_erase)

    p = subparsers.add_parser("evict", help="evict a cache entry and its dependents")
    _db(p)
    p.add_argument("key", metavar="CACHE_KEY", help="e.g. f:may_claim(p1,x1)")
    p.set_defaults(handler=_cmd_evict)

    p = subparsers.add_parser("tick", help="update frequencies and flush buffered audit records")
    _db(p)
    p.add_argument("--now", type=int)
    p.set_defaults(handler=_cmd_tick)

    p = subparsers.add_parser("export", help="export a kernel version (program + manifest) for recheck")
    _db(p)
    p.add_argument("--version", type=int, dest="kversion")
    p.add_argument("-o", "--output", metavar="OUT")
    p.set_defaults(handler=_cmd_export)

    p = subparsers.add_parser("recheck", help="recheck a certificate against an exported kernel")
    p.add_argument("cert", metavar="CERT", help="certificate JSON, or a .cert.json bundle")
    p.add_argument("--kernel", metavar="EXPORT", help="kernel export (cotaudit certify export)")
    p.add_argument("--delta", type=int)
    p.set_defaults(handler=_cmd_recheck)

    p = subparsers.add_parser("kernel-report", help="deletion scan, Ess, redundancy with Wilson CIs, C1-C4")
    p.add_argument("source", metavar="DB|FILE.kb")
    p.add_argument("--k-table", action="store_true", help="also run the scan for k = 1..4 and exact")
    p.set_defaults(handler=_cmd_kernel_report)

    p = subparsers.add_parser("verify-log", help="verify the hash-chained certificate log")
    _db(p)
    p.add_argument("--anchor", metavar="SEQ:HASH")
    p.set_defaults(handler=_cmd_verify_log)

    p = subparsers.add_parser(
        "replay-h5", help="the admission replay H5: injected target writes vs the barrier"
    )
    p.add_argument("--n-pos", type=int, default=120)
    p.add_argument("--n-neg", type=int, default=120)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-variants", action="store_true", help="skip the intermediate-atom variant")
    p.add_argument(
        "--proofwriter",
        metavar="FILE",
        help="also inject question literals into this split's False/Unknown items",
    )
    p.add_argument(
        "--pw-limit", type=int, default=120, help="ProofWriter items for that variant (default 120)"
    )
    p.add_argument("--json", dest="json_out", metavar="OUT", help="also write the report as JSON")
    p.add_argument("-o", "--output", metavar="OUT", help="write the text table here (default: stdout)")
    p.set_defaults(handler=_cmd_replay_h5)

    ev = subparsers.add_parser("eval", help="evaluate the certify engine on a data set and write the tables")
    add_eval_certify(ev.add_subparsers(dest="certify_eval", metavar="DATASET"))
    ev.set_defaults(handler=_need_dataset)


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
    from cotaudit.cli_llm import optional_llm_client
    from cotaudit.eval.certify_contractnli import evaluate

    folder = Path(args.data) if args.data else _data_dir() / "contractnli"
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
    from cotaudit.certify.evalsets import eval_legal

    if args.n_pos < 0 or args.n_neg < 0 or args.n_pos + args.n_neg > 100_000:
        raise UsageError("--n-pos/--n-neg must be ≥ 0 with at most 100,000 items")
    doc, text = eval_legal(args.n_pos, args.n_neg, args.seed)
    _write_report(args, doc, text)
    return 0 if doc["counts"][0]["W"] == 0 and not doc["recheck_failures"] else 1


def _cmd_eval_medcalc(args: argparse.Namespace) -> int:
    from cotaudit.certify.evalsets import eval_medcalc

    folder = Path(args.data) if args.data else _data_dir() / "medcalc"
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
    from cotaudit.certify.evalsets import eval_depdag

    path = Path(args.library) if args.library else _data_dir() / "proofdag" / "metamath" / "ql_dag.json"
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


def _need_dataset(args: argparse.Namespace) -> int:
    raise UsageError("name a data set: cotaudit certify eval {proofwriter,legal,medcalc,depdag}")


def _data_dir() -> Path:
    import os

    env = os.environ.get("COTAUDIT_DATA")
    return Path(env) if env else Path.cwd().parent / "shared" / "data"


def _write_report(args: argparse.Namespace, doc: Any, text: str) -> None:
    if args.json_out:  # sorted keys, fixed rounding: byte-identical across runs (C-93)
        try:
            body = json.dumps(doc, sort_keys=True, ensure_ascii=False, indent=1)
            Path(args.json_out).write_text(body + "\n", encoding="utf-8", errors=ENCODE_ERRORS)
        except OSError as exc:
            raise InputError(args.json_out, exc.strerror or str(exc)) from None
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8", errors=ENCODE_ERRORS)
        except OSError as exc:
            raise InputError(args.output, exc.strerror or str(exc)) from None
    else:
        _out(text)


def _cmd_replay_h5(args: argparse.Namespace) -> int:
    from cotaudit.certify.adapters.legal import generate_items
    from cotaudit.certify.replay import h5_report, replay_h5

    if args.n_pos < 0 or args.n_neg < 0 or args.n_pos + args.n_neg > 100_000:
        raise UsageError("--n-pos/--n-neg must be ≥ 0 with at most 100,000 items")
    rows = replay_h5(generate_items(args.n_pos, args.n_neg, args.seed), variants=not args.no_variants)
    if args.proofwriter:
        from cotaudit.certify.pweval import load_items
        from cotaudit.certify.replay import replay_proofwriter

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
    from cotaudit.certify.pweval import load_items, pw_report, run_proofwriter

    folder = Path(args.data) if args.data else _data_dir() / "logic" / "proofwriter"
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


def _db(p: argparse.ArgumentParser, must_exist: bool = True) -> None:
    p.add_argument("--db", required=True, metavar="STATE.sqlite", help="the state file")
    p.set_defaults(db_must_exist=must_exist)


def _out(text: str) -> None:
    emit(text if text.endswith("\n") else text + "\n", None)


def _open(args: argparse.Namespace, interface: Any = None, config: Any = None) -> Any:
    from cotaudit.certify.state import CertState

    if getattr(args, "db_must_exist", True) and not Path(args.db).is_file():
        raise InputError(args.db, "no such state file")
    return CertState.open(args.db, interface, config)


def _cmd_check_program(args: argparse.Namespace) -> int:
    from cotaudit.certify.cliops import check_program

    lines = check_program(
        _read(args.program), args.program, _read(args.interface) if args.interface else None
    )
    _out("\n".join(lines))
    return 0 if lines and lines[-1].startswith("ok") else 1


def _cmd_admit(args: argparse.Namespace) -> int:
    from cotaudit.certify.cliops import admit

    lines, ok = admit(args, _read, _open)
    _out("\n".join(lines))
    _print_anchor(args)
    return 0 if ok else 1


def _cmd_query(args: argparse.Namespace) -> int:
    state = _open(args)
    try:
        result = state.query(args.goal, delta=args.delta, answer_space=args.space)
    finally:
        state.close()
    if args.json:
        _out(
            json.dumps(
                {**result.to_json(), "certificate": result.certificate}, sort_keys=True, ensure_ascii=False
            )
        )
    else:
        if result.abstain_reason is None:
            kind = f" ({result.answer_kind.value})" if result.answer_kind is not None else ""
            what = f"answer {result.answer}{kind}"
        else:
            what = f"abstained: {result.abstain_reason.value} ({result.detail})"
        sha = (result.certificate or {}).get("sha256")
        _out(f"{result.status.value} {result.target}: {what}" + (f"; certificate {sha}" if sha else ""))
    _print_anchor(args)
    return 0 if result.abstain_reason is None else 1


def _cmd_erase(args: argparse.Namespace) -> int:
    from cotaudit.certify.errors import ComputationCap

    state = _open(args)
    try:
        out = state.erase(args.unit_id, args.reason)
    except ComputationCap as exc:  # the rescan met a time or memory bound: rolled back
        _out(f"ABSTAINED erase of unit {args.unit_id}: {exc.what}; the transition was rolled back")
        return 1
    finally:
        state.close()
    _out(
        f"erased unit {args.unit_id}; kernel version {out['kernel']['version']}; "
        f"evicted {len(out['evicted'])} cache entries"
    )
    _print_anchor(args)
    return 0


def _cmd_evict(args: argparse.Namespace) -> int:
    state = _open(args)
    try:
        gone = state.evict(args.key)
    finally:
        state.close()
    _out(f"evicted {', '.join(gone)}")
    _print_anchor(args)
    return 0


def _cmd_tick(args: argparse.Namespace) -> int:
    state = _open(args)
    try:
        out = state.tick(args.now)
    finally:
        state.close()
    _out(f"tick {out['tick']}: {out['keys']} frequencies updated, {out['flushed']} cache hits flushed")
    _print_anchor(args)
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    state = _open(args)
    try:
        bundle = state.kernel_view(args.kversion).export_bundle()
    finally:
        state.close()
    text = json.dumps(bundle, sort_keys=True, ensure_ascii=False, indent=1) + "\n"
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8", errors=ENCODE_ERRORS)
        except OSError as exc:
            raise UsageError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    else:
        _out(text)
    return 0


def _cmd_recheck(args: argparse.Namespace) -> int:
    from cotaudit.certify.cliops import recheck_file

    lines, ok = recheck_file(_read(args.cert), _read(args.kernel) if args.kernel else None, args.delta)
    _out("\n".join(lines))
    return 0 if ok else 1


def _cmd_kernel_report(args: argparse.Namespace) -> int:
    from cotaudit.certify.cliops import kernel_report_of

    report = kernel_report_of(args.source, _read, args.k_table)
    _out(json.dumps(report, sort_keys=True, ensure_ascii=False, indent=1))
    return 0


def _cmd_verify_log(args: argparse.Namespace) -> int:
    from cotaudit.certify.cliops import verify_state_file

    anchor = None
    if args.anchor:
        seq, _, digest = args.anchor.partition(":")
        if not seq.isdigit() or len(digest) != 64:
            raise UsageError("--anchor must be SEQ:HASH (64 hex digits)")
        anchor = (int(seq), digest)
    if not Path(args.db).is_file():
        raise InputError(args.db, "no such state file")
    lines, ok = verify_state_file(args.db, anchor)
    _out("\n".join(lines))
    return 0 if ok else 1


def _print_anchor(args: argparse.Namespace) -> None:
    """After a write: the new head, to keep elsewhere (``verify-log --anchor`` checks it)."""
    from cotaudit.certify.store import Store

    try:
        store = Store(args.db)
        try:
            seq, digest = store.anchor()
        finally:
            store.close()
    except Exception:  # the write itself succeeded; the anchor is a courtesy
        return
    print(
        f"anchor {seq}:{digest} (keep it elsewhere; verify-log --anchor detects a rewritten log)",
        file=sys.stderr,
    )
