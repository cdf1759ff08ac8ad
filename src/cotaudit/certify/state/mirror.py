"""Writing units and evidence into a state's tables and its mirror, in the open transaction.

The services (:mod:`.admission`, :mod:`.query`) call these with the state as a
:class:`~cotaudit.certify.state.view.StateView`; they never import the facade.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from cotaudit.certify.core.canon import canonical_json, sha256_hex
from cotaudit.certify.lang.jsonform import unit_to_json
from cotaudit.certify.state.rows import UnitRow
from cotaudit.certify.state.view import StateView


def insert_unit(state: StateView, row: UnitRow) -> None:
    """Insert ``row`` into the ``units`` table and the state's mirror."""
    state.store.conn.execute(
        "INSERT INTO units(unit_id, ukey, kind, label, text, json, writer, scope, query_id, order_rank, "
        "status, kstatus, admitted_seq, ended_seq) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            row.unit_id,
            row.unit.key,
            row.unit.kind,
            row.unit.label,
            row.unit.text(),
            canonical_json(unit_to_json(row.unit)),
            row.writer,
            row.scope,
            row.query_id,
            json.dumps(row.order_rank),
            row.status,
            row.kstatus,
            row.admitted_seq,
            row.ended_seq,
        ),
    )
    state.units[row.unit_id] = row
    row.attach(state.edits)


def insert_evidence(state: StateView, unit_id: int, record: Mapping[str, Any], seq: int) -> str:
    """Append π_src to the evidence table; returns the evidence sha256."""
    ev = record.get("evidence") or {"record_id": None, "spans": [], "quote": None, "extra": {}}
    ev_json = canonical_json({k: ev.get(k) for k in ("record_id", "spans", "quote", "extra")})
    sha = sha256_hex(ev_json)
    rid = ev.get("record_id")
    known = rid is not None and state.records.record(rid) is not None
    state.store.conn.execute(
        "INSERT INTO evidence(unit_id, record_id, evidence_json, checker_id, checker_version, verdict, "
        "log_json, sha256, seq) VALUES(?,?,?,?,?,?,?,?,?)",
        (
            unit_id,
            rid if known else None,
            ev_json,
            record["checker_id"],
            record["checker_version"],
            record["verdict"],
            canonical_json({"reason": record.get("reason"), "log": record.get("checker_log")}),
            sha,
            seq,
        ),
    )
    if record["verdict"] == "SUPPORTED":
        state.evidence_sha.setdefault(unit_id, sha)
    state.edits.bump()  # the kernel view's π_src and leaf_info read the evidence
    return sha


def next_unit_id(state: StateView) -> int:
    row = state.store.conn.execute("SELECT MAX(unit_id) FROM units").fetchone()
    return int(row[0] or 0) + 1
