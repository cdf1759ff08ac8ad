"""``verify-log`` checks the state it certifies, not only the chain (issue 14, class 2).

Editing a kernel fact in ``units`` (``p(c1_0_1)`` → ``p(evil)``) used to pass ``verify-log`` and
``check_invariants()`` while ``query q(evil)`` answered CERTIFIED yes; a status edit passed too;
a corrupt certificate blob crashed ``verify-log`` (exit 2). Now the tables are compared with the
state the log certifies (:mod:`cotaudit.certify.state.logstate`): every divergence is a FAIL line, a
diverging state refuses to serve, and a consistently rewritten chain is caught by the anchor
that every write prints.
"""

from __future__ import annotations

import sqlite3
import zlib
from pathlib import Path

import pytest

from cotaudit.certify.core.errors import StoreError
from cotaudit.certify.interface.model import simple_interface
from cotaudit.certify.sources.records import Evidence, SourceRecord
from cotaudit.certify.state.config import CertifyConfig
from cotaudit.certify.state.history import recheck_all
from cotaudit.certify.state.machine import CertState
from cotaudit.certify.state.store import GENESIS, entry_hash
from cotaudit.cli import main

CORPUS = "p(c1_0_1).\np(c2).\n[r] q(X) :- p(X).\n"
CLOCK = "2026-01-01T00:00:00Z"


def make_state(tmp_path: Path, tampered: list[str]) -> str:
    """p(c1_0_1), p(c2), q(X) :- p(X); q(c1_0_1) answered and cached (ρ = 0), then a tick."""
    path = str(tmp_path / "s.sqlite")
    tampered.append(path)
    iface = simple_interface({"p": 1, "q": 1}, ["p"])
    state = CertState.open(path, iface, CertifyConfig(rho=0.0), clock=lambda: CLOCK)
    state.add_record(SourceRecord("src", "rules", CORPUS))
    for line in CORPUS.splitlines():
        assert state.admit(line, Evidence("src")).reason is None
    state.query("q(c1_0_1)")
    state.tick()
    assert state.query("q(c1_0_1)").cache["cached"] is True
    assert state.query("q(c9)").answer == "no"
    assert recheck_all(state) == []  # every certificate made here goes through the checker
    state.close()
    return path


def raw(path: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    for table in ("log", "certificates", "evidence", "source_records"):
        for action in ("update", "delete"):
            conn.execute(f"DROP TRIGGER IF EXISTS {table}_no_{action}")
    return conn


def cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    got = capsys.readouterr()
    return code, got.out, got.err


def verify_lines(path: str, capsys: pytest.CaptureFixture[str], *anchor: str) -> tuple[int, list[str]]:
    code, out, err = cli(["certify", "verify-log", "--db", path, *anchor], capsys)
    assert "Traceback" not in out + err
    return code, out.splitlines()


def test_untampered_state_verifies_and_serves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tampered_files: list[str]
) -> None:
    path = make_state(tmp_path, tampered_files)
    code, lines = verify_lines(path, capsys)
    assert code == 0 and lines[0].startswith("ok: ")
    state = CertState.open(path)
    assert state.integrity == [] and state.verify_state() == [] and state.check_invariants() == []
    assert state.query("q(c1_0_1)").answer == "yes"
    state.close()


def test_edited_kernel_fact_is_reported_and_never_served(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tampered_files: list[str]
) -> None:
    path = make_state(tmp_path, tampered_files)
    conn = raw(path)
    conn.execute(
        "UPDATE units SET ukey=replace(ukey,'c1_0_1','evil'), text=replace(text,'c1_0_1','evil'), "
        "json=replace(json,'c1_0_1','evil') WHERE unit_id=1"
    )
    conn.close()
    code, lines = verify_lines(path, capsys)
    assert code == 1
    assert {line.split(": ")[0] for line in lines} >= {
        "FAIL units[1].ukey",
        "FAIL units[1].text",
        "FAIL units[1].json",
    }
    state = CertState.open(path)
    assert any(
        p.startswith("INV-4: the tables diverge from the log: units[1]") for p in state.check_invariants()
    )
    with pytest.raises(StoreError, match="does not match its log"):
        state.query("q(evil)")
    with pytest.raises(StoreError):
        state.admit("p(c3).", Evidence("src"))
    state.close()
    code, out, err = cli(["certify", "query", "--db", path, "q(evil)"], capsys)
    assert code == 2 and "CERTIFIED" not in out and "does not match its log" in err


def test_edited_json_alone_is_caught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tampered_files: list[str]
) -> None:
    # the state loads units from the json column: editing only it changed what was served
    path = make_state(tmp_path, tampered_files)
    conn = raw(path)
    conn.execute("UPDATE units SET json=replace(json,'c2','evil') WHERE unit_id=2")
    conn.close()
    code, lines = verify_lines(path, capsys)
    assert code == 1 and [line.split(": ")[0] for line in lines] == ["FAIL units[2].json"]


