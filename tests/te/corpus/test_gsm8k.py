"""Tests for the GSM8K → TE converter (TE-50) and its consistency with the linter (TE-51)."""

from __future__ import annotations

import json
import time
from fractions import Fraction
from pathlib import Path

import pytest

from cotaudit import te
from cotaudit.te.corpus.gsm8k import (
    CORPUS_STYLE,
    SKIP_REASONS,
    ConversionSummary,
    Converted,
    Style,
    convert_jsonl,
    gsm8k_to_te,
    summarise,
)
from cotaudit.te.corpus.gsm8k_numbers import bare_equations, scan_question

GSM8K_TEST = Path(__file__).resolve().parents[4] / "shared" / "data" / "gsm8k" / "test.jsonl"
LINT = te.LintConfig(symbolic="inprocess")
PLAIN = Style(checks=0, value_refs=0)  # the style of example T

JANET = {
    "question": "Janet\u2019s ducks lay 16 eggs per day. She eats three for breakfast every morning and "
    "bakes muffins for her friends every day with four. She sells the remainder at the farmers' market daily "
    "for $2 per fresh duck egg. How much in dollars does she make every day at the farmers' market?",
    "answer": "Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs a day.\nShe makes 9 * 2 = $<<9*2=18>>18 "
    "every day at the farmer\u2019s market.\n#### 18",
}
# Spec §8, example T, byte for byte.
EXAMPLE_T = """\
GIVEN:
  q1 := 16
  q2 := 3
  q3 := 4
  q4 := 2 [USD]
GOAL: r2
STEP[s1]: Janet sells 16 - 3 - 4 = 9 duck eggs a day. (from q1, q2, q3)
EQ[e1]: r1 = q1 - q2 - q3 = 9
STEP[s2]: She makes 9 * 2 = $18 every day at the farmer\u2019s market. (from e1, q4)
EQ[e2]: r2 = r1 * q4 = 18
ANS: r2
"""


def assert_clean(trace: str | None) -> None:
    assert trace is not None
    result = te.lint(trace, LINT)
    assert result.verdict == "CLEAN" and not result.diagnostics, (result.at(), trace)


def convert(question: str, answer: str, style: Style = PLAIN) -> Converted:
    """Convert a hand-written item; it must convert and lint CLEAN (TE-51)."""
    out = gsm8k_to_te({"question": question, "answer": answer}, style)
    assert out.skip_reason is None, (out.skip_reason, out.meta.get("detail"))
    assert_clean(out.trace)
    return out


def lines(out: Converted) -> list[str]:
    assert out.trace is not None
    return out.trace.splitlines()


def skip_reason(question: str, answer: str) -> str | None:
    out = gsm8k_to_te({"question": question, "answer": answer}, PLAIN)
    assert (out.trace is None) == (out.skip_reason is not None)
    return out.skip_reason


# ---- example T -------------------------------------------------------------------------------


def test_example_t_byte_for_byte() -> None:
    out = gsm8k_to_te(JANET, PLAIN)
    assert out.trace == EXAMPLE_T
    assert out.skip_reason is None
    assert_clean(out.trace)


def test_example_t_matches_the_committed_fixture() -> None:
    fixture = Path(__file__).resolve().parents[3] / "examples" / "te" / "T_gsm8k_janet.te"
    if not fixture.exists():
        pytest.skip(f"{fixture} not present")
    assert gsm8k_to_te(JANET, PLAIN).trace == fixture.read_text(encoding="utf-8")


