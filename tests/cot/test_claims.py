"""The arithmetic claim reader: each notation read and recomputed (firing) and its near-miss."""

from __future__ import annotations

from fractions import Fraction

import pytest

from cotaudit.cot.claims import Verdict, find_claims


def verdicts(text: str) -> list[str]:
    return [c.verdict for c in find_claims(text)]


@pytest.mark.parametrize(
    ("text", "good"),
    [
        ("$4.00 + $8.00 + $1.00 = $13.00", "$4.00 + $8.00 + $1.00 = $14.00"),
        ("48/2 = 24", "48/2 = 26"),
        ("3 × 4 × 5 = 60", "3 × 4 × 5 = 64"),
        (r"\frac{3}{4}\cdot 12 = 9", r"\frac{3}{4}\cdot 12 = 8"),
        (r"2^{10} = 1024", r"2^{10} = 1000"),
        ("20% of 50 = 10", "20% of 50 = 15"),
        ("18,000 + 2,000 = 20,000", "18,000 + 2,000 = 21,000"),
        ("18 000 + 2 000 = 20 000", "18 000 + 2 000 = 22 000"),
        (r"18\,000 + 2\,000 = 20\,000", r"18\,000 + 2\,000 = 21\,000"),
        ("5 and 2/3 + 1/3 = 6", "5 and 2/3 + 1/3 = 7"),
        ("1 1/2 * 2 = 3", "1 1/2 * 2 = 4"),
        ("2 books x 2 pounds/book = 4 pounds", "2 books x 2 pounds/book = 5 pounds"),
        ("2(3 + 4) = 14", "2(3 + 4) = 10"),
        (r"\(\dfrac{1}{2}\left(3+5\right) = 4\)", r"\(\dfrac{1}{2}\left(3+5\right) = 5\)"),
        ("(-6 + 5 - -9 * -8) = -73", "(-6 + 5 - -9 * -8) = -67"),
    ],
)
def test_notation_is_read_and_recomputed(text: str, good: str) -> None:
    assert verdicts(text) == [Verdict.TRUE]
    assert verdicts(good) == [Verdict.WRONG]


def test_wrong_claim_carries_values_and_offset() -> None:
    text = "So Sue has 12 + 6 = 19 flamingos."
    [claim] = find_claims(text)
    assert claim.verdict == Verdict.WRONG
    assert (claim.computed, claim.claimed) == (Fraction(18), Fraction(19))
    assert text[claim.offset : claim.end].startswith("12 + 6 = 19")


def test_gsm8k_annotation_is_a_claim() -> None:
    assert verdicts("48/2 = <<48/2=24>>24 clips") == [Verdict.TRUE]
    bad = find_claims("she sold <<48/2=25>>25 clips")
    assert [c.verdict for c in bad] == [Verdict.WRONG] and bad[0].source == "annotation"


@pytest.mark.parametrize(
    "text",
    [
        "x + 3 = 7",  # a variable on the left
        "2x = 10",  # glued variable
        "f(2) = 5",  # function application
        r"\(2n + 1 = 8\)",  # math-mode letters are variables
        "The answer is 5! = 120",  # factorial
        "at 3:00 + 2 = 5",  # clock time
        "the 3rd + 2 = 6",  # ordinal
        "1 hour = 60 minutes",  # a conversion, no operator
        "in 8 years = 34 + 8",  # a label, not a claim
        "25% of $80 = 25/100 × $80 = $20",  # the bare "$80 =" belongs to the phrase
        r"\frac12 + 1 = 1.5",  # unbraced \frac is not rewritten
        r"4\frac{5}{8} = 4.625 + 1",  # mixed number or product: not read
        "- 3 = 5",  # a bullet, not a sign
        "total - 3 = 5",  # a sign right after a word is binary
    ],
)
def test_no_claim_is_guessed(text: str) -> None:
    assert Verdict.WRONG not in verdicts(text)


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("100/3 = 33.33", Verdict.ROUNDED),  # displayed rounding
        ("100/3 ≈ 33", Verdict.ROUNDED),  # declared rounding
        ("100/3 = about 33", Verdict.ROUNDED),
        ("10/3 = 3", Verdict.DOUBTFUL),  # integer truncation: not called wrong
        ("2/3 = 0.66", Verdict.DOUBTFUL),
        ("0.67 × 1500 = 1000", Verdict.DOUBTFUL),  # the rounded literal 0.67 explains it
        ("50 + 20% = 60", Verdict.DOUBTFUL),  # ambiguous percent
        ("(2/3) * 100 = 66.67%", Verdict.ROUNDED),  # the percent is the number before the sign
        ("(30/120) × 100 = 25%", Verdict.TRUE),
    ],
)
def test_rounding_and_doubt(text: str, verdict: str) -> None:
    assert verdicts(text)[0] == verdict


def test_near_misses_of_rounding_are_wrong() -> None:
    assert verdicts("100/3 = 33.5") == [Verdict.WRONG]
    assert verdicts("100/3 ≈ 40") == [Verdict.WRONG]
    assert verdicts("$1.20 * 5 = $7") == [Verdict.WRONG]


def test_running_total_is_doubtful_only_outside_brackets() -> None:
    assert verdicts("2 + 3 = 5 + 1 = 6") == [Verdict.DOUBTFUL, Verdict.TRUE]
    assert verdicts("(9 + 27 - 2) = (34 - 2)") == [Verdict.WRONG]


def test_modular_context_never_wrong() -> None:
    assert verdicts("In base 2, 1 + 1 = 0.") == [Verdict.DOUBTFUL]
    assert find_claims("1 + 1 = 0", modular=True)[0].verdict == Verdict.DOUBTFUL
    assert find_claims("1 + 1 = 0")[0].verdict == Verdict.WRONG


def test_huge_power_is_unevaluated_not_a_hang() -> None:
    [claim] = find_claims("so 10**10**10 = 5")
    assert claim.verdict == Verdict.UNEVALUATED and "exponent" in claim.reason


def test_names_bind_values() -> None:
    claims = find_claims("A + B = 3 + 4 = 7", {"A": Fraction(3), "B": Fraction(4)})
    assert [c.verdict for c in claims] == [Verdict.TRUE, Verdict.TRUE]
    assert find_claims("A + B = 8", {"A": Fraction(3), "B": Fraction(4)})[0].verdict == Verdict.WRONG


def test_overlong_and_overdeep_runs_are_skipped_whole() -> None:
    import time

    from cotaudit.cot.claims import find_claims

    start = time.perf_counter()
    for _ in range(5):
        for text in ("(" * 20_000, "1 + " * 5_000 + "= 3", "(1 + " * 4_000):
            assert find_claims(text) == []
    assert time.perf_counter() - start < 6.0  # re-reading the run from every start took 15 s
    [near] = find_claims("(" * 40 + "2 + 3" + ")" * 40 + " = 6")  # near-miss: within the bounds
    assert near.verdict == "wrong"
