"""Checks across lines and steps, and the contexts in which '=' is not plain arithmetic."""

from __future__ import annotations

import json

from cotaudit import api
from cotaudit.cot.carry import labelled_claims
from cotaudit.cot.claims import Verdict, find_claims, modular_context, uses_blank_boxes
from cotaudit.report import Report


def check(steps: list[str], problem: str = "A word problem.") -> Report:
    return api.check(json.dumps({"problem": problem, "steps": steps}), "cot")


def first_wrong(steps: list[str], problem: str = "A word problem.") -> int | None:
    return check(steps, problem).details["first_wrong_step"]


def test_a_labelled_sum_given_a_wrong_value_on_the_next_line_is_wrong() -> None:
    step = r"Adding them: \[ \text{Total apples} = 12 + 30 + 7 \] \[ \text{Total apples} = 59 \]"
    [(at, claim)] = labelled_claims([step])
    assert at == 0 and claim.verdict == Verdict.WRONG and (claim.computed, claim.claimed) == (49, 59)
    r = check([step])
    [f] = [f for f in r.findings if f.code == "COT_E001"]
    assert f.evidence["source"] == "label" and step[f.evidence["column"] - 1 :].startswith("59")


def test_the_next_step_may_carry_the_value() -> None:
    steps = [
        r"First, \[ \text{Total Score} = 40 + 25 + 35 \]",
        r"Adding these together: \[ \text{Total Score} = 90 \]",
    ]
    assert first_wrong(steps) == 1
    steps[1] = steps[1].replace("90", "100")
    assert first_wrong(steps) is None and check(steps).details["steps"][1]["status"] == "verified"


def test_near_misses_are_not_joined() -> None:
    # evaluated on its own line: the later value is a new statement, not this expression's
    assert (
        labelled_claims([r"\[ \text{Total} = 2 + 3 = 5 \] Later, with the tip: \[ \text{Total} = 8 \]"]) == []
    )
    # single letters are variables that algebra reuses
    assert labelled_claims([r"\[ x = 2 + 3 \] \[ x = 4 \]"]) == []
    # a label met again only two steps later is not joined
    assert (
        labelled_claims([r"\[ \text{Total cost} = 4 + 5 \]", "We wait.", r"\[ \text{Total cost} = 20 \]"])
        == []
    )
    # different labels
    assert labelled_claims([r"\[ \text{Cost before tax} = 4 + 5 \] \[ \text{Cost after tax} = 10 \]"]) == []


def test_a_box_the_problem_uses_as_a_blank_holds_no_claim() -> None:
    problem = r"What number goes in the box: \[2x + 3 = 2x + \boxed{\phantom{2}}\]?"
    assert uses_blank_boxes(problem) and not uses_blank_boxes("Compute 2 + 3.")
    step = r"So \[\boxed{4 - 4} = -3\]"
    assert [c.verdict for c in find_claims(step, blank_boxes=True)] == []
    assert first_wrong([step], problem) is None
    assert first_wrong([step]) == 0  # near-miss: a box around an answer is transparent


def test_digits_in_a_letter_base_are_not_decimal_arithmetic() -> None:
    problem = r"Find the base $b$ in which $651_b + 115_b = 1066_b$ holds."
    assert modular_context(problem) and modular_context("Write 10 in base 5.")
    assert not modular_context("The base of the triangle is 6 and its height 4.")
    assert not modular_context("The base and the height are 3 and 4.")
    step = "Carrying in the sixes place, 6 + 1 + 1 = 7 + 0 = b, which is true."
    assert first_wrong([step], problem) is None
    assert first_wrong([step], "Add the numbers 6, 1 and 1.") == 0


def test_sentence_start_labels_and_latex_spaces() -> None:
    wrong = "Pencils left = 300 - 60. Pencils left = 250."
    assert [c.verdict for _, c in labelled_claims([wrong])] == [Verdict.WRONG]
    assert [c.verdict for _, c in labelled_claims([wrong.replace("250", "240")])] == [Verdict.TRUE]
    spaced = r"\[Total\ Cost = 20 + 4*25\] \[Total\ Cost = 20 + 100\] \[Total\ Cost = 130\]"
    assert [c.verdict for _, c in labelled_claims([spaced])] == [Verdict.TRUE, Verdict.WRONG]
    # a lower-case word after "so" is prose, not a label
    assert labelled_claims(["so the pencils left = 300 - 60. the pencils left = 250."]) == []


def test_a_bracketed_note_after_a_number_is_read_past() -> None:
    [claim] = find_claims(r"\[15 (\text{light blue}) + 45 (\text{dark blue}) = 70 \text{ spools}\]")
    assert claim.verdict == Verdict.WRONG and claim.computed == 60
    [ok] = find_claims("Total = 9 (red) + 14 (blue) + 11 (yellow) = 34 sticks")
    assert ok.verdict == Verdict.TRUE  # the notes are not units: no "different units" doubt
    assert find_claims("2 (x + 3) = 10") == [] and find_claims("3 (n) = 6") == []


def test_a_dollar_sign_before_a_digit_is_currency_not_the_end_of_a_formula() -> None:
    step = "Total earnings = $3.00 (dishes) + $1.50 (trash). Total earnings = $5.50."
    assert [c.verdict for _, c in labelled_claims([step])] == [Verdict.WRONG]
    assert [c.verdict for _, c in labelled_claims([step.replace("5.50", "4.50")])] == [Verdict.TRUE]


def test_modular_notation_counts_on_the_claims_own_line_not_anywhere_in_the_problem() -> None:
    problem = r"Solve the congruence $3n \equiv 2 \pmod{11}$."
    assert first_wrong([r"If we let \( k = 3 \), then \[ n = 9 + \frac{33}{3} = 12. \]"], problem) == 0
    assert first_wrong([r"\[4^4 = (4^2)^2 = 9 \pmod{17}.\]"], problem) is None
    assert first_wrong([r"\[ 2^6 = 64 = 7 \cdot 9 \equiv 1 \]"], problem) is None
    assert first_wrong(["194 divided by 11 is 17 = 194 / 11 with a remainder of 7."]) is None
    # a log base or a sequence index is a subscript, not a number written in another base
    assert not modular_context(r"Find \log_8 256 and a_{12}.") and modular_context("Add 651_b and 115_b.")
