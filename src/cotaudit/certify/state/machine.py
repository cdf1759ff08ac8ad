"""The state machine (certify.md §9, Appendix E): Admit / Query / Erase / Evict / Tick.

:class:`CertState` keeps the certified state in one SQLite file (:mod:`cotaudit.certify.state.store`)
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
from typing import Any, TypeVar

from cotaudit.certify.core.canon import canonical_json
from cotaudit.certify.core.errors import CertifyError, ResourceCap, StoreError
from cotaudit.certify.engine.closure import Closure
from cotaudit.certify.engine.evaluation import evaluate
from cotaudit.certify.engine.facts import Source
from cotaudit.certify.engine.limits import EvalLimits
from cotaudit.certify.gate.decision import GateDecision
from cotaudit.certify.interface.load import interface_from_dict
from cotaudit.certify.interface.model import Interface
from cotaudit.certify.kernel.scan import KernelResult, OrderRank, kernel_scan
from cotaudit.certify.lang.jsonform import unit_from_json
from cotaudit.certify.lang.syntax import Rule, Unit
from cotaudit.certify.proof.kernelview import KernelView
from cotaudit.certify.sources.checkers import CheckerRegistry
from cotaudit.certify.sources.records import CheckerConfig, Evidence, SourceRecord
from cotaudit.certify.state import admission, cacheops, history, pending
from cotaudit.certify.state import query as queries
from cotaudit.certify.state.config import CertifyConfig
from cotaudit.certify.state.logreplay import Divergence
from cotaudit.certify.state.logstate import divergences, summary
from cotaudit.certify.state.rows import (
    CacheEntry,
    MirrorEdits,
    StoreRecords,
    UnitRow,
    members_sha,
    put_record,
)
from cotaudit.certify.state.store import LogCheck, Store

T = TypeVar("T")

__all__ = ["CertState"]


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
        self.evidence_sha: dict[int, str] = {}  # unit id -> its first SUPPORTED evidence
        self.edits = MirrorEdits()
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
                store.conn.execute("INSERT INTO kernel_versions VALUES(0, ?, 0, 0, 0, 1)", (members_sha([]),))
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
        """Close the file; the query counts and cache hits waiting for a tick are kept in it
        first (:mod:`.pending`), so the next process's tick still counts them."""
        with contextlib.suppress(Exception):  # statistics only: a busy file must not fail a close
            pending.save(self)
        self.store.close()

    def refresh(self) -> None:
        """Reload the mirror if another process committed since it was loaded."""
        if self.store.head() != self._head:
            self.load()

    def load(self) -> None:
        """(Re)build the mirror from the file (after open and after every rollback)."""
        conn = self.store.conn
        self.edits.bump()
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
            self.units[row[0]] = loaded = UnitRow(
                row[0], unit, row[2], row[3], row[4], rank, row[6], row[7], row[8], row[9]
            )
            loaded.attach(self.edits)
        self.evidence_sha = {}
        for uid, sha in conn.execute(
            "SELECT unit_id, sha256 FROM evidence WHERE verdict='SUPPORTED' ORDER BY evidence_id"
        ):
            self.evidence_sha.setdefault(uid, sha)
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
        token = (self.edits.count, len(self.units), id(self.units), self.version)
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

    def drop_closure(self) -> None:
        """Forget the materialised closure (the kernel changed)."""
        self._closure = None

    def closure(self) -> Closure:
        """The materialised closure of the current kernel version (C-24)."""
        if self._closure is None or self._closure[0] != self.version:
            self._closure = (self.version, evaluate(self.kernel_sources(), limits=self.limits))
        return self._closure[1]

    def kernel_view(self, version: int | None = None) -> KernelView:
        if version is None or version == self.version:
            return self._memoised("kernel_view", self._current_view)
        return history.kernel_at(self, version)

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
                lambda: {uid: (row.scope, self.evidence_sha.get(uid)) for uid, row in self.units.items()},
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
        try:
            return self.transition(lambda: admission.admit_one(self, unit, evidence, writer, order_rank))
        except ResourceCap as exc:
            if self.store.in_transaction:  # nested: the enclosing transition abstains
                raise
            cap = exc
            return self.transition(lambda: admission.abstained(self, [unit], cap, "ADMIT"))[0]

    def admit_batch(
        self, items: Sequence[tuple[Unit | str | Mapping[str, Any], Evidence | None, str, OrderRank | None]]
    ) -> list[GateDecision]:
        """Deploy: every unit gated, one scan, at most one version bump, one transaction. A time
        or memory bound abstains from the whole batch, as in :meth:`admit`: every unit
        ``UNDECIDED``, none admitted."""
        try:
            return self.transition(lambda: admission.admit_many(self, items))
        except ResourceCap as exc:
            if self.store.in_transaction:
                raise
            cap = exc
            return self.transition(
                lambda: admission.abstained(self, [item[0] for item in items], cap, "ADMIT_BATCH")
            )

    def query(self, target: Any, **kwargs: Any) -> Any:
        """Answer ``target`` with a certificate or an explicit abstention (see :mod:`.query`)."""
        return queries.run_query(self, target, **kwargs)

    def erase(self, unit_id: int, reason: str = "") -> dict[str, Any]:
        """Erase a kernel unit (C-55). A time or memory bound (the rescan, revalidation) rolls
        the transition back and raises :class:`~cotaudit.certify.core.errors.ResourceCap`: the unit
        is not erased."""
        return self.transition(lambda: admission.erase_unit(self, unit_id, reason))

    def evict(self, cache_key: str) -> list[str]:
        return self.transition(lambda: cacheops.evict_entry(self, cache_key))

    def tick(self, now: int | None = None) -> dict[str, Any]:
        return self.transition(lambda: cacheops.tick(self, now))

    # ------------------------------------------------------------------ audit
    def verify_log(self, anchor: tuple[int, str] | None = None) -> LogCheck:
        return self.store.verify_log(anchor)

    def anchor(self) -> tuple[int, str]:
        return self.store.anchor()

    def dump(self) -> dict[str, Any]:
        return self.store.dump()

    def check_invariants(self) -> list[str]:
        return history.check_invariants(self)

    def export_kernel(self, version: int | None = None) -> tuple[str, dict[str, Any]]:
        return self.kernel_view(version).export()
