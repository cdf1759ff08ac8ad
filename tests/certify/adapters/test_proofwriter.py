"""The ProofWriter adapter (certify.md §13.1, C-95 … C-97; X-15) and its eval command."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cotaudit.certify.adapters import proofwriter as pw
from cotaudit.certify.proof.recheck import recheck
from cotaudit.certify.serve.serving import serve
from cotaudit.certify.serve.votes import QueryInput
from cotaudit.certify.sources.records import Evidence
from cotaudit.certify.state.query import AbstainReason, ServeStatus
from cotaudit.eval.certify.pweval import load_items, pw_report, run_proofwriter, theory_state

DATA = Path(os.environ.get("COTAUDIT_DATA", Path(__file__).resolve().parents[4] / "shared" / "data"))
PW = DATA / "logic" / "proofwriter"
needs_data = pytest.mark.skipif(not (PW / "dev.json").is_file(), reason=f"ProofWriter data not found at {PW}")


@pytest.mark.parametrize(
    ("sentence", "unit"),
    [
        ("Bob is cold.", "[s1] cold_src(bob)."),
        ("The cow is not red.", "[s1] -red_src(cow)."),
        ("The bald eagle likes the lion.", "[s1] likes_src(bald_eagle, lion)."),
        ("The mouse does not visit the bald eagle.", "[s1] -visits_src(mouse, bald_eagle)."),
        ("Red, cold things are round.", "[s1] round(X) :- red(X), cold(X)."),
        ("All kind people are not red.", "[s1] -red(X) :- kind(X)."),
        ("If someone is cold and young then they are white.", "[s1] white(X) :- cold(X), young(X)."),
        ("If something is cold and not blue then it is rough.", "[s1] rough(X) :- cold(X), -blue(X)."),
        (
            "If someone sees the cat and they are not green then they see the cow.",
            "[s1] sees(X, cow) :- sees(X, cat), -green(X).",
        ),
        (
            "If someone chases the bear then they do not eat the bear.",
            "[s1] -eats(X, bear) :- chases(X, bear).",
        ),
        (
            "If the cow eats the bear and the bear sees the cow then the bear is blue.",
            "[s1] blue(bear) :- eats(cow, bear), sees(bear, cow).",
        ),
    ],
)
def test_sentence_forms(sentence: str, unit: str) -> None:
    kind, body, head = pw.parse_sentence(sentence)
    assert pw.unit_text("s1", kind, body, head) == unit


@pytest.mark.parametrize(
    "sentence",
    [
        "Bob is happy.",
        "The unicorn is red.",
        "Bob is red",
        "If Bob is red then.",
        "Something is red.",
        "Bob owns the cat.",
    ],
)
def test_unparseable_sentences_are_named_never_skipped(sentence: str) -> None:
    with pytest.raises(pw.PWParseError):
        pw.parse_sentence(sentence)
    with pytest.raises(pw.PWParseError, match=r"unparseable|not a condition|ends with|names no variable"):
        pw.theory_units("Bob is cold. " + sentence)


def test_edb_idb_split_and_copy_rules() -> None:
    t = pw.theory_units(
        "Bob is cold. The cow is not red. Bob likes the cow. If something is cold then it is red."
    )
    texts = [u for u, _ in t.units]
    assert texts == [
        "[s1] cold_src(bob).",
        "[s2] -red_src(cow).",
        "[s3] likes_src(bob, cow).",
        "[s4] red(X) :- cold(X).",
        "[copy:cold] cold(X1) :- cold_src(X1).",
        "[copy:likes] likes(X1, X2) :- likes_src(X1, X2).",
        "[copy:-red] -red(X1) :- -red_src(X1).",
    ]
    iface = pw.interface()
    assert set(iface.whitelist) == {p for p in iface.predicates if p.endswith("_src")}


def test_pw_parse_checker_fires_and_near_misses() -> None:
    ctx = "Bob is cold. If something is cold then it is red."
    state, decisions = theory_state(ctx, 6)
    assert all(d.reason is None for d in decisions)
    checker, records = pw.PWParseChecker(), state.records
    from cotaudit.certify.gate.decision import parse_proposal

    ok = checker.check(
        parse_proposal("[s1] cold_src(bob)."), Evidence("theory", ((0, 12),)), records, state.interface
    )  # type: ignore[arg-type]
    assert ok.verdict == "SUPPORTED"
    for unit, span in [
        ("[s1] cold_src(dave).", (0, 12)),
        ("[s1] cold_src(bob).", (13, 49)),
        ("[s1] cold_src(bob).", (0, 99)),
    ]:
        r = checker.check(parse_proposal(unit), Evidence("theory", (span,)), records, state.interface)  # type: ignore[arg-type]
        assert r.verdict == "UNSUPPORTED", unit
    bad_copy = parse_proposal("[copy:cold] red(X1) :- red_src(X1).")
    assert (
        checker.check(bad_copy, Evidence("theory", ((0, 12),)), records, state.interface).verdict
        == "UNSUPPORTED"
    )  # type: ignore[arg-type]


def _x15_state(item_id: str, items: list[dict[str, object]], delta: int = 6):  # type: ignore[no-untyped-def]
    it = next(x for x in items if x["id"] == item_id)
    state, _ = theory_state(str(it["context"]), delta)
    return state, QueryInput(item_id, None, pw.question_target(str(it["question"])), "tfu")


@needs_data
def test_x15_worked_examples() -> None:
    items = load_items(PW / "dev.json") + load_items(PW / "test.json")
    expect = [
        ("ProofWriter_AttNoneg-OWA-D5-1041_Q1", "kind(charlie)", "true", 1),
        ("ProofWriter_RelNeg-OWA-D5-508_Q2", "-red(cow)", "false", 1),
        ("ProofWriter_AttNoneg-OWA-D5-585_Q19", "-white(bob)", "unknown", None),
        ("ProofWriter_RelNeg-OWA-D5-81_Q11", "-round(cat)", "true", 6),
        ("ProofWriter_AttNoneg-OWA-D5-613_Q12", "-blue(harry)", "false", 6),
    ]
    for item_id, target, answer, depth in expect:
        state, q = _x15_state(item_id, items)
        assert q.target == target
        r = serve(state, q)
        assert (r.status, r.answer) == (ServeStatus.CERTIFIED, answer), item_id
        assert r.certificate is not None and recheck(r.certificate, state.kernel_view()).ok
        if depth is None:
            assert r.certificate["kind"] == "closure"
        else:
            assert r.certificate["depth"] == depth
    state, q = _x15_state("ProofWriter_AttNoneg-OWA-D5-1041_Q1", items)
    r = serve(state, q)
    leaf = next(n for n in r.certificate["nodes"] if "edge" not in n)  # type: ignore[index]
    assert leaf["fact"] == "kind_src(charlie)"
    root = r.certificate["nodes"][r.certificate["root"]]  # type: ignore[index]
    assert root["edge"]["rule"] == "copy:kind"
    state, q = _x15_state("ProofWriter_RelNeg-OWA-D5-81_Q11", items, delta=5)
    r = serve(state, q)
    assert (r.status, r.abstain_reason) == (ServeStatus.ABSTAINED, AbstainReason.DEPTH_BUDGET_EXCEEDED)


@needs_data
@pytest.mark.slow
def test_all_1200_questions_certified_and_correct() -> None:
    for split in ("dev", "test"):
        run = run_proofwriter(load_items(PW / f"{split}.json"), split, 6)
        c = run.counts
        assert (c.correct, c.wrong, c.abstained) == (600, 0, 0), split
        assert all(o.rechecked for o in run.outcomes)
        assert {o.kind for o in run.outcomes if o.gold == "unknown"} == {"NOT_DERIVED"}


@needs_data
def test_delta5_abstains_exactly_on_depth6_certificates() -> None:
    items = load_items(PW / "dev.json")[:100]
    six, five = run_proofwriter(items, "dev", 6), run_proofwriter(items, "dev", 5)
    deep = {o.item_id for o in six.outcomes if o.depth == 6 and o.kind != "NOT_DERIVED"}
    assert deep  # the slice has depth-6 items
    assert {o.item_id for o in five.outcomes if o.abstain_reason == "DEPTH_BUDGET_EXCEEDED"} == deep
    assert five.counts.wrong == 0
    doc, text = pw_report([six, five])
    assert doc == pw_report([run_proofwriter(items, "dev", 6), run_proofwriter(items, "dev", 5)])[0]
    assert "dev δ=5" in text and "DEPTH_BUDGET_EXCEEDED" in text


def test_eval_command_on_a_small_file(tmp_path: Path) -> None:
    from cotaudit.cli import main

    items = [
        {
            "id": "t1",
            "context": "Bob is cold. If something is cold then it is red.",
            "question": "Based on the above information, is the following statement true, false, or unknown? Bob is red.",
            "options": [],
            "answer": "A",
        },
        {
            "id": "t2",
            "context": "Bob is cold. If something is cold then it is red.",
            "question": "Based on the above information, is the following statement true, false, or unknown? Bob is not big.",
            "options": [],
            "answer": "C",
        },
    ]
    (tmp_path / "dev.json").write_text(json.dumps(items), encoding="utf-8")
    out = tmp_path / "r.json"
    rc = main(
        [
            "certify",
            "eval",
            "proofwriter",
            "--data",
            str(tmp_path),
            "--split",
            "dev",
            "--delta",
            "6",
            "--json",
            str(out),
            "-o",
            str(tmp_path / "r.txt"),
        ]
    )
    assert rc == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["runs"][0]["counts"]["C"] == 2
    (tmp_path / "dev.json").write_text('{"not": "a list"}', encoding="utf-8")
    assert main(["certify", "eval", "proofwriter", "--data", str(tmp_path), "--split", "dev"]) == 2
