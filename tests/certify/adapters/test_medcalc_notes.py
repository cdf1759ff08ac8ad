"""The 25 hand-written calculator notes (C-105) served with evidence under the source check of
C-103: ``all_of(schema/1, medcalc-span/1)``, ``match/1`` span mode on the raw value."""

from __future__ import annotations

import copy
import unicodedata
from collections import Counter
from decimal import ROUND_HALF_EVEN, Context, Decimal
from typing import Any

import pytest

from cotaudit.certify.adapters import medcalc as m
from cotaudit.certify.adapters import medcalc_evidence as mev
from cotaudit.certify.adapters import medcalc_serving as ms
from cotaudit.certify.lang.syntax import Const, Fact, Literal
from cotaudit.certify.sources.records import Evidence, MemoryRecords, SourceRecord
from cotaudit.certify.state.query import AbstainReason, AnswerKind, ServeStatus

from ..support import assert_rechecks

NOTES = mev.load_notes()
BY_ID = {n["id"]: n for n in NOTES}
NEAR = [(n["id"], i) for n in NOTES for i in range(len(n["near_misses"]))]
SOURCE_CHECK = "all_of(schema/1,medcalc-span/1)"


@pytest.fixture(scope="module")
def state() -> Any:
    # one state for the module: every query is query-scoped and leaves the kernel unchanged
    s = ms.calc_state()
    yield s
    s.close()


def gold_vote(n: dict[str, Any]) -> dict[str, Any]:
    return {"entities": copy.deepcopy(n["entities"]), "evidence": copy.deepcopy(n["evidence"])}


def changed(n: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """The gold vote with a near miss's changes applied (see data/calculators/README.md)."""
    vote = gold_vote(n)
    for key, ch in changes.items():
        if "value" in ch:
            if ch["value"] is None:
                vote["entities"].pop(key, None)
            else:
                vote["entities"][key] = ch["value"]
        if "quote" in ch:
            if ch["quote"] is None:
                vote["evidence"].pop(key, None)
            else:
                vote["evidence"][key] = {k: ch[k] for k in ("quote", "start", "end") if k in ch}
    return vote


def outcome(r: Any) -> str:
    return r.abstain_reason.value if r.abstain_reason is not None else r.status.value


# ---------------------------------------------------------------- the data file
def test_twenty_five_notes_five_per_calculator() -> None:
    assert len(NOTES) == 25 and len(BY_ID) == 25
    assert Counter(n["calculator"] for n in NOTES) == {2: 5, 4: 5, 5: 5, 6: 5, 7: 5}
    for n in NOTES:
        assert n["id"].startswith(f"n{n['calculator']}-")
        assert set(n["evidence"]) == set(n["entities"]), n["id"]


def test_every_quote_is_a_verbatim_substring_at_its_offsets() -> None:
    for n in NOTES:
        for key, ev in n["evidence"].items():
            assert n["note"][ev["start"] : ev["end"]] == ev["quote"], (n["id"], key)
        for nm in n["near_misses"]:
            for key, ch in nm["changes"].items():
                q = ch.get("quote")
                if q is None:
                    continue
                if "start" in ch:
                    assert n["note"][ch["start"] : ch["end"]] == q, (n["id"], key)
                else:
                    assert q not in n["note"], (n["id"], key)  # offsets only for quotes in the note


def test_notes_cover_units_booleans_and_boundaries() -> None:
    units = Counter()
    for n in NOTES:
        for v in n["entities"].values():
            if isinstance(v, list):
                units[v[1]] += 1
    for u in ("lb", "lbs", "in", "ft in", "m", "cm", "kg", "µmol/L", "mg/dL", "mmol/L", "g/L", "g/dL"):
        assert units[u], u
    assert {"mm Hg", "mmHg"} <= set(units)
    trues = [(n["id"], k) for n in NOTES for k, v in n["entities"].items() if v is True]
    falses = [(n["id"], k) for n in NOTES for k, v in n["entities"].items() if v is False]
    assert len(trues) >= 8 and len(falses) >= 3
    for cid in (2, 4, 5, 6, 7):
        assert any(n["boundary"] for n in NOTES if n["calculator"] == cid), cid
    kinds = Counter(nm["kind"] for n in NOTES for nm in n["near_misses"])
    for kind in ("number_differs", "quote_not_in_note", "missing", "true_without_quote", "other_reading"):
        assert kinds[kind], kind


# ---------------------------------------------------------------- independent gold arithmetic
CTX = Context(prec=28, rounding=ROUND_HALF_EVEN)
FACTOR = {
    "kg": Decimal(1),
    "lb": Decimal("0.45359237"),
    "lbs": Decimal("0.45359237"),
    "cm": Decimal(1),
    "m": Decimal(100),
    "in": Decimal("2.54"),
    "mg/dL": Decimal(1),
    "µmol/L": CTX.divide(Decimal(1), Decimal("88.4")),
    "g/dL": Decimal(1),
    "g/L": Decimal("0.1"),
    "mm Hg": Decimal(1),
    "mmHg": Decimal(1),
    "years": Decimal(1),
}
PLACES = {"age": 0, "weight": 1, "height": 1, "creatinine": 2, "calcium": 2, "albumin": 2}
PLACES |= {"sys_bp": 0, "dia_bp": 0}
KEYS = {
    "sex": "female",
    "hypertension history": "hypertension",
    "diabetes history": "diabetes",
    "congestive heart faliure": "chf",
    "transient ischemic attacks history": "tia",
    "systolic blood pressure": "sys_bp",
    "diastolic blood pressure": "dia_bp",
}


def _q(x: Decimal, places: int) -> Decimal:
    return x.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN)