@pytest.mark.parametrize(
    ("sql", "where"),
    [
        ("UPDATE units SET status='erased' WHERE unit_id=2", "FAIL units[2].status"),
        ("UPDATE units SET kstatus='J' WHERE unit_id=3", "FAIL units[3].kstatus"),
        ("UPDATE evidence SET verdict='UNSUPPORTED' WHERE evidence_id=1", "FAIL evidence[1].verdict"),
        ("UPDATE meta SET v='7' WHERE k='kernel_version'", "FAIL meta.kernel_version"),
        ("UPDATE meta SET v=replace(v, '\"delta\":6', '\"delta\":60') WHERE k='config'", "FAIL meta.config"),
        ("DELETE FROM units WHERE unit_id=2", "FAIL units[2]"),
        ("DELETE FROM cache", "FAIL cache[f:q(c1_0_1)]"),
        ("UPDATE cache SET depth=0", "FAIL cache[f:q(c1_0_1)].depth"),
        ("UPDATE kernel_versions SET n_rules=5 WHERE version=3", "FAIL kernel_versions[3].n_rules"),
    ],
)
def test_each_table_edit_is_a_fail_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tampered_files: list[str], sql: str, where: str
) -> None:
    path = make_state(tmp_path, tampered_files)
    conn = raw(path)
    conn.execute(sql)
    conn.close()
    code, lines = verify_lines(path, capsys)
    assert code == 1 and where in [line.split(": ")[0] for line in lines], lines
    state = CertState.open(path)
    with pytest.raises(StoreError):
        state.query("q(c2)")
    state.close()


def test_every_divergence_is_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tampered_files: list[str]
) -> None:
    path = make_state(tmp_path, tampered_files)
    conn = raw(path)
    conn.execute("UPDATE units SET status='erased' WHERE unit_id=2")
    conn.execute("UPDATE units SET kstatus='J' WHERE unit_id=3")
    conn.execute("UPDATE meta SET v='7' WHERE k='kernel_version'")
    conn.close()
    code, lines = verify_lines(path, capsys)
    assert code == 1
    assert [line.split(": ")[0] for line in lines] == [
        "FAIL units[2].status",
        "FAIL units[3].kstatus",
        "FAIL meta.kernel_version",
    ]


@pytest.mark.parametrize(
    "blob", [b"\x00\xffnot zlib", zlib.compress(b"[1, 2]"), zlib.compress(b"\xff\xfe"), "text"]
)
def test_corrupt_certificate_blob_is_a_fail_line_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tampered_files: list[str], blob: object
) -> None:
    path = make_state(tmp_path, tampered_files)
    conn = raw(path)
    cert_id = conn.execute("SELECT cert_id FROM cache").fetchone()[0]  # the cached entry's, loaded on open
    conn.execute("UPDATE certificates SET body=? WHERE cert_id=?", (blob, cert_id))
    conn.close()
    code, lines = verify_lines(path, capsys)
    assert code == 1
    assert f"FAIL certificates[{cert_id}]" in [line.split(": ")[0] for line in lines]
    assert any("corrupt" in line for line in lines)
    state = CertState.open(path)  # opens (so it can be inspected), but serves nothing
    with pytest.raises(StoreError):
        state.query("q(c1_0_1)")
    state.close()


def _rewrite(path: str, change: object) -> None:
    """Rewrite the log consistently: every entry through ``change(seq, ts, op, payload)``, every
    hash recomputed, the head moved."""
    conn = raw(path)
    rows = conn.execute("SELECT seq, ts, op, payload FROM log ORDER BY seq").fetchall()
    conn.execute("DELETE FROM log")
    prev = GENESIS
    for seq, ts, op, payload in rows:
        ts, payload = change(seq, ts, op, payload)  # type: ignore[operator]
        digest = entry_hash(prev, seq, op, ts, payload)
        conn.execute("INSERT INTO log VALUES(?,?,?,?,?,?)", (seq, ts, op, payload, prev, digest))
        prev = digest
    conn.execute("UPDATE meta SET v=? WHERE k='log_head_hash'", (prev,))
    conn.close()


def test_rewritten_chain_alone_diverges_from_the_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tampered_files: list[str]
) -> None:
    path = make_state(tmp_path, tampered_files)
    _rewrite(path, lambda seq, ts, op, payload: (ts, payload.replace("p(c2)", "p(c7)")))
    code, lines = verify_lines(path, capsys)
    assert code == 1 and "FAIL units[2].ukey" in [line.split(": ")[0] for line in lines]


