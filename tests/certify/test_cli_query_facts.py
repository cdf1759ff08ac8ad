"""``cotaudit certify query --fact / --facts``: query-scoped facts from the command line (C-41,
C-77, C-78). A fact goes through the gate at query scope with its evidence, joins the overlay,
and expires with the query; a rejected one abstains the query (or is dropped, whitelist only,
under ``--on-reject drop``); a query with facts is never answered from the cache. Each
behaviour is tested with an input that fires it and a near miss that must not."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from cotaudit import cli
from cotaudit.certify.kb.facts import MAX_FACTS_BYTES, MAX_QUERY_FACTS
from cotaudit.certify.proof.recheck import recheck
from cotaudit.certify.sources.records import Evidence
from cotaudit.certify.state.machine import CertState

from .support import assert_rechecks

ROOT = Path(__file__).resolve().parents[2]
KB = ROOT / "examples" / "certify" / "legal_prelim.kb"
GOAL = "may_claim_preliminary_breach_liability(p1, x1)"
STORY = (
    "Chen and Zhou sign a subscription form (ren'gou shu) for a formal service contract.\n"
    "In the form the parties agree to conclude the formal service contract within thirty days.\n"
    "The form names both parties and the services, so the parties and the subject are determinable.\n"
    "At the deadline, holding the subscription form (ren'gou shu), Chen refuses without cause to "
    "conclude the main contract.\n"
)
FACTS = {  # the four leaf facts of X-1, with the story's words for each
    "agrees_future_conclusion(x1).": "the parties agree to conclude the formal service contract within thirty days",
    "determinable_parties_and_subject(x1).": "the parties and the subject are determinable",
    "refuses_to_conclude_main_contract(p1, x1).": "Chen refuses without cause to conclude the main contract",
    "subscription_order_or_booking_form(x1).": "sign a subscription form (ren'gou shu)",
}
LAST = "refuses_to_conclude_main_contract(p1, x1)."
# a kernel that derives q(k1) by itself, with a cache that takes anything (rho 0)
CACHE_KB = """%% interface
{"format": "cotaudit.certify.interface/1", "name": "cache", "version": "1", "negation": "none",
 "roles": {"item": {"type": "symbol", "pattern": "^k[0-9]+$"}},
 "predicates": {"p": {"args": ["item"]}, "q": {"args": ["item"]}},
 "source_whitelist": ["p"], "query_predicates": ["q"]}
