"""The state machine (certify.md §9, Appendix E): Admit / Query / Erase / Evict / Tick.

:class:`CertState` keeps the certified state in one SQLite file (:mod:`cotaudit.certify.store`)
and an in-memory mirror (units, kernel membership, the cache, frequencies, the materialised
closure of the current kernel version). Every transition runs in one transaction with one log
entry; on any exception the transaction rolls back and the mirror is reloaded from the file,
so a failed or killed transition leaves the last committed state.
"""

from __future__ import annotations

import contextlib
import json
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from cotaudit.certify import gate as gate_mod
from cotaudit.certify.canon import canonical_json
from cotaudit.certify.checkers import CheckerRegistry
from cotaudit.certify.closure import Closure, Source
from cotaudit.certify.config import CertifyConfig
from cotaudit.certify.engine import EvalLimits, evaluate
from cotaudit.certify.errors import CertifyError, ResourceCap, StoreError
from cotaudit.certify.gate import GateDecision, Outcome
from cotaudit.certify.interface import Interface, interface_from_dict
from cotaudit.certify.jsonform import unit_from_json, unit_to_json
from cotaudit.certify.kernel import KernelResult, OrderRank, kernel_scan
from cotaudit.certify.kernelview import KernelView
from cotaudit.certify.logstate import Divergence, divergences, summary
from cotaudit.certify.sources import CheckerConfig, Evidence, SourceRecord
from cotaudit.certify.store import LogCheck, Store
from cotaudit.certify.syntax import Fact, Rule, Unit

T = TypeVar("T")

# Bumped by every change of the mirror the kernel views are computed from (a unit row set or
# edited, evidence added, a reload). CertState memoises kernel_sources / kernel_view /
# leaf_info on it: rebuilding them from all units for every query made serving O(units) per
# query (C-114's warm-up with 1,000 entries spent most of its time there).
_mirror_edits = 0


def _mirror_edited() -> None:
    global _mirror_edits
    _mirror_edits += 1


@dataclass
class UnitRow:
    """The mirror of one ``units`` row. Rows are edited in place (scan, erase, query expiry);
    every assignment marks the mirror edited, so no memoised view can outlive an edit."""

    unit_id: int
    unit: Unit
    writer: str
    scope: str
    query_id: str | None
    order_rank: list[int | str]
    status: str
    kstatus: str | None
    admitted_seq: int
    ended_seq: int | None = None

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        _mirror_edited()


@dataclass
class CacheEntry:
    """The mirror of one cache row with its certificate, deps and internal node keys (C-57)."""

    ckey: str
    cert_id: int
    cert: dict[str, Any]
    version: int
    depth: int
    size: int
    created_seq: int
    validated_seq: int
    deps: list[int] = field(default_factory=list)
    nodes: list[str] = field(default_factory=list)
    # The allocation's view of the certificate (cache.Candidate), built once: every caching
    # decision weighs all entries, and rebuilding each one's shape per decision made warm-up
    # with 1,000 entries quadratic in certificate parsing (C-63, C-114).
    candidate: Any = field(default=None, compare=False, repr=False)


