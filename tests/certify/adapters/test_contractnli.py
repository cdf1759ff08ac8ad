"""The ContractNLI adapter (issue 6): 17 hypotheses as schema predicates over clause spans,
structured grounding votes, the model recheck, and the eval command without a model.

The model-backed runs replay real recordings in tests/frontends/test_replay.py (set
``certify_cnli``); here the model is a scripted backend whose answers are written by hand.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from cotaudit.certify.adapters import contractnli as cnli
from cotaudit.certify.lang.parse import parse_literal
from cotaudit.certify.lang.syntax import Fact
from cotaudit.certify.serve.serving import serve
from cotaudit.certify.serve.votes import ProposedFact, SuppliedGrounder
from cotaudit.certify.sources.checkers import LLMReply
from cotaudit.certify.sources.records import CheckerConfig, MemoryRecords
from cotaudit.certify.state.config import CertifyConfig
from cotaudit.certify.state.history import recheck_all
from cotaudit.certify.state.query import AbstainReason, ServeStatus
from cotaudit.cli import main
from cotaudit.eval.certify_contractnli import evaluate
from cotaudit.frontends.certify_llm import ContractNLIGrounder, LLMGrounder, recheck_ask, select_clauses
from cotaudit.llm.client import LLMClient
from cotaudit.llm.mock import ScriptedBackend

DATA = Path(os.environ.get("COTAUDIT_DATA", Path(__file__).resolve().parents[4] / "shared" / "data"))
DEV = DATA / "contractnli" / "dev.json"
needs_data = pytest.mark.skipif(not DEV.is_file(), reason=f"ContractNLI data not found at {DEV}")

TEXT = (
    "1. The Recipient shall not reverse engineer, decompile or disassemble any prototypes. "
    "2. Confidential Information may be disclosed orally or in writing. "
    "3. The Recipient may not make any copies of Confidential Information."
)
SPANS = ((0, 85), (86, 152), (153, len(TEXT)))


def _hyps() -> list[cnli.Hypothesis]:
    texts = {
        "nda-11": "Receiving Party shall not reverse engineer any objects which embody Disclosing Party's "
        "Confidential Information.",
        "nda-3": "Confidential Information may include verbally conveyed information.",
        "nda-17": "Receiving Party may create a copy of some Confidential Information in some circumstances.",
    }
    return [cnli.Hypothesis(k, cnli.SLUGS[k], texts.get(k, f"hypothesis {k}"), k) for k in cnli.SLUGS]


def _doc(labels: dict[str, str] | None = None) -> cnli.Document:
    lab = {k: "NotMentioned" for k in cnli.SLUGS}
    lab.update(labels or {"nda-11": "Entailment", "nda-3": "Entailment", "nda-17": "Contradiction"})
    gold = {k: () for k in cnli.SLUGS}
    gold.update({"nda-11": (0,), "nda-3": (1,), "nda-17": (2,)})
    return cnli.Document("7", TEXT, SPANS, lab, gold)


def _pair(key: str) -> cnli.Pair:
    return next(p for p in cnli.pairs(_hyps(), [_doc()]) if p.hypothesis.key == key)


def _serve(pair: cnli.Pair, votes: list[dict[str, Any]], **kwargs: Any) -> Any:
    state = cnli.state(**kwargs)
    lines = [json.dumps({"query_id": pair.query_id, "vote": i, **v}) for i, v in enumerate(votes)]
    result = serve(state, cnli.query(pair), SuppliedGrounder.from_lines(lines))
    assert recheck_all(state) == []
    state.close()
    return result


def _fact(pair: cnli.Pair, label: str, clause: int, quote: str | None = None) -> dict[str, Any]:
    vote = cnli.vote_from_label(pair, label, clause, quote)
    assert vote.facts is not None
    f = vote.facts[0]
    assert f.evidence is not None
    ((start, end),) = f.evidence.spans
    return {"facts": [{"fact": f.literal, "quote": f.evidence.quote, "start": start, "end": end}]}


# ----------------------------------------------------------------------------- the interface


def test_interface_lets_a_grounder_write_only_the_src_predicates() -> None:
    iface = cnli.interface()
    assert len(cnli.SLUGS) == 17
    assert iface.whitelist == frozenset(s + "_src" for s in cnli.SLUGS.values())
    assert set(iface.query_predicates) == set(cnli.SLUGS.values())
    assert cnli.rules().count("\n") == 34


def test_a_vote_writing_the_answer_predicate_itself_is_rejected() -> None:
    pair = _pair("nda-11")
    vote = {"facts": [{"fact": pair.target, "quote": TEXT[0:85], "start": 0, "end": 85}]}
    r = _serve(pair, [vote, vote])
    assert r.status is ServeStatus.ABSTAINED and r.abstain_reason is AbstainReason.ADMISSION_REJECTED
    assert r.answer is None


# ----------------------------------------------------------------------------- serving


def test_entailment_contradiction_and_not_mentioned_map_to_true_false_unknown() -> None:
    ent, con, nm = _pair("nda-11"), _pair("nda-17"), _pair("nda-1")
    r = _serve(ent, [_fact(ent, "Entailment", 0)] * 2)
    assert (r.status, r.answer, ent.gold) == (ServeStatus.CERTIFIED, "true", "true")
    r = _serve(con, [_fact(con, "Contradiction", 2)] * 2)
    assert (r.answer, con.gold) == ("false", "false")
    r = _serve(nm, [{"facts": []}] * 2)
    assert (r.status, r.answer, nm.gold) == (ServeStatus.CERTIFIED, "unknown", "unknown")


def test_a_quote_inside_the_clause_narrows_the_span_and_passes_match() -> None:
    pair = _pair("nda-11")
    vote = _fact(pair, "Entailment", 0, "shall not reverse engineer")
    assert TEXT[vote["facts"][0]["start"] : vote["facts"][0]["end"]] == "shall not reverse engineer"
    assert _serve(pair, [vote, vote]).answer == "true"


def test_a_quote_that_is_not_in_the_cited_clause_fails_the_source_check() -> None:
    pair = _pair("nda-11")
    vote = _fact(pair, "Entailment", 1, "shall not reverse engineer")  # right words, wrong clause
    r = _serve(pair, [vote, vote])
    assert r.abstain_reason is AbstainReason.SOURCE_CHECK_FAILED and r.answer is None


def test_votes_that_disagree_abstain_and_agreed_conflicting_facts_are_rejected() -> None:
    pair = _pair("nda-11")
    yes, no = _fact(pair, "Entailment", 0), _fact(pair, "Contradiction", 0)
    assert _serve(pair, [yes, no]).abstain_reason is AbstainReason.NO_AGREEMENT
    both = {"facts": yes["facts"] + no["facts"]}
    r = _serve(pair, [both, both])  # the gate sees both polarities would hold (C-79's conflict)
    assert r.abstain_reason is AbstainReason.ADMISSION_REJECTED and "CONTRADICTS_KERNEL" in r.detail


def test_vote_from_label_rejects_a_clause_the_document_lacks() -> None:
    pair = _pair("nda-11")
    assert cnli.vote_from_label(pair, "NotMentioned", None, None).facts == ()
    bad = cnli.vote_from_label(pair, "Entailment", 9, "x")
    assert not bad.valid and "clause 9" in (bad.error or "")
    assert not cnli.vote_from_label(pair, "Entailment", None, "x").valid


# ----------------------------------------------------------------------------- the model recheck


def _recheck(verdict: str, neg: bool = False) -> tuple[Any, list[str]]:
    prompts: list[str] = []

    def ask(prompt: str) -> LLMReply:
        prompts.append(prompt)
        return LLMReply(verdict, "m")

    checker = cnli.NLIRecheck(ask, _hyps())
    doc = _doc()
    lit = parse_literal(("-" if neg else "") + "no_reverse_engineering_src(d7)")
    records = MemoryRecords([cnli.document_record(doc)])
    result = checker.check(Fact("f", lit), cnli.span_evidence(doc, 0), records, cnli.interface())
    return result, prompts


def test_the_recheck_supports_only_holds() -> None:
    assert _recheck("holds")[0].verdict == "SUPPORTED"
    for word in ("does_not_hold", "unclear", "invalid: no JSON", "HOLDS maybe"):
        assert _recheck(word)[0].verdict == "UNSUPPORTED"


def test_the_recheck_reads_the_clause_and_states_the_polarity() -> None:
    _, (prompt,) = _recheck("holds")
    assert "reverse engineer, decompile" in prompt and "contradicts" not in prompt
    _, (prompt,) = _recheck("holds", neg=True)
    assert "The contract contradicts this statement" in prompt


def test_a_recheck_that_does_not_hold_makes_the_served_query_abstain() -> None:
    pair = _pair("nda-11")
    checker = cnli.NLIRecheck(lambda p: LLMReply("does_not_hold", "m"), _hyps())
    config = CertifyConfig(checkers=CheckerConfig(query=("match/1", "nli-recheck/1")))
    r = _serve(pair, [_fact(pair, "Entailment", 0)] * 2, config=config, checkers=[checker])
    assert r.abstain_reason is AbstainReason.SOURCE_CHECK_FAILED


# ----------------------------------------------------------------------------- model grounders


def _client(script: Any) -> tuple[LLMClient, ScriptedBackend]:
    backend = ScriptedBackend(script)
    return LLMClient(backend, mode="off", retries=0), backend


def test_the_grounder_asks_one_sample_per_vote_and_lists_clause_numbers() -> None:
    pair = _pair("nda-11")
    client, backend = _client(
        lambda r: '{"label": "Entailment", "clause": 0, "quote": "shall not reverse engineer"}'
    )
    g = ContractNLIGrounder(client, [pair], clauses=2)
    votes = [g.ground(cnli.query(pair), cnli.interface(), i) for i in (0, 1)]
    assert [r.sample for r in backend.requests] == [0, 1]
    assert all(v.valid and v.facts and v.facts[0].literal == "no_reverse_engineering_src(d7)" for v in votes)
    listed = re.findall(r"^(\d+): ", backend.requests[0].messages[-1].content, re.M)
    assert listed == [str(i) for i in select_clauses(pair.document, pair.hypothesis, 2)]


def test_an_answer_that_stays_invalid_is_an_invalid_vote_never_a_guess() -> None:
    pair = _pair("nda-11")
    client, backend = _client(lambda r: '{"label": "Entailment", "clause": 5, "quote": "x"}')
    vote = ContractNLIGrounder(client, [pair], clauses=2).ground(cnli.query(pair), cnli.interface(), 0)
    assert not vote.valid and vote.error and vote.error.startswith("parse failure")
    assert len(backend.requests) == 2  # one re-ask with the problem, then give up


def test_select_clauses_is_deterministic_and_keeps_document_order() -> None:
    doc, h = _doc(), _hyps()[8]  # nda-11, reverse engineering
    assert select_clauses(doc, h, 1) == [0]
    assert select_clauses(doc, h, 0) == [0, 1, 2] == select_clauses(doc, h, 9)


def test_the_generic_grounder_parses_json_lines_and_lists_only_omega() -> None:
    pair = _pair("nda-11")
    line = json.dumps({"fact": "no_reverse_engineering_src(d7)", "quote": TEXT[:10], "start": 0, "end": 10})
    client, backend = _client([line, "not json"])
    g = LLMGrounder(client)
    ok = g.ground(cnli.query(pair), cnli.interface(), 0)
    assert ok.valid and ok.facts == (ProposedFact("no_reverse_engineering_src(d7)", ok.facts[0].evidence),)
    assert ok.facts[0].evidence is not None and ok.facts[0].evidence.record_id == "contractnli/7"
    prompt = backend.requests[0].messages[0].content
    assert "no_reverse_engineering_src(document)" in prompt and "- no_reverse_engineering(" not in prompt
    bad = g.ground(cnli.query(pair), cnli.interface(), 1)
    assert not bad.valid and (bad.error or "").startswith("parse failure")


def test_recheck_ask_returns_the_verdict_or_no_verdict() -> None:
    client, _ = _client(['{"verdict": "holds"}', "nonsense", "still nonsense"])
    ask = recheck_ask(client)
    assert ask("check this").text == "holds"
    assert not ask("check that").text.startswith(("holds", "does_not_hold", "unclear"))


# ----------------------------------------------------------------------------- real data


@needs_data
def test_gold_spans_serve_every_dev_pair_correctly() -> None:
    doc, text = evaluate(DEV, not_configured="no model in tests")
    gold = doc["counts"][0]
    assert (gold["C"], gold["W"], gold["A"], doc["pairs"]) == (1037, 0, 0, 1037)
    assert doc["gold_labels"] == {"Contradiction": 95, "Entailment": 519, "NotMentioned": 423}
    assert not any(doc["recheck_failures"].values())
    assert "agreement+match+recheck: not run (no model in tests)" in text


@needs_data
def test_eval_command_without_a_model_says_so_and_is_byte_identical(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in [v for v in os.environ if v.startswith("COTAUDIT_LLM")]:
        monkeypatch.delenv(var)
    outs = []
    for n in (1, 2):
        out = tmp_path / f"r{n}.json"
        code = main(
            [
                "eval",
                "certify",
                "contractnli",
                "--data",
                str(DEV.parent),
                "--documents",
                "2",
                "--json",
                str(out),
            ]
        )
        assert code == 0
        outs.append(out.read_bytes())
    text = capsys.readouterr().out
    assert outs[0] == outs[1] and "not run" in text and "gold spans (k=2)" in text


def test_a_file_that_is_not_contractnli_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "dev.json").write_text('{"documents": [{"id": "x"}]}')
    assert main(["eval", "certify", "contractnli", "--data", str(tmp_path)]) == 2
    assert "not a ContractNLI split file" in capsys.readouterr().err


# ----------------------------------------------------------------------------- evidence_policy


@pytest.mark.parametrize("policy", ["first", "all"])
def test_evidence_policy_all_checks_the_evidence_of_every_agreeing_vote(policy: str) -> None:
    """C-76: both votes propose the same fact; vote 1 cites a quote that is not its span. Under
    ``first`` only vote 0's evidence is checked; under ``all`` vote 1's must pass too."""
    pair = _pair("nda-11")
    good = _fact(pair, "Entailment", 0, "shall not reverse engineer")
    bad = _fact(pair, "Entailment", 0)
    bad["facts"][0]["quote"] = "shall reverse engineer"  # not the text of [start, end)
    config = CertifyConfig(evidence_policy=policy)
    r = _serve(pair, [good, bad], config=config)
    if policy == "first":
        assert r.status is ServeStatus.CERTIFIED and r.answer == "true"
    else:
        assert r.abstain_reason is AbstainReason.SOURCE_CHECK_FAILED and "vote 1" in r.detail
    assert _serve(pair, [good, _fact(pair, "Entailment", 0)], config=config).answer == "true"


def test_withheld_counts_wrong_and_correct_answers_the_new_policy_holds_back() -> None:
    from cotaudit.eval.certify_contractnli import _Row, _withheld

    ps = [_pair("nda-11"), _pair("nda-17"), _pair("nda-1"), _pair("nda-3")]  # gold true, false, unknown, true
    base, new = _Row("base"), _Row("new")
    base.answers = {
        ps[0].query_id: "true",
        ps[1].query_id: "true",
        ps[2].query_id: "unknown",
        ps[3].query_id: None,
    }
    new.answers = {
        ps[0].query_id: None,
        ps[1].query_id: None,
        ps[2].query_id: "unknown",
        ps[3].query_id: "true",
    }
    got = _withheld(base, new, ps)
    assert got == {
        "wrong_withheld": 1,  # nda-17: base said true, gold false
        "wrong_served_by_base": 1,
        "correct_withheld": 1,  # nda-11
        "correct_only_base": 1,
        "correct_only_new": 1,  # nda-3: base abstained, new answered correctly
    }