def test_example_t_meta_is_ground_truth() -> None:
    meta = gsm8k_to_te(JANET, PLAIN).meta
    assert meta["gold"] == "18" and meta["gold_text"] == "18"
    assert meta["values"] == {"q1": "16", "q2": "3", "q3": "4", "q4": "2", "r1": "9", "r2": "18"}
    assert meta["eq_lines"] == {"e1": 8, "e2": 10}
    assert meta["style"] == {"checks": 0, "value_refs": 0, "currency_units": True, "steps": True, "seed": 0}
    assert [(g["name"], g["line"], g["dollar"]) for g in meta["givens"]] == [
        ("q1", 2, False),
        ("q2", 3, False),
        ("q3", 4, False),
        ("q4", 5, True),
    ]
    e1, e2 = meta["eqs"]
    assert e1 == {
        "id": "e1",
        "line": 8,
        "target": "r1",
        "rhs": "q1 - q2 - q3",
        "result": "9",
        "value": "9",
        "claimed": "9",
        "approx": False,
        "source": "annotation",
        "names": ["q1", "q2", "q3"],
        "value_refs": [],
        "uses": ["q1", "q2", "q3"],
    }
    assert e2["uses"] == ["r1", "q4"] and e2["line"] == 10
    assert meta["units"] == {"q4": "USD"} and meta["currency_dropped"] is False
    assert (meta["goal_line"], meta["ans_line"], meta["answer_name"], meta["answer_eq"]) == (
        6,
        11,
        "r2",
        "e2",
    )
    assert [s["line"] for s in meta["steps"]] == [7, 9] and meta["checks"] == []
    json.dumps(meta)  # JSON-able as it stands


def test_corpus_style_adds_checks_and_value_refs_and_stays_clean() -> None:
    out = gsm8k_to_te(JANET, Style(checks=1, value_refs=1))
    assert_clean(out.trace)
    text = lines(out)
    assert "CHECK[c1]: arith: e1.value == 9" in text and "CHECK[c2]: arith: e2.value == 18" in text
    assert "EQ[e2]: r2 = e1.value * q4 = 18" in text
    assert "STEP[s2]: She makes 9 * 2 = $18 every day at the farmer\u2019s market. (from e1, q4)" in text
    assert out.meta["eqs"][1]["value_refs"] == ["e1"] and out.meta["eqs"][1]["uses"] == ["r1", "q4"]
    assert [c["line"] for c in out.meta["checks"]] == [
        out.meta["eq_lines"]["e1"] + 1,
        out.meta["eq_lines"]["e2"] + 1,
    ]


def test_switches_currency_units_and_steps() -> None:
    out = gsm8k_to_te(JANET, Style(checks=0, value_refs=0, currency_units=False, steps=False))
    assert_clean(out.trace)
    assert "  q4 := 2" in lines(out) and "[USD]" not in (out.trace or "")
    assert not any(line.startswith("STEP") for line in lines(out))
    assert out.meta["eq_lines"] == {"e1": 7, "e2": 8}


# ---- TE-50 edge cases ------------------------------------------------------------------------


def test_percent_in_question_matches_decimal_in_annotation() -> None:
    out = convert(
        "Josh buys a house for $80,000 and puts in $50,000 in repairs. This increased the value of the "
        "house by 150%. How much profit did he make?",
        "The cost was 80,000+50,000=$<<80000+50000=130000>>130,000\n"
        "He increased the value by 80,000*1.5=<<80000*1.5=120000>>120,000\n"
        "So the new value is 120,000+80,000=$<<120000+80000=200000>>200,000\n"
        "So he made a profit of 200,000-130,000=$<<200000-130000=70000>>70,000\n#### 70000",
    )
    text = lines(out)
    assert text[1:4] == ["  q1 := 80000 [USD]", "  q2 := 50000 [USD]", "  q3 := 150%"]
    assert "EQ[e2]: r2 = q1 * q3 = 120000" in text
    assert out.meta["values"]["q3"] == "3/2"
    assert text[-1] == "ANS: r4"


def test_fractions_and_mixed_numbers() -> None:
    out = convert(
        "A walk takes 2 1/2 hours and 3/4 of it is uphill. How many hours uphill?",
        "Uphill takes 2.5*3/4=<<2.5*3/4=15/8>>15/8 hours.\n#### 1.875",
    )
    text = lines(out)
    assert text[1:3] == ["  q1 := 2 + 1/2", "  q2 := 3/4"]
    assert "EQ[e1]: r1 = q1 * 3 / 4 = 15/8" in text  # 3 and 4 are not 3/4: matching is by value
    assert out.meta["values"]["q1"] == "5/2"


def test_result_equal_to_a_question_number_prefers_the_most_recent_result() -> None:
    out = convert(
        "Tom has 4 apples and 2 pears. He has 8 friends. How many fruit?",
        "He has 4*2=<<4*2=8>>8 apples\nThen 8+1=<<8+1=9>>9\n#### 9",
    )
    assert "  q3 := 8" in lines(out)
    assert "EQ[e2]: r2 = r1 + 1 = 9" in lines(out)


