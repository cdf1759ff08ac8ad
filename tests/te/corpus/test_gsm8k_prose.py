"""The GSM8K converter's notation classes (issue 19), on GSM8K-style text written for these
tests (no dataset item is copied): each class is read at its mechanism, every converted trace
lints CLEAN, and an ambiguous or algebraic text is skipped with a reason, never misread."""

from __future__ import annotations

from fractions import Fraction

import pytest

from cotaudit import te
from cotaudit.te.corpus.gsm8k import Style, gsm8k_to_te
from cotaudit.te.corpus.gsm8k_numbers import scan_question
from cotaudit.te.corpus.gsm8k_prose import expression_text, has_algebra, prose_equations

LINT = te.LintConfig(symbolic="inprocess")
PLAIN = Style(checks=0.0, value_refs=0.0, currency_units=False, steps=True)


def pairs(line: str) -> list[tuple[str, str]]:
    return [(eq.lhs, eq.result) for eq in prose_equations(line)]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # a fraction written without spaces is one operand
        ("So 12 / 2/5 = 30 pens.", [("12 / (2/5)", "30")]),
        ("Each gets 3/4 * 8 = 6 slices", [("(3/4) * 8", "6")]),
        # thousands separated by spaces
        ("He pays $12 500 + $2 500 = $15 000 in all.", [("12500 + 2500", "15000")]),
        # mixed numbers, with a space or with "and"
        ("That is 4 3/8 + 1/8 = 4 1/2 cups", [("(4 + 3/8) + (1/8)", "4 + 1/2")]),
        ("She baked 2 and 1/4 + 3/4 = 3 pies", [("(2 + 1/4) + (3/4)", "3")]),
        # a percent sign after a space
        ("A tip of 8 / 40 x 100 % = 20 %", [("8 / 40 * 100%", "20%")]),
        # words between the numbers (units), word operators, x as times
        ("9 apples x 3 crates = 27 apples", [("9 * 3", "27")]),
        ("6 km/hour * 3 hours = 18 km", [("6 * 3", "18")]),
        ("She needs 250 minus 40 equals 210 more", [("250 - 40", "210")]),
        ("It takes 45 divided by 5 equals 9 trips", [("45 / 5", "9")]),
        # juxtaposition and floor division
        ("Labels: 3(7+1) = 24", [("3 * (7 + 1)", "24")]),
        ("Then (1/4)12 = 3 left", [("((1/4)) * 12", "3")]),
        ("Full boxes: 17 // 5 = 3", [("floor((17) / (5))", "3")]),
        # a rate glued to its number, and powers
        ("He earns $15/hour * 8 hours = $120", [("15 * 8", "120")]),
        ("Then 2 ^ 3 = 8 and 3**2 = 9", [("(2) ** (3)", "8"), ("(3) ** (2)", "9")]),
        # signs and a label before a chain
        ("Fall 5 degrees = 2 - 5 = -3 degrees", [("2 - 5", "-3")]),
        # a chain, and a running total
        ("So 6 / (1 + 2) = 6 / 3 = 2 each", [("6 / (1 + 2)", "2"), ("6 / 3", "2")]),
        ("Half is $9/2 = $4.50+$1.50=$6.00", [("(9/2)", "4.50"), ("4.50 + 1.50", "6.00")]),
        # a restated value is kept, a conversion between units is cut
        ("So 45 / 60 = 0.75 = 75% stayed", [("45 / 60", "75%")]),
        ("Each is 10 / 4 = 2.5 m = 250 cm", [("10 / 4", "2.5")]),
        # percent points: a sum of bare numbers whose result carries '%'
        ("Altogether 35 + 15 + 20 = 70%", [("35% + 15% + 20%", "70%")]),
        # a decimal cut short, then a percent
        ("Share 10 / 30 * 100% = 33.33...%, about a third", [("10 / 30 * 100%", "33.33%")]),
    ],
)
def test_prose_notation(line: str, expected: list[tuple[str, str]]) -> None:
    assert pairs(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "5y + 2 - 2 = 40 - 2",  # algebra on the left
        "so 9 - 2 = 7 + k - 2",  # algebra on the right: not 9 - 2 = 7
        "2 feet = 24 inches",  # a unit conversion is no arithmetic
        "1/3 (27) + 4 = 13",  # a space before the parenthesis: not read
        "he spent 12 dollars on 4 shirts and 2 hats = 14",  # words with a number inside
        "It is 20 % of 10 = 2",  # 'of' is no operator here
    ],
)
def test_prose_that_is_not_arithmetic_is_not_read(line: str) -> None:
    assert pairs(line) == []


def test_algebra_is_recognised() -> None:
    assert has_algebra("Then 3n + 4 = 19, so n = 5")
    assert has_algebra("We know m = 2k and m + k = 12")
    assert not has_algebra("He buys 60g * 3 = 180g of flour")  # g is a unit here
    assert not has_algebra("Let x stand for the cats")


