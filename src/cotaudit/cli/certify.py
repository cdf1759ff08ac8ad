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

from cotaudit.cli.certify_eval import add_eval_certify, cmd_replay_h5
from cotaudit.cli.certify_serve import add_serving_commands
from cotaudit.cli.io import emit, write_file
from cotaudit.cli.io import read_text as _read
from cotaudit.errors import InputError, UsageError


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
    p.add_argument("goal", metavar="GOAL", help="the literal to answer, e.g. 'may_claim(p1, x1)'")
    p.add_argument("--delta", type=int, help="depth budget (default: the state's)")
    p.add_argument(
        "--space",
        choices=("yesno", "tfu", "numeric"),
        help="answer space (default: tfu under strong negation, else yesno; numeric for a non-ground goal)",
    )
    p.add_argument("--json", action="store_true", help="print the result and certificate as JSON")
    p.add_argument(
        "--fact", action="append", default=[], metavar="TEXT", help="a query-scoped fact (repeatable)"
    )
    p.add_argument("--record", metavar="ID", help="evidence record id of the one --fact")
    p.add_argument("--quote", metavar="Q", help="evidence quote of the one --fact")
    p.add_argument(
        "--span", action="append", default=[], metavar="START:END", help="evidence span of the one --fact"
    )
    p.add_argument(
        "--facts",
        metavar="FILE.jsonl",
        help='facts with their evidence, one {"unit", "evidence"?} a line (- stdin)',
    )
    p.add_argument(
        "--writer",
        default="grounder",
        choices=("deploy", "operator", "grounder"),
        help="who states the facts (default: grounder, whose facts must be of whitelisted predicates)",
    )
    p.add_argument(
        "--on-reject", choices=("abstain", "drop"), help="a fact outside the whitelist: abstain, or drop it"
    )
    p.add_argument("--query-id", metavar="ID", help="the query's id in the audit log (default: generated)")
    p.set_defaults(handler=_cmd_query)

    add_serving_commands(subparsers)  # derive (the gate's derived mode), ask (LLM grounder)

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
    p.set_defaults(handler=cmd_replay_h5)

    ev = subparsers.add_parser("eval", help="evaluate the certify engine on a data set and write the tables")
    add_eval_certify(ev.add_subparsers(dest="certify_eval", metavar="DATASET"))
    ev.set_defaults(handler=_need_dataset)


def _need_dataset(args: argparse.Namespace) -> int:
    raise UsageError("name a data set: cotaudit certify eval {proofwriter,legal,medcalc,depdag}")


def _db(p: argparse.ArgumentParser, must_exist: bool = True) -> None:
    p.add_argument("--db", required=True, metavar="STATE.sqlite", help="the state file")
    p.set_defaults(db_must_exist=must_exist)


def _out(text: str) -> None:
    emit(text if text.endswith("\n") else text + "\n", None)


def _open(args: argparse.Namespace, interface: Any = None, config: Any = None) -> Any:
    from cotaudit.certify.state.machine import CertState

    if getattr(args, "db_must_exist", True) and not Path(args.db).is_file():
        raise InputError(args.db, "no such state file")
    return CertState.open(args.db, interface, config)


def _cmd_check_program(args: argparse.Namespace) -> int:
    from cotaudit.cli.certify_ops import check_program

    lines = check_program(
        _read(args.program), args.program, _read(args.interface) if args.interface else None
    )
    _out("\n".join(lines))
    return 0 if lines and lines[-1].startswith("ok") else 1


def _cmd_admit(args: argparse.Namespace) -> int:
    from cotaudit.cli.certify_ops import admit

    lines, ok = admit(args, _read, _open)
    _out("\n".join(lines))
    _print_anchor(args)
    return 0 if ok else 1


def _cmd_query(args: argparse.Namespace) -> int:
    from cotaudit.cli.certify_ops import fact_lines, query_facts

    specs = query_facts(args, _read)  # checked before the state is opened
    state = _open(args)
    try:
        result, report = _answer(args, state, specs)
    finally:
        state.close()
    if args.json:
        _out(json.dumps(report, sort_keys=True, ensure_ascii=False))
    else:
        if result.abstain_reason is None:
            kind = f" ({result.answer_kind.value})" if result.answer_kind is not None else ""
            what = f"answer {result.answer}{kind}"
        else:
            what = f"abstained: {result.abstain_reason.value} ({result.detail})"
        sha = (result.certificate or {}).get("sha256")
        head = f"{result.status.value} {result.target}: {what}" + (f"; certificate {sha}" if sha else "")
        _out("\n".join([head, *fact_lines(report["facts"], specs)]))
    _print_anchor(args)
    return 0 if result.abstain_reason is None else 1


def _answer(args: argparse.Namespace, state: Any, specs: list[Any]) -> tuple[Any, dict[str, Any]]:
    from cotaudit.certify.kb.facts import FactSpecError, answer_json, resolve

    try:
        facts = resolve(specs, state.records)
    except FactSpecError as exc:  # evidence naming a record the state does not hold
        raise UsageError(str(exc)) from None
    result = state.query(
        args.goal,
        facts=facts,
        delta=args.delta,
        answer_space=args.space,
        writer=args.writer,
        on_reject=args.on_reject,
        query_id=args.query_id,
    )
    return result, answer_json(result, specs)


def _cmd_erase(args: argparse.Namespace) -> int:
    from cotaudit.certify.core.errors import ComputationCap

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
        write_file(args.output, text)
    else:
        _out(text)
    return 0


def _cmd_recheck(args: argparse.Namespace) -> int:
    from cotaudit.cli.certify_ops import recheck_file

    lines, ok = recheck_file(_read(args.cert), _read(args.kernel) if args.kernel else None, args.delta)
    _out("\n".join(lines))
    return 0 if ok else 1


def _cmd_kernel_report(args: argparse.Namespace) -> int:
    from cotaudit.cli.certify_ops import kernel_report_of

    report = kernel_report_of(args.source, _read, args.k_table)
    _out(json.dumps(report, sort_keys=True, ensure_ascii=False, indent=1))
    return 0


def _cmd_verify_log(args: argparse.Namespace) -> int:
    from cotaudit.cli.certify_ops import verify_state_file

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
    from cotaudit.certify.state.store import Store

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