def test_a_value_repeated_in_the_question_is_one_given() -> None:
    out = convert("Ann has 3 cats and 3 dogs and three fish.", "She has 3+3=<<3+3=6>>6 pets\n#### 6")
    assert lines(out)[:3] == ["GIVEN:", "  q1 := 3", "GOAL: r1"]
    assert "EQ[e1]: r1 = q1 + q1 = 6" in lines(out)


def test_unary_plus_annotation() -> None:
    out = convert("Bo has 8 pens.", "He still has <<+8=8>>8 pens.\n#### 8")
    assert "EQ[e1]: r1 = +q1 = 8" in lines(out)


def test_decimal_results_and_leading_dot_numerals() -> None:
    out = convert(
        "Cy buys 7 cups at $1.5 each.",
        "He pays 7*1.5=$<<7*1.5=10.5>>10.5\nHalf of it is <<.5*10.5=5.25>>5.25\n#### 5.25",
    )
    text = lines(out)
    assert "EQ[e1]: r1 = q1 * q2 = 10.5" in text
    assert "EQ[e2]: r2 = 0.5 * r1 = 5.25" in text


def test_trailing_dot_dollar_and_comma_numerals_in_annotations() -> None:
    out = convert("Pat has 4 boxes.", "That is <<$1,000*4.=$4,000>>$4,000 in total.\n#### 4000")
    assert "EQ[e1]: r1 = 1000 * q1 = 4000" in lines(out)


def test_percent_literal_in_an_annotation() -> None:
    out = convert("Lee has 50 coins.", "He spends <<10%*50=5>>5 coins.\n#### 5")
    assert "EQ[e1]: r1 = 10% * q1 = 5" in lines(out)


def test_comma_final_answer() -> None:
    out = convert("Di has 10 cars.", "She has 10 * 212.5 = <<10*212.5=2125>>2,125 cars.\n#### 2,125")
    assert out.meta["gold"] == "2125" and out.meta["gold_text"] == "2,125"
    assert lines(out)[-1] == "ANS: r1"


def test_item_without_annotations_uses_bare_equations() -> None:
    out = convert(
        "Ed has 3 red and 4 blue marbles and 2 bags.",
        "He has 3 + 4 = 7 marbles.\nIn the bags there are 7 x 2 = 14 marbles, 14 \u2212 7 = 7 more.\n#### 14",
    )
    text = lines(out)
    assert "EQ[e1]: r1 = q1 + q2 = 7" in text
    assert "EQ[e2]: r2 = r1 * q3 = 14" in text
    assert "EQ[e3]: r3 = r2 - r1 = 7" in text
    assert text[-1] == "ANS: r2"
    assert {e["source"] for e in out.meta["eqs"]} == {"prose"}


def test_item_without_any_arithmetic_is_skipped() -> None:
    assert skip_reason("Ed has 3 red and 4 blue marbles.", "He has seven marbles.\n#### 7") == "no-arithmetic"


def test_dollar_in_prose() -> None:
    out = convert(
        "Fay pays $5 for 5 pens and $12 for a book.",
        "Pens: $5 total, the book $12, so $5 + $12 = $<<5+12=17>>17.\n#### 17",
    )
    # 5 also occurs without '$', so only 12 is declared in dollars.
    assert lines(out)[1:3] == ["  q1 := 5", "  q2 := 12 [USD]"]
    assert "STEP[s1]: Pens: $5 total, the book $12, so $5 + $12 = $17. (from q1, q2)" in lines(out)


def test_rounded_result_is_written_with_approx() -> None:
    out = convert("Gus splits 10 sweets 3 ways.", "Each gets 10/3 = <<10/3=3.33>>3.33 sweets.\n#### 3.33")
    assert "EQ[e1]: r1 = q1 / q2 \u2248 3.33" in lines(out)
    assert out.meta["eqs"][0]["approx"] is True
    assert out.meta["values"]["r1"] == "10/3" and out.meta["eqs"][0]["claimed"] == "333/100"


def test_rounded_percent_result_is_written_as_a_decimal_literal() -> None:
    out = convert("Hal wins 1 game of 3.", "He wins 1/3 = <<1/3=33.3%>>33.3% of games.\n#### 0.333")
    assert "EQ[e1]: r1 = q1 / q2 \u2248 0.333" in lines(out)