class StoreRecords:
    """The :class:`~cotaudit.certify.sources.RecordStore` of a state (source_records table)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._cache: dict[str, SourceRecord] = {}

    def clear(self) -> None:
        self._cache.clear()

    def record(self, record_id: str) -> SourceRecord | None:
        got = self._cache.get(record_id)
        if got is None:
            row = self.store.conn.execute(
                "SELECT kind, uri, body FROM source_records WHERE record_id=?", (record_id,)
            ).fetchone()
            if row is None:
                return None
            got = self._cache[record_id] = SourceRecord(
                record_id, row[0], bytes(row[2]).decode("utf-8", "surrogatepass"), row[1]
            )
        return got


class CertState:
    """A certified state. Open it with :meth:`open`; never construct it directly."""

    def __init__(
        self, store: Store, interface: Interface, config: CertifyConfig, checkers: CheckerRegistry
    ) -> None:
        self.store = store
        self.interface = interface
        self.config = config
        self.checkers = checkers
        self.records = StoreRecords(store)
        self.units: dict[int, UnitRow] = {}
        self.cache: dict[str, CacheEntry] = {}
        self.freq: dict[str, float] = {}
        self.requests: dict[str, int] = {}
        self.audit_buffer: list[dict[str, Any]] = []
        self.version = 0
        self.tick_no = 0
        self._closure: tuple[int, Closure] | None = None
        self._evidence_sha: dict[int, str] = {}
        self._head: tuple[int, str] = (0, "")
        self._memo: dict[str, tuple[tuple[int, int, int, int], Any]] = {}
        self.integrity: list[Divergence] = []

    # ------------------------------------------------------------------ opening and loading
    @classmethod
    def open(
        cls,
        path: str = ":memory:",
        interface: Interface | None = None,
        config: CertifyConfig | None = None,
        *,
        checkers: CheckerRegistry | None = None,
        clock: Callable[[], str] | None = None,
        fault: Callable[[str], None] | None = None,
        migrate: bool = False,
    ) -> CertState:
        """Open (or create) the state at ``path`` (C-54); a different interface needs ``migrate``."""
        store = Store(path, synchronous=(config or CertifyConfig()).synchronous, clock=clock, fault=fault)
        if store.is_new():
            if interface is None:
                raise StoreError(f"{path}: a new state needs an interface")
            cfg = config or CertifyConfig()
            store.create_schema()
            with store.transaction():
                store.set_meta("interface", canonical_json(interface.to_json()))
                store.set_meta("interface_sha256", interface.sha256)
                store.set_meta("config", canonical_json(cfg.to_json()))
                store.set_meta("kernel_version", "0")
                store.set_meta("tick", "0")
                store.conn.execute(
                    "INSERT INTO kernel_versions VALUES(0, ?, 0, 0, 0, 1)", (_members_sha([]),)
                )
                store.append_log("INIT", {"interface_sha256": interface.sha256, "config": cfg.to_json()})
        else:
            store.check_schema()
            stored = interface_from_dict(json.loads(store.meta("interface") or "{}"))
            if interface is not None and interface.sha256 != stored.sha256:
                if not migrate:
                    raise StoreError(
                        f"{path}: the state was created with interface {stored.sha256[:12]}…, "
                        f"not {interface.sha256[:12]}… (pass migrate=True)"
                    )
                with store.transaction():
                    store.set_meta("interface", canonical_json(interface.to_json()))
                    store.set_meta("interface_sha256", interface.sha256)
                    store.append_log("INIT", {"migrate": {"from": stored.sha256, "to": interface.sha256}})
                stored = interface
            cfg = config or CertifyConfig.from_json(json.loads(store.meta("config") or "{}"))
            interface = stored
        state = cls(store, interface, cfg, checkers or CheckerRegistry(cfg.checker_timeout_s))
        state.load()
        return state

    def close(self) -> None:
        self.store.close()

    def refresh(self) -> None:
        """Reload the mirror if another process committed since it was loaded."""
        if self.store.head() != self._head:
            self.load()

    def load(self) -> None:
        """(Re)build the mirror from the file (after open and after every rollback)."""
        conn = self.store.conn
        _mirror_edited()
        # A file can be edited behind the log: whatever the tables say must be what the log
        # certifies before anything is served from them (logstate.py; C-71 extended). A state
        # that diverges still opens (to be verified), with the rows it cannot read left out.
        self.integrity = [] if self.store.path == ":memory:" else divergences(conn)
        self.records.clear()
        self.units = {}
        for row in conn.execute(
            "SELECT unit_id, json, writer, scope, query_id, order_rank, status, kstatus, admitted_seq, "
            "ended_seq FROM units ORDER BY unit_id"
        ):
            try:
                unit = unit_from_json(json.loads(row[1]))
                rank = json.loads(row[5])
            except (CertifyError, TypeError, ValueError, KeyError, AttributeError, RecursionError):
                if not self.integrity:
                    raise
                continue
            self.units[row[0]] = UnitRow(
                row[0], unit, row[2], row[3], row[4], rank, row[6], row[7], row[8], row[9]
            )
        self._evidence_sha = {}
        for uid, sha in conn.execute(
            "SELECT unit_id, sha256 FROM evidence WHERE verdict='SUPPORTED' ORDER BY evidence_id"
        ):
            self._evidence_sha.setdefault(uid, sha)
        self.version = int(self.store.meta("kernel_version", "0") or 0)
        self.tick_no = int(self.store.meta("tick", "0") or 0)
        self.freq = {k: float(f) for k, f in conn.execute("SELECT qkey, f FROM freq")}
        self.cache = {}
        for row in conn.execute(
            "SELECT ckey, cert_id, kernel_version, depth, size_bytes, created_seq, validated_seq FROM cache"
        ):
            deps = [
                r[0]
                for r in conn.execute(
                    "SELECT unit_id FROM cache_deps WHERE ckey=? ORDER BY unit_id", (row[0],)
                )
            ]
            nodes = [
                r[0]
                for r in conn.execute(
                    "SELECT node_key FROM cache_nodes WHERE ckey=? ORDER BY node_key", (row[0],)
                )
            ]
            try:
                cert = self.store.certificate(row[1])
            except (StoreError, zlib.error, TypeError, ValueError, RecursionError):
                if not self.integrity:
                    raise
                continue
            self.cache[row[0]] = CacheEntry(
                row[0],
                row[1],
                cert,
                row[2],
                row[3],
                row[4],
                row[5],
                row[6],
                deps,
                nodes,
            )
        self._closure = None
        self._head = self.store.head()

    def ensure_sound(self) -> None:
        """Refuse to serve or write from tables that diverge from the log (:class:`StoreError`)."""
        if self.integrity:
            raise StoreError(
                f"{self.store.path}: the state does not match its log ({summary(self.integrity)}); "
                "run 'cotaudit certify verify-log' to list every divergence"
            )

    def verify_state(self) -> list[Divergence]:
        """Every divergence between the tables and the state the log certifies (recomputed now)."""
        return divergences(self.store.conn)

    def transition(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` in one transaction; on failure roll back and reload the mirror (C-69).

        The write lock is taken first (``BEGIN IMMEDIATE``); if another process committed since
        the mirror was loaded, the mirror is reloaded under the lock before ``fn`` computes."""
        nested = self.store.in_transaction
        if not nested:
            self.ensure_sound()
        try:
            with self.store.transaction():
                if not nested and self.store.head() != self._head:
                    self.load()
                    self.ensure_sound()
                result = fn()
            if not nested:
                self._head = self.store.head()
            return result
        except BaseException:
            with contextlib.suppress(Exception):  # the file itself may be broken
                self.load()
            raise

    # ------------------------------------------------------------------ views used by the gate
    @property
    def checker_config(self) -> CheckerConfig:
        return self.config.checkers

    @property
    def checker_timeout_s(self) -> float:
        return self.config.checker_timeout_s

    @property
    def limits(self) -> EvalLimits:
        return self.config.limits

    def active(self, scope: str = "kernel") -> list[UnitRow]:
        return [r for r in self.units.values() if r.status == "active" and r.scope == scope]

    def _memoised(self, name: str, build: Callable[[], T]) -> T:
        """``build()``, reused until the mirror is edited or the kernel version changes."""
        token = (_mirror_edits, len(self.units), id(self.units), self.version)
        got = self._memo.get(name)
        if got is None or got[0] != token:
            got = self._memo[name] = (token, build())
        value: T = got[1]
        return value

    def kernel_sources(self) -> list[Source]:
        # K, plus units admitted in this transaction whose scan has not run yet (kstatus NULL)
        return list(
            self._memoised(
                "kernel_sources",
                lambda: [
                    Source(r.unit_id, r.unit)
                    for r in sorted(self.active(), key=lambda r: r.unit_id)
                    if r.kstatus != "J"
                ],
            )
        )

    def sources(self) -> list[Source]:
        """S_t: every active kernel-scope unit (K and J)."""
        return [Source(r.unit_id, r.unit) for r in sorted(self.active(), key=lambda r: r.unit_id)]

    def active_keys(self) -> Mapping[str, int]:
        return {r.unit.key: r.unit_id for r in self.active()}

    def active_rules(self) -> list[Rule]:
        return [r.unit for r in self.active() if isinstance(r.unit, Rule)]

    def order(self) -> dict[int, OrderRank]:
        return {r.unit_id: r.order_rank for r in self.active()}

    def scan(
        self, extra: Sequence[tuple[Source, OrderRank]] = (), without: int | None = None
    ) -> KernelResult:
        units = [s for s in self.sources() if s.unit_id != without] + [s for s, _ in extra]
        order = self.order()
        order.update({s.unit_id: rank for s, rank in extra})
        return kernel_scan(
            units,
            order=order,
            k=self.config.rederive_k,
            cap=self.config.scan_cap,
            naf=self.interface.negation == "naf",
            limits=self.limits,
        )

    def scan_with(self, unit: Unit) -> KernelResult:
        return self.scan([(Source(0, unit), [self.store.next_seq()])])

    def closure(self) -> Closure:
        """The materialised closure of the current kernel version (C-24)."""
        if self._closure is None or self._closure[0] != self.version:
            self._closure = (self.version, evaluate(self.kernel_sources(), limits=self.limits))
        return self._closure[1]

    def kernel_view(self, version: int | None = None) -> KernelView:
        if version is None or version == self.version:
            return self._memoised("kernel_view", self._current_view)
        from cotaudit.certify.history import kernel_at

        return kernel_at(self, version)

    def _current_view(self) -> KernelView:
        units = {s.unit_id: s.unit for s in self.kernel_sources()}
        hashes: dict[int, list[str]] = {}
        for uid, sha in self.store.conn.execute("SELECT unit_id, sha256 FROM evidence ORDER BY evidence_id"):
            if uid in units:
                hashes.setdefault(uid, []).append(sha)
        pi = {uid: tuple(hashes.get(uid, ())) for uid in units}
        return KernelView(self.version, units, self.interface.sha256, pi)

    def evidence_hashes(self, unit_id: int) -> list[str]:
        return [
            r[0]
            for r in self.store.conn.execute(
                "SELECT sha256 FROM evidence WHERE unit_id=? ORDER BY evidence_id", (unit_id,)
            )
        ]

    def leaf_info(self) -> dict[int, tuple[str, str | None]]:
        return dict(
            self._memoised(
                "leaf_info",
                lambda: {uid: (row.scope, self._evidence_sha.get(uid)) for uid, row in self.units.items()},
            )
        )

    # ------------------------------------------------------------------ records
    def add_record(self, record: SourceRecord) -> None:
        """Store a source record (content-addressed; re-adding the same content is a no-op)."""

        def run() -> None:
            put_record(self.store, record)

        self.transition(run)

    # ------------------------------------------------------------------ transitions
    def admit(
        self,
        unit: Unit | str | Mapping[str, Any],
        evidence: Evidence | None = None,
        writer: str = "deploy",
        order_rank: OrderRank | None = None,
    ) -> GateDecision:
        """Source mode, kernel scope (C-38 … C-40); the decision is logged either way.

        A time or memory bound met anywhere in the transition (gate checks, the kernel scan,
        justifications, revalidation) rolls it back and abstains from the admission as a whole:
        the decision is REJECT ``UNDECIDED`` with ``detail.bound`` ``time``/``memory``, logged,
        and nothing else changes — a decision taken under such a bound would depend on the
        machine (C-26)."""
        from cotaudit.certify.admission import abstained, admit_one

        try:
            return self.transition(lambda: admit_one(self, unit, evidence, writer, order_rank))
        except ResourceCap as exc:
            if self.store.in_transaction:  # nested: the enclosing transition abstains
                raise
            cap = exc
            return self.transition(lambda: abstained(self, [unit], cap, "ADMIT"))[0]

    def admit_batch(
        self, items: Sequence[tuple[Unit | str | Mapping[str, Any], Evidence | None, str, OrderRank | None]]
    ) -> list[GateDecision]:
        """Deploy: every unit gated, one scan, at most one version bump, one transaction. A time
        or memory bound abstains from the whole batch, as in :meth:`admit`: every unit
        ``UNDECIDED``, none admitted."""
        from cotaudit.certify.admission import abstained, admit_many

        try:
            return self.transition(lambda: admit_many(self, items))
        except ResourceCap as exc:
            if self.store.in_transaction:
                raise
            cap = exc
            return self.transition(lambda: abstained(self, [item[0] for item in items], cap, "ADMIT_BATCH"))

    def query(self, target: Any, **kwargs: Any) -> Any:
        """Answer ``target`` with a certificate or an explicit abstention (see :mod:`.serving`)."""
        from cotaudit.certify.serving import run_query

        return run_query(self, target, **kwargs)

    def erase(self, unit_id: int, reason: str = "") -> dict[str, Any]:
        """Erase a kernel unit (C-55). A time or memory bound (the rescan, revalidation) rolls
        the transition back and raises :class:`~cotaudit.certify.errors.ResourceCap`: the unit
        is not erased."""
        from cotaudit.certify.admission import erase_unit

        return self.transition(lambda: erase_unit(self, unit_id, reason))

    def evict(self, cache_key: str) -> list[str]:
        from cotaudit.certify.cachestate import evict_entry

        return self.transition(lambda: evict_entry(self, cache_key))

    def tick(self, now: int | None = None) -> dict[str, Any]:
        from cotaudit.certify.cachestate import tick

        return self.transition(lambda: tick(self, now))

    # ------------------------------------------------------------------ audit
    def verify_log(self, anchor: tuple[int, str] | None = None) -> LogCheck:
        return self.store.verify_log(anchor)

    def anchor(self) -> tuple[int, str]:
        return self.store.anchor()

    def dump(self) -> dict[str, Any]:
        return self.store.dump()

    def check_invariants(self) -> list[str]:
        from cotaudit.certify.history import check_invariants

        return check_invariants(self)

    def export_kernel(self, version: int | None = None) -> tuple[str, dict[str, Any]]:
        return self.kernel_view(version).export()


