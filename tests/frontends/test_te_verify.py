"""M3 / M4 judgements with the scripted mock (hand-written answers): votes, majority, abstain."""

from __future__ import annotations

import json

from cotaudit.frontends.te_verify import judge, numbered, verification_text
from cotaudit.llm import LLMClient, ScriptedBackend, TransientBackendError

TRACE = "GIVEN:\n  a := 2\nGOAL: b\nEQ[e1]: b = a * 3 = 7\nANS: b\n"


def verdict(v: str, line: int | None = None) -> str:
    return json.dumps({"verdict": v, "first_error_line": line, "explanation": "x"})


def client(script: object) -> LLMClient:
    return LLMClient(ScriptedBackend(script), mode="off", retries=0, concurrency=1, sleep=lambda s: None)  # type: ignore[arg-type]


def test_m3_reads_the_np_rendering_and_m4_the_raw_trace() -> None:
    assert "Step 1: b = a * 3 = 7" in verification_text("M3", TRACE)
    assert verification_text("M4", TRACE) == TRACE
    assert numbered("a\nb\n").split("\n") == ["1: a", "2: b"]


def test_three_votes_with_distinct_samples_and_a_majority() -> None:
    backend = ScriptedBackend([verdict("incorrect", 4), verdict("correct"), verdict("incorrect", 4)])
    c = LLMClient(backend, mode="off", concurrency=1)
    result = judge(c, "M3", TRACE, run=1)
    assert result.status == "ok" and result.flagged and result.line == 4
    assert [r.sample for r in backend.requests] == [3, 4, 5]
    assert all(r.temperature == 0.0 for r in backend.requests)
    assert "Step 1" in backend.requests[0].messages[-1].content


def test_a_tie_among_valid_votes_is_not_a_flag() -> None:
    result = judge(client([verdict("incorrect", 4), verdict("correct"), "x", "y", "z"]), "M4", TRACE)
    assert result.status == "ok" and not result.flagged and result.votes[2].status == "invalid"


def test_an_out_of_range_line_is_reasked() -> None:
    backend = ScriptedBackend([verdict("incorrect", 40), verdict("incorrect", 4)] * 3)
    result = judge(LLMClient(backend, mode="off", concurrency=1), "M4", TRACE, votes=1)
    assert result.flagged and result.line == 4 and result.reasks == 1
    assert "between 1 and 5" in backend.requests[1].messages[-1].content


def test_no_valid_vote_abstains_with_the_reasons() -> None:
    result = judge(client(lambda r: TransientBackendError("HTTP 500")), "M3", TRACE)
    assert result.status == "abstain" and not result.flagged
    assert result.reason and "no valid vote of 3" in result.reason and "HTTP 500" in result.reason
