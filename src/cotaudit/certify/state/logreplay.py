"""The certified state re-derived from the log: :func:`derive` replays every payload (in seq
order) into the state it certifies. :mod:`.logstate` compares that state with the tables.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from cotaudit.certify.core.errors import CertifyError
from cotaudit.certify.lang.parse import parse_unit
from cotaudit.certify.lang.syntax import Unit
from cotaudit.certify.state.store import certificate_body, certificate_sha
from cotaudit.limits import checkpoint


@dataclass(frozen=True, slots=True)
class Divergence:
    """One place where the tables differ from the state the log certifies."""

    where: str  # e.g. "units[5].ukey", "certificates[3]", "cache[f:q(a)]"
    message: str
    seq: int | None = None  # the log entry the expected value comes from, if one does

    def line(self) -> str:
        at = f" (log seq {self.seq})" if self.seq is not None else ""
        return f"{self.where}: {self.message}{at}"


@dataclass
class DerivedUnit:
    unit_id: int
    text: str
    unit: Unit | None  # None: the logged text does not parse (itself a divergence)
    scope: str
    query_id: str | None
    status: str
    kstatus: str | None
    admitted_seq: int
    ended_seq: int | None = None
    evidence: set[str] = field(default_factory=set)
    order_rank: Any = None  # what the log says; None: an entry from before ranks were logged


@dataclass
class DerivedVersion:
    members: frozenset[int]
    redundant: int
    seq: int


@dataclass
class Derived:
    """What the log says the state is."""

    units: dict[int, DerivedUnit] = field(default_factory=dict)
    version: int = 0
    versions: dict[int, DerivedVersion] = field(default_factory=dict)
    cache: dict[str, tuple[set[str], int]] = field(default_factory=dict)  # key -> allowed shas, seq
    queries: dict[str, tuple[str | None, int]] = field(default_factory=dict)  # id -> cert sha, seq
    query_rows: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> the logged result
    freq: dict[str, tuple[float, int]] = field(default_factory=dict)  # key -> (f, last tick)
    freq_known: bool = True  # False once a TICK without counts (an older log) was replayed
    referenced: dict[str, int] = field(default_factory=dict)  # certificate sha -> first seq
    evidence: dict[int, set[str]] = field(default_factory=dict)  # seq -> evidence shas
    interface_sha: str | None = None
    config: Any = None
    problems: list[Divergence] = field(default_factory=list)


def json_or_none(text: Any) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError, RecursionError):
        return None


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def says(got: Any, want: Any) -> str:
    return f"{got!r}, the log says {want!r}"


def int_list(value: Any) -> list[int]:
    if not isinstance(value, list):
        return []
    return [v for v in value if isinstance(v, int) and not isinstance(v, bool)]


def str_list(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


class _Replay:
    """Applies one log entry at a time to a :class:`Derived`."""

    def __init__(self, conn: Any, derived: Derived) -> None:
        self.conn = conn
        self.d = derived
        self.members: set[int] = set()
        self.bodies: dict[str, dict[str, Any]] = {}
        self.payload: dict[str, Any] = {}

    def body(self, sha: str) -> dict[str, Any] | None:
        if sha not in self.bodies:
            row = self.conn.execute("SELECT body FROM certificates WHERE sha256=?", (sha,)).fetchone()
            body = certificate_body(row[0])[0] if row is not None else None
            if body is not None and certificate_sha(body) != sha:
                body = None
            if body is not None:
                self.bodies[sha] = body
            return body
        return self.bodies[sha]

    def problem(self, seq: int, message: str) -> None:
        self.d.problems.append(Divergence(f"log[{seq}]", message, seq))

    def new_unit(
        self, seq: int, uid: Any, text: Any, scope: str, query_id: str | None, rank: Any = None
    ) -> None:
        if not isinstance(uid, int) or isinstance(uid, bool) or not isinstance(text, str):
            self.problem(seq, "an admitted unit without an id or a text")
            return
        if uid in self.d.units:
            self.problem(seq, f"unit id {uid} admitted twice")
            return
        try:
            unit: Unit | None = parse_unit(text)
        except (CertifyError, RecursionError):
            unit = None
            self.problem(seq, f"the logged text of unit {uid} does not parse")
        status = "active" if scope == "kernel" else "expired"
        ended = None if scope == "kernel" else seq
        self.d.units[uid] = DerivedUnit(uid, text, unit, scope, query_id, status, None, seq, ended)
        self.d.units[uid].order_rank = [seq] if scope == "query" else rank

    def kernel(self, seq: int, delta: Any) -> None:
        if not isinstance(delta, dict):
            return
        self.members |= set(int_list(delta.get("added")))
        self.members -= set(int_list(delta.get("removed")))
        version = delta.get("version")
        if not isinstance(version, int) or isinstance(version, bool):
            self.problem(seq, "a kernel delta without a version")
            return
        redundant = 0
        for u in self.d.units.values():
            if u.scope == "kernel" and u.status == "active":
                u.kstatus = "K" if u.unit_id in self.members else "J"
                redundant += u.kstatus == "J"
        if version != self.d.version:
            self.d.version = version
            self.d.versions[version] = DerivedVersion(frozenset(self.members), redundant, seq)
        reval = delta.get("revalidation")
        if isinstance(reval, dict):
            certs = str_list(self.payload.get("certificates"))
            for ckey in str_list(reval.get("rebuilt")):
                allowed = {s for s in certs if (self.body(s) or {}).get("key") == ckey}
                self.d.cache[ckey] = (allowed, seq)
            for ckey in str_list(reval.get("evicted")):
                self.d.cache.pop(ckey, None)

    def entry(self, seq: int, op: str, payload: dict[str, Any]) -> None:
        self.payload = payload
        for sha in str_list(payload.get("certificates")):
            self.d.referenced.setdefault(sha, seq)
        self.d.evidence[seq] = set(str_list(payload.get("evidence")))
        if op == "INIT":
            if "interface_sha256" in payload:
                self.d.interface_sha = payload.get("interface_sha256")
                self.d.config = payload.get("config")
            migrate = payload.get("migrate")
            if isinstance(migrate, dict):
                self.d.interface_sha = migrate.get("to")
        elif op == "ADMIT":
            decision = as_dict(payload.get("decision"))
            detail = as_dict(decision.get("detail"))
            uid = payload.get("unit_id")
            if decision.get("outcome") != "REJECT" and uid is not None and "duplicate_of" not in detail:
                self.new_unit(seq, uid, decision.get("unit"), "kernel", None, payload.get("order_rank"))
            self.kernel(seq, payload.get("kernel"))
        elif op == "ADMIT_BATCH":
            ranks = {
                r[0]: r[1]
                for r in payload.get("order_ranks") or []
                if isinstance(r, list) and len(r) == 2 and isinstance(r[0], int)
            }
            for d in payload.get("decisions") or []:
                if not isinstance(d, dict) or d.get("outcome") == "REJECT":
                    continue
                detail = as_dict(d.get("detail"))
                if "duplicate_of" not in detail:
                    uid = detail.get("unit_id")
                    rank = ranks.get(uid) if isinstance(uid, int) else None
                    self.new_unit(seq, uid, d.get("unit"), "kernel", None, rank)
            self.kernel(seq, payload.get("kernel"))
        elif op == "ERASE":
            uid = payload.get("unit_id")
            unit = self.d.units.get(uid) if isinstance(uid, int) else None
            if unit is None or unit.status != "active":
                self.problem(seq, f"erases unit {uid!r}, which is not an active unit")
            else:
                unit.status, unit.ended_seq = "erased", seq
            for ckey in str_list(payload.get("evicted")):
                self.d.cache.pop(ckey, None)
            self.kernel(seq, payload.get("kernel"))
        elif op == "QUERY":
            qid = payload.get("query_id")
            next_id = max(self.d.units, default=0) + 1
            for d in payload.get("gate") or []:
                if isinstance(d, dict) and d.get("outcome") == "SOURCE_ADMIT":
                    self.new_unit(seq, next_id, d.get("unit"), "query", qid if isinstance(qid, str) else None)
                    next_id += 1
            qsha = payload.get("certificate_sha256")
            qsha = qsha if isinstance(qsha, str) else None
            if isinstance(qid, str):
                self.d.queries[qid] = (qsha, seq)
                self.d.query_rows[qid] = payload
            cache = payload.get("cache")
            if isinstance(cache, dict):
                for ckey in str_list(cache.get("evicted")):
                    self.d.cache.pop(ckey, None)
                if cache.get("cached") is True and isinstance(cache.get("candidate"), str):
                    self.d.cache[cache["candidate"]] = ({qsha} if qsha is not None else set(), seq)
        elif op == "EVICT":
            for ckey in str_list(payload.get("evicted")):
                self.d.cache.pop(ckey, None)
        elif op == "TICK":
            self.tick(seq, payload)

    def tick(self, seq: int, payload: dict[str, Any]) -> None:
        """C-61 replayed: f ← λ·f + (1 − λ)·c for every key known or counted, as the tick did."""
        from cotaudit.certify.state.cachemath import update_frequency

        counts_raw, half = payload.get("counts"), payload.get("half_life_ticks")
        tick = payload.get("tick")
        if not isinstance(counts_raw, list) or not isinstance(half, str) or not isinstance(tick, int):
            self.d.freq_known = False  # an entry from before counts were logged
            return
        counts: dict[str, int] = {}
        for item in counts_raw:
            if isinstance(item, list) and len(item) == 2 and isinstance(item[0], str):
                n = item[1]
                if isinstance(n, int) and not isinstance(n, bool) and n > 0:
                    counts[item[0]] = n
                    continue
            self.problem(seq, f"a TICK count that is not [key, positive integer]: {item!r}")
        try:
            h = float(half)
        except ValueError:
            h = float("nan")
        if not h > 0:
            self.problem(seq, f"a TICK half-life that is not a positive number: {half!r}")
            return
        for key in sorted(set(self.d.freq) | set(counts)):
            old = self.d.freq.get(key, (0.0, 0))[0]
            self.d.freq[key] = (update_frequency(old, counts.get(key, 0), h), tick)


def derive(conn: Any) -> Derived:
    """Replay every log payload (in seq order) into the state it certifies."""
    derived = Derived()
    replay = _Replay(conn, derived)
    for seq, op, text in conn.execute("SELECT seq, op, payload FROM log ORDER BY seq"):
        checkpoint()
        payload = json_or_none(text)
        if not isinstance(payload, dict):
            derived.problems.append(Divergence(f"log[{seq}]", "payload is not a JSON object", seq))
            continue
        replay.entry(seq, str(op), payload)
    return derived