def test_number_words_and_skipped_numerals() -> None:
    found = scan_question(
        "On the 3rd day at 3:30 on 12/25/2020 she met Twenty-five friends, a dozen A4 sheets, twice, "
        "half, 10am, $35/hour, $1,200.50, 12.5% and 7."
    )
    assert [(m.text, m.value, m.dollar) for m in found] == [
        ("25", Fraction(25), False),
        ("12", Fraction(12), False),
        ("2", Fraction(2), False),
        ("1/2", Fraction(1, 2), False),
        ("35", Fraction(35), True),
        ("1200.50", Fraction(24010, 20), True),
        ("12.5%", Fraction(1, 8), False),
        ("7", Fraction(7), False),
    ]


def test_bare_equations_ignore_algebra_and_expression_fragments() -> None:
    assert bare_equations("So 3x +4 - 4 = 28 \u2013 4 and 27(1/3)=9 and 1 1/2 / 1/2 = 3.") == []
    assert bare_equations("5 - 1 - 1/2 = 3 1/2 hours") == []
    (eq,) = bare_equations("They spent $20.25 + $15.75 = $36.")
    assert (eq.lhs, eq.result) == ("20.25 + 15.75", "36")


# ---- STEP text --------------------------------------------------------------------------------


def test_step_text_hedges_removed_and_from_clause_defused() -> None:
    out = convert(
        "Mo has 3 pies and 4 cakes.",
        "Actually, wait: he has 3 + 4 = <<3+4=7>>7 treats.\nHe took the treats from Bob.\n"
        "He took <<5*2=10>>10 treats (from Al)\nHmm maybe the answer is 7.\n#### 7",
    )
    text = lines(out)
    assert "STEP[s1]: he has 3 + 4 = 7 treats. (from q1, q2)" in text
    assert "STEP[s2]: He took the treats out of Bob." in text
    assert "STEP[s3]: He took 10 treats (out of Al)" in text  # its EQ cites nothing defined
    assert "STEP[s4]: the answer is 7." in text


def test_long_step_text_is_cut_at_a_word_boundary() -> None:
    words = " ".join(["lorem"] * 60)
    out = convert("Al has 2 hats.", f"{words} so 2 + 2 = <<2+2=4>>4.\n#### 4")
    step = next(line for line in lines(out) if line.startswith("STEP[s1]: "))
    body = step[len("STEP[s1]: ") : step.index(" (from q1)")]
    assert len(body) <= 200 and body == " ".join(["lorem"] * 33)


# ---- skips ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "answer", "reason"),
    [
        ("Al has 2 hats.", "He has 2 + 2 = <<2+2=4>>4 hats.\n#### four", "bad-final"),
        ("Al has 2 hats.", "He has 2 + 2 = <<2+2=4>>4 hats.", "bad-final"),
        ("Al has 2 hats.", "He has <<2*x=4>>4 hats.\n#### 4", "unparseable-annotation"),
        ("Al has 2 hats.", "He has <<2/0=4>>4 hats.\n#### 4", "unparseable-annotation"),
        ("Al has 2 hats.", "He has <<4>>4 hats.\n#### 4", "unparseable-annotation"),
        ("Al has 2 hats.", "He has <<2+2=5>>5 hats.\n#### 5", "annotation-mismatch"),
        ("Al has 2 hats.", "He has 2 + 2 = 5 hats.\n#### 5", "annotation-mismatch"),
        ("Al has 2 hats.", "He has <<2+2=4>>4 hats.\n#### 5", "answer-not-derived"),
        ("Al has 2 hats.", "He has four.\n#### 4", "no-arithmetic"),
    ],
)
def test_skip_reasons(question: str, answer: str, reason: str) -> None:
    assert reason in SKIP_REASONS
    out = gsm8k_to_te({"question": question, "answer": answer}, PLAIN)
    assert out.trace is None and out.skip_reason == reason
    assert out.meta["detail"] and out.meta["style"]["checks"] == 0


def test_bad_item() -> None:
    out = gsm8k_to_te({"question": "no answer here"})
    assert (out.trace, out.skip_reason) == (None, "bad-item")


# ---- currency units ----------------------------------------------------------------------------