def _inputs(entities: dict[str, Any]) -> dict[str, Decimal]:
    out: dict[str, Decimal] = {}
    for key, v in entities.items():
        attr = KEYS.get(key.lower(), key.lower())
        if attr == "female":
            out[attr] = Decimal(v == "Female")
        elif isinstance(v, bool):
            out[attr] = Decimal(v)
        else:
            raw, unit = v
            if unit == "ft in":
                x = (Decimal(str(raw[0])) * 12 + Decimal(str(raw[1]))) * Decimal("2.54")
            elif attr == "calcium" and unit == "mmol/L":
                x = Decimal(str(raw)) * Decimal("4.008")
            else:
                x = CTX.multiply(Decimal(str(raw)), FACTOR[unit])
            out[attr] = _q(x, PLACES[attr])
    return out


def hand_answer(cid: int, entities: dict[str, Any]) -> Decimal:
    """C-104 written out again in plain Decimal (not the engine's calculators)."""
    x = _inputs(entities)
    if cid in (2, 6):
        bmi = CTX.divide(x["weight"], CTX.power(CTX.divide(x["height"], Decimal(100)), 2))
        if cid == 6:
            return _q(bmi, 5)
        ibw = (Decimal("45.5") if x["female"] else Decimal(50)) + Decimal("2.3") * (
            CTX.divide(x["height"], Decimal("2.54")) - 60
        )
        if bmi < Decimal("18.5"):
            adj = x["weight"]
        elif bmi <= Decimal("24.9"):
            adj = min(ibw, x["weight"])
        else:
            adj = ibw + Decimal("0.4") * (x["weight"] - ibw)
        num = (140 - x["age"]) * adj * (Decimal("0.85") if x["female"] else 1)
        return _q(CTX.divide(num, 72 * x["creatinine"]), 5)
    if cid == 5:
        return _q(CTX.divide(2 * x["dia_bp"] + x["sys_bp"], Decimal(3)), 5)
    if cid == 7:
        return _q(x["calcium"] + Decimal("0.8") * (4 - x["albumin"]), 5)
    get = lambda k: x.get(k, Decimal(0))  # noqa: E731 - booleans not mentioned are false
    age = 2 if x["age"] >= 75 else 1 if x["age"] >= 65 else 0
    vte = 2 if get("stroke") or get("tia") or get("thromboembolism") else 0
    return Decimal(
        age
        + int(get("female") + get("chf") + get("hypertension") + get("vascular_disease") + get("diabetes"))
        + vte
    )


def test_gold_answers_recomputed_independently() -> None:
    for n in NOTES:
        assert hand_answer(n["calculator"], n["entities"]) == Decimal(n["answer"]), n["id"]
        for nm in n["near_misses"]:
            if nm["expect"] == "CERTIFIED":
                ents = changed(n, nm["changes"])["entities"]
                assert hand_answer(n["calculator"], ents) == Decimal(nm["answer"]), (n["id"], nm["kind"])


