"""C-37 … C-44: the gate in source and derived mode, its order and its reason codes (X-1 … X-9)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cotaudit.certify.gate.decision import Outcome
from cotaudit.certify.gate.derived import derived
from cotaudit.certify.gate.extract import extract_derivation
from cotaudit.certify.interface.model import simple_interface
from cotaudit.certify.lang.parse import parse_literal
from cotaudit.certify.proof.recheck import recheck
from cotaudit.certify.sources.records import CheckerConfig, CheckResult, Evidence, SourceRecord
from cotaudit.certify.state.config import CertifyConfig
from cotaudit.certify.state.query import AbstainReason, AnswerKind, ServeStatus

from ..legal import QUOTES, RULES, TARGET, fact, legal_state, votes
from ..support import assert_rechecks, clock, new_state


def test_x1_legal_golden() -> None:
    state = legal_state()
    r = state.query(TARGET, facts=votes())
    assert [d.outcome for d in r.gate_decisions[:4]] == [Outcome.SOURCE_ADMIT] * 4
    assert r.gate_decisions[4].outcome is Outcome.CERTIFY
    assert (r.status, r.answer, r.answer_kind) == (ServeStatus.CERTIFIED, "yes", AnswerKind.DERIVED)
    cert = r.certificate
    assert cert is not None and cert["depth"] == 3 and cert["deps"] == [1, 2, 3, 4, 5, 6, 7]
    assert [n["leaf"]["scope"] for n in cert["nodes"][:4]] == ["query"] * 4
    assert_rechecks(cert, state, r.overlay)
    assert [state.units[u].status for u in (4, 5, 6, 7)] == ["expired"] * 4
    assert r.cache.get("cached") is None  # not a kernel-only conclusion: no cache event


def test_x2_injected_target_is_rejected_at_the_barrier() -> None:
    state = legal_state()
    r = state.query(TARGET, facts=votes(extra=(TARGET,)))
    bad = r.gate_decisions[4]
    assert (bad.outcome, bad.reason) == (Outcome.REJECT, "PREDICATE_NOT_IN_WHITELIST")
    assert (r.status, r.abstain_reason) == (ServeStatus.ABSTAINED, AbstainReason.ADMISSION_REJECTED)
    drop = state.query(TARGET, facts=votes(extra=(TARGET,)), on_reject="drop")
    assert (drop.status, drop.answer, drop.flags) == (ServeStatus.CERTIFIED, "yes", ["barrier_drop"])
    assert drop.certificate is not None
    assert_rechecks(drop.certificate, state, drop.overlay)
    neg = state.query(
        TARGET, facts=votes(drop="agrees_future_conclusion(x1)", extra=(TARGET,)), on_reject="drop"
    )
    assert (neg.answer, neg.answer_kind) == ("no", AnswerKind.NOT_DERIVED)
    assert neg.certificate is not None
    assert_rechecks(neg.certificate, state, neg.overlay)


def test_x4_mid_link_break_is_a_certified_no() -> None:
    state = legal_state()
    r = state.query(TARGET, facts=votes(drop="agrees_future_conclusion(x1)"))
    assert (r.status, r.answer, r.answer_kind) == (ServeStatus.CERTIFIED, "no", AnswerKind.NOT_DERIVED)
    cert = r.certificate
    assert (
        cert is not None
        and cert["kind"] == "closure"
        and cert["flags"] == ["closed_world"]
        and cert["model_size"] == 3
    )
    assert_rechecks(cert, state, r.overlay)


def test_x5_quote_not_in_the_story() -> None:
    state = legal_state()
    facts = votes(drop="refuses_to_conclude_main_contract(p1, x1)")
    facts.append(fact("refuses_to_conclude_main_contract(p1, x1)", "Chen declines the deadline extension"))
    r = state.query(TARGET, facts=facts)
    assert r.gate_decisions[-1].reason == "UNSUPPORTED_BY_SOURCE"
    assert (r.status, r.abstain_reason) == (ServeStatus.ABSTAINED, AbstainReason.SOURCE_CHECK_FAILED)


def test_x6_rule_head_in_the_whitelist() -> None:
    state = legal_state()
    bad = RULES.splitlines()[4]
    d = state.admit(bad, Evidence("rules"), writer="deploy")
    assert (d.outcome, d.reason) == (Outcome.REJECT, "HEAD_IN_WHITELIST")
    d = state.admit(bad, Evidence("rules"), writer="grounder")
    assert (d.outcome, d.reason) == (Outcome.REJECT, "RULE_WRITE_FORBIDDEN")
    from cotaudit.certify.core.errors import WhitelistViolation
    from cotaudit.certify.interface.model import load_program
    from cotaudit.certify.lang.parse import parse_program

    with pytest.raises(WhitelistViolation) as err:
        load_program(parse_program(RULES), state.interface)
    assert err.value.labels == ("bad",)


def test_x7_unsafe_rule() -> None:
    state = legal_state()
    d = state.admit(
        "[u1] may_claim_preliminary_breach_liability(P, X) :- is_preliminary_contract(X).", Evidence("rules")
    )
    assert (d.outcome, d.reason) == (Outcome.REJECT, "UNSAFE_RULE")
    assert d.detail["variables"] == ["P"]


def test_x8_model_derivations() -> None:
    state = legal_state()
    r = state.query(TARGET, facts=votes())
    rules = {
        row.unit.label: (row.unit_id, row.unit) for row in state.units.values() if row.unit.kind == "rule"
    }
    lit = parse_literal(TARGET)
    skip = (
        "1. is_preliminary_contract(x1) <- [ji_art6] subscription_order_or_booking_form(x1), agrees_future_conclusion(x1), determinable_parties_and_subject(x1)\n"
        "2. may_claim_preliminary_breach_liability(p1, x1) <- [art495] #1, refuses_to_conclude_main_contract(p1, x1)\n"
    )
    d = derived(lit, extract_derivation(skip, rules), kernel=state.kernel_view(), overlay=r.overlay)
    assert (d.outcome, d.reason, d.detail["line"], d.detail["sub_code"]) == (
        Outcome.REJECT,
        "UNVERIFIABLE_EDGE",
        2,
        "BODY_MISMATCH",
    )
    full = (
        "1. is_preliminary_contract(x1) <- [ji_art6] subscription_order_or_booking_form(x1), agrees_future_conclusion(x1), determinable_parties_and_subject(x1)\n"
        "2. fails_conclusion_duty(p1, x1) <- [ji_art7] #1, refuses_to_conclude_main_contract(p1, x1)\n"
        "3. may_claim_preliminary_breach_liability(p1, x1) <- [art495] #1, #2\n"
    )
    d = derived(
        lit,
        extract_derivation(full, rules),
        kernel=state.kernel_view(),
        overlay=r.overlay,
        leaf_info=state.leaf_info(),
    )
    assert d.outcome is Outcome.CERTIFY and d.record is not None and d.record["depth"] == 3
    cert = d.record["certificate"]
    assert recheck(cert, state.kernel_view(), overlay=r.overlay).ok
    assert r.certificate is not None and cert["nodes"] == r.certificate["nodes"]  # same canonical certificate
    assert_rechecks(r.certificate, state, r.overlay)


def test_x9_redundant_restatement_and_duplicate() -> None:
    state = legal_state()
    version = state.version
    d = state.admit(RULES.splitlines()[3], Evidence("rules"))
    assert d.outcome is Outcome.REDUNDANT and state.version == version
    assert state.units[d.detail["unit_id"]].kstatus == "J"
    d = state.admit(RULES.splitlines()[2], Evidence("rules"))
    assert d.outcome is Outcome.REDUNDANT and d.detail["duplicate_of"] == 3 and state.version == version


def test_x19_strong_negation_conflict() -> None:
    iface = simple_interface({"kind_src": 1, "kind": 1}, ["kind_src"], negation="strong")
    state = new_state(iface, "kind_src(bob).\n", corpus="kind_src(bob).\n-kind_src(bob).\n")
    before = state.dump()
    d = state.admit("-kind_src(bob).", Evidence("src"))
    assert (d.outcome, d.reason) == (Outcome.REJECT, "CONTRADICTS_KERNEL")
    after = state.dump()
    assert after["units"] == before["units"] and after["kernel_versions"] == before["kernel_versions"]


class _Broken:
    id = "broken/1"
    version = "1"
    inline = True

    def check(self, *args: Any) -> CheckResult:
        raise RuntimeError("boom")


def test_each_source_reason_fires() -> None:
    iface = simple_interface({"p": 1, "q": 1, "h": 1}, ["p", "q"])
    corpus = "p(a).\nq(a).\nh(X) :- p(X).\n"
    state = new_state(iface, "p(a).\n", corpus=corpus)
    cases = {
        "PARSE_ERROR": ("p(a", "deploy"),
        "UNSAFE_RULE": ("h(X) :- p(Y).", "deploy"),
        "UNKNOWN_PREDICATE": ("z(a).", "deploy"),
        "ARITY_MISMATCH": ("p(a, b).", "deploy"),
        "NEGATION_NOT_ENABLED": ("-p(a).", "deploy"),
        "RULE_WRITE_FORBIDDEN": ("h(X) :- p(X).", "grounder"),
        "PREDICATE_NOT_IN_WHITELIST": ("h(a).", "grounder"),
        "HEAD_IN_WHITELIST": ("p(X) :- q(X).", "deploy"),
        "UNSUPPORTED_BY_SOURCE": ("q(b).", "deploy"),
    }
    for reason, (text, writer) in cases.items():
        d = state.admit(text, Evidence("src"), writer=writer)
        assert (d.outcome, d.reason) == (Outcome.REJECT, reason), text
    naf = new_state(
        simple_interface({"p": 1, "q": 1}, ["p"], negation="naf"),
        "p(a).\n",
        corpus="p(a).\n[r] q(X) :- p(X), not q(X).\n",
    )
    d = naf.admit("[r] q(X) :- p(X), not q(X).", Evidence("src"))
    assert d.reason == "UNSTRATIFIED"
    typed = legal_state()
    d = typed.admit("refuses_to_conclude_main_contract(x1, x1).", Evidence("story", ((0, 4),)))
    assert d.reason == "ROLE_MISMATCH"
    cfg = CertifyConfig(checkers=CheckerConfig(kernel="broken/1"))
    broken = new_state(iface, config=cfg)
    broken.checkers.register(_Broken())  # type: ignore[arg-type]
    broken.add_record(SourceRecord("src", "facts", "p(a)."))
    assert broken.admit("p(a).", Evidence("src")).reason == "CHECKER_ERROR"
    assert broken.admit("p(a).", None).reason == "CHECKER_ERROR"
    unknown = new_state(iface, config=CertifyConfig(checkers=CheckerConfig(kernel="nope/1")))
    assert unknown.admit("p(a).", None).reason == "CHECKER_ERROR"


def test_source_reason_near_misses_are_admitted() -> None:
    """The smallest edits of the firing cases above pass the gate."""
    iface = simple_interface({"p": 1, "q": 1, "h": 1}, ["p", "q"])
    corpus = "p(a).\nq(a).\nh(X) :- p(X).\n"
    state = new_state(iface, "p(a).\n", corpus=corpus)
    cases = [
        (
            "q(a).",
            "deploy",
            Outcome.SOURCE_ADMIT,
        ),  # PARSE_ERROR, UNKNOWN_PREDICATE, ARITY, NEGATION, UNSUPPORTED
        (
            "h(X) :- p(X).",
            "deploy",
            Outcome.SOURCE_ADMIT,
        ),  # UNSAFE_RULE, RULE_WRITE_FORBIDDEN, HEAD_IN_WHITELIST
        ("q(a).", "grounder", Outcome.REDUNDANT),  # PREDICATE_NOT_IN_WHITELIST (a duplicate, still admitted)
    ]
    for text, writer, outcome in cases:
        d = state.admit(text, Evidence("src"), writer=writer)
        assert (d.outcome, d.reason) == (outcome, None), text
    typed = legal_state()
    d = typed.admit("refuses_to_conclude_main_contract(p1, x1).", Evidence("story", ((0, 4),)))
    assert d.reason != "ROLE_MISMATCH"  # the roles fit (the span is then judged by the checker)
    naf = new_state(
        simple_interface({"p": 1, "q": 1, "s": 1}, ["p"], negation="naf"),
        "p(a).\n",
        corpus="p(a).\n[r] q(X) :- p(X), not s(X).\n",
    )
    assert naf.admit("[r] q(X) :- p(X), not s(X).", Evidence("src")).outcome is Outcome.SOURCE_ADMIT


def test_derived_mode_reasons() -> None:
    state = legal_state()
    r = state.query(TARGET, facts=votes())
    assert r.certificate is not None
    assert_rechecks(r.certificate, state, r.overlay)
    lit = parse_literal(TARGET)
    kv = state.kernel_view()

    def decide(cand: Any, **kw: Any) -> Any:
        kw.setdefault("overlay", r.overlay)
        return derived(lit, cand, kernel=kv, **kw)

    import copy

    c = copy.deepcopy(r.certificate)
    assert decide(c, delta=2).reason == "DEPTH_BUDGET_EXCEEDED"
    assert decide("junk").reason == "MALFORMED_DERIVATION"
    c = copy.deepcopy(r.certificate)
    c["nodes"][6]["edge"]["premises"] = [5, 6]
    assert decide(c).reason == "CYCLIC"
    c = copy.deepcopy(r.certificate)
    c["nodes"][6]["edge"]["premises"] = [5, 40]
    assert decide(c).reason == "UNLINKED_CONCLUSION"
    c = copy.deepcopy(r.certificate)
    c["root"] = 5
    assert decide(c).reason == "ROOT_MISMATCH"
    assert (
        derived(
            parse_literal("fails_conclusion_duty(p1,x1)"), r.certificate, kernel=kv, overlay=r.overlay
        ).reason
        == "ROOT_MISMATCH"
    )
    assert decide(r.certificate, overlay={}).reason == "UNSUPPORTED_LEAF"
    c = copy.deepcopy(r.certificate)
    c["nodes"][5]["edge"]["subst"] = {"V0": "p2", "V1": "x1"}
    d = decide(c)
    assert (d.reason, d.detail["sub_code"]) == ("UNVERIFIABLE_EDGE", "HEAD_MISMATCH")
    c = copy.deepcopy(r.certificate)
    c["deps"] = [1]
    assert decide(c).reason == "MALFORMED_DERIVATION"  # recheck-only codes (deps/hash)
    assert decide(r.certificate).outcome is Outcome.CERTIFY


# ---------------------------------------------------------------------- C-44 property tests

OUTSIDE = st.sampled_from(
    [
        "is_preliminary_contract(x1)",
        "fails_conclusion_duty(p1, x1)",
        TARGET,
        "may_claim_preliminary_breach_liability(p2, x3)",
    ]
)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.lists(OUTSIDE, min_size=1, max_size=3))
def test_grounder_writes_outside_omega_are_always_rejected(atoms: list[str]) -> None:
    state = legal_state()
    before = state.dump()
    for atom in atoms:
        d = state.admit(atom, Evidence("story", ((0, 4),)), writer="grounder")
        assert (d.outcome, d.reason) == (Outcome.REJECT, "PREDICATE_NOT_IN_WHITELIST")
    after = state.dump()
    for table in ("units", "evidence", "kernel_versions", "cache", "certificates"):
        assert after[table] == before[table]
    r = state.query(TARGET, facts=[fact(t) for t in sorted(QUOTES)])
    assert r.answer == "yes" and r.certificate is not None
    assert_rechecks(r.certificate, state, r.overlay)
    from cotaudit.certify.proof.naive import naive_evaluate

    model = naive_evaluate(
        [u for _, u in sorted(state.kernel_view().units.items())], list(r.overlay.values())
    )
    assert model.contains(parse_literal(TARGET))


def test_the_clock_is_injected() -> None:
    state = legal_state()
    assert {row[1] for row in state.dump()["log"]} == {clock()}