def test_currency_units_dropped_when_value_matching_would_mix_dimensions() -> None:
    # "$2" and "2 tubs" share a value, so r1 (dollars) is reused as a count: r2 = r1 * r1 is in
    # USD**2 and r4 = r2 + r3 would add USD**2 to USD (TE_E009) if the GIVENs kept [USD].
    out = convert(
        "Ice cream costs $13 a tub, or $11 on sale. Milk is $0.5 off per packet. "
        "How much do you save on 2 tubs and 4 packets?",
        "The discount per tub is $13 - $11 = $<<13-11=2>>2.\nFor 2 tubs it is $2 x 2 = $<<2*2=4>>4.\n"
        "For 4 packets it is $0.5 x 4 = $<<0.5*4=2>>2.\nYou save $4 + $2 = $<<4+2=6>>6.\n#### 6",
        CORPUS_STYLE,
    )
    assert out.meta["currency_dropped"] is True and out.meta["units"] == {}
    assert "[USD]" not in (out.trace or "")


# ---- determinism and seeding -------------------------------------------------------------------

MANY_STEPS = {
    "question": "Kim has 2 apples.",
    "answer": "\n".join(f"Step {k}: <<{k}+{k}={2 * k}>>{2 * k} apples." for k in range(1, 21)) + "\n#### 40",
}


def test_deterministic_for_item_and_seed() -> None:
    first = gsm8k_to_te(MANY_STEPS, CORPUS_STYLE)
    again = gsm8k_to_te(dict(MANY_STEPS), Style())
    assert first == again
    assert_clean(first.trace)


def test_different_seeds_can_differ_and_knobs_use_separate_streams() -> None:
    traces = {gsm8k_to_te(MANY_STEPS, Style(seed=seed)).trace for seed in range(4)}
    assert len(traces) > 1
    for trace in traces:
        assert_clean(trace)
    # The value_refs choices do not move when the checks probability changes.
    with_checks = gsm8k_to_te(MANY_STEPS, Style(checks=1.0, value_refs=0.5, seed=3))
    without = gsm8k_to_te(MANY_STEPS, Style(checks=0.0, value_refs=0.5, seed=3))
    assert [e["rhs"] for e in with_checks.meta["eqs"]] == [e["rhs"] for e in without.meta["eqs"]]
    assert len(with_checks.meta["checks"]) == 20 and without.meta["checks"] == []


# ---- JSONL and summary -------------------------------------------------------------------------


def test_convert_jsonl_and_summarise(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    bad = {"question": "Al has 2 hats.", "answer": "He has <<2+2=5>>5 hats.\n#### 5"}
    path.write_text("\n".join(json.dumps(x) for x in (JANET, bad, JANET)) + "\n\n", encoding="utf-8")
    results = list(convert_jsonl(path, PLAIN))
    assert [i for i, _ in results] == [0, 1, 2]
    assert results[0][1].trace == EXAMPLE_T
    summary = summarise(c for _, c in results)
    assert summary == ConversionSummary(total=3, converted=2, skipped={"annotation-mismatch": 1})
    assert summary.to_dict() == {"total": 3, "converted": 2, "skipped": {"annotation-mismatch": 1}}
    assert [i for i, _ in convert_jsonl(str(path), limit=2)] == [0, 1]
    path.write_text('["not", "an", "item"]\n', encoding="utf-8")
    assert [c.skip_reason for _, c in convert_jsonl(path)] == ["bad-item"]


# ---- TE-51 on the real test split --------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("style", [CORPUS_STYLE, PLAIN], ids=["corpus", "plain"])
def test_gsm8k_test_split_converts_and_lints_clean(style: Style) -> None:
    if not GSM8K_TEST.exists():
        pytest.skip(f"GSM8K test split not found at {GSM8K_TEST}")
    start = time.perf_counter()
    results = list(convert_jsonl(GSM8K_TEST, style))
    summary = summarise(c for _, c in results)
    assert summary.total == 1319
    assert summary.converted >= 1250, summary.to_dict()
    assert set(summary.skipped) <= set(SKIP_REASONS)
    flagged = []
    for index, out in results:
        if out.trace is not None:
            result = te.lint(out.trace, LINT)
            if result.verdict != "CLEAN" or result.diagnostics:
                flagged.append((index, result.at()))
    assert flagged == [], flagged[:20]
    print(f"\n{summary.to_dict()} in {time.perf_counter() - start:.2f} s (convert + lint)")