def test_boundary_notes_sit_on_their_boundaries() -> None:
    crcl = {n["id"]: n["intermediates"] for n in NOTES if n["calculator"] == 2}
    assert (crcl["n2-02"]["bmi"], crcl["n2-02"]["weight_class"]) == ("18.5", "normal")
    assert (crcl["n2-03"]["bmi"], crcl["n2-03"]["weight_class"]) == ("24.9", "normal")
    assert {c["weight_class"] for c in crcl.values()} == {"underweight", "normal", "overweight"}
    ages = {n["id"]: _inputs(n["entities"])["age"] for n in NOTES if n["calculator"] == 4}
    assert {ages["n4-01"], ages["n4-02"], ages["n4-03"]} == {Decimal(75), Decimal(65), Decimal(64)}
    assert BY_ID["n5-02"]["answer"] == "65" and BY_ID["n6-03"]["answer"] == "25"
    assert _inputs(BY_ID["n7-02"]["entities"])["albumin"] == Decimal("4.00")
    assert BY_ID["n7-05"]["answer"] == "8.5"


# ---------------------------------------------------------------- serving: all 25 certified
@pytest.mark.parametrize("nid", sorted(BY_ID))
def test_note_certified_under_native_policy(state: Any, nid: str) -> None:
    n = BY_ID[nid]
    vote = gold_vote(n)
    r = ms.serve_note(state, f"gold-{nid}", n["calculator"], n["note"], [vote, copy.deepcopy(vote)])
    assert (r.status, r.answer_kind, r.policy) == (ServeStatus.CERTIFIED, AnswerKind.COMPUTED, "native"), (
        r.abstain_reason,
        r.detail,
    )
    assert Decimal(r.answer) == Decimal(n["answer"]) == hand_answer(n["calculator"], n["entities"])
    assert m.score(r.answer, n["answer"], n["answer"], n["answer"], m.CALCS[n["calculator"]].integer)
    assert_rechecks(r.certificate, state, r.overlay)
    # every agreed attribute passed the C-103 source check against this note
    outcomes = Counter(d.outcome.value for d in r.gate_decisions)
    assert outcomes == {"SOURCE_ADMIT": len(r.agreement.keys), "CERTIFY": 1}
    for d in r.gate_decisions:
        if d.outcome.value != "SOURCE_ADMIT":
            continue
        assert d.record is not None
        assert (d.record["checker_id"], d.record["verdict"]) == (SOURCE_CHECK, "SUPPORTED")
        ev = d.record["evidence"]
        assert ev["record_sha256"] == mev.note_record(n["note"]).sha256
        if ev["spans"]:
            ((a, b),) = ev["spans"]
            assert n["note"][a:b] == ev["quote"]
        else:  # only a not-mentioned boolean may go without a quote
            assert ev["extra"].get("default") == "false"
    if n["calculator"] == 2:
        edge = next(x["edge"] for x in r.certificate["nodes"] if "edge" in x)
        assert edge["intermediates"] == n["intermediates"]


# ---------------------------------------------------------------- near misses
@pytest.mark.parametrize(
    ("nid", "i"), NEAR, ids=[f"{a}-{BY_ID[a]['near_misses'][i]['kind']}" for a, i in NEAR]
)
def test_near_miss(state: Any, nid: str, i: int) -> None:
    n = BY_ID[nid]
    nm = n["near_misses"][i]
    vote = changed(n, nm["changes"])
    r = ms.serve_note(state, f"nm-{nid}-{i}", n["calculator"], n["note"], [vote, copy.deepcopy(vote)])
    assert outcome(r) == nm["expect"], r.detail
    if r.status is ServeStatus.CERTIFIED:
        # what the source check cannot see (C-20): a certified, wrong answer
        assert Decimal(r.answer) == Decimal(nm["answer"])
        assert_rechecks(r.certificate, state, r.overlay)
    else:
        assert r.answer is None and r.certificate is None
    if "with_gold" in nm:
        r2 = ms.serve_note(state, f"nmg-{nid}-{i}", n["calculator"], n["note"], [gold_vote(n), vote])
        assert outcome(r2) == nm["with_gold"]
        if r2.certificate is not None:
            assert_rechecks(r2.certificate, state, r2.overlay)


