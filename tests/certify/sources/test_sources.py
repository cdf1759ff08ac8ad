"""C-15 … C-20: source records, evidence and the built-in and pluggable checkers."""

from __future__ import annotations

import time
from typing import Any

from cotaudit.certify.interface.load import load_interface
from cotaudit.certify.lang.parse import parse_literal, parse_unit
from cotaudit.certify.sources.checkers import (
    AllOf,
    CheckerRegistry,
    LLMRecheckChecker,
    LLMReply,
    MatchChecker,
    SchemaChecker,
    normalise,
    verbalise,
)
from cotaudit.certify.sources.records import CheckResult, Evidence, MemoryRecords, SourceRecord, run_checker

from ..legal import STORY, interface

RECS = MemoryRecords(
    [
        SourceRecord("story", "document", STORY),
        SourceRecord(
            "facts", "facts", "refuses_to_conclude_main_contract(chen, x1).\nagrees_future_conclusion(x1).\n"
        ),
        SourceRecord(
            "rules",
            "rules",
            "[ji_art6] is_preliminary_contract(X) :- subscription_order_or_booking_form(X).\n",
        ),
        SourceRecord("bad", "rules", "this is not a program"),
    ]
)
IFACE = interface()


def span(quote: str) -> Evidence:
    at = STORY.find(quote)
    assert at >= 0
    return Evidence("story", ((at, at + len(quote)),), quote)


def m(unit: str, ev: Evidence) -> CheckResult:
    return MatchChecker().check(parse_unit(unit), ev, RECS, IFACE)


def test_normalise_and_verbalise() -> None:
    assert normalise("  Ｒefuses__to-conclude\tMAIN ") == "refuses to conclude main"
    lit = parse_literal("refuses_to_conclude_main_contract(p1, x1)")
    assert verbalise(lit, IFACE) == "refuses to conclude main contract: Chen, subscription form (ren'gou shu)"
    assert verbalise(parse_literal("-kind(bob)")) == "not (kind: bob)"


def test_match_span_mode() -> None:
    ok = m(
        "refuses_to_conclude_main_contract(p1, x1).",
        span("Chen refuses without cause to conclude the main contract"),
    )
    assert ok.verdict == "SUPPORTED"
    assert m("refuses_to_conclude_main_contract(p1, x1).", span("Chen refuses")).verdict == "SUPPORTED"
    no_anchor = m("refuses_to_conclude_main_contract(p1, x1).", span("Chen and Zhou sign"))
    assert no_anchor.verdict == "UNSUPPORTED" and "anchor" in no_anchor.reason
    wrong_party = m("refuses_to_conclude_main_contract(p2, x1).", span("Chen refuses without cause"))
    assert wrong_party.verdict == "UNSUPPORTED" and "Zhou" in wrong_party.reason  # Zhou is not named nearby
    far = Evidence("story", ((0, 4),), "Chen")
    assert m("agrees_future_conclusion(x1).", far).verdict == "SUPPORTED"
    assert m("agrees_future_conclusion(x1).", Evidence("story", ((0, 4),), "Zhou")).verdict == "UNSUPPORTED"
    assert m("agrees_future_conclusion(x1).", Evidence("story", ((0, 10**6),), None)).verdict == "UNSUPPORTED"
    assert m("agrees_future_conclusion(x1).", Evidence("story", (), "x")).verdict == "UNSUPPORTED"
    assert m("agrees_future_conclusion(x1).", Evidence(None)).verdict == "UNSUPPORTED"
    assert m("agrees_future_conclusion(x1).", Evidence("nope")).verdict == "UNSUPPORTED"
    rule = m("is_preliminary_contract(X) :- agrees_future_conclusion(X).", span("Chen refuses"))
    assert rule.verdict == "UNSUPPORTED"


def test_match_numbers_must_appear_in_the_quote() -> None:
    iface = load_interface(
        '{"format": "cotaudit.certify.interface/1", "roles": {"n": {"type": "decimal"}, "c": {"type": "symbol"}}, '
        '"predicates": {"weight": {"args": ["c", "n"]}}, "source_whitelist": ["weight"]}'
    )
    recs = MemoryRecords([SourceRecord("note", "document", "The patient weighs 70.0 kg.")])
    ev = Evidence("note", ((0, 27),), None)
    assert MatchChecker().check(parse_unit("weight(c1, 70)."), ev, recs, iface).verdict == "SUPPORTED"
    assert MatchChecker().check(parse_unit("weight(c1, 71)."), ev, recs, iface).verdict == "UNSUPPORTED"


