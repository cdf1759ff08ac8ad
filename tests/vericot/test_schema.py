"""V-1 … V-5: the input schema, the splitter, limits, malformed input, answer normalisation."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cotaudit import vericot
from cotaudit.vericot.schema import (
    Limits,
    TraceError,
    answers_equal,
    load_trace,
    normalize_answer,
    split_steps,
)

BASE = {"id": "t", "context": {"question": "q"}, "steps": [{"id": "s1", "text": "x"}]}


def test_split_lines_and_enumerators() -> None:
    assert split_steps("1. First.\nStep 2: Second\n- third\n\n") == ["First.", "Second", "third"]


def test_split_sentences() -> None:
    assert split_steps("Max is a cat. So Max is (big). 3 cats exist!") == [
        "Max is a cat.",
        "So Max is (big).",
        "3 cats exist!",
    ]
    assert split_steps("e.g. this stays one") == ["e.g. this stays one"]


def test_cot_gets_ids() -> None:
    t = load_trace(json.dumps({"id": "t", "context": {"question": "q"}, "cot": "A. B."}))
    assert not isinstance(t, TraceError)
    assert [(s.id, s.text) for s in t.step_list()] == [("s1", "A."), ("s2", "B.")]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('ab .!?\n1-:ABStep()"')), max_size=120))
def test_split_loses_only_enumerators_and_whitespace(text: str) -> None:
    steps = split_steps(text)
    kept = re.sub(r"\s", "", "".join(steps))
    original = re.sub(r"\s", "", text)
    # every kept character appears in order in the original
    it = iter(original)
    assert all(ch in it for ch in kept)
    # what was dropped consists only of enumerator characters
    dropped = list(original)
    for ch in kept:
        dropped.remove(ch)
    assert set(dropped) <= set("0123456789.-:)*•stepSTEP")


@pytest.mark.parametrize(
    "data,needle",
    [
        ({**BASE, "extra": 1}, "extra"),
        ({"id": "t", "context": {"question": "q"}}, "exactly one"),
        ({**BASE, "cot": "x"}, "exactly one"),
        ({**BASE, "steps": [{"id": "s1", "text": "x"}, {"id": "s1", "text": "y"}]}, "duplicate step id"),
        (
            {
                **BASE,
                "formalization": {
                    "premises": [{"id": "s1", "text": "t", "source": "context", "smt": "(assert true)"}]
                },
            },
            "also a step id",
        ),
        ({**BASE, "formalization": {"steps": [{"step_id": "zz"}]}}, "unknown step"),
        ({**BASE, "formalization": {"steps": [{"step_id": "s1"}, {"step_id": "s1"}]}}, "two formalizations"),
    ],
)
def test_invalid_inputs_are_reports_not_tracebacks(data: dict[str, object], needle: str) -> None:
    r = vericot.check(json.dumps(data))
    assert r.verdict == "invalid" and needle in r.details["error"]
    assert [f.code for f in r.findings] == ["VC_E005"]


def test_valid_near_miss() -> None:
    assert vericot.check(json.dumps(BASE)).verdict != "invalid"


def test_not_json() -> None:
    r = vericot.check("{not json")
    assert r.verdict == "invalid" and "not JSON" in r.details["error"]
    assert vericot.check("[1]").details["error"] == "a trace must be a JSON object"


def test_limits() -> None:
    many = {**BASE, "steps": [{"id": f"s{i}", "text": "x"} for i in range(6)]}
    assert isinstance(load_trace(json.dumps(many), Limits(max_steps=5)), TraceError)
    assert not isinstance(load_trace(json.dumps(many), Limits(max_steps=6)), TraceError)
    big = {**BASE, "formalization": {"vocabulary": "(declare-const a Bool) " * 1000}}
    err = load_trace(json.dumps(big))
    assert isinstance(err, TraceError) and err.location == "formalization.vocabulary"
    long_step = {**BASE, "steps": [{"id": "s1", "text": "x" * 20_001}]}
    assert isinstance(load_trace(json.dumps(long_step)), TraceError)
    err = load_trace(json.dumps(BASE), Limits(max_line_bytes=10))
    assert isinstance(err, TraceError) and "longer" in err.message


@pytest.mark.parametrize("a", ["A", "A) True", "True", "(A)", "a.", " true "])
def test_answers_equal(a: str) -> None:
    assert answers_equal(a, "A", ["A) True", "B) False"]) is True


def test_answers_differ_and_null() -> None:
    assert answers_equal("B", "A) True", ["A) True", "B) False"]) is False
    assert answers_equal(None, "A", None) is None
    assert normalize_answer("A. Paris") == "paris"
