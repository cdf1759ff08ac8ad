"""``cotaudit certify <tool>`` and ``cotaudit check --engine certify`` on the command line (C-120)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from cotaudit import cli

ROOT = Path(__file__).resolve().parents[2]
KB = ROOT / "examples" / "certify" / "legal_prelim.kb"
CHAIN = ROOT / "examples" / "certify" / "redundant_rules.kb"


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_check_program(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.lp"
    good.write_text("p(a).\n[r] q(X) :- p(X).\n")
    assert run(["certify", "check-program", str(good)], capsys)[:2] == (0, "ok: 2 units (1 facts, 1 rules)\n")
    bad = tmp_path / "bad.lp"
    bad.write_text("[a] p(X) :- q(X).\n[a] p(x).\nh(Y) :- z.\nfoo(\n")
    code, out, _ = run(["certify", "check-program", str(bad)], capsys)
    assert code == 1
    assert [line.split(": ")[1].split()[0] for line in out.splitlines()] == [
        "CERTIFY_E037",
        "CERTIFY_E002",
        "CERTIFY_E001",
    ]
    iface = tmp_path / "i.json"
    iface.write_text(
        '{"format": "cotaudit.certify.interface/1", "roles": {"a": {"type": "any"}}, '
        '"predicates": {"p": {"args": ["a"]}, "q": {"args": ["a"]}}, "source_whitelist": ["p"]}'
    )
    hw = tmp_path / "hw.lp"
    hw.write_text("[bad] p(X) :- q(X).\n")
    code, out, _ = run(["certify", "check-program", str(hw), "--interface", str(iface)], capsys)
    assert code == 1 and "CERTIFY_E036" in out and "bad" in out
    js = tmp_path / "p.json"
    js.write_text(
        '{"format": "cotaudit.certify.program/1", "units": [{"kind": "fact", "lit": {"pred": "p", "args": [{"c": "a"}]}}]}'
    )
    assert run(["certify", "check-program", str(js)], capsys)[0] == 0


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "examples" / "certify").glob("*.kb")))
def test_check_program_reads_the_units_of_a_kb_file(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["certify", "check-program", str(ROOT / "examples" / "certify" / name)], capsys)
    assert code == 0 and out.startswith("ok: ")


def test_check_program_diagnostics_point_at_the_unit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = tmp_path / "x.kb"
    kb.write_text(
        '%% interface\n{"format": "cotaudit.certify.interface/1", "predicates": {"p": {"args": []}},'
        ' "source_whitelist": ["p"]}\n%% units\np.\n\n  q :- p.\n'
    )
    code, out, _ = run(["certify", "check-program", str(kb)], capsys)
    assert code == 1 and out.startswith(f"{kb}:6:3: CERTIFY_E004 UNKNOWN_PREDICATE")
    code, out, _ = run(["certify", "check-program", str(tmp_path / "nothing.kb")], capsys)
    assert code == 2


def test_state_tools_end_to_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tampered_files: list[str]
) -> None:
    db = str(tmp_path / "s.sqlite")
    tampered_files.append(db)
    code, out, _ = run(["certify", "admit", "--db", db, str(CHAIN)], capsys)
    assert code == 0 and "REDUNDANT [r1]" in out and "duplicate of unit 4" in out
    code, out, _ = run(["certify", "query", "--db", db, "q(k1)"], capsys)
    assert code == 0 and out.startswith("CERTIFIED q(k1): answer yes (DERIVED); certificate ")
    code, out, _ = run(["certify", "query", "--db", db, "q(k1)", "--json"], capsys)
    result = json.loads(out)
    assert result["status"] == "CERTIFIED" and result["certificate"]["depth"] == 2
    cert = tmp_path / "c.json"
    cert.write_text(json.dumps(result["certificate"]))
    kernel = tmp_path / "k.json"
    assert run(["certify", "export", "--db", db, "-o", str(kernel)], capsys)[0] == 0
    code, out, _ = run(["certify", "recheck", str(cert), "--kernel", str(kernel)], capsys)
    assert code == 0 and out.startswith("ok: derivation certificate of q(k1)")
    forged = dict(result["certificate"])
    forged["depth"] = 1
    cert.write_text(json.dumps(forged))
    code, out, _ = run(["certify", "recheck", str(cert), "--kernel", str(kernel)], capsys)
    assert code == 1 and "CERTIFY_E027 DEPTH_MISMATCH" in out and "CERTIFY_E031 HASH_MISMATCH" in out
    assert run(["certify", "recheck", str(cert)], capsys)[0] == 2
    assert run(["certify", "tick", "--db", db], capsys)[0] == 0
    code, out, _ = run(["certify", "verify-log", "--db", db], capsys)
    assert code == 0 and out.startswith("ok: ")
    anchor = out.split("head ")[1].strip()
    assert run(["certify", "verify-log", "--db", db, "--anchor", anchor], capsys)[0] == 0
    assert run(["certify", "verify-log", "--db", db, "--anchor", "bad"], capsys)[0] == 2
    code, out, _ = run(["certify", "erase", "--db", db, "3"], capsys)
    assert code == 0 and "erased unit 3" in out
    code, out, _ = run(["certify", "query", "--db", db, "q(k1)"], capsys)
    assert code == 0
    assert run(["certify", "evict", "--db", db, "f:nothing"], capsys)[0] == 2
    code, out, _ = run(["certify", "kernel-report", db], capsys)
    report = json.loads(out)
    assert code == 0 and report["D1"]["C1"] is True and "D4" in report
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("DROP TRIGGER log_no_update")
    conn.execute("UPDATE log SET payload = payload || ' ' WHERE seq = 2")
    conn.close()
    code, out, _ = run(["certify", "verify-log", "--db", db], capsys)
    assert (code, out) == (1, "FAIL at seq 2: hash mismatch\n")


def test_admit_one_unit_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "u.sqlite")
    iface = tmp_path / "i.json"
    iface.write_text(
        '{"format": "cotaudit.certify.interface/1", "roles": {"a": {"type": "any"}}, '
        '"predicates": {"p": {"args": ["a"]}, "q": {"args": ["a"]}}, "source_whitelist": ["p"]}'
    )
    rec = tmp_path / "facts.txt"
    rec.write_text("p(a).\n")
    args = [
        "certify",
        "admit",
        "--db",
        db,
        "--interface",
        str(iface),
        "--unit",
        "p(a).",
        "--record",
        "r",
        "--record-file",
        f"r={rec}:facts",
    ]
    code, out, _ = run(args, capsys)
    assert code == 0 and "SOURCE_ADMIT" in out
    code, out, _ = run(["certify", "admit", "--db", db, "--unit", "q(a).", "--record", "r"], capsys)
    assert code == 1 and "CERTIFY_E009 PREDICATE_NOT_IN_WHITELIST" in out
    assert run(["certify", "query", "--db", str(tmp_path / "none.sqlite"), "p(a)"], capsys)[0] == 2
    code, _, err = run(["certify", "admit", "--db", str(tmp_path / "new.sqlite"), "--unit", "p(a)."], capsys)
    assert code == 2 and "needs an interface" in err and "Traceback" not in err
    assert run(["certify"], capsys)[0] == 2


def test_check_and_audit_with_the_certify_engine(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["check", "--engine", "certify", "--format", "json", "--no-timing", str(KB)], capsys)
    report = json.loads(out)
    assert code == 0 and report["engine"] == "certify" and report["verdict"] == "pass"
    code, out, _ = run(["check", str(ROOT / "examples" / "certify" / "legal_prelim.cert.json")], capsys)
    assert code == 0
    code, out, _ = run(["audit", "--no-timing", str(ROOT / "examples" / "certify")], capsys)
    assert code == 0 and "certify" in out
