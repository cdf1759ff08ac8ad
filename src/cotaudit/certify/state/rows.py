"""The rows of a state's in-memory mirror: units, cache entries, source records.

The services of the state machine write units and evidence with :mod:`.mirror`, inside the
transaction the facade (:class:`~cotaudit.certify.state.machine.CertState`) opened.

Every edit of the mirror a state's memoised views are computed from (a unit row set or edited,
evidence added, a reload) bumps that state's :class:`MirrorEdits`: the facade memoises
kernel_sources / kernel_view / leaf_info on it, because rebuilding them from all units for every
query made serving O(units) per query (C-114's warm-up with 1,000 entries spent most of its
time there). The counter belongs to one state, so one state's edits never touch another's memo.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cotaudit.certify.core.canon import sha256_json
from cotaudit.certify.core.errors import StoreError
from cotaudit.certify.lang.syntax import Unit
from cotaudit.certify.sources.records import SourceRecord
from cotaudit.certify.state.store import Store


class MirrorEdits:
    """How many times one state's mirror was edited (the memo key of its derived views)."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0

    def bump(self) -> None:
        self.count += 1


@dataclass
class UnitRow:
    """The mirror of one ``units`` row. Rows are edited in place (scan, erase, query expiry);
    once a row is in a state's mirror (:meth:`attach`), every assignment marks that mirror
    edited, so no memoised view can outlive an edit."""

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
        edits: MirrorEdits | None = self.__dict__.get("_edits")
        if edits is not None:
            edits.bump()

    def attach(self, edits: MirrorEdits) -> None:
        """Count this row's later edits as edits of the mirror that now holds it."""
        object.__setattr__(self, "_edits", edits)
        edits.bump()


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
    # The allocation's view of the certificate (cachemath.Candidate), built once: every caching
    # decision weighs all entries, and rebuilding each one's shape per decision made warm-up
    # with 1,000 entries quadratic in certificate parsing (C-63, C-114).
    candidate: Any = field(default=None, compare=False, repr=False)


class StoreRecords:
    """The :class:`~cotaudit.certify.sources.records.RecordStore` of a state (source_records table)."""

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


def put_record(store: Store, record: SourceRecord) -> None:
    """Store a source record (content-addressed; the same content again is a no-op)."""
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


def members_sha(keys: Sequence[str]) -> str:
    """The hash of a kernel version's members (their unit keys, sorted)."""
    return sha256_json(sorted(keys))
