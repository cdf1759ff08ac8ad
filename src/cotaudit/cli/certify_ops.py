"""What the ``cotaudit certify`` tools do, returned as lines of text (the CLI only prints)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from cotaudit.certify.core.canon import lone_surrogate
from cotaudit.certify.core.errors import (
    ComputationCap,
    InterfaceError,
    KbError,
    ProgramError,
    WhitelistViolation,
)
from cotaudit.certify.gate.decision import GateDecision, Outcome
from cotaudit.certify.interface.load import load_interface
from cotaudit.certify.kb.codemap import decision_code, reason_code
from cotaudit.certify.kb.facts import (
    MAX_FACTS_BYTES,
    MAX_QUERY_FACTS,
    FactSpec,
    FactSpecError,
    evidence_spec,
    fact_spec,
)
from cotaudit.certify.kb.file import KbDocument, locate, parse_kb, split_statements
from cotaudit.certify.lang.parse import parse_unit
from cotaudit.certify.lang.strata import stratify
from cotaudit.certify.lang.syntax import Rule, Unit
from cotaudit.certify.sources.records import Evidence, SourceRecord
from cotaudit.errors import UsageError


def _diag(path: str, line: int | None, col: int | None, reason: str, message: str) -> str:
    where = f"{path}:{line or 0}:{col or 0}"
    return f"{where}: {reason_code(reason).code} {reason}: {message}"


def check_program(text: str, path: str, interface_text: str | None) -> list[str]:
    """C-4 / C-12 diagnostics of a program (text or JSON form, or the units of a ``.kb`` file
    checked against its own interface), all of them."""
    from cotaudit.certify.lang.jsonform import program_from_json

    out: list[str] = []
    units: list[Unit] = []
    statements = []
    where_of: dict[int, tuple[int, int]] = {}  # unit index -> line, col in the file
    if path.endswith(".kb"):  # the units of every section, against the file's own interface
        try:
            doc = parse_kb(text)
        except KbError as exc:
            return [_diag(path, exc.line, exc.col, exc.reason, exc.bare)]
        statements = [st for sec in doc.sections for st in sec.statements if not st.is_query]
        interface_text = interface_text if interface_text is not None else doc.interface_text
    elif not text.lstrip().startswith("{"):
        statements = split_statements(text, 1)
    if text.lstrip().startswith("{") and not path.endswith(".kb"):
        try:
            units = program_from_json(text)
        except ProgramError as exc:
            return [_diag(path, exc.line, exc.col, exc.reason, exc.bare)]
    else:
        labels: dict[str, str] = {}
        for stmt in statements:
            try:
                unit = parse_unit(stmt.text)
            except ProgramError as exc:
                line = stmt.line + (exc.line or 1) - 1
                col = (exc.col or 1) + (stmt.col - 1 if (exc.line or 1) == 1 else 0)
                out.append(_diag(path, line, col, exc.reason, exc.bare))
                continue
            if labels.get(unit.label, unit.key) != unit.key:
                out.append(
                    _diag(path, stmt.line, stmt.col, "DUPLICATE_LABEL", f"label '{unit.label}' is used twice")
                )
            labels[unit.label] = unit.key
            units.append(unit)
            where_of[len(units) - 1] = (stmt.line, stmt.col)
    if interface_text is not None:
        try:
            iface = load_interface(interface_text)
        except InterfaceError as exc:
            return out + [
                _diag("interface", None, None, "INTERFACE_INVALID", f"{p.code}: {p.message}")
                for p in exc.problems
            ]
        offenders = [u for u in units if isinstance(u, Rule) and iface.head_in_whitelist(u)]
        if offenders:
            err = WhitelistViolation([u.label for u in offenders])
            out.append(_diag(path, None, None, "WHITELIST_VIOLATION", str(err)))
        for i, u in enumerate(units):
            issue = iface.type_check(u)
            if issue is not None:
                where = where_of.get(i) or u.pos or (None, None)
                out.append(_diag(path, where[0], where[1], issue.reason, f"[{u.label}] {issue.message}"))
    rules = [u for u in units if isinstance(u, Rule)]
    try:
        stratify(rules)
    except ProgramError as exc:
        out.append(_diag(path, None, None, "UNSTRATIFIED", exc.bare))
    if not out:
        out.append(f"ok: {len(units)} units ({len(units) - len(rules)} facts, {len(rules)} rules)")
    return out


def _decision_line(where: str, d: GateDecision, label: str) -> str:
    if d.outcome is Outcome.REJECT:
        code = decision_code(d.reason or "").code  # W013 for a unit the gate could not check
        return f"{where}: REJECT [{label}] {code} {d.reason}: {d.detail.get('message', '')}"
    extra = f" duplicate of unit {d.detail['duplicate_of']}" if "duplicate_of" in d.detail else ""
    return f"{where}: {d.outcome.value} [{label}] unit {d.detail.get('unit_id')}{extra}"


def _admit_kb(doc: KbDocument, path: str, state: Any) -> tuple[list[str], bool]:
    from cotaudit.certify.state.rows import put_record

    def add_records() -> None:
        for rec in doc.records:
            put_record(state.store, rec)

    state.transition(add_records)
    records = {r.record_id: r for r in doc.records}
    lines: list[str] = []
    ok = True
    for sec in doc.sections:
        if sec.kind != "units":
            continue
        writer = sec.options.get("writer", "deploy")
        items: list[Any] = []
        where: list[tuple[str, str]] = []
        for stmt in sec.statements:
            try:
                unit = parse_unit(stmt.text)
            except ProgramError as exc:
                lines.append(_diag(path, stmt.line + (exc.line or 1) - 1, exc.col, exc.reason, exc.bare))
                ok = False
                continue
            ev = stmt.evidence or (Evidence(sec.options["evidence"]) if "evidence" in sec.options else None)
            items.append((unit, locate(ev, records) if ev else None, writer, None))
            where.append((f"{path}:{stmt.line}", unit.label))
        try:
            decisions = state.admit_batch(items)
        except ComputationCap as exc:  # a time or memory bound: this batch is not admitted
            lines += _not_done(f"{path}:{sec.line}", exc)
            ok = False
            break
        for d, (w, label) in zip(decisions, where, strict=True):
            lines.append(_decision_line(w, d, label))
            ok = ok and d.outcome is not Outcome.REJECT
    lines.append(f"kernel version {state.version}: {len(state.kernel_sources())} kernel units")
    return lines, ok


def admit(args: Any, read: Callable[[str], str], open_state: Callable[..., Any]) -> tuple[list[str], bool]:
    from cotaudit.certify.state.config import CertifyConfig

    if args.kb:
        try:
            doc = parse_kb(read(args.kb))
            iface = load_interface(doc.interface_text)
            config = CertifyConfig.from_json(doc.config)
        except (KbError, InterfaceError, ValueError) as exc:
            raise UsageError(f"{args.kb}: {exc}") from None
        state = open_state(args, iface, config)
        try:
            return _admit_kb(doc, args.kb, state)
        finally:
            state.close()
    if not args.unit:
        raise UsageError("give a FILE.kb or --unit TEXT")
    given = load_interface(read(args.interface)) if args.interface else None
    state = open_state(args, given)
    try:
        return _admit_unit(args, read, state)
    except ComputationCap as exc:
        return _not_done(args.db, exc), False
    finally:
        state.close()


def _not_done(where: str, exc: ComputationCap) -> list[str]:
    """A transition a time or memory bound stopped: rolled back, so nothing was decided."""
    code = reason_code("COMPUTATION_CAP").code
    return [f"{where}: ABSTAINED {code}: {exc.what}; the transition was rolled back"]


def _admit_unit(args: Any, read: Callable[[str], str], state: Any) -> tuple[list[str], bool]:
    for spec in args.record_file:
        rid, _, rest = spec.partition("=")
        file, _, kind = rest.partition(":")
        if not rid or not file:
            raise UsageError("--record-file takes ID=PATH[:KIND]")
        state.add_record(SourceRecord(rid, kind or "document", read(file)))
    ev = _admit_evidence(args)
    if ev is not None:
        rec = state.records.record(args.record)
        ev = locate(ev, {args.record: rec} if rec else {})
    d = state.admit(args.unit, ev, args.writer)
    return [_decision_line(args.db, d, d.unit.label if d.unit else "?")], d.outcome is not Outcome.REJECT


def evidence_flags(args: Any) -> dict[str, Any] | None:
    """``--record ID [--quote Q] [--span START:END]…`` (``admit`` and ``query``) as the JSON
    evidence object the HTTP service takes, or ``None`` without ``--record``."""
    spans = []
    for s in args.span:
        a, _, b = s.partition(":")
        if not (a.isdigit() and b.isdigit()):
            raise UsageError("--span takes START:END")
        spans.append([int(a), int(b)])
    if not args.record:
        if args.quote is not None or spans:
            raise UsageError("--quote and --span need --record ID")
        return None
    return {"record": args.record, "spans": spans} | ({} if args.quote is None else {"quote": args.quote})


def _admit_evidence(args: Any) -> Evidence | None:
    try:
        return evidence_spec(evidence_flags(args), "--record/--quote/--span: ")
    except FactSpecError as exc:
        raise UsageError(str(exc)) from None


def query_facts(args: Any, read: Callable[..., str]) -> list[FactSpec]:
    """The query-scoped facts of ``certify query``: each ``--fact`` (``--record``/``--quote``/
    ``--span`` are the evidence of a single one: with several, which fact a quote belongs to
    would be a guess, so that is refused), then each line of ``--facts FILE.jsonl``. Its
    ``--query-id`` is checked here too: all before the state is opened."""
    qid = args.query_id
    if qid is not None and (not qid.strip() or lone_surrogate(qid) is not None):
        raise UsageError("--query-id must be a non-empty text (the audit log keys queries by it)")
    evidence = evidence_flags(args)
    if evidence is not None and len(args.fact) != 1:
        raise UsageError(
            "--record, --quote and --span give the evidence of exactly one --fact; "
            f"{len(args.fact)} given (put several facts with their evidence in --facts FILE.jsonl)"
        )
    values: list[tuple[Any, str]] = []
    for i, text in enumerate(args.fact, 1):
        where = "--fact" if len(args.fact) == 1 else f"--fact {i}"
        values.append(({"unit": text} | ({} if evidence is None else {"evidence": evidence}), where))
    if args.facts:
        values += _jsonl(args.facts, read)
    if len(values) > MAX_QUERY_FACTS:
        raise UsageError(f"{len(values)} query facts given; the limit is {MAX_QUERY_FACTS}")
    try:
        return [fact_spec(value, where) for value, where in values]
    except FactSpecError as exc:
        raise UsageError(str(exc)) from None


def _jsonl(path: str, read: Callable[..., str]) -> list[tuple[Any, str]]:
    """The values of a JSON-lines file (``-``: stdin), at most :data:`MAX_FACTS_BYTES`, with
    ``PATH:LINE`` each. Lines are split at ``\\n`` only (JSON strings may hold U+2028)."""
    from cotaudit.certify.core.canon import loads_strict

    text = read(path, MAX_FACTS_BYTES)
    label = "<stdin>" if path == "-" else path
    out: list[tuple[Any, str]] = []
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        where = f"{label}:{n}"
        try:
            out.append((loads_strict(line), where))
        except RecursionError:
            raise UsageError(f"{where}: nested too deeply") from None
        except ValueError as exc:
            raise UsageError(f"{where}: not JSON: {exc}") from None
        if len(out) > MAX_QUERY_FACTS:
            raise UsageError(f"{label}: more than {MAX_QUERY_FACTS} facts (the limit)")
    return out


def fact_lines(report: list[dict[str, Any]], specs: list[FactSpec]) -> list[str]:
    """One line per query fact: where it came from, the gate's decision, the fact."""
    lines = []
    for row, spec in zip(report, specs, strict=True):
        unit = " ".join(spec.unit.split())
        if row["outcome"] == "REJECT":
            dropped = " (dropped: on_reject drop)" if row["dropped"] else ""
            why = f"{row['code']} {row['reason']}: {row['message']}{dropped}"
            lines.append(f"{spec.where}: REJECT {unit} {why}")
        elif row["outcome"] == "NOT_CHECKED":
            lines.append(f"{spec.where}: NOT_CHECKED {unit} (the query stopped before it)")
        else:
            lines.append(f"{spec.where}: {row['outcome']} {unit}")
    return lines


