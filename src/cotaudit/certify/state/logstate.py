"""The certified state re-derived from the log, and every place the tables diverge from it.

The hash chain (C-70, :meth:`Store.verify_log`) proves the *log* unedited; the tables the state
is served from (``units``, ``kernel_versions``, ``cache``, ``queries``, ``certificates``,
``evidence``, ``meta``) are ordinary rows anyone with the file can edit. Every certified fact
about them is also in the log: each payload carries the unit text it admitted, the unit ids,
the kernel delta (``added``/``removed``, the version, the revalidation outcome), the cache
decisions, the query's certificate hash, and the sha256 of every certificate, evidence and
record it refers to. :func:`~cotaudit.certify.state.logreplay.derive` replays the payloads into
the state they certify (:mod:`.logreplay`) and :func:`divergences` compares it with the tables,
reporting *every* difference (never only the first, never a crash on a corrupt row):

* units: the set of ids, key, text, JSON form (what the state loads), kind, label, scope,
  query id, status (active / erased / expired), K/J status, admission and end sequence;
* kernel versions: the current version, each version's member hash and counts;
* certificates: every blob decompresses, parses and hashes to its sha256; every one is
  referenced by the log; the cache and query rows point at the certificate the log names;
* cache entries: exactly the keys the log leaves cached, each with its logged certificate,
  the current version, and deps / internal nodes equal to the certificate's;
* evidence: each row hashes to its sha256, was logged by the entry of its ``seq``, for a unit
  of that entry, with verdict SUPPORTED; source records hash to their sha256;
* meta: the interface and configuration recorded by INIT, the kernel version;
* order ranks: each kernel unit's ``order_rank`` is the one its ADMIT / ADMIT_BATCH entry
  logged (it decides which of two equivalent units the next scan keeps, so it shapes the
  kernel and every certificate built on it); a query-scoped unit's is ``[seq]``;
* frequencies: each TICK logs the requests it counted and the half-life, so the ``freq`` table
  (which decides what is cached, hence which certificate a cached answer serves) is replayed
  exactly, value and ``last_tick``;
* query rows: key, status, answer, kind, abstention reason, kernel version, sequence and the
  stored result JSON are the ones the QUERY entry logged.

Not checked, because they certify nothing served: a source checker's free-form log
(``evidence.log_json``) and the checker id and version columns — the verdict, which decides
admission, is checked (SUPPORTED), and the evidence itself is hashed and logged. Entries
written before order ranks and tick counts were logged carry neither; for them those two
checks are skipped (the log cannot say what they were). A chain rewritten *consistently* with
its head (tables and log together) cannot be told from the real one without an anchor kept
elsewhere (C-71): that is what ``verify_log(anchor=…)`` and ``verify-log --anchor`` are for.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from cotaudit.certify.core.canon import canonical_json, sha256_hex, sha256_json
from cotaudit.certify.core.errors import CertifyError
from cotaudit.certify.lang.jsonform import unit_from_json, unit_to_json
from cotaudit.certify.lang.syntax import Fact, Unit
from cotaudit.certify.state.logreplay import (
    Derived,
    DerivedVersion,
    Divergence,
    derive,
    int_list,
    json_or_none,
    says,
)
from cotaudit.certify.state.store import certificate_body, certificate_sha
from cotaudit.limits import checkpoint

MAX_REPORTED = 1000  # divergences listed in full; more are summarised in one line


def divergences(conn: Any) -> list[Divergence]:
    """Every difference between the tables and the state the log certifies (empty: none)."""
    d = derive(conn)
    out = list(d.problems)
    out += _units(conn, d)
    out += _versions(conn, d)
    certs = _certificates(conn, d, out)
    out += _cache(conn, d, certs)
    out += _queries(conn, d, certs)
    out += _evidence(conn, d)
    out += _records(conn)
    out += _meta(conn, d)
    out += _freq(conn, d)
    if len(out) > MAX_REPORTED:
        rest = len(out) - MAX_REPORTED
        out = [*out[:MAX_REPORTED], Divergence("state", f"… and {rest} more divergences")]
    return out


def _rows(conn: Any, sql: str) -> list[Any]:
    try:
        return list(conn.execute(sql).fetchall())
    except Exception as exc:  # a dropped or reshaped table: itself the divergence
        return [("__error__", f"{type(exc).__name__}: {exc}")]


def _unit_json(value: Any) -> Unit | None:
    try:
        return unit_from_json(json.loads(value))
    except (CertifyError, TypeError, ValueError, KeyError, AttributeError, RecursionError):
        return None


def _units(conn: Any, d: Derived) -> list[Divergence]:
    out: list[Divergence] = []
    rows = _rows(
        conn,
        "SELECT unit_id, ukey, kind, label, text, json, scope, query_id, status, kstatus, admitted_seq, "
        "ended_seq, order_rank FROM units ORDER BY unit_id",
    )
    if rows and rows[0][0] == "__error__":
        return [Divergence("units", f"cannot read the table: {rows[0][1]}")]
    seen: set[Any] = set()
    for uid, ukey, kind, label, text, js, scope, qid, status, kstatus, adm, ended, rank in rows:
        checkpoint()
        seen.add(uid)
        want = d.units.get(uid)
        if want is None:
            out.append(Divergence(f"units[{uid}]", "a unit row no log entry admitted"))
            continue
        at = f"units[{uid}]"
        stored = _unit_json(js)
        if want.unit is not None:
            u = want.unit
            expected: dict[str, Any] = {
                "ukey": u.key,
                "kind": u.kind,
                "label": u.label,
                "text": u.text(),
                "json": canonical_json(unit_to_json(u)),
            }
            got = {"ukey": ukey, "kind": kind, "label": label, "text": text, "json": js}
            for name, value in expected.items():
                if name == "json":
                    if stored is None or stored.key != u.key or stored.text() != u.text():
                        out.append(
                            Divergence(
                                f"{at}.json", f"is not the logged unit {u.text()!r}", want.admitted_seq
                            )
                        )
                elif got[name] != value:
                    out.append(
                        Divergence(
                            f"{at}.{name}", f"{got[name]!r}, the log says {value!r}", want.admitted_seq
                        )
                    )
        for name, value, expect in (
            ("scope", scope, want.scope),
            ("query_id", qid, want.query_id),
            ("status", status, want.status),
            ("kstatus", kstatus, want.kstatus),
            ("admitted_seq", adm, want.admitted_seq),
            ("ended_seq", ended, want.ended_seq),
        ):
            if value != expect:
                out.append(
                    Divergence(f"{at}.{name}", f"{value!r}, the log says {expect!r}", want.admitted_seq)
                )
        if want.order_rank is not None and _rank_text(rank) != _rank_text(want.order_rank, parsed=True):
            out.append(
                Divergence(f"{at}.order_rank", says(rank, json.dumps(want.order_rank)), want.admitted_seq)
            )
    for uid in sorted(set(d.units) - seen):
        out.append(
            Divergence(
                f"units[{uid}]", "the log admitted this unit; its row is missing", d.units[uid].admitted_seq
            )
        )
    return out


def _rank_text(value: Any, *, parsed: bool = False) -> str | None:
    """An order rank as type-exact JSON text (``1`` and ``1.0`` differ: ≺ treats the float as a
    string); ``None`` for a stored value that is not JSON."""
    try:
        return json.dumps(value if parsed else json.loads(value))
    except (TypeError, ValueError, RecursionError):
        return None


def _freq(conn: Any, d: Derived) -> list[Divergence]:
    """The freq table against the frequencies the logged ticks give (exact floats)."""
    if not d.freq_known:
        return []
    rows = _rows(conn, "SELECT qkey, f, last_tick FROM freq ORDER BY qkey")
    if rows and rows[0][0] == "__error__":
        return [Divergence("freq", f"cannot read the table: {rows[0][1]}")]
    out: list[Divergence] = []
    seen: set[Any] = set()
    for key, f, last in rows:
        seen.add(key)
        want = d.freq.get(key)
        if want is None:
            out.append(Divergence(f"freq[{key}]", "a frequency no logged tick gave"))
            continue
        if f != want[0] or isinstance(f, bool) or not isinstance(f, float | int):
            out.append(Divergence(f"freq[{key}].f", says(f, want[0])))
        if last != want[1]:
            out.append(Divergence(f"freq[{key}].last_tick", says(last, want[1])))
    for key in sorted(set(d.freq) - seen):
        out.append(Divergence(f"freq[{key}]", "given by the logged ticks; the row is missing"))
    return out


def _versions(conn: Any, d: Derived) -> list[Divergence]:
    out: list[Divergence] = []
    rows = _rows(conn, "SELECT version, members_sha256, n_facts, n_rules, n_redundant FROM kernel_versions")
    if rows and rows[0][0] == "__error__":
        return [Divergence("kernel_versions", f"cannot read the table: {rows[0][1]}")]
    stored = {r[0]: r[1:] for r in rows}
    expected = {0: DerivedVersion(frozenset(), 0, 1), **d.versions}
    for version, want in sorted(expected.items()):
        row = stored.pop(version, None)
        if row is None:
            out.append(Divergence(f"kernel_versions[{version}]", "missing", want.seq))
            continue
        units = [d.units[u].unit for u in want.members if u in d.units and d.units[u].unit is not None]
        keys = sorted(u.key for u in units if u is not None)
        facts = sum(isinstance(u, Fact) for u in units)
        values = (sha256_json(keys), facts, len(units) - facts, want.redundant)
        for name, got, value in zip(
            ("members_sha256", "n_facts", "n_rules", "n_redundant"), row, values, strict=True
        ):
            if got != value:
                out.append(
                    Divergence(
                        f"kernel_versions[{version}].{name}", f"{got!r}, the log says {value!r}", want.seq
                    )
                )
    for version in sorted(stored, key=str):
        out.append(Divergence(f"kernel_versions[{version}]", "a version no log entry created"))
    return out


def _certificates(conn: Any, d: Derived, out: list[Divergence]) -> dict[int, tuple[str, dict[str, Any]]]:
    """Sound certificate rows (cert_id -> (sha, body)); every unsound one goes to ``out``."""
    good: dict[int, tuple[str, dict[str, Any]]] = {}
    rows = _rows(conn, "SELECT cert_id, sha256, kind, body FROM certificates ORDER BY cert_id")
    if rows and rows[0][0] == "__error__":
        out.append(Divergence("certificates", f"cannot read the table: {rows[0][1]}"))
        return good
    present: set[Any] = set()
    for cert_id, sha, kind, blob in rows:
        checkpoint()
        present.add(sha)
        at = f"certificates[{cert_id}]"
        body, why = certificate_body(blob)
        if body is None:
            out.append(Divergence(at, f"corrupt: {why}", d.referenced.get(sha)))
            continue
        actual = certificate_sha(body)
        if actual != sha or body.get("sha256") != sha:
            out.append(Divergence(at, "its body does not hash to its sha256", d.referenced.get(sha)))
            continue
        if body.get("kind") != kind:
            out.append(Divergence(f"{at}.kind", f"{kind!r}, the body says {body.get('kind')!r}"))
        if sha not in d.referenced:
            out.append(Divergence(at, "no log entry refers to this certificate"))
        good[cert_id] = (sha, body)
    for sha, seq in sorted(d.referenced.items(), key=lambda kv: kv[1]):
        if sha not in present:
            out.append(Divergence(f"certificates[{sha[:12]}]", "referenced by the log, missing", seq))
    return good


def _cache(conn: Any, d: Derived, certs: Mapping[int, tuple[str, dict[str, Any]]]) -> list[Divergence]:
    from cotaudit.certify.proof.format import internal_nodes

    out: list[Divergence] = []
    rows = _rows(conn, "SELECT ckey, cert_id, kernel_version, depth FROM cache ORDER BY ckey")
    if rows and rows[0][0] == "__error__":
        return [Divergence("cache", f"cannot read the table: {rows[0][1]}")]
    deps: dict[Any, set[Any]] = {}
    nodes: dict[Any, set[Any]] = {}
    for ckey, uid in _rows(conn, "SELECT ckey, unit_id FROM cache_deps"):
        deps.setdefault(ckey, set()).add(uid)
    for ckey, key in _rows(conn, "SELECT ckey, node_key FROM cache_nodes"):
        nodes.setdefault(ckey, set()).add(key)
    seen: set[Any] = set()
    for ckey, cert_id, version, depth in rows:
        seen.add(ckey)
        at = f"cache[{ckey}]"
        want = d.cache.get(ckey)
        if want is None:
            out.append(Divergence(at, "an entry the log never cached (or evicted)"))
            continue
        allowed, seq = want
        got = certs.get(cert_id)
        if got is None:
            out.append(Divergence(f"{at}.cert_id", f"{cert_id!r} is not a sound certificate", seq))
            continue
        sha, body = got
        if sha not in allowed:
            out.append(
                Divergence(f"{at}.cert_id", f"certificate {sha[:12]} is not the one the log cached", seq)
            )
            continue
        if version != d.version:
            out.append(
                Divergence(f"{at}.kernel_version", f"{version!r}, the current version is {d.version}", seq)
            )
        if depth != body.get("depth"):
            out.append(
                Divergence(f"{at}.depth", f"{depth!r}, the certificate says {body.get('depth')!r}", seq)
            )
        if deps.get(ckey, set()) != set(int_list(body.get("deps"))):
            out.append(Divergence(f"{at}.deps", "differ from the certificate's", seq))
        try:
            want_nodes = set(internal_nodes(body))
        except (KeyError, TypeError):
            want_nodes = set()
        if nodes.get(ckey, set()) != want_nodes:
            out.append(Divergence(f"{at}.nodes", "differ from the certificate's internal nodes", seq))
    for ckey in sorted(set(d.cache) - seen):
        out.append(Divergence(f"cache[{ckey}]", "cached by the log; the row is missing", d.cache[ckey][1]))
    return out


def _queries(conn: Any, d: Derived, certs: Mapping[int, tuple[str, dict[str, Any]]]) -> list[Divergence]:
    out: list[Divergence] = []
    rows = _rows(
        conn,
        "SELECT query_id, cert_id, qkey, status, answer, answer_kind, reason, kernel_version, "
        "result_json, seq FROM queries ORDER BY seq, query_id",
    )
    if rows and rows[0][0] == "__error__":
        return [Divergence("queries", f"cannot read the table: {rows[0][1]}")]
    seen: set[Any] = set()
    for qid, cert_id, *columns in rows:
        seen.add(qid)
        want = d.queries.get(qid)
        if want is None:
            out.append(Divergence(f"queries[{qid}]", "a query no log entry answered"))
            continue
        sha, seq = want
        out += _query_columns(qid, columns, d.query_rows.get(qid, {}), seq)
        sound = certs.get(cert_id) if cert_id is not None else None
        got = sound[0] if sound is not None else None
        if cert_id is not None and got is None:
            out.append(Divergence(f"queries[{qid}].cert_id", f"{cert_id!r} is not a sound certificate", seq))
        elif got != sha:
            out.append(Divergence(f"queries[{qid}].cert_id", "is not the certificate the log names", seq))
    for qid in sorted(set(d.queries) - seen):
        out.append(
            Divergence(f"queries[{qid}]", "answered in the log; the row is missing", d.queries[qid][1])
        )
    return out


def _query_columns(qid: Any, columns: list[Any], logged: dict[str, Any], seq: int) -> list[Divergence]:
    """A query row's columns against its QUERY entry (the row's result JSON is the payload
    without the entry's lists of certificate, evidence and record hashes)."""
    from cotaudit.certify.lang.parse import parse_literal
    from cotaudit.certify.proof.format import fact_key

    qkey, status, answer, kind, reason, version, result, row_seq = columns
    try:
        want_key: str | None = fact_key(parse_literal(str(logged.get("target"))))
    except (CertifyError, RecursionError):
        want_key = None
    body = {k: v for k, v in logged.items() if k not in ("certificates", "evidence", "records")}
    try:
        want_result: str | None = canonical_json(body)
    except (TypeError, ValueError):
        want_result = None
    expected = (
        ("qkey", qkey, want_key),
        ("status", status, logged.get("status")),
        ("answer", answer, logged.get("answer")),
        ("answer_kind", kind, logged.get("answer_kind")),
        ("reason", reason, logged.get("abstain_reason")),
        ("kernel_version", version, logged.get("kernel_version")),
        ("seq", row_seq, seq),
    )
    out = [
        Divergence(f"queries[{qid}].{name}", says(got, want), seq)
        for name, got, want in expected
        if got != want
    ]
    if result != want_result:
        out.append(Divergence(f"queries[{qid}].result_json", "is not the result the log recorded", seq))
    return out