def test_quote_not_in_note_fails_the_source_check(state: Any) -> None:
    n = BY_ID["n6-01"]
    for spec in (
        {"quote": "weight 176 pounds"},  # located nowhere: no span
        {"quote": "weight 176 pounds", "start": 17, "end": 30},  # offsets of other text
        {"quote": "Weight 176 lb", "start": 900, "end": 913},  # outside the note
    ):
        vote = gold_vote(n)
        vote["evidence"]["weight"] = spec
        r = ms.serve_note(state, f"notin-{spec.get('start')}", 6, n["note"], [vote, vote])
        assert r.abstain_reason is AbstainReason.SOURCE_CHECK_FAILED, spec
        bad = [d for d in r.gate_decisions if d.outcome.value == "REJECT"]
        assert bad and bad[0].reason == "UNSUPPORTED_BY_SOURCE"


def test_number_in_quote_must_be_the_raw_value(state: Any) -> None:
    n = BY_ID["n2-01"]  # 154 lb: the fact says 69.9 kg, the quote must show 154
    vote = gold_vote(n)
    r = ms.serve_note(state, "raw-ok", 2, n["note"], [vote, vote])
    assert r.status is ServeStatus.CERTIFIED and "f:weight(c1,69.9)" in r.agreement.keys
    assert_rechecks(r.certificate, state, r.overlay)
    vote["evidence"]["weight"] = {"quote": "Weight 154 lb", "start": 76, "end": 89}
    vote["entities"]["weight"] = [155, "lb"]  # 70.3 kg: in range, but not what the note says
    r = ms.serve_note(state, "raw-differs", 2, n["note"], [vote, vote])
    assert r.abstain_reason is AbstainReason.SOURCE_CHECK_FAILED
    assert "155" in r.detail


def test_two_votes_disagreeing_on_one_attribute_abstain(state: Any) -> None:
    n = BY_ID["n5-03"]
    other = gold_vote(n)
    other["entities"]["dia_bp"] = [79, "mm Hg"]
    r = ms.serve_note(state, "disagree", 5, n["note"], [gold_vote(n), other])
    assert r.abstain_reason is AbstainReason.NO_AGREEMENT and r.certificate is None
    assert r.votes[0].valid and r.votes[1].valid and r.votes[0].keys != r.votes[1].keys


def test_missing_required_number_abstains(state: Any) -> None:
    n = BY_ID["n2-05"]
    vote = gold_vote(n)
    del vote["entities"]["creatinine"], vote["evidence"]["creatinine"]
    r = ms.serve_note(state, "missing-scr", 2, n["note"], [vote, vote])
    assert r.abstain_reason is AbstainReason.MISSING_ATTRIBUTE


def test_boolean_true_needs_a_quote(state: Any) -> None:
    n = BY_ID["n4-04"]
    for key in ("stroke", "diabetes", "hypertension"):
        vote = gold_vote(n)
        del vote["evidence"][key]
        r = ms.serve_note(state, f"noquote-{key}", 4, n["note"], [vote, vote])
        assert r.abstain_reason is AbstainReason.SOURCE_CHECK_FAILED, key
        assert "needs a quote" in r.detail
    # false needs none (the not-mentioned default), and an explicit false with a quote is checked
    n = BY_ID["n4-02"]
    vote = gold_vote(n)
    del vote["evidence"]["diabetes"]
    r = ms.serve_note(state, "false-noquote", 4, n["note"], [vote, vote])
    assert r.answer == n["answer"]
    assert_rechecks(r.certificate, state, r.overlay)
    vote["evidence"]["diabetes"] = {"quote": "Denies diabetes mellitus"}
    r = ms.serve_note(state, "false-badquote", 4, n["note"], [vote, vote])
    assert r.abstain_reason is AbstainReason.SOURCE_CHECK_FAILED


def test_entity_maps_without_quotes_pass_only_without_a_source_check(state: Any) -> None:
    n = BY_ID["n6-03"]
    bare = {"entities": n["entities"]}
    r = ms.serve_note(state, "bare-native", 6, n["note"], [bare, bare])
    assert r.abstain_reason is AbstainReason.SOURCE_CHECK_FAILED
    r = ms.serve_note(state, "bare-agreement", 6, n["note"], [bare, bare], policy="agreement_only")
    assert r.status is ServeStatus.CERTIFIED and r.answer == "25"
    admitted = [d for d in r.gate_decisions if d.outcome.value == "SOURCE_ADMIT"]
    assert {d.record["checker_id"] for d in admitted if d.record} == {"none/1"}
    assert_rechecks(r.certificate, state, r.overlay)
    r = ms.serve_maps(state, "maps-agreement", 6, [n["entities"], n["entities"]])
    assert r.answer == "25"
    assert_rechecks(r.certificate, state, r.overlay)