def recheck_file(cert_text: str, kernel_text: str | None, delta: int | None) -> tuple[list[str], bool]:
    from cotaudit.certify.kb.bundle import BUNDLE_FORMAT, load_bundle
    from cotaudit.certify.proof.kernelview import KernelView
    from cotaudit.certify.proof.recheck import recheck

    try:
        data = json.loads(cert_text)
    except ValueError as exc:
        raise UsageError(f"the certificate is not JSON: {exc}") from None
    overlay: dict[int, Unit] = {}
    if isinstance(data, dict) and data.get("format") == BUNDLE_FORMAT:
        cert, kernel, overlay, bundle_delta = load_bundle(cert_text)
        delta = delta if delta is not None else bundle_delta
    else:
        if kernel_text is None:
            raise UsageError("a bare certificate needs --kernel EXPORT")
        try:
            kernel = KernelView.from_bundle(json.loads(kernel_text))
        except ValueError as exc:
            raise UsageError(f"the kernel export is not JSON: {exc}") from None
        cert = data
    try:
        report = recheck(cert, kernel, delta=delta, overlay=overlay)
    except ComputationCap as exc:  # a time or memory bound: not checked, not shown wrong
        return [f"UNDECIDED {reason_code('COMPUTATION_CAP').code}: could not recheck: {exc.what}"], False
    if report.ok:
        what = f"{report.kind} certificate of {report.conclusion}"
        return [f"ok: {what} rechecks against kernel version {kernel.version}"], True
    lines = [
        f"{reason_code(f.code).code} {f.code}"
        + (f" node {f.node}" if f.node is not None else "")
        + f": {f.message}"
        for f in report.failures
    ]
    if not lines:
        lines = [f"UNDECIDED {reason_code('COMPUTATION_CAP').code}: could not recheck: {report.undecided}"]
    return lines, False