def test_annotation_floor_division() -> None:
    assert expression_text("25//4") == "floor((25) / (4))"
    assert expression_text("2*y") is None


def test_question_numbers() -> None:
    found = [(m.text, m.value) for m in scan_question("A $12 500 car, 40 000 fans, 3 100-page books.")]
    assert found == [("12500", 12500), ("40000", 40000), ("3", 3), ("100", 100)]
    found = [(m.text, m.value) for m in scan_question("Mix 2 and 1/3 cups with 15 % water.")]
    assert found == [("2 + 1/3", Fraction(7, 3)), ("15%", Fraction(3, 20))]


# ---- whole items, written for these tests in the GSM8K style ------------------------------------

FRESH = [
    (
        "A baker has 18 000 grams of flour and uses 2/5 of it for bread. How many grams are left?",
        "He uses 18 000 * 2/5 = 7 200 grams for bread.\nHe has 18 000 - 7 200 = 10 800 grams left.\n#### 10800",
        "10800",
    ),
    (
        "A jar holds 24 marbles. Tim puts them in bags of 1/3 of a dozen marbles. How many bags?",
        "A bag holds 12 / 3 = 4 marbles.\nSo he fills 24 / 1/3 of a dozen = 24 / 4 = 6 bags.\n#### 6",
        "6",
    ),
    (
        "Rosa ran 5 and 2/3 miles on Monday and 1/3 mile on Tuesday. How far did she run?",
        "She ran 5 and 2/3 + 1/3 = 6 miles in all.\n#### 6",
        "6",
    ),
    (
        "Out of 40 pupils, 10 walk to school. What percent of the pupils walk?",
        "The share is 10 pupils / 40 pupils x 100 % = 25 %.\n#### 25",
        "25",
    ),
    (
        "Jo packs 29 eggs into cartons of 6. How many full cartons does she get?",
        "She fills 29 // 6 = <<29//6=4>>4 full cartons.\n#### 4",
        "4",
    ),
    (
        "A shop sold 35 hats on Friday and 15 on Saturday. It had 90 hats. How many are left?",
        "It sold 35 hats + 15 hats = 50 hats.\nIt has 90 hats minus 50 hats equals 40 hats left.\n#### 40",
        "40",
    ),
    (
        "Each of 7 boxes weighs 2.5 kg. A van carries 4 kg per trip. How many trips are needed?",
        "The boxes weigh 7 * 2.5 = <<7*2.5=17.5>>17.5 kg.\nThat is 17.5 / 4 = <<17.5/4=4.375>>4.375 trips, "
        "so we round up to 5 trips.\n#### 5",
        "5",
    ),
]


@pytest.mark.parametrize(("question", "answer", "gold"), FRESH)
def test_fresh_items_convert_faithfully_and_lint_clean(question: str, answer: str, gold: str) -> None:
    out = gsm8k_to_te({"question": question, "answer": answer}, PLAIN)
    assert out.trace is not None, (out.skip_reason, out.meta.get("detail"))
    result = te.lint(out.trace, LINT)
    assert result.verdict == "CLEAN" and not result.diagnostics, (result.at(), out.trace)
    assert out.meta["gold"] == gold


def test_fresh_item_values() -> None:
    question, answer, _ = FRESH[1]
    out = gsm8k_to_te({"question": question, "answer": answer}, PLAIN)
    assert out.trace is not None
    assert "EQ[e2]: r2 = q1 / r1 = 6" in out.trace.splitlines()  # 24 / 4, never 24 / (1/3)
    question, answer, _ = FRESH[6]
    out = gsm8k_to_te({"question": question, "answer": answer}, PLAIN)
    assert out.trace is not None and out.trace.splitlines()[-1] == "ANS: ceil(r2)"


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        # the answer is reached only by solving for an unknown
        ("Let n be the hats. Then 3n + 4 = 19.\nSo 3n = 15 and n = 5.\n#### 5", "algebra"),
        # the text corrects itself
        ("He has 3 + 4 = 7. Wait, he has 3 + 5 = 8.\n#### 8", "hedging"),
        # a prose chain that does not compute is skipped, not dropped
        ("He has 3 + 4 = 8 hats.\n#### 8", "annotation-mismatch"),
        # precedence is the standard one: a left-to-right reading is not guessed
        ("He has 10 - 2 * 3 = 24 pens.\n#### 24", "annotation-mismatch"),
        # an answer in other units than any computed value (dollars vs cents)
        ("Each pen costs $2 / 8 = $0.25.\n#### 25", "answer-not-derived"),
    ],
)
def test_fresh_items_that_must_be_skipped(answer: str, reason: str) -> None:
    out = gsm8k_to_te({"question": "Sam has 3 hats and 4 caps.", "answer": answer}, PLAIN)
    assert out.trace is None and out.skip_reason == reason, out.meta.get("detail")