def test_malformed_evidence_is_an_invalid_vote(state: Any) -> None:
    n = BY_ID["n7-01"]
    bads: list[dict[str, Any]] = [
        {"calcium": "calcium 7.6 mg/dL"},
        {"calcium": {"quote": 7.6}},
        {"calcium": {"quote": "x", "start": -1, "end": 2}},
        {"calcium": {"quote": "x", "page": 1}},
    ]
    for i, bad in enumerate(bads):
        vote = {"entities": n["entities"], "evidence": bad}
        r = ms.serve_note(state, f"malformed-{i}", 7, n["note"], [vote, vote])
        assert r.abstain_reason is AbstainReason.ALL_VOTES_INVALID, bad


# ---------------------------------------------------------------- the checker on its own
NOTE = "Pt is a 70-year-old woman, wt 154 lb (70 kg last year), ht 5'4\", creat 1.1 mg/dL, h/o CHF."
RECORDS = MemoryRecords([SourceRecord("n", "document", NOTE)])
IFACE = m.interface()


def check(pred: str, value: str, quote: str | None, **extra: Any) -> Any:
    lit = Literal(pred, False, (Const("sym", "c1"), Const("num", value)))
    spans: tuple[tuple[int, int], ...] = ()
    if quote is not None and quote in NOTE:
        at = NOTE.index(quote)
        spans = ((at, at + len(quote)),)
    return mev.NoteSpanChecker().check(Fact("u", lit), Evidence("n", spans, quote, extra), RECORDS, IFACE)


def test_checker_verdicts() -> None:
    ok = check("weight", "69.9", "wt 154 lb", raw="154", unit="lb")
    assert ok.verdict == "SUPPORTED" and ok.log["raw"] == ["154"]
    # the converted value itself is not in the quote: plain match/1 would reject it
    assert check("weight", "69.9", "wt 154 lb").verdict == "UNSUPPORTED"
    # without raw/unit the fact's own value and canonical unit must be quoted
    assert check("weight", "70", "70 kg").verdict == "SUPPORTED"
    assert check("weight", "70", "wt 154 lb", raw="154", unit="lb").verdict == "UNSUPPORTED"  # 69.9 ≠ 70
    assert check("weight", "69.9", "wt 154 lb", raw="154", unit="kg").verdict == "UNSUPPORTED"
    assert check("height", "162.6", "ht 5'4\"", raw=["5", "4"], unit="ft in").verdict == "SUPPORTED"
    assert check("height", "162.6", "ht 5'4\"", raw=["5", "5"], unit="ft in").verdict == "UNSUPPORTED"
    assert check("age", "70", "70-year-old", raw="70", unit="years").verdict == "SUPPORTED"
    assert check("female", "1", "woman").verdict == "SUPPORTED"
    assert check("female", "0", "woman").verdict == "UNSUPPORTED"
    assert check("female", "1", None).verdict == "UNSUPPORTED"
    assert check("chf", "1", "h/o CHF").verdict == "SUPPORTED"
    assert check("chf", "1", None).verdict == "UNSUPPORTED"
    assert check("diabetes", "0", None).verdict == "SUPPORTED"
    assert check("chf", "1", "history of CHF").verdict == "UNSUPPORTED"  # not in the note
    raw_float = check("creatinine", "1.1", "creat 1.1 mg/dL", raw=1.1, unit="mg/dL")
    assert raw_float.verdict == "UNSUPPORTED"  # raw values are stored as text
    assert check("bmi", "20", "1.1").verdict == "UNSUPPORTED"  # not an attribute


def test_native_config_and_reopen_registry() -> None:
    cfg = mev.calc_config()
    assert cfg.checkers.predicates["weight"] == ("schema/1", mev.CHECKER_ID)
    assert set(cfg.checkers.predicates) == set(m.ATTRS)
    assert mev.CHECKER_ID in mev.calc_checkers(cfg).ids()
    assert "cannot tell what a quoted criterion means" in mev.LIMITATION
    s = ms.calc_state()
    try:
        choice = s.config.checkers.choice(Fact("u", Literal("weight", False, ())), "query")
        assert s.checkers.resolve(choice).id == SOURCE_CHECK
    finally:
        s.close()


def test_shipped_note_text_is_plain() -> None:
    for n in NOTES:
        assert unicodedata.is_normalized("NFC", n["note"]) and n["note"].isprintable()
