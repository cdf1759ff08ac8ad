"""Type-6 annotation with the scripted mock (hand-written answers): stages, symbols, repair."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from cotaudit.frontends.type6_annotate import annotate
from cotaudit.frontends.type6_judge import judge_type6
from cotaudit.frontends.type6_symbols import (
    Draft,
    assign_symbols,
    canonical_ops,
    proposition_key,
    sentences,
    undecided_pairs,
)
from cotaudit.llm import LLMClient, Request, ScriptedBackend, TransientBackendError

pytest.importorskip("cotaudit.type6")

RAW = "I think it rains. It does not snow. So the ground is wet."


def count(request: Request) -> int:
    return sum(1 for line in request.messages[-1].content.split("\n") if line[:1].isdigit())


def scripted(annotate_reply: Callable[[Request], str], verify: list[str] | None = None) -> ScriptedBackend:
    verify_replies = list(verify or [])

    def reply(r: Request) -> str:
        if r.prompt.startswith("type6_split"):
            n = count(r)
            claims = ["it rains", "it snows", "the ground is wet"]
            return json.dumps(
                {
                    "statements": [
                        {"sentence": i, "claim": claims[(i - 1) % 3], "negated": i == 2}
                        for i in range(1, n + 1)
                    ]
                }
            )
        if r.prompt.startswith("type6_same"):
            return json.dumps({"same": [True] * count(r)})
        if r.prompt.startswith("type6_annotate"):
            return annotate_reply(r)
        return verify_replies.pop(0) if verify_replies else '{"labels": []}'

    return ScriptedBackend(reply)


def labels(n: int, alpha: str = "T", last_ops: tuple[str, ...] = ("THEN",)) -> str:
    return json.dumps(
        {
            "labels": [
                {"n": i, "alpha": alpha, "ops": list(last_ops) if i == n else ["B"]} for i in range(1, n + 1)
            ]
        }
    )


def test_the_deterministic_stages() -> None:
    assert sentences("One. Two?\n\nThree!  Four") == ["One.", "Two?", "Three!", "Four"]
    assert proposition_key("So, I think the ground is WET.") == proposition_key("the ground is wet")
    keys = ["ground wet", "ground is very wet", "sky blue"]
    assert undecided_pairs(keys) == [("ground wet", "ground is very wet")]
    assert assign_symbols(keys, {("ground wet", "ground is very wet"): True}) == {
        "ground wet": "p1",
        "ground is very wet": "p1",
        "sky blue": "p2",
    }
    assert canonical_ops(["B", "THEN", "NOT", "AND", "maybe", "B"]) == (
        ("THEN", "B"),
        ["NOT", "AND", "maybe"],
    )
    assert Draft("It does not snow.", "p2", True, "T", ("K",)).line() == "T K NOT p2 : It does not snow."


def test_a_well_behaved_model_gives_a_trace_the_parser_accepts() -> None:
    from cotaudit import type6

    c = LLMClient(scripted(lambda r: labels(count(r))), mode="off")
    a = annotate(c, RAW, question="Is the ground wet?", trace_id="demo")
    assert a.status == "ok" and a.statements == 4 and a.repairs == 0
    lines = a.t6.splitlines()
    assert lines[0] == "#@ id: demo" and lines[1] == "T B q : Is the ground wet?"
    assert lines[3] == "T B NOT p2 : It does not snow." and lines[-1] == "T THEN a : So the ground is wet."
    assert type6.parse_t6(a.t6).valid


def test_parser_diagnostics_go_back_for_a_bounded_repair() -> None:
    fix = json.dumps({"labels": [{"n": 1, "alpha": "T", "ops": []}]})
    backend = scripted(lambda r: labels(count(r), alpha="Maybe"), verify=['{"labels": []}', fix])
    a = annotate(LLMClient(backend, mode="off"), RAW)
    verify_requests = [r for r in backend.requests if r.prompt.startswith("type6_verify")]
    assert (
        "T6_E01" in verify_requests[1].messages[0].content
        and "statement 1" in verify_requests[1].messages[0].content
    )
    # Statement 1 was repaired; 2 and 3 still carry the bad annotation after the two rounds.
    assert a.status == "invalid" and a.repairs == 2 and len(verify_requests) == 3
    assert "T6_E01" in (a.reason or "") and "statement 1:" not in (a.reason or "")
    a = annotate(LLMClient(scripted(lambda r: labels(count(r), alpha="Maybe")), mode="off"), RAW, repairs=2)
    assert a.status == "invalid" and a.repairs == 2 and "T6_E01" in (a.reason or "")


def test_a_bad_stage_one_falls_back_to_one_proposition_per_sentence() -> None:
    def reply(r: Request) -> str:
        return "not json" if r.prompt.startswith("type6_split") else labels(count(r))

    a = annotate(LLMClient(ScriptedBackend(reply), mode="off"), RAW)
    assert a.status == "ok" and any("fell back" in n for n in a.notes)


def test_server_failure_abstains_and_empty_input_is_invalid() -> None:
    c = LLMClient(ScriptedBackend(lambda r: TransientBackendError("HTTP 500")), mode="off", retries=0)
    assert annotate(c, RAW).status == "abstain"
    assert annotate(c, "   \n ").status == "invalid"


def test_judge_rubric_hard_fails_on_any_axis_and_abstains_on_garbage() -> None:
    answer = {
        "contradiction": False,
        "unsupported_conclusion": True,
        "modal_mismatch": False,
        "unresolved_doubt": False,
        "score": 2.5,
    }
    ok = judge_type6(LLMClient(ScriptedBackend([json.dumps(answer)]), mode="off"), RAW)
    assert ok.status == "ok" and ok.hard_fail and ok.axes == ("unsupported_conclusion",) and ok.score == 2.5
    bad = judge_type6(LLMClient(ScriptedBackend(['{"score": 9}'] * 3), mode="off"), RAW)
    assert bad.status == "invalid" and bad.hard_fail is None and bad.reasks == 2


def test_a_bad_list_of_labels_falls_back_to_one_statement_at_a_time() -> None:
    def reply(r: Request) -> str:
        if r.prompt.startswith("type6_annotate"):
            return '{"labels": [{"n": 1, "alpha": "T", "ops": []}]}'  # covers one statement of three
        if r.prompt.startswith("type6_label"):
            return (
                '{"alpha": "T", "ops": ["THEN"]}'
                if "ground is wet" in r.messages[-1].content
                else '{"alpha": "T", "ops": ["B"]}'
            )
        return _default(r)

    backend = ScriptedBackend(reply)
    a = annotate(LLMClient(backend, mode="off"), RAW)
    assert a.status == "ok" and any("statement by statement" in n for n in a.notes)
    assert a.t6.splitlines()[-1] == "T THEN a : So the ground is wet."
    assert sum(r.prompt.startswith("type6_label") for r in backend.requests) == 3


def _default(r: Request) -> str:
    return scripted(lambda q: labels(count(q))).complete(r).text


def test_blank_fields_in_a_correction_mean_unchanged() -> None:
    blank = json.dumps({"labels": [{"n": 1, "alpha": "", "ops": [""]}, {"n": 3, "alpha": "F", "ops": []}]})
    a = annotate(LLMClient(scripted(lambda r: labels(count(r)), verify=[blank]), mode="off"), RAW)
    lines = a.t6.splitlines()
    assert a.status == "ok"
    assert lines[1] == "T B p1 : I think it rains."  # statement 1 untouched
    assert lines[3] == "F THEN a : So the ground is wet."  # statement 3: annotation changed, ops kept