def put_record(store: Store, record: SourceRecord) -> None:
    row = store.conn.execute(
        "SELECT record_id FROM source_records WHERE sha256=?", (record.sha256,)
    ).fetchone()
    if row is not None:
        if row[0] != record.record_id:
            raise StoreError(f"record '{record.record_id}' has the same content as stored record '{row[0]}'")
        return
    if store.conn.execute("SELECT 1 FROM source_records WHERE record_id=?", (record.record_id,)).fetchone():
        raise StoreError(f"record id '{record.record_id}' is already used for other content")
    store.conn.execute(
        "INSERT INTO source_records(record_id, kind, uri, sha256, body) VALUES(?,?,?,?,?)",
        (
            record.record_id,
            record.kind,
            record.uri,
            record.sha256,
            record.body.encode("utf-8", "surrogatepass"),
        ),
    )


def _members_sha(keys: Sequence[str]) -> str:
    from cotaudit.certify.canon import sha256_json

    return sha256_json(sorted(keys))


def members_sha(keys: Sequence[str]) -> str:
    return _members_sha(keys)


def insert_unit(state: CertState, row: UnitRow) -> None:
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


def insert_evidence(state: CertState, unit_id: int, record: Mapping[str, Any], seq: int) -> str:
    """Append π_src to the evidence table; returns the evidence sha256."""
    ev = record.get("evidence") or {"record_id": None, "spans": [], "quote": None, "extra": {}}
    ev_json = canonical_json({k: ev.get(k) for k in ("record_id", "spans", "quote", "extra")})
    from cotaudit.certify.canon import sha256_hex

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
        state._evidence_sha.setdefault(unit_id, sha)
    _mirror_edited()  # the kernel view's π_src and leaf_info read the evidence
    return sha


def next_unit_id(state: CertState) -> int:
    row = state.store.conn.execute("SELECT MAX(unit_id) FROM units").fetchone()
    return int(row[0] or 0) + 1


def decision_json(d: GateDecision) -> dict[str, Any]:
    return d.to_json()


__all__ = ["CacheEntry", "CertState", "Outcome", "UnitRow", "decision_json", "gate_mod"]


def is_fact(u: Unit) -> bool:
    return isinstance(u, Fact)
