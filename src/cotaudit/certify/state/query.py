"""The query transition (C-55 ``query``, C-78 … C-81): answer a target over the kernel and
optional query-scoped facts, with a certificate or an explicit abstention.

Part 2 (serving with votes, §11) builds on this: it turns k grounding votes into the agreed
facts passed here. A kernel-only query first looks in the cache (status CACHED; the audit record
is buffered, C-86); otherwise the facts go through the gate at query scope, Γ_t ∪ F_q is
evaluated, and the answer is certified by the derived-mode gate (DERIVED, COMPLEMENT_DERIVED,
COMPUTED) or backed by a closure certificate (NOT_DERIVED). F_q expires at the end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from cotaudit.certify.core.canon import canonical_json
from cotaudit.certify.core.errors import ComputationCap, ProgramError, ResourceCap, StoreError
from cotaudit.certify.engine.closure import Closure, build_closure
from cotaudit.certify.engine.evaluation import evaluate
from cotaudit.certify.engine.facts import Source
from cotaudit.certify.gate.decision import GateDecision, Outcome
from cotaudit.certify.gate.derived import derived
from cotaudit.certify.gate.source import source as gate_source
from cotaudit.certify.lang.parse import parse_literal
from cotaudit.certify.lang.syntax import Const, Literal, Unit, Var
from cotaudit.certify.proof.format import fact_key
from cotaudit.certify.sources.records import Evidence
from cotaudit.certify.state.cacheops import AUDIT_FLUSH_EVERY, flush_audit, maybe_cache
from cotaudit.certify.state.mirror import insert_evidence, insert_unit, next_unit_id
from cotaudit.certify.state.rows import UnitRow
from cotaudit.certify.state.view import StateView


class ServeStatus(Enum):
    CERTIFIED = "CERTIFIED"
    CACHED = "CACHED"
    ABSTAINED = "ABSTAINED"
    UNCERTIFIED_FALLBACK = "UNCERTIFIED_FALLBACK"


class AnswerKind(Enum):
    DERIVED = "DERIVED"
    COMPLEMENT_DERIVED = "COMPLEMENT_DERIVED"
    NOT_DERIVED = "NOT_DERIVED"
    COMPUTED = "COMPUTED"


class AbstainReason(Enum):
    NO_AGREEMENT = "NO_AGREEMENT"
    ALL_VOTES_INVALID = "ALL_VOTES_INVALID"
    ADMISSION_REJECTED = "ADMISSION_REJECTED"
    SOURCE_CHECK_FAILED = "SOURCE_CHECK_FAILED"
    DERIVATION_REJECTED = "DERIVATION_REJECTED"
    DEPTH_BUDGET_EXCEEDED = "DEPTH_BUDGET_EXCEEDED"
    INCONSISTENT = "INCONSISTENT"
    COMPUTATION_CAP = "COMPUTATION_CAP"
    MISSING_ATTRIBUTE = "MISSING_ATTRIBUTE"
    GROUNDER_ERROR = "GROUNDER_ERROR"


@dataclass
class QueryResult:
    """The outcome of one query (the part of C-83's ServeResult this transition fills)."""

    query_id: str
    target: str
    status: ServeStatus
    answer: str | None = None
    answer_kind: AnswerKind | None = None
    certificate: dict[str, Any] | None = None
    abstain_reason: AbstainReason | None = None
    detail: str = ""
    gate_decisions: list[GateDecision] = field(default_factory=list)
    kernel_version: int = 0
    log_seq: int | None = None
    flags: list[str] = field(default_factory=list)
    cache: dict[str, Any] = field(default_factory=dict)
    overlay: dict[int, Unit] = field(default_factory=dict)
    # "time" / "memory" when a machine-dependent bound caused the abstention (not serialised:
    # the reason and detail say it; a caller running many operations abstains from all of them)
    resource_bound: str | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "query_id": self.query_id,
            "target": self.target,
            "status": self.status.value,
            "answer": self.answer,
            "answer_kind": None if self.answer_kind is None else self.answer_kind.value,
            "abstain_reason": None if self.abstain_reason is None else self.abstain_reason.value,
            "detail": self.detail,
            "certificate_sha256": None if self.certificate is None else self.certificate.get("sha256"),
            "depth": None if self.certificate is None else self.certificate.get("depth"),
            "kernel_version": self.kernel_version,
            "log_seq": self.log_seq,
            "flags": list(self.flags),
            "gate": [d.to_json() for d in self.gate_decisions],
            "cache": dict(self.cache),
        }


def _target(target: Literal | str) -> Literal:
    return target if isinstance(target, Literal) else parse_literal(target)