def test_match_record_mode() -> None:
    assert m("agrees_future_conclusion(x1).", Evidence("facts")).verdict == "SUPPORTED"
    aliased = m("refuses_to_conclude_main_contract(p1, x1).", Evidence("facts"))
    assert aliased.verdict == "SUPPORTED" and aliased.reason == "match after normalisation"
    assert m("refuses_to_conclude_main_contract(p2, x1).", Evidence("facts")).verdict == "UNSUPPORTED"
    rule = "[ji_art6] is_preliminary_contract(Y) :- subscription_order_or_booking_form(Y)."
    assert m(rule, Evidence("rules")).verdict == "SUPPORTED"
    assert (
        m(
            "[other] is_preliminary_contract(Y) :- subscription_order_or_booking_form(Y).", Evidence("rules")
        ).verdict
        == "UNSUPPORTED"
    )
    assert (
        m(
            "[other] is_preliminary_contract(Y) :- subscription_order_or_booking_form(Y).",
            Evidence("rules", extra={"label": "ji_art6"}),
        ).verdict
        == "SUPPORTED"
    )
    assert (
        m("[ji_art6] is_preliminary_contract(Y) :- agrees_future_conclusion(Y).", Evidence("rules")).verdict
        == "UNSUPPORTED"
    )
    assert m("agrees_future_conclusion(x1).", Evidence("bad")).verdict == "ERROR"


def test_schema_checker_units() -> None:
    iface = load_interface(
        '{"format": "cotaudit.certify.interface/1", "roles": {"kg": {"type": "decimal", "unit": "kg", "min": 1, "max": 500}, '
        '"c": {"type": "symbol"}}, "predicates": {"weight": {"args": ["c", "kg"]}}, "source_whitelist": ["weight"]}'
    )
    s = SchemaChecker()
    u = parse_unit("weight(c1, 70).")
    assert s.check(u, Evidence(None, extra={"units": {"2": "lb"}}), RECS, iface).verdict == "SUPPORTED"
    assert s.check(u, Evidence(None, extra={"units": {"2": "cm"}}), RECS, iface).verdict == "UNSUPPORTED"
    assert s.check(parse_unit("weight(c1, 900)."), Evidence(None), RECS, iface).verdict == "UNSUPPORTED"


def test_llm_recheck_with_a_fake_model() -> None:
    prompts: list[str] = []

    def fake(reply: str) -> Any:
        def ask(prompt: str) -> LLMReply:
            prompts.append(prompt)
            return LLMReply(reply, "fake-model", 7)

        return ask

    unit = parse_unit("refuses_to_conclude_main_contract(p1, x1).")
    ev = span("Chen refuses")
    holds = LLMRecheckChecker(fake("holds")).check(unit, ev, RECS, IFACE)
    assert holds.verdict == "SUPPORTED" and holds.log["model"] == "fake-model" and holds.cost["tokens"] == 7
    assert "refuses to conclude main contract: Chen" in prompts[0] and STORY in prompts[0]
    for word in ("does_not_hold", "unclear", "maybe yes"):
        assert LLMRecheckChecker(fake(word)).check(unit, ev, RECS, IFACE).verdict == "UNSUPPORTED"
    checker = LLMRecheckChecker(fake("holds"))
    assert checker.version.startswith("1+") and len(checker.version) == 10 and checker.inline is False

    def boom(prompt: str) -> LLMReply:
        raise ConnectionError("no network")

    assert run_checker(LLMRecheckChecker(boom), unit, ev, RECS, IFACE).verdict == "ERROR"


class Slow:
    id = "slow/1"
    version = "1"
    inline = False

    def check(self, *args: Any) -> CheckResult:
        time.sleep(2)
        return CheckResult("SUPPORTED")


def test_timeouts_and_all_of() -> None:
    unit = parse_unit("agrees_future_conclusion(x1).")
    r = run_checker(Slow(), unit, Evidence("facts"), RECS, IFACE, timeout_s=0.1)
    assert r.verdict == "ERROR" and "timed out" in r.reason
    both = AllOf([MatchChecker(), SchemaChecker()])
    ok = both.check(unit, Evidence("facts"), RECS, IFACE)
    assert ok.verdict == "SUPPORTED" and [v["checker"] for v in ok.log["verdicts"]] == ["match/1", "schema/1"]
    bad = both.check(parse_unit("agrees_future_conclusion(x2)."), Evidence("facts"), RECS, IFACE)
    assert bad.verdict == "UNSUPPORTED"
    reg = CheckerRegistry()
    assert (
        reg.resolve(["match/1"]).id == "match/1"
        and reg.resolve(["match/1", "schema/1"]).id == "all_of(match/1,schema/1)"
    )


def test_evidence_hash_and_json() -> None:
    ev = span("Chen refuses")
    assert Evidence.from_json(ev.to_json()) == ev and len(ev.sha256) == 64
    assert SourceRecord("a", "document", "x").sha256 == SourceRecord("b", "document", "x").sha256