def test_rewritten_chain_with_tables_needs_the_anchor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tampered_files: list[str]
) -> None:
    path = make_state(tmp_path, tampered_files)
    code, _, err = cli(["certify", "tick", "--db", path], capsys)  # every write prints the new head
    assert code == 0 and err.startswith("anchor ")
    anchor = err.split()[1]
    assert verify_lines(path, capsys, "--anchor", anchor)[0] == 0
    # a history re-signed from the start (here: every timestamp moved) with tables to match:
    # internally consistent, so without the anchor it cannot be told from the real one
    _rewrite(path, lambda seq, ts, op, payload: ("2030-01-01T00:00:00Z", payload))
    assert verify_lines(path, capsys)[0] == 0
    code, lines = verify_lines(path, capsys, "--anchor", anchor)
    assert code == 1 and lines[0].endswith("diverges from the anchor")


@pytest.mark.parametrize(
    ("sql", "where"),
    [
        ("UPDATE units SET order_rank='[\"a\"]' WHERE unit_id=3", "FAIL units[3].order_rank"),
        ("UPDATE units SET order_rank='[1.0]' WHERE unit_id=1", "FAIL units[1].order_rank"),  # ≺: a string
        ("UPDATE freq SET f=f+1", "FAIL freq[f:q(c1_0_1)].f"),
        ("UPDATE freq SET last_tick=9", "FAIL freq[f:q(c1_0_1)].last_tick"),
        ("DELETE FROM freq", "FAIL freq[f:q(c1_0_1)]"),
        ("INSERT INTO freq VALUES('f:q(c2)', 50.0, 1)", "FAIL freq[f:q(c2)]"),
        ("UPDATE queries SET answer='yes' WHERE answer='no'", "FAIL queries[q8].answer"),
        ("UPDATE queries SET result_json=replace(result_json, 'no', 'yes')", "FAIL queries[q8].result_json"),
    ],
)
def test_order_ranks_frequencies_and_query_rows_are_under_the_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tampered_files: list[str], sql: str, where: str
) -> None:
    """Order ranks decide which of two equivalent units the next scan keeps; frequencies decide
    what is cached (so which certificate a cached answer serves); both used to be unchecked."""
    path = make_state(tmp_path, tampered_files)
    conn = raw(path)
    conn.execute(sql)
    conn.close()
    code, lines = verify_lines(path, capsys)
    assert code == 1 and [line.split(": ")[0] for line in lines] == [where], lines


def test_untampered_ranks_and_frequencies_verify_across_many_ticks(tmp_path: Path) -> None:
    # near miss: explicit ranks, a batch, ticks with and without requests, a custom half-life
    path = str(tmp_path / "s.sqlite")
    state = CertState.open(
        path,
        simple_interface({"p": 1, "q": 1}, ["p"]),
        CertifyConfig(half_life_ticks=3.0),
        clock=lambda: CLOCK,
    )
    state.add_record(SourceRecord("src", "rules", CORPUS))
    state.admit_batch([(line, Evidence("src"), "deploy", [7, "z"]) for line in CORPUS.splitlines()[:2]])
    state.admit(CORPUS.splitlines()[2], Evidence("src"), order_rank=["b", 2])
    for n in range(4):
        for _ in range(n):
            state.query("q(c2)")
        state.tick(now=10 + n)
    state.close()
    state = CertState.open(path)
    assert state.integrity == [] and state.verify_state() == []
    assert state.units[3].order_rank == ["b", 2] and state.freq["f:q(c2)"] > 0
    state.close()


def test_an_edited_order_rank_would_have_changed_the_kernel(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tampered_files: list[str]
) -> None:
    """X-11: with p, r1, r2, r3 in this order the scan keeps r2; with r2 before r1 it keeps r1."""
    path = str(tmp_path / "x11.sqlite")
    tampered_files.append(path)
    program = "[p] p.\n[r1] q :- p.\n[r2] q :- p, t.\n[r3] t :- p.\n"
    state = CertState.open(path, simple_interface({"p": 0, "q": 0, "t": 0}, ["p"]), clock=lambda: CLOCK)
    state.add_record(SourceRecord("src", "rules", program))
    for line in program.splitlines():
        state.admit(line, Evidence("src"))
    assert sorted(r.unit.label for r in state.active() if r.kstatus == "J") == ["r1"]
    swapped = {**state.order(), 2: [99]}  # r1 last
    assert [state.units[u].unit.label for u in state.scan().J] == ["r1"]
    from cotaudit.certify.kernel.scan import kernel_scan

    again = kernel_scan(state.sources(), order=swapped)
    assert [state.units[u].unit.label for u in again.J] == ["r2"]  # what an edit would make
    assert recheck_all(state) == []  # the justifications stored so far, before the edit
    state.close()
    conn = raw(path)
    conn.execute("UPDATE units SET order_rank='[99]' WHERE unit_id=2")
    conn.close()
    code, lines = verify_lines(path, capsys)
    assert code == 1 and [line.split(": ")[0] for line in lines] == ["FAIL units[2].order_rank"]
    tampered = CertState.open(path)
    with pytest.raises(StoreError):  # never rescanned under the edited order
        tampered.admit("[r4] q :- p, p.", Evidence("src"))
    tampered.close()
