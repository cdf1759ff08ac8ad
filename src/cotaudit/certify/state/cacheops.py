"""Cache operations of the state (C-57 … C-64, C-86): insert, evict with dependents,
revalidation after a kernel change, caching decisions and ticks. Called inside transactions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from cotaudit.certify.core.errors import ComputationCap, ProgramError, ResourceCap, StoreError
from cotaudit.certify.lang.parse import parse_literal
from cotaudit.certify.proof.format import internal_nodes, size_bytes
from cotaudit.certify.proof.recheck import recheck
from cotaudit.certify.state import pending
from cotaudit.certify.state.cachemath import Candidate, allocate, threshold, update_frequency
from cotaudit.certify.state.rows import CacheEntry
from cotaudit.certify.state.view import StateView

CACHEABLE = ("DERIVED", "COMPLEMENT_DERIVED", "COMPUTED")
AUDIT_FLUSH_EVERY = 1000


def insert_entry(state: StateView, cert: Mapping[str, Any], seq: int) -> CacheEntry:
    conn = state.store.conn
    cert_id = state.store.put_certificate(cert)
    size = size_bytes(cert)
    entry = CacheEntry(
        cert["key"],
        cert_id,
        dict(cert),
        state.version,
        cert["depth"],
        size,
        seq,
        seq,
        list(cert["deps"]),
        internal_nodes(cert),
    )
    conn.execute(
        "INSERT INTO cache(ckey, cert_id, kernel_version, depth, size_bytes, created_seq, validated_seq) "
        "VALUES(?,?,?,?,?,?,?)",
        (entry.ckey, cert_id, entry.version, entry.depth, size, seq, seq),
    )
    conn.executemany("INSERT INTO cache_deps VALUES(?,?)", [(entry.ckey, u) for u in entry.deps])
    conn.executemany("INSERT INTO cache_nodes VALUES(?,?)", [(entry.ckey, k) for k in entry.nodes])
    state.cache[entry.ckey] = entry
    return entry


def _delete(state: StateView, ckey: str) -> None:
    state.store.conn.execute("DELETE FROM cache WHERE ckey=?", (ckey,))
    state.cache.pop(ckey, None)


def with_dependents(state: StateView, keys: Iterable[str]) -> list[str]:
    """``keys`` and, transitively, every entry having one of them as an internal node.

    One pass builds node key → entries holding it, so the cascade costs the total number of
    internal nodes once, not once per evicted key."""
    out = set(k for k in keys if k in state.cache)
    if not out:
        return []
    holders: dict[str, list[str]] = {}
    for e in state.cache.values():
        for node in e.nodes:
            holders.setdefault(node, []).append(e.ckey)
    frontier = list(out)
    while frontier:
        k = frontier.pop()
        for ckey in holders.get(k, ()):
            if ckey not in out:
                out.add(ckey)
                frontier.append(ckey)
    return sorted(out)


def evict_keys(state: StateView, keys: Iterable[str]) -> list[str]:
    gone = with_dependents(state, keys)
    for k in gone:
        _delete(state, k)
    return gone


def evict_entry(state: StateView, ckey: str) -> list[str]:
    """The ``evict`` transition: the entry and its dependents (C-58)."""
    if ckey not in state.cache:
        raise StoreError(f"no cache entry '{ckey}'")
    gone = evict_keys(state, [ckey])
    state.store.append_log("EVICT", {"evicted": gone})
    return gone


def revalidate(state: StateView, seq: int) -> dict[str, Any]:
    """C-60: recheck every entry against the new kernel; rebuild within δ or evict."""
    view = state.kernel_view()
    delta = state.config.delta
    rechecked: list[str] = []
    rebuilt: list[str] = []
    evicted: list[str] = []
    certs: list[str] = []
    for ckey in sorted(state.cache):
        state.store.hook("mid_revalidation")
        entry = state.cache.get(ckey)
        if entry is None:  # evicted as a dependent earlier in this loop
            continue
        if recheck(entry.cert, view, delta=delta).ok:
            state.store.conn.execute(
                "UPDATE cache SET kernel_version=?, validated_seq=? WHERE ckey=?", (state.version, seq, ckey)
            )
            entry.version, entry.validated_seq = state.version, seq
            rechecked.append(ckey)
            continue
        cert = _rebuild(state, entry.cert, delta)
        if cert is None:
            evicted += evict_keys(state, [ckey])
            continue
        _delete(state, ckey)  # its dependents stay; each is rechecked in its own turn of this loop
        insert_entry(state, cert, entry.created_seq)
        state.store.conn.execute("UPDATE cache SET validated_seq=? WHERE ckey=?", (seq, ckey))
        state.cache[ckey].validated_seq = seq
        rebuilt.append(ckey)
        certs.append(cert["sha256"])
    return {
        "rechecked": rechecked,
        "rebuilt": rebuilt,
        "evicted": sorted(set(evicted)),
        "certificates": certs,
    }


def _rebuild(state: StateView, old: Mapping[str, Any], delta: int) -> dict[str, Any] | None:
    try:
        lit = parse_literal(old["conclusion"])
        closure = state.closure()
    except ResourceCap:
        raise  # machine-dependent: the transition abstains as a whole, the cache is not changed
    except (ProgramError, ComputationCap):
        return None  # a work bound, the same on every machine: evicted (never served stale)
    depth = closure.depth(lit)
    if depth is None or depth > delta:
        return None
    return closure.certificate(
        lit,
        delta,
        kernel_version=state.version,
        interface_sha256=state.interface.sha256,
        leaf_info=state.leaf_info(),
    )


def maybe_cache(state: StateView, cert: Mapping[str, Any], kind: str, seq: int) -> dict[str, Any]:
    """C-57/C-62/C-63: cache a served conclusion when it qualifies; allocation picks survivors."""
    if kind not in CACHEABLE or cert.get("key") in state.cache:
        return {}
    key = cert["key"]
    if any(n.get("leaf", {}).get("scope") != "kernel" for n in cert["nodes"] if "leaf" in n):
        return {}
    m_eff = len(state.kernel_sources())
    f = state.freq.get(key, 0.0)
    f_c = threshold(state.config.rho, m_eff, int(cert["depth"]))
    size = size_bytes(cert)
    if not f > f_c or size > state.config.budget_bytes:
        return {"candidate": key, "f": f"{f:.6f}", "f_c": f"{f_c:.6f}", "cached": False}
    pool = [_candidate(state, e) for e in state.cache.values()]
    pool.append(Candidate.from_certificate(cert, f, size))
    keep = allocate(pool, state.config.budget_bytes, state.config.partial_enum_max)
    evicted = evict_keys(state, [e for e in state.cache if e not in keep])
    cached = key in keep
    if cached:
        insert_entry(state, cert, seq)
    return {"candidate": key, "f": f"{f:.6f}", "f_c": f"{f_c:.6f}", "cached": cached, "evicted": evicted}


def _candidate(state: StateView, entry: CacheEntry) -> Candidate:
    """The entry as an allocation candidate with its current frequency (shape built once)."""
    f = state.freq.get(entry.ckey, 0.0)
    c = entry.candidate
    if not isinstance(c, Candidate) or c.key != entry.ckey or c.size != entry.size:
        c = Candidate.from_certificate(entry.cert, f, entry.size)
    entry.candidate = c = c.with_freq(f)
    return c


def tick(state: StateView, now: int | None) -> dict[str, Any]:
    """C-61/C-86: update frequencies, persist them, flush buffered cache-hit audit records
    (with the counts and hits other processes left in the file: :mod:`.pending`)."""
    pending.take(state)
    conn = state.store.conn
    new_tick = state.tick_no + 1 if now is None else int(now)
    keys = sorted(set(state.freq) | set(state.requests))
    # the requests counted since the last tick and the half-life they decay with: the log then
    # determines every frequency, so verify-log can re-derive the freq table (logstate.py)
    counts = [[key, state.requests[key]] for key in keys if state.requests.get(key)]
    for key in keys:
        f = update_frequency(
            state.freq.get(key, 0.0), state.requests.get(key, 0), state.config.half_life_ticks
        )
        state.freq[key] = f
        conn.execute(
            "INSERT INTO freq(qkey, f, last_tick) VALUES(?,?,?) "
            "ON CONFLICT(qkey) DO UPDATE SET f=excluded.f, last_tick=excluded.last_tick",
            (key, f, new_tick),
        )
    state.requests = {}
    state.tick_no = new_tick
    state.store.set_meta("tick", str(new_tick))
    flushed = flush_audit(state)
    payload = {
        "tick": new_tick,
        "keys": len(keys),
        "counts": counts,
        "half_life_ticks": repr(float(state.config.half_life_ticks)),
    }
    state.store.append_log("TICK", payload)
    return {"tick": new_tick, "keys": len(keys), "flushed": flushed}


def flush_audit(state: StateView) -> int:
    if not state.audit_buffer:
        return 0
    hits = list(state.audit_buffer)
    state.store.append_log("QUERY_BATCH", {"hits": hits})
    state.audit_buffer.clear()
    return len(hits)
