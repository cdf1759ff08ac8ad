"""What waits for the next tick, kept in the state file between processes (C-61, C-86).

A query counts its request and may buffer a cache-hit audit record; a tick folds the counts
into the frequencies and writes the buffered hits to the log (``QUERY_BATCH``). A long-running
process keeps both in memory, but every ``cotaudit certify query`` is a process of its own,
which used to take its counts with it: ``certify tick`` then found nothing to update. So
:func:`save` (called when a state is closed) adds the counts and hits to two side tables, and
:func:`take` (the first thing a tick does, inside its transaction) folds them back in and
empties the tables.

The side tables are a buffer, not certified state: nothing in them is in the log until the tick
that folds them in, whose ``TICK`` payload then carries the counts (so ``verify-log`` derives the
frequencies as before). They are created when first needed, so older state files open unchanged.
"""

from __future__ import annotations

import json
from typing import Any

from cotaudit.certify.state.view import StateView

TABLES = (
    "CREATE TABLE IF NOT EXISTS pending_requests(qkey TEXT PRIMARY KEY, n INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS pending_hits(id INTEGER PRIMARY KEY AUTOINCREMENT, hit TEXT NOT NULL)",
)


def _file_backed(state: StateView) -> bool:
    return state.store.path != ":memory:"


def _exists(conn: Any) -> bool:
    query = "SELECT 1 FROM sqlite_master WHERE type='table' AND name='pending_requests'"
    row = conn.execute(query).fetchone()
    return row is not None


def save(state: StateView) -> int:
    """Add this process's counts and buffered hits to the state file; how many keys it added."""
    if not _file_backed(state) or (not state.requests and not state.audit_buffer):
        return 0
    conn = state.store.conn
    with state.store.transaction():
        for table in TABLES:
            conn.execute(table)
        for key, n in sorted(state.requests.items()):
            conn.execute(
                "INSERT INTO pending_requests(qkey, n) VALUES(?, ?) "
                "ON CONFLICT(qkey) DO UPDATE SET n = n + excluded.n",
                (key, int(n)),
            )
        for hit in state.audit_buffer:
            conn.execute("INSERT INTO pending_hits(hit) VALUES(?)", (json.dumps(hit, sort_keys=True),))
    saved = len(state.requests)
    state.requests = {}
    state.audit_buffer.clear()
    return saved


def take(state: StateView) -> None:
    """Fold the saved counts and hits into this process's (inside the tick's transaction)."""
    if not _file_backed(state):
        return
    conn = state.store.conn
    if not _exists(conn):
        return
    for key, n in conn.execute("SELECT qkey, n FROM pending_requests ORDER BY qkey").fetchall():
        state.requests[key] = state.requests.get(key, 0) + int(n)
    hits = [json.loads(raw) for (raw,) in conn.execute("SELECT hit FROM pending_hits ORDER BY id").fetchall()]
    state.audit_buffer[:0] = hits  # older hits first
    conn.execute("DELETE FROM pending_requests")
    conn.execute("DELETE FROM pending_hits")
