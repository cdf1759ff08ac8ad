"""Tests for cotaudit.te.corpus.np: the TE-49 Natural Program renderer.

Golden files: ``tests/te/golden/np/<example>.np`` hold the NP rendering of
``examples/te/<example>.te`` for examples A, K, O, P, R and T. After an intended change, regenerate
them with ``COTAUDIT_REGEN_GOLDEN=1 pytest tests/te/test_np.py`` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cotaudit.te.corpus.np import NPRendering, render_np
from cotaudit.te.grammar import Kind, classify, split_lines

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples" / "te"
GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "np"
REGEN = os.environ.get("COTAUDIT_REGEN_GOLDEN") == "1"
GOLDEN_EXAMPLES = (
    "A_janet",
    "K_hedging",
    "O_parametric",
    "P_value_shorthand",
    "R_case_split",
    "T_gsm8k_janet",
)

NP_LABELS = (
    "Given:",
    "- ",
    "Find:",
    "Reasoning:",
    "Step ",
    "Verify",
    "Sub-goal:",
    "Resolved by ",
    "Final answer:",
)


def np_lines(trace: str) -> list[str]:
    """The NP text split the way TE-1 splits the trace (only ``\\n``; a final newline ends the last line)."""
    text = render_np(trace).text
    parts = text.split("\n")
    return parts[:-1] if text.endswith("\n") else parts


def one(line: str, context: str = "GIVEN:\n  a := 1\nGOAL: b\n") -> str:
    """The NP rendering of ``line`` placed after a small header."""
    return np_lines(context + line + "\n")[-1]


# ---- TE-49: the spec's own examples and the golden outputs --------------------------------------


def test_spec_lines_of_example_a() -> None:
    lines = np_lines((EXAMPLES / "A_janet.te").read_text(encoding="utf-8"))
    assert lines[8] == "Verify: step 1 result == 9"
    assert lines[11] == "Final answer: 18 [USD]"


@pytest.mark.parametrize("name", GOLDEN_EXAMPLES)
def test_golden(name: str) -> None:
    trace = (EXAMPLES / f"{name}.te").read_text(encoding="utf-8")
    got = render_np(trace)
    path = GOLDEN / f"{name}.np"
    if REGEN:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(got.text, encoding="utf-8", newline="\n")
    assert got.text == path.read_text(encoding="utf-8")
    assert got.line_map == tuple(range(1, len(split_lines(trace)) + 1))


# ---- the table, row by row ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("te", "np"),
    [
        ("GIVEN:", "Given:"),
        ("GIVEN:   ", "Given:"),
        ("  GIVEN:", "Given:"),
        ("GIVEN: total := 16", "Given: total = 16"),
        ("GIVEN: price = 2 [USD]", "Given: price = 2 [USD]"),
        ("GIVEN: n := param(integer)", "Given: n: free parameter (integer)"),
    ],
)
def test_given_header(te: str, np: str) -> None:
    assert np_lines(te + "\n")[0] == np


@pytest.mark.parametrize(
    ("te", "np"),
    [
        ("  total := 16", "- total = 16"),
        ("total := 16", "- total = 16"),
        ("\t\ttotal = 16", "- total = 16"),
        ("  price := 2 [USD]", "- price = 2 [USD]"),
        ("  budget := 80,000 [USD]", "- budget = 80,000 [USD]"),
        ("  half := total / 2", "- half = total / 2"),
        ("  rate := 15%", "- rate = 15%"),
        ("  n := param(integer, positive)", "- n: free parameter (integer, positive)"),
        ("  n := param(integer,positive)", "- n: free parameter (integer, positive)"),
        ("  n := param", "- n: free parameter"),
        ("  x := param [m]", "- x: free parameter [m]"),
        ("  x := param(real) [m]", "- x: free parameter (real) [m]"),
        ('  rec := "a(k) = a(k-1) + 3"', '- rec: "a(k) = a(k-1) + 3"'),
        ("  rec := 'single quoted'", "- rec: 'single quoted'"),
        ("  f(x) := 2*x + 1", "- f(x) = 2*x + 1"),
        ("  g(a,b) := a*b [m]", "- g(a, b) = a*b [m]"),
    ],
)
def test_declarations(te: str, np: str) -> None:
    assert np_lines(f"GIVEN:\n{te}\nGOAL: x\n")[1] == np


@pytest.mark.parametrize(
    ("te", "np"),
    [
        ("GOAL: revenue [USD]", "Find: revenue [USD]"),
        ("GOAL: n written in base 6", "Find: n written in base 6"),
        ("GOAL:", "Find:"),
        ("  GOAL:r2", "Find: r2"),
    ],
)
def test_goal(te: str, np: str) -> None:
    assert one(te, "GIVEN:\n") == np


TRACE_WITH_IDS = (
    "GIVEN:\n"
    "  a := 2\n"
    "GOAL: y\n"
    "STEP[s1]: start\n"
    "EQ[e1]: x = a + 1 = 3\n"
    "OPEN[o1]: case a > 0\n"
    "EQ[e2]: y = 2 * x [m]\n"
    "RESOLVE[o1]: by e2\n"
)


@pytest.mark.parametrize(
    ("te", "np"),
    [
        ("STEP[s2]: use the sum (from a, e1)", "Reasoning: use the sum (from a, step 1)"),
        ("STEP[s2]: use both from e1, e2.", "Reasoning: use both from step 1, step 2."),
        ("STEP[s2]: cite a step, not an EQ (from s1, o1)", "Reasoning: cite a step, not an EQ (from s1, o1)"),
        ("STEP[s2]: dangling (from e7)", "Reasoning: dangling (from e7)"),
        # only the trailing from clause is a reference; other text stays as written
        ("STEP[s2]: e1 came from e2 here", "Reasoning: e1 came from e2 here"),
        ("STEP[s2]: e1.value is big", "Reasoning: e1.value is big"),
        ("STEP[s2]:", "Reasoning:"),
        ("EQ[e3]: z = e1.value + e2.value", "Step 3: z = step 1 result + step 2 result"),
        ("EQ[e3]: z = x * 2 = 6 [m]", "Step 3: z = x * 2 = 6 [m]"),
        ("EQ[e3]: z := 4", "Step 3: z := 4"),
        ("EQ[e3]: z = 1/3 ≈ 0.33", "Step 3: z = 1/3 ≈ 0.33"),
        ("  EQ[e3]: 2*z + 3 = 11", "Step 3: 2*z + 3 = 11"),
        ("CHECK[c1]: arith: e1.value == 3", "Verify: step 1 result == 3"),
        ("CHECK[c1]: unit: e2.unit == [m]", "Verify (units): step 2 unit == [m]"),
        ("CHECK[c1]: unit: unit(x * a) == m", "Verify (units): unit(x * a) == m"),
        ("CHECK[c1]: domain: is_integer(e1.value)", "Verify (domain): is_integer(step 1 result)"),
        (
            "CHECK[c1]: consistency: e1.value == e2.value / 2",
            "Verify (consistency): step 1 result == step 2 result / 2",
        ),
        ("CHECK[c1]: bound: 0 <= e1.value <= 100", "Verify (bound): 0 <= step 1 result <= 100"),
        ("CHECK[c1]:   arith  :  x == 3", "Verify: x == 3"),
        # IDs that are not EQs, undefined IDs and look-alikes stay as written
        ("CHECK[c1]: arith: s1.value == 3", "Verify: s1.value == 3"),
        ("CHECK[c1]: arith: e9.value == 3", "Verify: e9.value == 3"),
        ("CHECK[c1]: arith: xe1.value == e1.values", "Verify: xe1.value == e1.values"),
        ("CHECK[c1]: arith: e1 == 3", "Verify: e1 == 3"),
        ("OPEN[o2]: case a <= 0", "Sub-goal: case a <= 0"),
        ("RESOLVE[o1]: by e1", "Resolved by step 1."),
        ("RESOLVE[o1]: by e2 .", "Resolved by step 2."),
        ("RESOLVE[o1]: by s1", "Resolved by s1."),
        ("RESOLVE[o1]: by e9.", "Resolved by e9."),
        ("ANS: 18 [USD]", "Final answer: 18 [USD]"),
        ("ANS: y = 6 [m]", "Final answer: y = 6 [m]"),
        ("ANS: ≈ 0.33", "Final answer: ≈ 0.33"),
        ("ANS: 2, 3", "Final answer: 2, 3"),
        ("ANS: e2.value", "Final answer: step 2 result"),
    ],
)
def test_body_lines(te: str, np: str) -> None:
    assert one(te, TRACE_WITH_IDS) == np


def test_forward_reference_keeps_its_step_number() -> None:
    trace = "GIVEN:\nGOAL: y\nCHECK[c1]: arith: e2.value == 1\nEQ[e1]: x = 1\nEQ[e2]: y = x\nANS: y\n"
    assert np_lines(trace)[2] == "Verify: step 2 result == 1"


def test_duplicate_id_refers_to_first_definition() -> None:
    trace = (
        "GIVEN:\nGOAL: y\nEQ[e1]: x = 1\nEQ[e1]: y = 2\nCHECK[c1]: arith: e1.value == 1\n"
        "STEP[e2]: prose\nEQ[e2]: z = 3\nCHECK[c2]: arith: e2.value == 3\nANS: y\n"
    )
    assert np_lines(trace)[2:8] == [
        "Step 1: x = 1",
        "Step 2: y = 2",
        "Verify: step 1 result == 1",
        "Reasoning: prose",
        "Step 3: z = 3",
        "Verify: e2.value == 3",  # e2 is first a STEP, so it names no EQ result
    ]


def test_malformed_eq_is_not_numbered() -> None:
    trace = (
        "GIVEN:\nGOAL: y\nEQ[e1]: x == 1\nEQ[e2]: y = 2\nCHECK[c1]: arith: e1.value + e2.value == 3\nANS: y\n"
    )
    assert np_lines(trace)[2:5] == [
        "EQ[e1]: x == 1",
        "Step 1: y = 2",
        "Verify: e1.value + step 1 result == 3",
    ]


# ---- verbatim: nothing is repaired --------------------------------------------------------------


@pytest.mark.parametrize(
    "te",
    [
        "So the total is ten.",
        "  # a comment := 3",
        "// total = 16",
        "```",
        "Given that a = 4",
        "Step 2: a = 4",
        "GIVEN total := 16",  # tag attempts (E013)
        "EQ e1: x = 1",
        "EQ[e1] x = 1",
        "ANS 18",
        "CHECKS are fine",
        "EQ[1x]: x = 1",  # invalid IDs
        "STEP[]: text",
        "CHECK[c-1]: arith: 1 == 1",
        "EQ[e5]: x + 1",  # malformed bodies
        "EQ[e5]: x = = 1",
        "EQ[e5]: x == 1",
        "EQ[e5]: x = 1 ≈ y",
        "EQ[e5]: x = 1 := 2",
        "CHECK[c5]: maths: 1 == 1",
        "CHECK[c5]: 1 == 1",
        "CHECK[c5]: arith:   ",
        "RESOLVE[o5]: e1",
        "RESOLVE[o5]: by e1 because",
        "ANS:",
        "ANS: [USD]",
        "ANS: ≈ x",
        "  3x := 4",  # a malformed declaration (in the GIVEN block below)
        "  x := 'unterminated",
        "  n := param(huge)",
        "  f(x, x) := 2*x",
        "GIVEN: 3x := 4",
        "note\u2028EQ[e1]: x = 1\x1c",  # only \n splits; these are ordinary characters
    ],
)
def test_untagged_and_malformed_lines_are_copied_verbatim(te: str) -> None:
    trace = f"GIVEN:\n{te}\nGOAL: y\nEQ[e1]: y = 1\n{te}\nANS: y\n"
    lines = np_lines(trace)
    assert len(lines) == 6
    assert lines[1] == te
    assert lines[4] == te


def test_over_long_line_is_copied_verbatim() -> None:
    long_eq = "EQ[e2]: z = " + "1 + " * 1100 + "1"
    trace = f"GIVEN:\nGOAL: z\nEQ[e1]: y = 1\n{long_eq}\nCHECK[c1]: arith: e2.value == 1\nANS: z\n"
    lines = np_lines(trace)
    assert lines[3] == long_eq
    assert lines[4] == "Verify: e2.value == 1"  # e2 rendered no step, so it is not renamed


def test_blank_lines_stay_blank() -> None:
    # copied as written: emptying them would lose a final whitespace-only line without "\n"
    assert np_lines("GIVEN:\n\n   \n\t\nGOAL: x\n\f\n") == ["Given:", "", "   ", "\t", "Find: x", "\f"]
    assert render_np("GIVEN:\n   ").text == "Given:\n   "


# ---- the line model: 1:1, newlines ----------------------------------------------------------


@pytest.mark.parametrize(
    ("trace", "text"),
    [
        ("", ""),
        ("\n", "\n"),
        ("GIVEN:", "Given:"),
        ("GIVEN:\n", "Given:\n"),
        ("GIVEN:\r\nGOAL: x\r\n", "Given:\nFind: x\n"),
        ("GIVEN:\rGOAL: x\r", "Given:\nFind: x\n"),
        ("\ufeffGIVEN:\nGOAL: x", "Given:\nFind: x"),
        ("GIVEN:\n\n", "Given:\n\n"),
        ("GIVEN:\v still one line\n", "GIVEN:\v still one line\n"),
    ],
)
def test_newlines(trace: str, text: str) -> None:
    got = render_np(trace)
    assert got.text == text
    assert got.line_map == tuple(range(1, len(split_lines(trace)) + 1))


def test_rendering_is_a_frozen_dataclass() -> None:
    got = render_np("GIVEN:\n")
    assert isinstance(got, NPRendering)
    with pytest.raises(AttributeError):
        got.text = "x"  # type: ignore[misc]


# ---- properties ---------------------------------------------------------------------------------

VALID_LINES = [
    "GIVEN:",
    "GIVEN: a := 1",
    "  total := 16",
    "  price = 2 [USD]",
    "  n := param(integer, positive)",
    '  doc := "x = 1"',
    "  f(x) := x + 1",
    "GOAL: y [m]",
    "STEP[s1]: think (from e1, a)",
    "EQ[e1]: x = a + 1 = 2",
    "EQ[e2]: y = e1.value * 2 [m]",
    "EQ[e1]: x = 5",
    "CHECK[c1]: arith: e1.value == 2",
    "CHECK[c2]: unit: e2.unit == m",
    "CHECK[c3]: bound: 0 <= e2.value",
    "OPEN[o1]: case",
    "RESOLVE[o1]: by e2",
    "RESOLVE[o1]: by s1.",
    "ANS: y [m]",
    "ANS: e2.value",
]
INVALID_LINES = [
    "prose line",
    "GIVEN total",
    "EQ[1]: x = 1",
    "EQ[e9]: x",
    "CHECK[c9]: nope: 1",
    "RESOLVE[o9]: maybe",
    "ANS:",
    "  3x := 1",
    "# comment = 1",
    "STEP[s 1]: x",
    "EQ[e3]: x ≈ y",
]
SPACE = st.sampled_from(["", " ", "  ", "\t"])
LINE = st.one_of(
    st.builds(lambda s, t: s + t, SPACE, st.sampled_from(VALID_LINES + INVALID_LINES)),
    st.sampled_from(["", "   ", "\t"]),
    st.text(st.characters(blacklist_categories=["Cs"]), max_size=30),
)
NEWLINE = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def traces(draw: st.DrawFn) -> str:
    lines = draw(st.lists(LINE, max_size=25))
    newline = draw(NEWLINE)
    text = newline.join(lines)
    if draw(st.booleans()):
        text += newline
    if draw(st.booleans()):
        text = "\ufeff" + text
    return text


def _line_count(text: str) -> int:
    parts = text.split("\n")
    return len(parts) - 1 if text.endswith("\n") and len(parts) > 1 else len(parts)


@settings(max_examples=300, deadline=None)
@given(traces())
def test_one_np_line_per_te_line(trace: str) -> None:
    got = render_np(trace)
    n = len(split_lines(trace))
    assert _line_count(got.text) == n
    assert got.line_map == tuple(range(1, n + 1))
    normalised = trace.replace("\r\n", "\n").replace("\r", "\n")
    assert got.text.endswith("\n") == normalised.endswith("\n")
    assert render_np(trace) == got  # deterministic


@settings(max_examples=300, deadline=None)
@given(traces())
def test_every_line_is_rendered_by_the_table_or_copied(trace: str) -> None:
    te = classify(split_lines(trace), 4_000)
    text = render_np(trace).text
    np = text.split("\n")
    for ln in te:
        out = np[ln.no - 1]
        if ln.kind in (Kind.BLANK, Kind.UNTAGGED, Kind.ATTEMPT) or (
            ln.kind is Kind.BRACKET and ln.id is None
        ):
            assert out == ln.text
        else:
            assert out == ln.text or out.startswith(NP_LABELS)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_text_never_raises(trace: str) -> None:
    got = render_np(trace)
    assert _line_count(got.text) == len(split_lines(trace))


def test_module_docstring_example() -> None:
    import doctest

    from cotaudit.te.corpus import np as np_module

    assert doctest.testmod(np_module).failed == 0
