"""V-54 and the issue's bad-input list: malformed SMT-LIB, undeclared symbols, sort clashes,
smuggled commands, quantified arithmetic that makes Z3 spin, huge formulas — each a stable
status or diagnostic within its bound, never a hang or a traceback."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cotaudit import vericot

from .helpers import trace
from .sara_example import P4R, VOCAB

STATUSES = {"entailed", "contradicted", "ungrounded", "untranslatable", "unknown"}


def _one(smt: str, vocab: str = VOCAB, **kw: object) -> dict[str, object]:
    t = {
        "id": "h",
        "context": {"question": "q"},
        "steps": [{"id": "s1", "text": "x"}],
        "formalization": {"vocabulary": vocab, "steps": [{"step_id": "s1", "smt": smt}]},
    }
    r = vericot.verify(t, **kw)
    assert r.verdict in ("pass", "fail", "abstain", "invalid")
    assert "internal error" not in str(r.details.get("error", ""))
    step: dict[str, object] = r.details["steps"][0]
    return step


@pytest.mark.parametrize(
    "smt,reason",
    [
        ("(assert (= charlie 2005))", "parse_error"),  # sort clash Person vs Int
        ("(assert (livesWith charlie 3))", "parse_error"),
        ("(assert (age charlie))", "parse_error"),  # wrong arity
        ("(assert (nobody charlie))", "parse_error"),  # undeclared
        ("(assert (birthYear charlie))", "parse_error"),  # not Boolean
        ("(assert (qualifies charlie bob 2023)) (check-sat)", "forbidden_command"),
        ("(set-option :produce-proofs true) (assert true)", "forbidden_command"),
        ("(assert (qualifies charlie bob 2023)) (get-model)", "forbidden_command"),
        ("(declare-sort Person 1) (assert true)", "parse_error"),
        ("(declare-fun bob () Int) (assert (= bob 1))", "vocabulary_conflict"),
        (")(", "parse_error"),
        ("", "parse_error"),
    ],
)
def test_bad_formulas_are_untranslatable(smt: str, reason: str) -> None:
    s = _one(smt)
    assert (s["status"], s["reason"]) == ("untranslatable", reason)


def test_quantified_arithmetic_is_unknown_within_bound() -> None:
    t = {
        "id": "q",
        "context": {"question": "q"},
        "steps": [{"id": "s1", "text": "x"}, {"id": "s2", "text": "y"}],
        "formalization": {
            "vocabulary": VOCAB,
            "premises": [{"id": "p4r", "text": "r", "source": "commonsense", "smt": P4R, "use": "given"}],
            "steps": [
                {"step_id": "s1", "smt": "(assert (<= (age charlie 2023) 18))"},
                {"step_id": "s2", "smt": "(assert (>= (age charlie 2023) 100))"},
            ],
        },
    }
    start = time.monotonic()
    r = vericot.verify(t, timeout_ms=200, step_budget_ms=1000, include_timings=True)
    assert time.monotonic() - start < 10
    assert r.details["kb"]["consistent"] is None and r.details["verdict"] != "valid"
    for s in r.details["steps"]:
        assert s["status"] in STATUSES
        assert s["timings"]["solver_ms"] <= 1000 + 200 + 1000


def test_huge_formula_over_the_limit_is_invalid_input() -> None:
    big = "(assert (and " + " ".join(["a"] * 9000) + "))"
    r = vericot.verify(trace([(big, None)]))
    assert r.verdict == "invalid" and "16384 bytes" in r.details["error"]


def test_large_formula_under_the_limit_is_decided() -> None:
    vocab = " ".join(f"(declare-const a{i} Bool)" for i in range(300))
    body = "(assert (and " + " ".join(f"a{i}" for i in range(300)) + "))"
    t = trace([(body, None)], vocab=vocab)
    start = time.monotonic()
    s = vericot.verify(t, premise_providers=[]).details["steps"][0]
    assert s["status"] == "ungrounded" and time.monotonic() - start < 5


def test_deep_nesting_is_rejected_not_crashed() -> None:
    deep = "(assert " + "(not " * 5000 + "a" + ")" * 5000 + ")"
    r = vericot.verify(trace([(deep, None)]))
    if r.verdict != "invalid":  # under the byte limit: the splitter's depth limit answers
        s = r.details["steps"][0]
        assert (s["status"], s["reason"]) == ("untranslatable", "parse_error")


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                *list('() aboc=>!:;|"0123456789-'),
                "assert",
                "declare-fun",
                "check-sat",
                "forall",
                "Int",
                "Bool",
            ]
        ),
        max_size=40,
    )
)
def test_arbitrary_step_text_never_crashes(parts: list[str]) -> None:
    s = _one(" ".join(parts), vocab="(declare-const a Bool) (declare-const b Bool)")
    assert s["status"] in STATUSES


@settings(max_examples=40, deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_input_text_never_crashes(text: str) -> None:
    r = vericot.check(text)
    assert r.verdict in ("pass", "fail", "abstain", "invalid")
    assert "internal error" not in json.dumps(r.details)
