"""Older kernel versions from the log (C-73) and the state invariants INV-1 … INV-8 (C-66)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from cotaudit.certify.core.errors import ComputationCap, StoreError
from cotaudit.certify.engine.evaluation import evaluate
from cotaudit.certify.proof.kernelview import KernelView
from cotaudit.certify.proof.recheck import recheck
from cotaudit.certify.state.view import StateView

INV6_MAX_UNITS = 2000


def kernel_at(state: StateView, version: int) -> KernelView:
    """Replay the K deltas carried by ADMIT / ADMIT_BATCH / ERASE payloads up to ``version``."""
    if version < 0 or version > state.version:
        raise StoreError(f"no kernel version {version} (current: {state.version})")
    members: set[int] = set()
    if version > 0:
        reached = False
        for (payload,) in state.store.conn.execute("SELECT payload FROM log ORDER BY seq"):
            delta = json.loads(payload).get("kernel")
            if not delta:
                continue
            members |= set(delta.get("added", []))
            members -= set(delta.get("removed", []))
            if delta.get("version") == version:
                reached = True
                break
        if not reached:
            raise StoreError(f"kernel version {version} is not in the log")
    units = {uid: state.units[uid].unit for uid in sorted(members)}
    pi = {uid: tuple(state.evidence_hashes(uid)) for uid in units}
    return KernelView(version, units, state.interface.sha256, pi)


def check_invariants(state: StateView) -> list[str]:
    """Every violated invariant, as ``INV-n: message`` (empty when the state is sound)."""
    out: list[str] = []
    conn = state.store.conn
    supported = {
        uid for (uid,) in conn.execute("SELECT DISTINCT unit_id FROM evidence WHERE verdict='SUPPORTED'")
    }
    for row in state.units.values():
        if row.status == "active" and row.unit_id not in supported:
            out.append(f"INV-1: active unit {row.unit_id} has no SUPPORTED source record")
    view = state.kernel_view()
    kernel_ids = set(view.units)
    for entry in state.cache.values():
        if entry.version != state.version:
            out.append(f"INV-2: cache entry {entry.ckey} has version {entry.version}, not {state.version}")
        report = recheck(entry.cert, view, delta=state.config.delta)
        if not report.ok:
            out.append(f"INV-2: cache entry {entry.ckey} does not recheck: {report.codes()}")
        bad = [u for u in entry.deps if u not in kernel_ids]
        if bad:
            out.append(f"INV-3: cache entry {entry.ckey} depends on non-kernel units {bad}")
    check = state.verify_log()
    if not check.ok:
        out.append(f"INV-4: log check fails at {check.first_bad_seq}: {check.reason}")
    out += [f"INV-4: the tables diverge from the log: {d.line()}" for d in state.verify_state()]
    fresh = state.scan()
    if sorted(fresh.K) != sorted(kernel_ids):
        out.append(f"INV-5: stored K {sorted(kernel_ids)} differs from a fresh scan {sorted(fresh.K)}")
    sources = state.sources()
    if len(sources) <= INV6_MAX_UNITS:
        try:
            a = {f.text() for f in evaluate(state.kernel_sources(), limits=state.limits).facts()}
            b = {f.text() for f in evaluate(sources, limits=state.limits).facts()}
            if a != b:
                out.append(f"INV-6: Cn(K) ≠ Cn(S): {sorted(a ^ b)[:5]}")
        except ComputationCap:
            pass
    used = sum(e.size for e in state.cache.values())
    if used > state.config.budget_bytes:
        out.append(f"INV-7: cache uses {used} bytes > B = {state.config.budget_bytes}")
    for row in state.units.values():
        if row.scope == "query" and row.status == "active":
            out.append(f"INV-8: query-scoped unit {row.unit_id} outlived its query")
    return out


@dataclass(frozen=True)
class StoredRecheck:
    """One line per stored certificate that fails its recheck, and one per certificate the
    checker could not decide within its bounds (neither accepted nor shown wrong)."""

    failing: list[str]
    undecided: list[str]


def recheck_all(state: StateView) -> list[str]:
    """One line per stored certificate that fails its recheck (see :func:`recheck_stored`;
    a certificate that could not be rechecked within the bounds is not a failure)."""
    return recheck_stored(state).failing


def recheck_stored(state: StateView) -> StoredRecheck:
    """Recheck every stored certificate against the kernel of its version (and the query
    overlay its leaves name). A time or memory bound raises ``ResourceCap``."""
    from cotaudit.certify.lang.parse import parse_literal
    from cotaudit.certify.lang.syntax import Fact, Unit

    out: list[str] = []
    undecided: list[str] = []
    views: dict[int, KernelView] = {}
    rows = state.store.conn.execute("SELECT cert_id, sha256 FROM certificates ORDER BY cert_id").fetchall()
    for cert_id, sha in rows:
        cert = state.store.certificate(cert_id)
        version = int(cert.get("kernel_version", 0))
        if version not in views:
            views[version] = state.kernel_view(version)
        overlay: dict[int, Unit] = {}
        for node in cert.get("nodes", []):
            leaf = node.get("leaf")
            if leaf and leaf.get("scope") in ("query", "temp"):
                row = state.units.get(leaf["unit_id"])
                overlay[leaf["unit_id"]] = (
                    row.unit if row else Fact("tmp", parse_literal(node["fact"], skolem=True))
                )
        for item in cert.get("overlay", []):
            row = state.units.get(item["unit_id"])
            if row is not None:
                overlay[item["unit_id"]] = row.unit
        report = recheck(cert, views[version], overlay=overlay)
        if report.failures:
            out.append(f"certificate {sha[:12]}: {report.codes()}")
        elif report.undecided is not None:
            undecided.append(f"certificate {sha[:12]} could not be rechecked: {report.undecided}")
    return StoredRecheck(out, undecided)
