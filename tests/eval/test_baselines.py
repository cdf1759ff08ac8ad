"""The Trivial baseline and the agreement statistics (κ on hard-fail, ρ on scalars)."""

from __future__ import annotations

import pytest

from cotaudit.eval.baselines import MethodScores, agreement, kappa, spearman, statements, trivial


def test_statements_split_on_sentences_and_lines() -> None:
    assert statements("A is b. So c!\nD?  \n\nE") == ["A is b.", "So c!", "D?", "E"]


def test_trivial_signals() -> None:
    r = trivial("It rains. So the ground is wet. It rains. So the ground is wet.")
    assert r.statements == 4
    assert r.connective_density == 0.5
    assert r.repetition_rate == 0.0  # adjacent statements differ; the repeats are two apart
    assert r.type_token_ratio == pytest.approx(7 / 14)
    assert 0.0 <= r.score <= 5.0 and not r.hard_fail
    assert trivial("It rains. It rains. It rains.").repetition_rate == 1.0


def test_trivial_hard_fails_short_or_connective_free_traces() -> None:
    assert trivial("Yes.").hard_fail
    assert trivial("It rains. The ground is wet. Birds sing.").hard_fail
    assert trivial("").hard_fail and trivial("").score == pytest.approx(5 * 0.25)


def test_trivial_is_deterministic() -> None:
    text = "First we add. Then we check because it matters. So 4."
    assert trivial(text) == trivial(text)


def test_kappa_and_spearman_skip_undecided_items() -> None:
    assert kappa([True, False, None, True], [True, False, True, None]) == 1.0
    assert kappa([None], [True]) is None
    assert spearman([1.0, 2.0, 3.0, None], [2.0, 4.0, 9.0, 1.0]) == 1.0
    assert spearman([1.0, 2.0, 3.0], [3.0, 2.0, 1.0]) == -1.0
    assert spearman([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]) is None  # a constant side has no rank order
    assert spearman([1.0, 2.0], [1.0, 2.0]) is None


def test_agreement_table_covers_every_pair() -> None:
    rows = agreement(
        {
            "a": MethodScores([True, False, True, False], [1.0, 4.0, 2.0, 5.0]),
            "b": MethodScores([True, False, False, False], [0.5, 2.0, 2.5, 4.0]),
            "c": MethodScores([None, None, None, None], [None, None, None, None]),
        }
    )
    assert [r["pair"] for r in rows] == ["a-b", "a-c", "b-c"]
    assert rows[0]["kappa_hard_fail"] == 0.5 and rows[0]["spearman_score"] == 0.8 and rows[0]["items"] == 4
    assert rows[1] == {"pair": "a-c", "kappa_hard_fail": None, "spearman_score": None, "items": 0}