def run_query(
    state: StateView,
    target: Literal | str,
    *,
    facts: Sequence[tuple[Unit | str | Mapping[str, Any], Evidence | None]] = (),
    query_id: str | None = None,
    answer_space: str | None = None,
    delta: int | None = None,
    writer: str = "grounder",
    on_reject: str | None = None,
) -> QueryResult:
    """Answer ``target`` (C-79 … C-81). ``answer_space``: yesno, tfu (strong negation) or numeric."""
    lit = _target(target)
    if state.store.path != ":memory:":
        state.refresh()  # never serve a cache entry another process has invalidated
    state.ensure_sound()  # never serve from tables edited behind the log
    space = answer_space or (
        "numeric" if not lit.ground else "tfu" if state.interface.negation == "strong" else "yesno"
    )
    key = fact_key(lit)
    state.requests[key] = state.requests.get(key, 0) + 1
    entry = state.cache.get(key) if not facts and lit.ground else None
    if entry is not None and entry.version == state.version:
        qid = query_id or f"hit{state.store.next_seq()}-{len(state.audit_buffer)}"
        answer = "false" if entry.cert["conclusion"] != lit.text() else ("true" if space == "tfu" else "yes")
        result = QueryResult(
            qid,
            lit.text(),
            ServeStatus.CACHED,
            answer,
            AnswerKind.DERIVED,
            entry.cert,
            kernel_version=state.version,
        )
        state.audit_buffer.append(
            {"query_id": qid, "key": key, "certificate": entry.cert["sha256"], "version": state.version}
        )
        if state.config.audit_sync or len(state.audit_buffer) >= AUDIT_FLUSH_EVERY:
            state.transition(lambda: flush_audit(state))
        return result
    return state.transition(lambda: _answer(state, lit, space, facts, query_id, delta, writer, on_reject))


def _answer(
    state: StateView,
    lit: Literal,
    space: str,
    facts: Sequence[tuple[Unit | str | Mapping[str, Any], Evidence | None]],
    query_id: str | None,
    delta: int | None,
    writer: str,
    on_reject: str | None,
) -> QueryResult:
    seq = state.store.next_seq()
    qid = query_id or f"q{seq}"
    if state.store.conn.execute("SELECT 1 FROM queries WHERE query_id=?", (qid,)).fetchone():
        raise StoreError(f"query id '{qid}' was already answered (the log keys queries by id)")
    budget = state.config.delta if delta is None else delta
    result = QueryResult(qid, lit.text(), ServeStatus.ABSTAINED, kernel_version=state.version)
    fq: list[Source] = []
    evidence: list[str] = []
    uid = next_unit_id(state)
    policy = on_reject or state.config.on_reject
    for proposal, ev in facts:
        try:
            d = gate_source(proposal, ev, writer=writer, scope="query", state=state, query_facts=fq)
        except ResourceCap as exc:  # time or memory: the whole query abstains, as C-79 says
            result.abstain_reason, result.detail = AbstainReason.COMPUTATION_CAP, str(exc)
            result.resource_bound = exc.bound
            break
        result.gate_decisions.append(d)
        if d.outcome is Outcome.REJECT:
            if policy == "drop" and d.reason == "PREDICATE_NOT_IN_WHITELIST":
                result.flags = sorted({*result.flags, "barrier_drop"})
                continue
            if result.abstain_reason is None:
                result.abstain_reason = _rejected(d.reason)
                result.detail = f"{d.reason}: {d.detail.get('message', '')}"
            continue
        if d.outcome is Outcome.SOURCE_ADMIT and d.unit is not None and d.record is not None:
            insert_unit(state, UnitRow(uid, d.unit, writer, "query", qid, [seq], "active", None, seq))
            evidence.append(insert_evidence(state, uid, d.record, seq))
            fq.append(Source(uid, d.unit, "query"))
            uid += 1
    result.overlay = {s.unit_id: s.unit for s in fq}
    if result.abstain_reason is None:
        _derive(state, result, lit, space, fq, budget)
    for s in fq:  # C-78: query-scoped facts expire with the query
        state.store.conn.execute(
            "UPDATE units SET status='expired', ended_seq=? WHERE unit_id=?", (seq, s.unit_id)
        )
        state.units[s.unit_id].status, state.units[s.unit_id].ended_seq = "expired", seq
    if (
        result.status is ServeStatus.CERTIFIED
        and result.certificate is not None
        and result.answer_kind is not None
    ):
        result.cache = maybe_cache(state, result.certificate, result.answer_kind.value, seq)
    cert_id = None
    certs = []
    if result.certificate is not None:
        cert_id = state.store.put_certificate(result.certificate)
        certs.append(result.certificate["sha256"])
    payload = result.to_json()
    state.store.conn.execute(
        "INSERT INTO queries VALUES(?,?,?,?,?,?,?,?,?,?)",
        (
            qid,
            fact_key(lit),
            result.status.value,
            result.answer,
            None if result.answer_kind is None else result.answer_kind.value,
            None if result.abstain_reason is None else result.abstain_reason.value,
            cert_id,
            state.version,
            canonical_json(payload),
            seq,
        ),
    )
    records = sorted({r.sha256 for d in result.gate_decisions if d.record for r in [_record(state, d)] if r})
    log = {**payload, "certificates": certs, "evidence": sorted(set(evidence)), "records": records}
    result.log_seq = state.store.append_log("QUERY", log)
    return result