def kernel_report_of(source: str, read: Callable[[str], str], k_table: bool) -> dict[str, Any]:
    from pathlib import Path

    from cotaudit.certify.state.config import CertifyConfig
    from cotaudit.certify.state.deploy import kernel_report
    from cotaudit.certify.state.machine import CertState

    if source.endswith(".kb"):
        try:
            doc = parse_kb(read(source))
            iface = load_interface(doc.interface_text)
            config = CertifyConfig.from_json(doc.config)
        except (KbError, InterfaceError, ValueError) as exc:
            raise UsageError(f"{source}: {exc}") from None
        state = CertState.open(":memory:", iface, config, clock=lambda: "1970-01-01T00:00:00Z")
        _admit_kb(doc, source, state)
    else:
        if not Path(source).is_file():
            raise UsageError(f"{source}: no such state file or .kb file")
        state = CertState.open(source)
    from cotaudit.certify.state.history import recheck_all

    try:
        report = kernel_report(state, k_table=k_table)
        report["stored_certificates_failing_recheck"] = recheck_all(state)
        return report
    finally:
        state.close()


def verify_state_file(path: str, anchor: tuple[int, str] | None) -> tuple[list[str], bool]:
    """``verify-log``: the hash chain, the anchor, and every divergence between the tables and
    the state the log certifies (one ``FAIL`` line each). Works on the bare file, so a state
    too damaged to open as a :class:`CertState` is still reported, never a crash."""
    from cotaudit.certify.state.logstate import divergences
    from cotaudit.certify.state.store import Store

    store = Store(path)
    try:
        store.check_schema()
        check = store.verify_log(anchor)
        found = divergences(store.conn)
        seq, digest = store.anchor()
    finally:
        store.close()
    lines: list[str] = []
    if not check.ok:
        lines.append(f"FAIL at seq {check.first_bad_seq}: {check.reason}")
    lines += [f"FAIL {d.line()}" for d in found]
    if not lines:
        return [f"ok: {seq} entries, head {seq}:{digest}"], True
    return lines, False