%% config
{"rho": 0}
%% record lib kind=rules
p(k1).
[r1] q(X) :- p(X).
%% record note kind=document
The second item, k2, is a p as well.
%% units writer=deploy evidence=lib
p(k1).
[r1] q(X) :- p(X).
"""


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def line(unit: str, quote: str | None = None, record: str = "story") -> str:
    fact: dict[str, Any] = {"unit": unit}
    if quote is not None:
        fact["evidence"] = {"record": record, "quote": quote}
    return json.dumps(fact) + "\n"


@pytest.fixture
def db(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    path = str(tmp_path / "s.sqlite")
    assert run(["certify", "admit", "--db", path, str(KB)], capsys)[0] == 0
    return path


def facts_file(tmp_path: Path, facts: dict[str, str], name: str = "facts.jsonl") -> str:
    path = tmp_path / name
    path.write_text("".join(line(u, q) for u, q in facts.items()), encoding="utf-8")
    return str(path)


def query(db: str, capsys: pytest.CaptureFixture[str], *extra: str, goal: str = GOAL) -> tuple[int, Any]:
    code, out, err = run(["certify", "query", "--db", db, goal, "--json", *extra], capsys)
    assert "Traceback" not in err
    return code, json.loads(out)


def anchor(db: str) -> int:
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute("SELECT max(seq) FROM log").fetchone()[0])
    finally:
        conn.close()


def test_a_goal_that_needs_the_facts_is_certified_with_query_leaves(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    three = {u: q for u, q in FACTS.items() if u != LAST}
    # the last fact on the command line, the other three from the file
    args = [
        "--facts",
        facts_file(tmp_path, three),
        "--fact",
        LAST,
        "--record",
        "story",
        "--quote",
        FACTS[LAST],
    ]
    code, result = query(db, capsys, *args, "--query-id", "case-1")
    assert code == 0, result
    assert (result["status"], result["answer"], result["answer_kind"]) == ("CERTIFIED", "yes", "DERIVED")
    assert result["query_id"] == "case-1"
    assert [f["outcome"] for f in result["facts"]] == ["SOURCE_ADMIT"] * 4
    assert [f["unit"] for f in result["facts"]] == [LAST, *three]  # --fact first, then the file
    cert = result["certificate"]
    leaves = {n["fact"]: n["leaf"] for n in cert["nodes"] if "leaf" in n}
    for unit, quote in FACTS.items():  # each fact is a query-scoped leaf with the evidence given
        leaf = leaves[unit.rstrip(".").replace(" ", "")]  # the certificate's canonical text
        at = STORY.index(quote)
        assert leaf["scope"] == "query"
        assert leaf["evidence_sha256"] == Evidence("story", ((at, at + len(quote)),), quote).sha256
    assert len(leaves) == 4  # no other leaf: the kernel holds only the rules
    state = CertState.open(db)
    try:
        rows = state.store.conn.execute(
            "SELECT unit_id, scope, status, writer, query_id FROM units WHERE scope='query'"
        ).fetchall()
        assert {r[1:] for r in rows} == {("query", "expired", "grounder", "case-1")} and len(rows) == 4
        overlay = {r[0]: state.units[r[0]].unit for r in rows}
        assert_rechecks(cert, state, overlay)  # the independent checker, with the query's facts
        bare = recheck(cert, state.kernel_view(cert["kernel_version"]))
        assert not bare.ok  # near miss: the facts are not in the kernel
        assert not {s.unit_id for s in state.kernel_sources()} & set(overlay)
    finally:
        state.close()
    # the text form: the answer, then one line per fact with where it came from
    args = [
        "--facts",
        facts_file(tmp_path, three),
        "--fact",
        LAST,
        "--record",
        "story",
        "--quote",
        FACTS[LAST],
    ]
    code, out, _ = run(["certify", "query", "--db", db, GOAL, *args], capsys)
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith(
        f"CERTIFIED {GOAL.replace(' ', '')}: answer yes (DERIVED); certificate "
    )
    assert lines[1:] == [f"--fact: SOURCE_ADMIT {LAST}"] + [
        f"{tmp_path / 'facts.jsonl'}:{i}: SOURCE_ADMIT {u}" for i, u in enumerate(three, 1)
    ]


def test_without_the_fact_the_answer_is_no_and_the_fact_has_expired(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    three = {u: q for u, q in FACTS.items() if u != LAST}
    code, missing = query(db, capsys, "--facts", facts_file(tmp_path, three))
    assert code == 0 and (missing["status"], missing["answer"]) == ("CERTIFIED", "no")
    assert missing["answer_kind"] == "NOT_DERIVED" and missing["certificate"]["kind"] == "closure"
    code, full = query(db, capsys, "--facts", facts_file(tmp_path, FACTS))
    assert code == 0 and full["answer"] == "yes"
    # afterwards the facts are gone: the same goal from the kernel alone is a "no" again
    code, after = query(db, capsys)
    assert code == 0 and (after["answer"], after["answer_kind"], after["facts"]) == ("no", "NOT_DERIVED", [])
    code, out, _ = run(["certify", "query", "--db", db, "is_preliminary_contract(x1)"], capsys)
    assert code == 0 and out.startswith("CERTIFIED is_preliminary_contract(x1): answer no (NOT_DERIVED)")
    # under tfu the same missing fact is "unknown", not "no"
    code, tfu = query(db, capsys, "--facts", facts_file(tmp_path, three), "--space", "tfu")
    assert code == 0 and tfu["answer"] == "unknown"
    state = CertState.open(db)
    try:
        assert state.check_invariants() == []
        assert all(s.scope == "kernel" for s in state.kernel_sources()) and len(state.kernel_sources()) == 3
    finally:
        state.close()
    code, out, _ = run(["certify", "verify-log", "--db", db], capsys)
    assert code == 0 and out.startswith("ok: ")


def test_a_fact_outside_the_whitelist_abstains_and_is_dropped_only_on_request(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = facts_file(tmp_path, FACTS)
    derived = [
        "--fact",
        "is_preliminary_contract(x1).",
        "--record",
        "story",
        "--quote",
        "sign a subscription",
    ]
    code, out, _ = run(["certify", "query", "--db", db, GOAL, "--facts", path, *derived], capsys)
    assert code == 1
    assert out.splitlines()[0] == (
        "ABSTAINED may_claim_preliminary_breach_liability(p1,x1): abstained: ADMISSION_REJECTED "
        "(PREDICATE_NOT_IN_WHITELIST: "
        "'is_preliminary_contract' is not a source predicate (Ω))"
    )
    assert out.splitlines()[1].startswith(
        "--fact: REJECT is_preliminary_contract(x1). CERTIFY_E009 PREDICATE_NOT_IN_WHITELIST: "
    )
    assert "dropped" not in out
    code, result = query(db, capsys, "--facts", path, *derived, "--on-reject", "drop")
    assert code == 0 and result["answer"] == "yes" and result["flags"] == ["barrier_drop"]
    assert result["facts"][0] | {"message": None} == {
        "unit": "is_preliminary_contract(x1).",
        "outcome": "REJECT",
        "reason": "PREDICATE_NOT_IN_WHITELIST",
        "code": "CERTIFY_E009",
        "message": None,
        "dropped": True,
    }
    assert [f["dropped"] for f in result["facts"][1:]] == [False] * 4


def test_a_quote_the_record_does_not_hold_abstains_even_under_drop(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = dict(FACTS, **{LAST: "Chen gladly concludes the main contract"})
    for policy in ([], ["--on-reject", "drop"]):  # C-77: a failed source check is never dropped
        code, result = query(db, capsys, "--facts", facts_file(tmp_path, wrong), *policy)
        assert code == 1 and result["status"] == "ABSTAINED" and result["certificate"] is None
        assert result["abstain_reason"] == "SOURCE_CHECK_FAILED"
        assert result["detail"].startswith("UNSUPPORTED_BY_SOURCE")
        bad = [f for f in result["facts"] if f["outcome"] == "REJECT"]
        assert [(f["unit"], f["reason"], f["dropped"]) for f in bad] == [
            (LAST, "UNSUPPORTED_BY_SOURCE", False)
        ]
    code, result = query(db, capsys, "--facts", facts_file(tmp_path, FACTS))  # near miss: its real words
    assert code == 0 and result["answer"] == "yes"


def test_a_query_with_facts_is_never_served_from_the_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = tmp_path / "cache.kb"
    kb.write_text(CACHE_KB, encoding="utf-8")
    db = str(tmp_path / "c.sqlite")
    assert run(["certify", "admit", "--db", db, str(kb)], capsys)[0] == 0
    assert query(db, capsys, goal="q(k1)")[1]["status"] == "CERTIFIED"
    assert run(["certify", "tick", "--db", db], capsys)[0] == 0
    code, warm = query(db, capsys, goal="q(k1)")
    assert code == 0 and warm["cache"]["cached"] is True
    assert query(db, capsys, goal="q(k1)")[1]["status"] == "CACHED"  # the kernel-only query is a hit
    fact = ["--fact", "p(k2).", "--record", "note", "--quote", "k2, is a p"]
    code, fresh = query(db, capsys, *fact, goal="q(k1)")
    assert code == 0 and fresh["status"] == "CERTIFIED" and fresh["facts"][0]["outcome"] == "SOURCE_ADMIT"
    assert fresh["certificate"]["sha256"] == warm["certificate"]["sha256"]  # same answer, not the hit
    code, k2 = query(db, capsys, *fact, goal="q(k2)")
    assert code == 0 and (k2["status"], k2["answer"], k2["cache"]) == ("CERTIFIED", "yes", {})
    assert query(db, capsys, goal="q(k1)")[1]["status"] == "CACHED"  # near miss: no facts, a hit
    code, gone = query(db, capsys, goal="q(k2)")
    assert code == 0 and (gone["status"], gone["answer"]) == ("CERTIFIED", "no")  # never cached


def test_facts_from_stdin(
    db: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = "".join(line(u, q) for u, q in FACTS.items()).encode()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, result = query(db, capsys, "--facts", "-")
    assert code == 0 and result["answer"] == "yes"


def test_the_writer_is_passed_to_the_gate(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    fact = ["--fact", LAST, "--record", "story", "--quote", FACTS[LAST]]
    assert query(db, capsys, *fact, "--query-id", "g")[0] == 0
    assert query(db, capsys, *fact, "--query-id", "o", "--writer", "operator")[0] == 0
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute(
            "SELECT query_id, writer FROM units WHERE scope='query' ORDER BY unit_id"
        ).fetchall()
    finally:
        conn.close()
    assert rows == [("g", "grounder"), ("o", "operator")]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda t: ["--facts", str(t / "none.jsonl")], "none.jsonl: No such file"),
        (lambda t: ["--facts", _write(t, '{"unit": "p."}\n{"unit": \n')], "bad.jsonl:2: not JSON: "),
        (lambda t: ["--facts", _write(t, '["p(a)."]\n')], "bad.jsonl:1: a fact must be an object"),
        (lambda t: ["--facts", _write(t, '{"unit": "p.", "unit": "q."}\n')], "duplicate key 'unit'"),
        (lambda t: ["--facts", _write(t, '{"unit": "p.", "evidnce": {}}\n')], "unknown key 'evidnce'"),
        (lambda t: ["--facts", _write(t, '{"unit": "p.", "evidence": {"record": "story", "span": []}}\n')],
         "unknown key 'span' in 'evidence'"),
        (lambda t: ["--facts", _write(t, '{"unit": "p(\\ud800)."}\n')], "bad.jsonl:1: 'unit' holds a lone surrogate"),
        (lambda t: ["--facts", _write(t, '{"unit": "p.", "evidence": {"record": "story", "quote": "\\udfff"}}\n')],
         "'evidence.quote' holds a lone surrogate"),
        (lambda t: ["--facts", _write(t, "[" * 100_000 + "\n")], "bad.jsonl:1: nested too deeply"),
        (lambda t: ["--facts", _write(t, " " * (MAX_FACTS_BYTES + 1))], f"larger than {MAX_FACTS_BYTES} bytes"),
        (lambda t: ["--facts", _write(t, '{"unit": "p."}\n' * (MAX_QUERY_FACTS + 1))], "the limit"),
        (lambda t: ["--fact", "agrees_future_conclusion(x1\udcff)."], "--fact: 'unit' holds a lone surrogate"),
        (lambda t: ["--fact", LAST, "--record", "nosuch"], "--fact: the state holds no source record 'nosuch'"),
        (lambda t: ["--facts", _write(t, line(LAST, "x", record="nosuch"))], "no source record 'nosuch'"),
        (lambda t: ["--fact", LAST, "--fact", LAST, "--record", "story"], "exactly one --fact; 2 given"),
        (lambda t: ["--record", "story"], "exactly one --fact; 0 given"),
        (lambda t: ["--fact", LAST, "--quote", "Chen refuses"], "--quote and --span need --record ID"),
        (lambda t: ["--fact", LAST, "--record", "story", "--span", "3"], "--span takes START:END"),
        (lambda t: ["--fact", "  "], "--fact: 'unit' must be a non-empty string"),
        (lambda t: ["--query-id", "q\udcff"], "--query-id must be a non-empty text"),
        (lambda t: ["--query-id", " "], "--query-id must be a non-empty text"),
    ],
)  # fmt: skip
def test_bad_facts_are_one_line_usage_errors_and_change_nothing(
    make: Any, message: str, db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = anchor(db)
    code, out, err = run(["certify", "query", "--db", db, GOAL, *make(tmp_path)], capsys)
    assert code == 2 and out == "" and err.startswith("cotaudit: ") and err.count("\n") == 1, err
    assert message in err and "Traceback" not in err
    assert anchor(db) == before  # refused before the state was touched


def _write(tmp: Path, text: str) -> str:
    path = tmp / "bad.jsonl"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    return str(path)


def test_a_reused_query_id_is_a_usage_error(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    fact = ["--fact", LAST, "--record", "story", "--quote", FACTS[LAST]]
    assert query(db, capsys, *fact, "--query-id", "once")[0] == 0
    code, out, err = run(["certify", "query", "--db", db, GOAL, *fact, "--query-id", "once"], capsys)
    assert code == 2 and out == "" and "'once' was already answered" in err and err.count("\n") == 1
    code, result = query(db, capsys, *fact, "--query-id", "twice")  # near miss: a new id
    assert code == 0 and result["query_id"] == "twice" and result["answer"] == "no"


def test_facts_a_bound_stopped_the_query_before_are_not_checked(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from cotaudit.certify.core.errors import ResourceCap
    from cotaudit.certify.state import query as query_mod

    real = query_mod.gate_source
    seen: list[str] = []

    def second_runs_out(proposal: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(str(proposal))
        if len(seen) == 2:
            raise ResourceCap("the source check exceeded its time bound", {}, bound="time")
        return real(proposal, *args, **kwargs)

    monkeypatch.setattr(query_mod, "gate_source", second_runs_out)
    code, out, _ = run(["certify", "query", "--db", db, GOAL, "--facts", facts_file(tmp_path, FACTS)], capsys)
    lines = out.splitlines()
    assert code == 1 and "abstained: COMPUTATION_CAP" in lines[0]
    assert [ln.split(": ")[1].split()[0] for ln in lines[1:]] == ["SOURCE_ADMIT"] + ["NOT_CHECKED"] * 3
    monkeypatch.setattr(query_mod, "gate_source", real)  # near miss: no bound, every fact decided
    code, result = query(db, capsys, "--facts", facts_file(tmp_path, FACTS))
    assert code == 0 and {f["outcome"] for f in result["facts"]} == {"SOURCE_ADMIT"}