def _record(state: StateView, d: GateDecision) -> Any:
    ev = (d.record or {}).get("evidence") or {}
    rid = ev.get("record_id")
    return state.records.record(rid) if rid else None


def _rejected(reason: str | None) -> AbstainReason:
    """The abstention for a query fact the gate did not admit (C-77): a failed or erroring
    source check, a check the gate could not decide within its bounds, or another rejection."""
    if reason in ("UNSUPPORTED_BY_SOURCE", "CHECKER_ERROR"):
        return AbstainReason.SOURCE_CHECK_FAILED
    if reason == "UNDECIDED":
        return AbstainReason.COMPUTATION_CAP
    return AbstainReason.ADMISSION_REJECTED


def _derive(
    state: StateView, result: QueryResult, lit: Literal, space: str, fq: list[Source], budget: int
) -> None:
    """S3 (C-79). Any computation bound met here — evaluating Γ_q, building a closure
    certificate, the derived-mode gate's NAF checks — abstains ``COMPUTATION_CAP``: never "no"."""
    try:
        _derive_within(state, result, lit, space, fq, budget)
    except ComputationCap as exc:  # work or resource bound alike: the query is abstained
        result.status, result.answer, result.answer_kind, result.certificate = (
            ServeStatus.ABSTAINED,
            None,
            None,
            None,
        )
        result.abstain_reason, result.detail = AbstainReason.COMPUTATION_CAP, str(exc)
        result.resource_bound = exc.bound if isinstance(exc, ResourceCap) else None


def _derive_within(
    state: StateView, result: QueryResult, lit: Literal, space: str, fq: list[Source], budget: int
) -> None:
    closure: Closure = (
        state.closure() if not fq else evaluate(state.kernel_sources(), fq, limits=state.limits)
    )
    if state.interface.negation == "strong" and closure.conflicts():
        p, n = closure.conflicts()[0]
        result.abstain_reason, result.detail = (
            AbstainReason.INCONSISTENT,
            f"{p.text()} and {n.text()} both hold",
        )
        return
    target, kind = lit, AnswerKind.DERIVED
    if space == "numeric":
        matches = [f for f in closure.facts(lit.pred) if _matches(lit, f)]
        if len(matches) != 1:
            reason = AbstainReason.MISSING_ATTRIBUTE if not matches else AbstainReason.INCONSISTENT
            result.abstain_reason, result.detail = reason, f"{len(matches)} values for {lit.text()}"
            return
        target = matches[0]
        w = closure.witness(target)
        kind = AnswerKind.COMPUTED if w is not None and w.calc is not None else AnswerKind.DERIVED
    elif not closure.contains(lit) and space == "tfu" and closure.contains(lit.complement()):
        target, kind = lit.complement(), AnswerKind.COMPLEMENT_DERIVED
    if not closure.contains(target):
        complement = lit.complement() if space == "tfu" else None
        result.certificate = build_closure(
            closure,
            lit,
            complement=complement,
            kernel_version=state.version,
            interface_sha256=state.interface.sha256,
            overlay=fq,
            leaf_info=state.leaf_info(),
            embed_max=state.config.closure_embed_max,
            naf=state.interface.negation == "naf",
        )
        result.status, result.answer_kind = ServeStatus.CERTIFIED, AnswerKind.NOT_DERIVED
        result.answer = "unknown" if space == "tfu" else "no"
        return
    cert = closure.certificate(
        target,
        budget,
        kernel_version=state.version,
        interface_sha256=state.interface.sha256,
        leaf_info=state.leaf_info(),
    )
    decision = derived(
        target, cert, kernel=state.kernel_view(), overlay={s.unit_id: s.unit for s in fq}, delta=budget
    )
    result.gate_decisions.append(decision)
    if decision.outcome is not Outcome.CERTIFY:
        result.abstain_reason = {
            "DEPTH_BUDGET_EXCEEDED": AbstainReason.DEPTH_BUDGET_EXCEEDED,
            "UNDECIDED": AbstainReason.COMPUTATION_CAP,
        }.get(decision.reason or "", AbstainReason.DERIVATION_REJECTED)
        result.detail = f"{decision.reason}: {decision.detail.get('message', '')}"
        return
    result.status, result.answer_kind, result.certificate = ServeStatus.CERTIFIED, kind, cert
    if space == "numeric":
        result.answer = next(
            b.text() for a, b in zip(lit.args, target.args, strict=True) if isinstance(a, Var)
        )
    elif kind is AnswerKind.COMPLEMENT_DERIVED:
        result.answer = "false"
    else:
        result.answer = "true" if space == "tfu" else "yes"


def _matches(pattern: Literal, fact: Literal) -> bool:
    if pattern.signature != fact.signature:
        return False
    seen: dict[str, Const] = {}
    for p, v in zip(pattern.args, fact.args, strict=True):
        assert isinstance(v, Const)
        if isinstance(p, Var):
            if seen.setdefault(p.name, v) != v:
                return False
        elif p != v:
            return False
    return True


__all__ = ["AbstainReason", "AnswerKind", "ProgramError", "QueryResult", "ServeStatus", "run_query"]
