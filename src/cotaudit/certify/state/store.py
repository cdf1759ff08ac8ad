"""SQLite persistence (certify.md §10, C-67 … C-72): one file, one transaction per transition,
an append-only hash-chained certificate log.

``transaction()`` is ``BEGIN IMMEDIATE … COMMIT`` (``ROLLBACK`` on any exception). Log entry
``seq`` has ``hash = sha256(prev_hash ‖ seq as 8-byte big-endian ‖ op ‖ 0x00 ‖ ts ‖ 0x00 ‖
payload)`` (``prev_hash`` as its 32 raw bytes; genesis: 32 zero bytes), and ``meta`` holds the
head in the same transaction. Triggers refuse UPDATE and DELETE on ``log``, ``certificates``,
``evidence`` and ``source_records``. A fault hook (a constructor argument) is called at the
named points of C-72 so tests can kill the process there.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from cotaudit.certify.core.canon import canonical_json, sha256_hex, sha256_json
from cotaudit.certify.core.errors import StoreError

SCHEMA_VERSION = 1
GENESIS = "0" * 64
FAULT_POINTS = (
    "after_unit_insert",
    "after_scan_write",
    "mid_revalidation",
    "after_log_insert",
    "before_commit",
)
OPS = ("INIT", "ADMIT", "ADMIT_BATCH", "QUERY", "QUERY_BATCH", "ERASE", "EVICT", "TICK")

SCHEMA = """
CREATE TABLE meta(k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE source_records(record_id TEXT PRIMARY KEY, kind TEXT NOT NULL, uri TEXT, sha256 TEXT NOT NULL UNIQUE,
  body BLOB NOT NULL);
CREATE TABLE units(unit_id INTEGER PRIMARY KEY, ukey TEXT NOT NULL, kind TEXT NOT NULL CHECK(kind IN ('fact','rule')),
  label TEXT NOT NULL, text TEXT NOT NULL, json TEXT NOT NULL, writer TEXT NOT NULL,
  scope TEXT NOT NULL CHECK(scope IN ('kernel','query')), query_id TEXT, order_rank TEXT NOT NULL,
  status TEXT NOT NULL CHECK(status IN ('active','erased','expired')), kstatus TEXT CHECK(kstatus IN ('K','J')),
  admitted_seq INTEGER NOT NULL, ended_seq INTEGER);
CREATE UNIQUE INDEX units_active ON units(ukey) WHERE status='active' AND scope='kernel';
CREATE TABLE evidence(evidence_id INTEGER PRIMARY KEY, unit_id INTEGER NOT NULL REFERENCES units,
  record_id TEXT REFERENCES source_records, evidence_json TEXT NOT NULL, checker_id TEXT NOT NULL,
  checker_version TEXT NOT NULL, verdict TEXT NOT NULL, log_json TEXT NOT NULL, sha256 TEXT NOT NULL,
  seq INTEGER NOT NULL);
CREATE TABLE kernel_versions(version INTEGER PRIMARY KEY, members_sha256 TEXT NOT NULL, n_facts INTEGER NOT NULL,
  n_rules INTEGER NOT NULL, n_redundant INTEGER NOT NULL, seq INTEGER NOT NULL);
CREATE TABLE certificates(cert_id INTEGER PRIMARY KEY, sha256 TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,
  body BLOB NOT NULL);
CREATE TABLE justifications(unit_id INTEGER NOT NULL, version INTEGER NOT NULL,
  cert_id INTEGER NOT NULL REFERENCES certificates, PRIMARY KEY(unit_id, version));
CREATE TABLE cache(ckey TEXT PRIMARY KEY, cert_id INTEGER NOT NULL REFERENCES certificates,
  kernel_version INTEGER NOT NULL, depth INTEGER NOT NULL, size_bytes INTEGER NOT NULL,
  created_seq INTEGER NOT NULL, validated_seq INTEGER NOT NULL);
CREATE TABLE cache_deps(ckey TEXT NOT NULL REFERENCES cache ON DELETE CASCADE, unit_id INTEGER NOT NULL,
  PRIMARY KEY(ckey, unit_id));
CREATE TABLE cache_nodes(ckey TEXT NOT NULL REFERENCES cache ON DELETE CASCADE, node_key TEXT NOT NULL,
  PRIMARY KEY(ckey, node_key));
CREATE INDEX cache_deps_unit ON cache_deps(unit_id);
CREATE INDEX cache_nodes_key ON cache_nodes(node_key);
CREATE TABLE freq(qkey TEXT PRIMARY KEY, f REAL NOT NULL, last_tick INTEGER NOT NULL);
CREATE TABLE queries(query_id TEXT PRIMARY KEY, qkey TEXT, status TEXT NOT NULL, answer TEXT, answer_kind TEXT,
  reason TEXT, cert_id INTEGER REFERENCES certificates, kernel_version INTEGER NOT NULL,
  result_json TEXT NOT NULL, seq INTEGER NOT NULL);
CREATE TABLE log(seq INTEGER PRIMARY KEY, ts TEXT NOT NULL, op TEXT NOT NULL, payload TEXT NOT NULL,
  prev_hash TEXT NOT NULL, hash TEXT NOT NULL);
"""  # noqa: E501 - the spec's DDL (C-68), verbatim
_APPEND_ONLY = ("log", "certificates", "evidence", "source_records")


def entry_hash(prev_hash: str, seq: int, op: str, ts: str, payload: str) -> str:
    """C-70's chain hash of one log entry."""
    data = bytes.fromhex(prev_hash) + seq.to_bytes(8, "big") + op.encode() + b"\x00" + ts.encode() + b"\x00"
    return sha256_hex(data + payload.encode("utf-8"))


@dataclass(frozen=True, slots=True)
class LogCheck:
    """The result of :meth:`Store.verify_log` (C-71)."""

    ok: bool
    first_bad_seq: int | None
    reason: str


class Store:
    """One SQLite file (or ``:memory:``)."""

    def __init__(
        self,
        path: str,
        *,
        synchronous: str = "FULL",
        clock: Callable[[], str] | None = None,
        fault: Callable[[str], None] | None = None,
    ) -> None:
        try:
            self.conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open {path}: {exc}") from None
        self.path = path
        self.clock = clock or _utc_now
        self.fault = fault
        self.conn.execute("PRAGMA foreign_keys=ON")
        if path != ":memory:":
            self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute(f"PRAGMA synchronous={synchronous}")
        self._in_tx = False

    def close(self) -> None:
        self.conn.close()

    # ------------------------------------------------------------------ schema and transactions
    def is_new(self) -> bool:
        return int(self.conn.execute("PRAGMA user_version").fetchone()[0]) == 0

    def create_schema(self) -> None:
        with self.transaction():
            for stmt in SCHEMA.split(";"):
                if stmt.strip():
                    self.conn.execute(stmt)
            for table in _APPEND_ONLY:
                for action in ("UPDATE", "DELETE"):
                    self.conn.execute(
                        f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} "
                        f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END"
                    )
            self.conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def check_schema(self) -> None:
        version = int(self.conn.execute("PRAGMA user_version").fetchone()[0])
        if version != SCHEMA_VERSION:
            raise StoreError(
                f"state file schema version {version}, expected {SCHEMA_VERSION} (no migration known)"
            )

    @contextmanager
    def transaction(self) -> Iterator[None]:
        if self._in_tx:
            yield
            return
        self.conn.execute("BEGIN IMMEDIATE")
        self._in_tx = True
        try:
            yield
            self.hook("before_commit")
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        finally:
            self._in_tx = False

    @property
    def in_transaction(self) -> bool:
        return self._in_tx

    def hook(self, point: str) -> None:
        if self.fault is not None:
            self.fault(point)

    # ------------------------------------------------------------------ meta and log
    def meta(self, k: str, default: str | None = None) -> str | None:
        row = self.conn.execute("SELECT v FROM meta WHERE k=?", (k,)).fetchone()
        return default if row is None else str(row[0])

    def set_meta(self, k: str, v: str) -> None:
        self.conn.execute(
            "INSERT INTO meta(k, v) VALUES(?, ?) ON CONFLICT(k) DO UPDATE SET v=excluded.v", (k, v)
        )

    def head(self) -> tuple[int, str]:
        return int(self.meta("log_head_seq", "0") or 0), self.meta("log_head_hash", GENESIS) or GENESIS

    def next_seq(self) -> int:
        return self.head()[0] + 1

    def append_log(self, op: str, payload: Mapping[str, Any]) -> int:
        if op not in OPS:
            raise StoreError(f"unknown log op {op}")
        seq, prev = self.head()
        seq += 1
        ts = self.clock()
        text = canonical_json(dict(payload))
        digest = entry_hash(prev, seq, op, ts, text)
        self.conn.execute(
            "INSERT INTO log(seq, ts, op, payload, prev_hash, hash) VALUES(?,?,?,?,?,?)",
            (seq, ts, op, text, prev, digest),
        )
        self.set_meta("log_head_seq", str(seq))
        self.set_meta("log_head_hash", digest)
        self.hook("after_log_insert")
        return seq

    def anchor(self) -> tuple[int, str]:
        """(seq, hash) of the head, to keep somewhere else (C-71)."""
        return self.head()

    def verify_log(self, anchor: tuple[int, str] | None = None) -> LogCheck:
        prev = GENESIS
        last = 0
        rows = self.conn.execute(
            "SELECT seq, ts, op, payload, prev_hash, hash FROM log ORDER BY seq"
        ).fetchall()
        for seq, ts, op, payload, prev_hash, digest in rows:
            if seq != last + 1:
                return LogCheck(False, last + 1, "gap in the log")
            if not all(isinstance(v, str) for v in (ts, op, payload, prev_hash, digest)):
                return LogCheck(False, seq, "hash mismatch")
            if prev_hash != prev or entry_hash(prev, seq, op, ts, payload) != digest:
                return LogCheck(False, seq, "hash mismatch")
            bad = self._check_references(payload)
            if bad:
                return LogCheck(False, seq, bad)
            prev, last = digest, seq
        head_seq, head_hash = self.head()
        if (head_seq, head_hash) != (last, prev):
            return LogCheck(False, min(last, head_seq) + 1, "head mismatch")
        if anchor is not None:
            a_seq, a_hash = anchor
            row = self.conn.execute("SELECT hash FROM log WHERE seq=?", (a_seq,)).fetchone()
            if row is None or row[0] != a_hash:
                return LogCheck(False, a_seq, "diverges from the anchor")
        return LogCheck(True, None, "ok")

    def _check_references(self, payload: str) -> str | None:
        try:
            data = json.loads(payload)
        except (TypeError, ValueError, RecursionError):
            return "payload is not JSON"
        if not isinstance(data, dict):
            return "payload is not a JSON object"

        def shas(name: str) -> list[str]:
            got = data.get(name, [])
            return [s for s in got if isinstance(s, str)] if isinstance(got, list) else []

        for sha in shas("certificates"):
            row = self.conn.execute("SELECT body FROM certificates WHERE sha256=?", (sha,)).fetchone()
            if row is None:
                return "referenced certificate missing"
            body, _ = certificate_body(row[0])
            if body is None or certificate_sha(body) != sha or body.get("sha256") != sha:
                return "referenced certificate hash mismatch"
        for sha in shas("evidence"):
            rows = self.conn.execute("SELECT evidence_json FROM evidence WHERE sha256=?", (sha,)).fetchall()
            if not rows:
                return "referenced evidence missing"
            if any(not isinstance(r[0], str) or sha256_hex(r[0]) != sha for r in rows):
                return "referenced evidence hash mismatch"
        for sha in shas("records"):
            row = self.conn.execute("SELECT body FROM source_records WHERE sha256=?", (sha,)).fetchone()
            if row is None:
                return "referenced source record missing"
            if not isinstance(row[0], bytes) or sha256_hex(row[0]) != sha:
                return "referenced source record hash mismatch"
        return None

    # ------------------------------------------------------------------ certificates
    def put_certificate(self, cert: Mapping[str, Any]) -> int:
        sha = str(cert["sha256"])
        row = self.conn.execute("SELECT cert_id FROM certificates WHERE sha256=?", (sha,)).fetchone()
        if row is not None:
            return int(row[0])
        body = zlib.compress(canonical_json(dict(cert)).encode("utf-8"), 6)
        cur = self.conn.execute(
            "INSERT INTO certificates(sha256, kind, body) VALUES(?,?,?)", (sha, str(cert["kind"]), body)
        )
        return int(cur.lastrowid or 0)

    def certificate(self, cert_id: int) -> dict[str, Any]:
        row = self.conn.execute("SELECT body FROM certificates WHERE cert_id=?", (cert_id,)).fetchone()
        if row is None:
            raise StoreError(f"no certificate {cert_id}")
        result: dict[str, Any] = json.loads(zlib.decompress(row[0]).decode("utf-8"))
        return result

    def dump(self) -> dict[str, Any]:
        """Every table, canonically ordered (certificate bodies by hash only)."""
        out: dict[str, Any] = {}
        tables = {
            "meta": "SELECT k, v FROM meta ORDER BY k",
            "source_records": "SELECT record_id, kind, uri, sha256 FROM source_records ORDER BY record_id",
            "units": "SELECT * FROM units ORDER BY unit_id",
            "evidence": "SELECT * FROM evidence ORDER BY evidence_id",
            "kernel_versions": "SELECT * FROM kernel_versions ORDER BY version",
            "certificates": "SELECT cert_id, sha256, kind FROM certificates ORDER BY cert_id",
            "justifications": "SELECT * FROM justifications ORDER BY unit_id, version",
            "cache": "SELECT * FROM cache ORDER BY ckey",
            "cache_deps": "SELECT * FROM cache_deps ORDER BY ckey, unit_id",
            "cache_nodes": "SELECT * FROM cache_nodes ORDER BY ckey, node_key",
            "freq": "SELECT qkey, f, last_tick FROM freq ORDER BY qkey",
            "queries": "SELECT * FROM queries ORDER BY seq, query_id",
            "log": "SELECT seq, ts, op, payload, prev_hash, hash FROM log ORDER BY seq",
        }
        for name, sql in tables.items():
            rows = self.conn.execute(sql).fetchall()
            out[name] = [[repr(v) if isinstance(v, float) else v for v in row] for row in rows]
        return out


def certificate_body(blob: Any) -> tuple[dict[str, Any] | None, str | None]:
    """(body, None) for a sound certificate blob, else (None, why) — never an exception."""
    if not isinstance(blob, bytes | bytearray | memoryview):
        return None, f"body is {type(blob).__name__}, not a compressed blob"
    try:
        raw = zlib.decompressobj().decompress(bytes(blob), 1 << 28)
        body = json.loads(raw.decode("utf-8"))
    except (zlib.error, ValueError, RecursionError, MemoryError) as exc:
        return None, f"body does not decompress to JSON ({type(exc).__name__})"
    if not isinstance(body, dict):
        return None, "body is not a JSON object"
    return body, None


def certificate_sha(body: Mapping[str, Any]) -> str | None:
    try:
        return sha256_json({k: v for k, v in body.items() if k != "sha256"})
    except (TypeError, ValueError, RecursionError):
        return None


def _utc_now() -> str:
    import datetime

    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def sha256_of_json(value: Any) -> str:
    return sha256_json(value)