def _evidence(conn: Any, d: Derived) -> list[Divergence]:
    out: list[Divergence] = []
    rows = _rows(conn, "SELECT evidence_id, unit_id, evidence_json, verdict, sha256, seq FROM evidence")
    if rows and rows[0][0] == "__error__":
        return [Divergence("evidence", f"cannot read the table: {rows[0][1]}")]
    for eid, uid, ev_json, verdict, sha, seq in rows:
        checkpoint()
        at = f"evidence[{eid}]"
        logged = seq if isinstance(seq, int) else None
        if not isinstance(ev_json, str) or sha256_hex(ev_json) != sha:
            out.append(Divergence(at, "does not hash to its sha256", logged))
        elif sha not in d.evidence.get(seq, ()):
            out.append(Divergence(at, "the log entry of its seq does not list it", logged))
        if verdict != "SUPPORTED":
            out.append(Divergence(f"{at}.verdict", f"{verdict!r}; only SUPPORTED records are stored"))
        if uid not in d.units:
            out.append(Divergence(f"{at}.unit_id", f"{uid!r} is not a unit the log admitted"))
    return out


def _records(conn: Any) -> list[Divergence]:
    out: list[Divergence] = []
    for rid, sha, body in _rows(conn, "SELECT record_id, sha256, body FROM source_records"):
        if rid == "__error__":
            return [Divergence("source_records", f"cannot read the table: {sha}")]
        data = bytes(body) if isinstance(body, bytes | bytearray | memoryview) else None
        if data is None or sha256_hex(data) != sha:
            out.append(Divergence(f"source_records[{rid}]", "its body does not hash to its sha256"))
    return out


