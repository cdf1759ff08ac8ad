"""Admit, admit_batch and erase (C-39, C-40, C-55), each run inside one state transaction.

After a kernel-scope change the scan result is applied: K/J membership per unit, a new kernel
version when K changed as a set (C-56), a justification certificate per J unit, and eager
revalidation of the cache (C-60) — all in the same transaction, logged with the K delta so
older kernel versions can be rebuilt from the log (C-73).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cotaudit.certify.core.errors import ComputationCap, ResourceCap, StoreError
from cotaudit.certify.engine.evaluation import evaluate
from cotaudit.certify.engine.facts import Source
from cotaudit.certify.gate.decision import GateDecision, Outcome, parse_proposal, reject
from cotaudit.certify.gate.source import source as gate_source
from cotaudit.certify.kernel.scan import KernelResult, OrderRank
from cotaudit.certify.lang.syntax import Fact, Unit
from cotaudit.certify.sources.records import Evidence
from cotaudit.certify.state.cacheops import evict_keys, revalidate
from cotaudit.certify.state.mirror import insert_evidence, insert_unit, next_unit_id
from cotaudit.certify.state.rows import UnitRow, members_sha
from cotaudit.certify.state.view import StateView
from cotaudit.limits import checkpoint


def _record_shas(state: StateView, decisions: Sequence[GateDecision]) -> list[str]:
    out = set()
    for d in decisions:
        ev = (d.record or {}).get("evidence") or {}
        rid = ev.get("record_id")
        rec = state.records.record(rid) if rid else None
        if rec is not None:
            out.add(rec.sha256)
    return sorted(out)


def apply_scan(state: StateView, scan: KernelResult, seq: int, old_k: set[int]) -> dict[str, Any]:
    """Write K/J membership, bump the version if K changed, justify J units, revalidate."""
    conn = state.store.conn
    new_k = set(scan.K)
    j_set = set(scan.J)
    for row in state.active():
        want = "K" if row.unit_id in new_k else ("J" if row.unit_id in j_set else row.kstatus)
        if want != row.kstatus:
            conn.execute("UPDATE units SET kstatus=? WHERE unit_id=?", (want, row.unit_id))
            row.kstatus = want
    delta: dict[str, Any] = {"added": sorted(new_k - old_k), "removed": sorted(old_k - new_k)}
    certs: list[str] = []
    if new_k != old_k:
        state.version += 1
        keys = [state.units[u].unit.key for u in new_k]
        conn.execute(
            "INSERT INTO kernel_versions VALUES(?,?,?,?,?,?)",
            (state.version, members_sha(keys), len(scan.A), len(scan.R), len(scan.J), seq),
        )
        state.store.set_meta("kernel_version", str(state.version))
        state.drop_closure()
    delta["version"] = state.version
    state.store.hook("after_scan_write")
    certs += justify(state, scan)
    if new_k != old_k:
        reval = revalidate(state, seq)
        certs += reval.pop("certificates", [])
        delta["revalidation"] = reval
    delta["flags"] = list(scan.flags)
    delta["capped"] = list(scan.capped)
    return {"kernel": delta, "certificates": sorted(set(certs))}


def justify(state: StateView, scan: KernelResult) -> list[str]:
    """A justification certificate for every J unit of the current version (C-46)."""
    conn = state.store.conn
    out: list[str] = []
    closure = None
    for uid in scan.J:
        just = scan.justifications.get(uid)
        if just is None or just.method == "model-equality":
            continue
        if conn.execute(
            "SELECT 1 FROM justifications WHERE unit_id=? AND version=?", (uid, state.version)
        ).fetchone():
            continue
        if closure is None:
            closure = state.closure()
        try:
            if all(closure.contains(t) for t in just.temporaries) and closure.contains(just.goal):
                use = closure
            else:
                temps = [Source(-1 - i, Fact(f"tmp{i}", t), "temp") for i, t in enumerate(just.temporaries)]
                use = evaluate(state.kernel_sources(), temps, limits=state.limits)
            if not use.contains(just.goal):
                continue  # derivable within k from Γ at scan time, but justified only then (k-bounded)
            depth = use.depth(just.goal) or 0
            cert = use.certificate(
                just.goal,
                max(depth, state.config.delta),
                kernel_version=state.version,
                interface_sha256=state.interface.sha256,
                leaf_info=state.leaf_info(),
            )
        except ResourceCap:
            raise  # machine-dependent: the admission abstains as a whole
        except ComputationCap:
            continue  # a work bound: the same on every machine
        cert_id = state.store.put_certificate(cert)
        conn.execute("INSERT INTO justifications VALUES(?,?,?)", (uid, state.version, cert_id))
        out.append(cert["sha256"])
    return out


def admit_one(
    state: StateView,
    proposal: Unit | str | Mapping[str, Any],
    evidence: Evidence | None,
    writer: str,
    order_rank: OrderRank | None,
) -> GateDecision:
    seq = state.store.next_seq()
    decision = gate_source(proposal, evidence, writer=writer, scope="kernel", state=state)
    payload: dict[str, Any] = {
        "decision": decision.to_json(),
        "evidence": [],
        "records": [],
        "certificates": [],
    }
    if decision.record is not None:
        payload["pi_src"] = {
            k: decision.record[k] for k in ("checker_id", "checker_version", "verdict", "reason")
        }
    if decision.outcome is Outcome.REJECT:
        return decision.with_seq(state.store.append_log("ADMIT", payload))
    unit = decision.unit
    assert unit is not None and decision.record is not None
    payload["records"] = _record_shas(state, [decision])
    dup = decision.detail.get("duplicate_of")
    if dup is not None:
        payload["evidence"] = [insert_evidence(state, dup, decision.record, seq)]
        payload["unit_id"] = dup
        return _done(state, decision, payload, dup)
    uid = next_unit_id(state)
    old_k = {s.unit_id for s in state.kernel_sources()}
    rank: list[int | str] = list(order_rank) if order_rank is not None else [seq]
    insert_unit(state, UnitRow(uid, unit, writer, "kernel", None, rank, "active", None, seq))
    payload["order_rank"] = rank  # decides which units the scan keeps: under the log (logstate.py)
    payload["evidence"] = [insert_evidence(state, uid, decision.record, seq)]
    state.store.hook("after_unit_insert")
    assert decision.scan is not None
    scan = _renumber(decision.scan, uid)
    payload.update(apply_scan(state, scan, seq, old_k))
    payload["unit_id"] = uid
    return _done(state, decision, payload, uid)


def _done(state: StateView, decision: GateDecision, payload: dict[str, Any], uid: int) -> GateDecision:
    seq = state.store.append_log("ADMIT", payload)
    from dataclasses import replace

    return replace(
        decision, log_seq=seq, detail={**decision.detail, "unit_id": uid, "kernel_version": state.version}
    )


def _renumber(scan: KernelResult, uid: int) -> KernelResult:
    def f(x: int) -> int:
        return uid if x == 0 else x

    just = {f(k): v for k, v in scan.justifications.items()}
    return KernelResult(
        [f(x) for x in scan.A],
        [f(x) for x in scan.R],
        [f(x) for x in scan.J],
        just,
        [f(x) for x in scan.capped],
        scan.flags,
        scan.seconds,
    )


def admit_many(
    state: StateView,
    items: Sequence[tuple[Unit | str | Mapping[str, Any], Evidence | None, str, OrderRank | None]],
) -> list[GateDecision]:
    seq = state.store.next_seq()
    old_k = {s.unit_id for s in state.kernel_sources()}
    decisions: list[GateDecision] = []
    new_ids: dict[int, int] = {}  # decision index → unit id
    ranks: list[list[Any]] = []  # [unit id, order_rank] of every new unit, logged
    evidence_shas: list[str] = []
    uid = next_unit_id(state)
    keys = dict(state.active_keys())  # kept up to date here: one build per batch, not per unit
    for index, (proposal, evidence, writer, rank) in enumerate(items):
        checkpoint()
        d = gate_source(
            proposal, evidence, writer=writer, scope="kernel", state=state, scan=False, known_keys=keys
        )
        if d.outcome is not Outcome.REJECT and d.unit is not None and d.record is not None:
            dup = d.detail.get("duplicate_of")
            target = dup if dup is not None else uid
            if dup is None:
                order: list[int | str] = list(rank) if rank is not None else [seq, index]
                insert_unit(state, UnitRow(uid, d.unit, writer, "kernel", None, order, "active", None, seq))
                ranks.append([uid, order])
                new_ids[index] = uid
                keys[d.unit.key] = uid
                uid += 1
            evidence_shas.append(insert_evidence(state, target, d.record, seq))
            from dataclasses import replace

            d = replace(d, detail={**d.detail, "unit_id": target})
        decisions.append(d)
    state.store.hook("after_unit_insert")
    payload: dict[str, Any] = {
        "evidence": sorted(set(evidence_shas)),
        "records": _record_shas(state, decisions),
        "order_ranks": ranks,
    }
    if new_ids:
        scan = state.scan()
        payload.update(apply_scan(state, scan, seq, old_k))
        j_set = set(scan.J)
        from dataclasses import replace

        for index, unit_id in new_ids.items():
            outcome = Outcome.REDUNDANT if unit_id in j_set else Outcome.SOURCE_ADMIT
            decisions[index] = replace(decisions[index], outcome=outcome)
    payload["decisions"] = [d.to_json() for d in decisions]
    log_seq = state.store.append_log("ADMIT_BATCH", payload)
    return [d.with_seq(log_seq) for d in decisions]


def abstained(
    state: StateView,
    proposals: Sequence[Unit | str | Mapping[str, Any]],
    exc: ResourceCap,
    op: str,
) -> list[GateDecision]:
    """Log an admission that a time or memory bound stopped (its transaction was rolled back):
    every unit gets REJECT ``UNDECIDED`` with the bound, nothing is admitted and nothing else
    changes. Deciding anything under such a bound would make the kernel depend on the
    machine's speed (C-26), so the whole operation is abstained, and says so."""
    message = f"not decided: the admission met its {exc.bound} bound ({exc.what}); nothing was admitted"
    decisions = []
    for proposal in proposals:
        got = parse_proposal(proposal)
        unit = None if isinstance(got, GateDecision) else got
        decisions.append(reject("UNDECIDED", message, unit, bound=exc.bound, cap=exc.what, check="operation"))
    if op == "ADMIT":
        payload: dict[str, Any] = {"decision": decisions[0].to_json(), "evidence": [], "records": []}
        payload["certificates"] = []
    else:
        payload = {"evidence": [], "records": [], "decisions": [d.to_json() for d in decisions]}
    seq = state.store.append_log(op, payload)
    return [d.with_seq(seq) for d in decisions]


def erase_unit(state: StateView, unit_id: int, reason: str) -> dict[str, Any]:
    """Erase an active kernel-scope unit: cascade the cache, rescan, bump, revalidate (C-55)."""
    row = state.units.get(unit_id)
    if row is None or row.status != "active" or row.scope != "kernel":
        raise StoreError(f"unit {unit_id} is not an active kernel unit")
    seq = state.store.next_seq()
    old_k = {s.unit_id for s in state.kernel_sources()}
    evicted = evict_keys(state, [e.ckey for e in state.cache.values() if unit_id in e.deps])
    state.store.conn.execute("UPDATE units SET status='erased', ended_seq=? WHERE unit_id=?", (seq, unit_id))
    row.status, row.ended_seq = "erased", seq
    state.store.hook("after_unit_insert")
    payload: dict[str, Any] = {"unit_id": unit_id, "key": row.unit.key, "reason": reason, "evicted": evicted}
    payload.update(apply_scan(state, state.scan(), seq, old_k))
    payload["log_seq"] = state.store.append_log("ERASE", payload)
    return payload
