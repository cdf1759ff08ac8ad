"""``cotaudit certify derive`` and ``cotaudit certify ask``: the gate's derived mode and certified
serving with the generic LLM grounder, from the command line (until now Python-only).

- ``derive --db S GOAL DERIVATION``: a stated derivation of GOAL — a model's trace in the
  edge extractor's line format (C-36, ``1. q(a) <- [r1] p(a)``) or a candidate certificate as
  JSON — checked by the gate in derived mode (C-42) against the state's kernel: ``CERTIFY``
  with the certificate (exit 0), or ``REJECT`` with the reason code and the trace line it points
  at (exit 1). The gate decides and never writes: the state is not changed.
- ``ask --db S GOAL --question TEXT --record ID=PATH[:KIND] …``: Algorithm 3 (C-74 … C-85) with
  :class:`cotaudit.frontends.certify_llm.LLMGrounder`, the generic grounder for any interface:
  k votes from the model configured by ``--llm-*`` / ``COTAUDIT_LLM_*``, the agreement rule,
  source checks of the agreed facts, derivation and certification. A certified answer exits 0;
  an abstention (no agreement, a failed source check, a grounder error, …) exits 1 with its
  reason. Without a configured model it is a usage error (exit 2).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from cotaudit.cli.io import emit
from cotaudit.cli.io import read_text as _read
from cotaudit.errors import InputError, UsageError


def add_serving_commands(subparsers: Any) -> None:
    """Register ``derive`` and ``ask`` under ``cotaudit certify``."""
    p = subparsers.add_parser("derive", help="check a stated derivation of a goal (the gate's derived mode)")
    p.add_argument("--db", required=True, metavar="STATE.sqlite", help="the state file")
    p.add_argument("goal", metavar="GOAL", help="the conclusion, e.g. 'q(a)'")
    p.add_argument(
        "derivation", metavar="DERIVATION", help="trace lines (C-36) or a candidate certificate (JSON)"
    )
    p.add_argument("--delta", type=int, help="depth budget (default: the state's)")
    p.add_argument("--json", action="store_true", help="print the decision and its certificate as JSON")
    p.add_argument("--certificate", metavar="OUT.json", help="write the certificate here (CERTIFY only)")
    p.set_defaults(handler=_cmd_derive)

    p = subparsers.add_parser(
        "ask", help="a certified answer from source texts, grounded by a language model"
    )
    p.add_argument("--db", required=True, metavar="STATE.sqlite", help="the state file")
    p.add_argument("goal", metavar="GOAL", help="the target literal, e.g. 'may_claim(p1, x1)'")
    p.add_argument("--question", required=True, metavar="TEXT", help="the question the model reads")
    p.add_argument(
        "--record", action="append", default=[], metavar="ID=PATH[:KIND]", help="a source text (repeatable)"
    )
    p.add_argument(
        "--constant", action="append", default=[], metavar="C", help="a case constant (repeatable)"
    )
    p.add_argument("--space", choices=("yesno", "tfu", "numeric"), default="yesno")
    p.add_argument("--policy", default="native", help="a serving preset (certify.md C-85; default native)")
    p.add_argument("--delta", type=int, help="depth budget (default: the state's)")
    p.add_argument("--query-id", metavar="ID", help="the query's id in the audit log (default: generated)")
    p.add_argument("--json", action="store_true", help="print the whole result as JSON")
    from cotaudit.cli.llm import add_llm_options

    add_llm_options(p)
    p.set_defaults(handler=_cmd_ask)


def _open(db: str) -> Any:
    from cotaudit.certify.state.machine import CertState

    if not Path(db).is_file():
        raise InputError(db, "no such state file")
    return CertState.open(db)


def _candidate(text: str, state: Any) -> dict[str, Any]:
    """A candidate certificate: the JSON as given, or the trace's derivation extracted (C-36;
    :class:`~cotaudit.certify.core.errors.ProgramError` when it does not parse)."""
    from cotaudit.certify.gate.extract import extract_derivation
    from cotaudit.certify.lang.syntax import Rule

    if text.lstrip().startswith("{"):
        try:
            value = json.loads(text)
        except ValueError as exc:
            raise UsageError(f"the derivation is not valid JSON: {exc}") from None
        if not isinstance(value, dict):
            raise UsageError("a candidate certificate is a JSON object")
        return value
    rules = {r.unit.label: (r.unit_id, r.unit) for r in state.active() if isinstance(r.unit, Rule)}
    return extract_derivation(text, rules)


def _cmd_derive(args: argparse.Namespace) -> int:
    from cotaudit.certify.core.errors import ProgramError
    from cotaudit.certify.gate.decision import Outcome, reject
    from cotaudit.certify.gate.derived import derived
    from cotaudit.certify.lang.parse import parse_literal

    text = _read(args.derivation)
    state = _open(args.db)
    try:
        state.ensure_sound()
        try:
            lit = parse_literal(args.goal)
        except Exception as exc:
            raise UsageError(f"GOAL {args.goal!r} is not a literal: {exc}") from None
        try:
            cand: dict[str, Any] | None = _candidate(text, state)
        except ProgramError as exc:  # the gate's own code for a derivation that does not parse
            cand = None
            decision = reject(exc.reason, exc.bare, line=exc.line, col=exc.col)
        if cand is not None:
            delta = args.delta if args.delta is not None else state.config.delta
            decision = derived(
                lit,
                cand,
                kernel=state.kernel_view(),
                delta=delta,
                interface_sha256=state.interface.sha256,
                leaf_info=state.leaf_info(),
            )
    finally:
        state.close()
    cert = (decision.record or {}).get("certificate") if decision.outcome is Outcome.CERTIFY else None
    if args.certificate and cert is not None:
        emit(json.dumps(cert, sort_keys=True, ensure_ascii=False, indent=1) + "\n", args.certificate)
    if args.json:
        out = {**decision.to_json(), "goal": lit.text(), "certificate": cert}
        emit(json.dumps(out, sort_keys=True, ensure_ascii=False) + "\n", None)
    elif cert is not None:
        depth = (decision.record or {}).get("depth")
        emit(f"CERTIFY {lit.text()}: derivation of depth {depth}; certificate {cert.get('sha256')}\n", None)
    else:
        detail = dict(decision.detail)
        where = f"line {detail['line']}: " if detail.get("line") is not None else ""
        sub = f" ({detail['sub_code']})" if detail.get("sub_code") else ""
        message = detail.get("message", "")
        emit(f"REJECT {lit.text()}: {decision.reason}{sub}: {where}{message}\n", None)
    return 0 if cert is not None else 1


def _records(specs: list[str]) -> tuple[Any, ...]:
    from cotaudit.certify.sources.records import SourceRecord

    out = []
    for spec in specs:
        rid, eq, rest = spec.partition("=")
        if not eq or not rid or not rest:
            raise UsageError("--record takes ID=PATH[:KIND]")
        path, _, kind = rest.partition(":")
        out.append(SourceRecord(rid, kind or "document", _read(path)))
    return tuple(out)


def _cmd_ask(args: argparse.Namespace) -> int:
    from cotaudit.certify.serve.agreement import POLICIES
    from cotaudit.certify.serve.serving import serve
    from cotaudit.certify.serve.votes import QueryInput
    from cotaudit.cli.llm import llm_client
    from cotaudit.frontends.certify_llm import LLMGrounder

    if args.policy not in POLICIES or POLICIES[args.policy].raw:
        known = ", ".join(name for name, p in sorted(POLICIES.items()) if not p.raw)
        raise UsageError(f"--policy must be one of {known}")
    if not args.record:
        raise UsageError("give the source text the model grounds from: --record ID=PATH[:KIND]")
    records = _records(args.record)
    client = llm_client(args)  # NotConfigured (exit 2) when no model is configured
    query_id = args.query_id or f"cli-{time.time_ns()}"
    q = QueryInput(query_id, args.question, args.goal, args.space, records, tuple(args.constant))
    state = _open(args.db)
    try:
        try:
            result = serve(state, q, LLMGrounder(client), policy=args.policy, delta=args.delta)
        except ValueError as exc:  # a reused query id, a bad target
            raise UsageError(str(exc)) from None
    finally:
        state.close()
    if args.json:
        out = {**result.to_json(), "certificate": result.certificate}
        emit(json.dumps(out, sort_keys=True, ensure_ascii=False) + "\n", None)
    elif result.abstain_reason is None and result.answer is not None:
        kind = f" ({result.answer_kind.value})" if result.answer_kind is not None else ""
        sha = (result.certificate or {}).get("sha256")
        emit(f"{result.status.value} {args.goal}: answer {result.answer}{kind}; certificate {sha}\n", None)
    else:
        reason = result.abstain_reason.value if result.abstain_reason is not None else "no answer"
        emit(f"{result.status.value} {args.goal}: abstained: {reason} ({result.detail})\n", None)
        if result.fallback_answer is not None:
            sys.stderr.write(f"cotaudit: fallback (UNCERTIFIED): {result.fallback_answer}\n")
    return 0 if result.abstain_reason is None and result.answer is not None else 1
