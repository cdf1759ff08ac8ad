"""Serving with votes (certify.md §11; X-1 … X-5 through the grounding interface)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cotaudit.certify.proof.recheck import recheck
from cotaudit.certify.serve.agreement import agree
from cotaudit.certify.serve.serving import CostLedger, raw_answer, serve, verbalise
from cotaudit.certify.serve.votes import (
    ParserGrounder,
    ProposedFact,
    QueryInput,
    SuppliedGrounder,
    Vote,
    parse_vote_lines,
    vote_from_json,
)
from cotaudit.certify.sources.records import SourceRecord
from cotaudit.certify.state.config import CertifyConfig
from cotaudit.certify.state.query import AbstainReason, AnswerKind, ServeStatus

from ..legal import QUOTES, STORY, TARGET, legal_state

Q = QueryInput("prelim495x", STORY, TARGET, "yesno", (SourceRecord("story", "document", STORY),))


def vote_line(fact: str, quote: str | None = None) -> dict[str, object]:
    q = (
        QUOTES.get(fact, "Chen refuses without cause to conclude the main contract")
        if quote is None
        else quote
    )
    start = STORY.index(q)
    return {"fact": fact, "quote": q, "start": start, "end": start + len(q)}


def supplied(*vote_facts: list[dict[str, object]], qid: str = "prelim495x") -> SuppliedGrounder:
    lines = [
        json.dumps({"query_id": qid, "vote": i, "facts": facts, "tokens": 10 + i, "seconds": 0.5})
        for i, facts in enumerate(vote_facts)
    ]
    return SuppliedGrounder.from_lines(lines)


def four(drop: str | None = None, extra: tuple[str, ...] = ()) -> list[dict[str, object]]:
    return [vote_line(f) for f in sorted(QUOTES) if f != drop] + [vote_line(e) for e in extra]


def test_x1_golden_serving_through_votes() -> None:
    state = legal_state()
    ledger = CostLedger()
    r = serve(state, Q, supplied(four(), four()), ledger=ledger)
    assert (r.status, r.answer, r.answer_kind) == (ServeStatus.CERTIFIED, "yes", AnswerKind.DERIVED)
    assert r.certificate is not None and r.certificate["depth"] == 3
    assert [d.outcome.value for d in r.gate_decisions[:4]] == ["SOURCE_ADMIT"] * 4
    assert r.gate_decisions[-1].outcome.value == "CERTIFY"
    assert r.agreement is not None and r.agreement.supporters == [0, 1]
    assert recheck(r.certificate, state.kernel_view(), overlay=r.overlay).ok
    assert {state.units[u].status for u in r.overlay} == {"expired"}
    assert r.tokens_total == 21 and ledger.to_json()["native"]["calls"] == 2
    assert verbalise(r).startswith("Yes: is_preliminary_contract(x1) [ji_art6]")
    assert "timings" not in r.to_json() and "timings" in r.to_json(timings=True)


def test_x2_injected_target_abstain_drop_and_raw() -> None:
    votes = supplied(four(extra=(TARGET,)), four(extra=(TARGET,)))
    r = serve(legal_state(), Q, votes)
    assert r.status is ServeStatus.ABSTAINED and r.abstain_reason is AbstainReason.ADMISSION_REJECTED
    assert any(d.reason == "PREDICATE_NOT_IN_WHITELIST" for d in r.gate_decisions)
    r = serve(legal_state(), Q, votes, on_reject="drop")
    assert (r.status, r.answer) == (ServeStatus.CERTIFIED, "yes") and "barrier_drop" in r.flags
    neg = supplied(*[four(drop="agrees_future_conclusion(x1)", extra=(TARGET,))] * 2)
    r = serve(legal_state(), Q, neg, on_reject="drop")
    assert (r.status, r.answer, r.answer_kind) == (ServeStatus.CERTIFIED, "no", AnswerKind.NOT_DERIVED)
    raw = raw_answer(legal_state(), Q, neg)
    assert raw.answer == "yes" and TARGET.replace(" ", "") in raw.accepted_writes


def test_x3_disagreement_and_fallback() -> None:
    votes = supplied(four(), four(drop="determinable_parties_and_subject(x1)"))
    state = legal_state()
    before = len(state.units)
    r = serve(state, Q, votes)
    assert (r.status, r.abstain_reason) == (ServeStatus.ABSTAINED, AbstainReason.NO_AGREEMENT)
    assert len(state.units) == before  # no facts admitted
    r = serve(legal_state(), Q, votes, fallback=lambda q: "yes")
    assert r.status is ServeStatus.UNCERTIFIED_FALLBACK
    assert (r.fallback_answer, r.answer, r.certificate) == ("yes", None, None)
    assert r.abstain_reason is AbstainReason.NO_AGREEMENT and r.to_json()["uncertified"] is True
    assert verbalise(r).startswith("Uncertified: NO_AGREEMENT")


def test_x4_mid_link_break_is_certified_no() -> None:
    votes = supplied(*[four(drop="agrees_future_conclusion(x1)")] * 2)
    state = legal_state()
    r = serve(state, Q, votes)
    assert (r.status, r.answer, r.answer_kind) == (ServeStatus.CERTIFIED, "no", AnswerKind.NOT_DERIVED)
    assert r.certificate is not None and r.certificate["flags"] == ["closed_world"]
    assert r.certificate["model_size"] == 3
    assert recheck(r.certificate, state.kernel_view(), overlay=r.overlay).ok


def test_x5_source_check_fails() -> None:
    bad = [vote_line(f) for f in sorted(QUOTES) if not f.startswith("refuses")]
    bad.append(
        {"fact": "refuses_to_conclude_main_contract(p1, x1)", "quote": "Chen declines the deadline extension"}
    )
    r = serve(legal_state(), Q, supplied(bad, bad))
    assert (r.status, r.abstain_reason) == (ServeStatus.ABSTAINED, AbstainReason.SOURCE_CHECK_FAILED)
    # near miss: the ablation policy without a source checker admits it (and logs none/1)
    r = serve(legal_state(), Q, supplied(bad, bad), policy="agreement_only")
    assert (r.status, r.answer) == (ServeStatus.CERTIFIED, "yes")


def test_strict_majority_over_all_k_votes_and_invalid_votes() -> None:
    good = Vote((ProposedFact("a(x)"),))
    other = Vote((ProposedFact("b(x)"),))
    bad = Vote(None, "parse failure: junk")
    assert agree([good, good], 2)[0].reason is None
    assert agree([good, bad], 2)[0].reason is AbstainReason.NO_AGREEMENT  # 1 of 2 is no majority
    assert agree([good, good, bad], 3)[0].reason is None  # 2 of 3 is
    assert agree([good, other, bad], 3)[0].reason is AbstainReason.NO_AGREEMENT
    assert agree([bad, bad], 2)[0].reason is AbstainReason.ALL_VOTES_INVALID
    assert agree([good], 1)[0].keys == ["f:a(x)"]  # k = 1 ablation
    # order and duplicates do not matter: canonical keys are compared
    dup = Vote((ProposedFact("b(x)"), ProposedFact("a( x )"), ProposedFact("a(x)")))
    both = Vote((ProposedFact("a(x)"), ProposedFact("b(x)")))
    assert agree([dup, both], 2)[0].keys == ["f:a(x)", "f:b(x)"]
    assert agree([Vote((ProposedFact("a(("),)), good], 2)[0].reason is AbstainReason.NO_AGREEMENT


def test_all_votes_invalid_and_grounder_error() -> None:
    lines = [json.dumps({"query_id": "prelim495x", "vote": i, "raw": "not json"}) for i in range(2)]
    r = serve(legal_state(), Q, SuppliedGrounder.from_lines(lines))
    assert r.abstain_reason is AbstainReason.ALL_VOTES_INVALID
    assert all(not v.valid and "parse failure" in (v.error or "") for v in r.votes)

    class Broken:
        id = "broken"

        def ground(self, q: object, interface: object, vote: int) -> Vote:
            raise ConnectionError("backend down")

    r = serve(legal_state(), Q, Broken())
    assert (r.status, r.abstain_reason) == (ServeStatus.ABSTAINED, AbstainReason.GROUNDER_ERROR)
    assert "backend down" in r.detail
    # missing recorded votes are invalid votes, never invented
    r = serve(legal_state(), QueryInput("other", STORY, TARGET, "yesno", Q.records), supplied(four(), four()))
    assert r.abstain_reason is AbstainReason.ALL_VOTES_INVALID


def test_answers_mode_majority_of_certified_answers() -> None:
    state = legal_state(CertifyConfig(agreement="answers", votes=3))
    votes = supplied(four(), four(drop="agrees_future_conclusion(x1)"), four())
    r = serve(state, Q, votes)
    # native takes k from the config (3 here): 2 of 3 votes certify yes
    assert r.status is ServeStatus.CERTIFIED and r.answer == "yes"
    state = legal_state(CertifyConfig(agreement="answers"))
    r = serve(state, Q, supplied(four(), four(drop="agrees_future_conclusion(x1)")))
    assert r.abstain_reason is AbstainReason.NO_AGREEMENT  # yes vs no: a tie abstains


def test_kernel_only_query_needs_no_grounder() -> None:
    r = serve(legal_state(), QueryInput("k1", None, "is_preliminary_contract(x1)"))
    assert (r.status, r.answer) == (ServeStatus.CERTIFIED, "no")


def test_vote_format_is_strict() -> None:
    assert parse_vote_lines('{"fact": "a(x)", "quote": "q", "start": 0, "end": 1}\n')[0].literal == "a(x)"
    for bad in ('{"fact": 3}', "[1]", '{"fact": "a", "start": -1, "end": 2}', '{"fact": "a", "x": 1}', "x"):
        with pytest.raises(ValueError):
            parse_vote_lines(bad)
    assert not vote_from_json({"raw": '{"fact": 1}'}).valid
    assert not vote_from_json([1]).valid
    with pytest.raises(ValueError, match="duplicate vote"):
        SuppliedGrounder.from_lines(['{"query_id": "a", "vote": 0, "facts": []}'] * 2)
    with pytest.raises(ValueError, match="query_id"):
        SuppliedGrounder.from_lines(['{"vote": 0}'])


def test_parser_grounder_is_deterministic() -> None:
    g = ParserGrounder(lambda q: [ProposedFact(f["fact"], None) for f in four()])  # type: ignore[index]
    assert g.ground(Q, None, 0) == g.ground(Q, None, 1)  # type: ignore[arg-type]


def test_every_abstain_reason_has_its_own_stable_code() -> None:
    from cotaudit.certify.kb.codemap import ABSTAIN_CODES, FALLBACK_CODE, abstain_code
    from cotaudit.codes import lookup

    assert {r.value for r in AbstainReason} == set(ABSTAIN_CODES)
    assert len(set(ABSTAIN_CODES.values())) == len(ABSTAIN_CODES)
    assert abstain_code("NO_AGREEMENT").name == "abstain-no-agreement"
    assert abstain_code("GROUNDER_ERROR").code == "CERTIFY_W011"
    assert lookup(FALLBACK_CODE).name == "uncertified-fallback"


def test_x1_served_certificate_is_byte_equal_to_the_golden_one() -> None:
    from pathlib import Path

    from cotaudit.certify.proof.format import dumps

    golden = json.loads(
        (Path(__file__).resolve().parents[3] / "examples/certify/legal_prelim.cert.json").read_text(
            encoding="utf-8"
        )
    )["certificate"]
    r = serve(legal_state(), Q, supplied(four(), four()))
    assert r.certificate is not None and dumps(r.certificate) == dumps(golden)


def test_a_reused_query_id_is_a_clear_error() -> None:
    state = legal_state()
    serve(state, Q, supplied(four(), four()))
    with pytest.raises(ValueError, match="already served"):
        serve(state, Q, supplied(four(), four()))


_atoms = st.from_regex(
    r"[a-z][a-z0-9_]{0,6}|-?(0|[1-9][0-9]{0,3})(\.[0-9]{1,3})?|[A-Z][a-z]?|#sk[0-9]", fullmatch=True
)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["", "-"]),
    st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True),
    st.lists(_atoms, max_size=4),
    st.sampled_from(["", " ", "  "]),
    st.sampled_from(["", ".", "]", "("]),
)
def test_parse_literal_fast_path_equals_lark(
    neg: str, pred: str, args: list[str], ws: str, tail: str
) -> None:
    from cotaudit.certify.core.errors import ProgramError
    from cotaudit.certify.lang.parse import parse_literal

    text = f"{neg}{pred}" + (f"({(',' + ws).join(args)})" if args else "") + tail
    results = []
    for fast in (True, False):
        try:
            results.append(parse_literal(text, fast=fast, skolem=True))
        except ProgramError as exc:
            results.append(exc.reason)
    assert results[0] == results[1], text
