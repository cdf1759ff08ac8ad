"""TE emission with the scripted mock (hand-written answers): extraction, compliance, answers."""

from __future__ import annotations

from fractions import Fraction

import pytest

from cotaudit.frontends.answers import ans_value, gsm8k_gold, number, same_answer
from cotaudit.frontends.te_emit import check_completion, emission_request, emit
from cotaudit.llm import LLMClient, ScriptedBackend, TransientBackendError

GOOD = "GIVEN:\n  a := 2\n  b := 3\nGOAL: c\nEQ[e1]: c = a * b = 6\nANS: c\n"


def client(*replies: object) -> LLMClient:
    return LLMClient(ScriptedBackend(list(replies)), mode="off", retries=1, sleep=lambda s: None)  # type: ignore[arg-type]


def test_the_request_is_the_five_shot_prompt_at_temperature_zero() -> None:
    request = emission_request("  What is\n2 * 3? ")
    assert request.temperature == 0.0 and request.prompt.startswith("te_emit@v")
    assert request.messages[-1].content == "Problem: What is 2 * 3?"


def test_a_fenced_trace_with_prose_is_extracted_and_compliant() -> None:
    e = emit(client("Here you go:\n```\n" + GOOD + "```\nHope this helps."), "2*3")
    assert e.status == "compliant" and e.verdict == "CLEAN" and e.line_offset == 2
    assert (e.answer, e.value) == ("c", Fraction(6))


def test_structural_errors_are_reported_on_completion_lines() -> None:
    bad = "Sure.\nGIVEN:\n  a := 2\nGOAL: c\nEQ[e1]: c = a * b = 6\nEQ[e1]: d = 1\nANS: c\n"
    e = emit(client(bad), "p")
    assert e.status == "noncompliant" and e.reason and "structural error" in e.reason
    assert any(err.startswith("TE_E002@6") for err in e.structural_errors)


@pytest.mark.parametrize(
    ("completion", "why"),
    [
        ("", "empty"),
        ("The answer is 6.", "no GIVEN: and ANS: line"),
        ("GIVEN:\n  a := 1\nGOAL: a\n", "no ANS: line"),
    ],
)
def test_no_trace_is_noncompliant_with_the_reason(completion: str, why: str) -> None:
    e = check_completion(completion)
    assert e.status == "noncompliant" and why in (e.reason or "")


def test_a_failing_server_abstains() -> None:
    e = emit(client(TransientBackendError("HTTP 500"), TransientBackendError("HTTP 500")), "p")
    assert e.status == "abstain" and "HTTP 500" in (e.reason or "")


def test_answers() -> None:
    assert (
        number("1,234") == 1234
        and number("$2.50") == Fraction(5, 2)
        and number("\\frac{14}{3}") == Fraction(14, 3)
    )
    assert number("\\boxed{-7}") == -7 and number("x + 1") is None and number("1/0") is None
    assert gsm8k_gold("so 9 * 2 = 18\n#### 1,018") == "1,018"
    assert same_answer("c", Fraction(1018), "1,018") and not same_answer("c", Fraction(17), "18")
    assert same_answer("\\left( 3, \\frac{\\pi}{2} \\right)", None, "(3,\\frac{\\pi}{2})")
    assert ans_value("GIVEN:\n  n := 12\nGOAL: n\nANS: n\n") == ("n", Fraction(12))
    assert ans_value("GIVEN:\nGOAL: x\nANS: 3/4 [m]\n") == ("3/4", Fraction(3, 4))
    assert ans_value("no trace") == (None, None)


def test_a_model_answer_with_a_huge_fraction_is_not_a_number() -> None:
    # a 5,000-digit \\frac raised ValueError from int() (4,300 digits at most) out of number()
    assert number("\\frac{" + "7" * 5000 + "}{3}") is None
    assert number("\\frac{" + "7" * 60 + "}{3}") == Fraction(int("7" * 60), 3)  # near miss