def _meta(conn: Any, d: Derived) -> list[Divergence]:
    from cotaudit.certify.interface.load import interface_from_dict

    out: list[Divergence] = []
    meta = dict(_rows(conn, "SELECT k, v FROM meta"))
    if "__error__" in meta:
        return [Divergence("meta", f"cannot read the table: {meta['__error__']}")]
    try:
        iface_sha: str | None = interface_from_dict(json.loads(meta.get("interface", ""))).sha256
    except (CertifyError, TypeError, ValueError, RecursionError):
        iface_sha = None
    if iface_sha != d.interface_sha or meta.get("interface_sha256") != d.interface_sha:
        out.append(Divergence("meta.interface", "is not the interface the log recorded (INIT)"))
    if d.config is not None and json_or_none(meta.get("config")) != d.config:
        out.append(Divergence("meta.config", "is not the configuration the log recorded (INIT)"))
    if meta.get("kernel_version") != str(d.version):
        out.append(
            Divergence("meta.kernel_version", f"{meta.get('kernel_version')!r}, the log says {d.version}")
        )
    return out


def summary(found: Iterable[Divergence]) -> str:
    items = list(found)
    if not items:
        return "the tables match the log"
    more = f" (and {len(items) - 1} more)" if len(items) > 1 else ""
    return f"{items[0].line()}{more}"
