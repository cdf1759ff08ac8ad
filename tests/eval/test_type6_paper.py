"""Every figure of the seed paper that ``eval type6`` prints sits in the paper's text, verbatim."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cotaudit.eval import type6_paper as paper

TEXT = Path(__file__).resolve().parents[3] / "shared" / "spec" / "papers" / "type6-logic.txt"
pytestmark = pytest.mark.skipif(not TEXT.is_file(), reason=f"{TEXT} is absent")


def _paper() -> str:
    return TEXT.read_text(encoding="utf-8")


def _numbers(snippet: str) -> list[float]:
    return [float(x) for x in re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])", snippet)]


@pytest.mark.parametrize("code", sorted(paper.TABLE17))
def test_table17_rows(code: str) -> None:
    row = paper.TABLE17[code]
    assert row.verbatim in _paper()
    numbers = _numbers(row.verbatim.split(")")[-1])  # after "(Uc)(U_c)" style labels
    assert numbers[0] == row.traces
    assert (numbers[1] if len(numbers) > 1 else None) == row.avg_events
    assert row.verbatim.endswith("—") == (row.avg_events is None)


@pytest.mark.parametrize("name", sorted(paper.TABLE18))
def test_table18_rows(name: str) -> None:
    row = paper.TABLE18[name]
    assert row.verbatim in _paper()
    assert _numbers(row.verbatim)[-5:] == list(row.values)


def test_hard_fail_rate_and_mean_score() -> None:
    text = _paper()
    assert paper.HARD_FAIL_VERBATIM in text and paper.HARD_FAIL_VERBATIM.endswith("85.3% (990)")
    assert paper.HARD_FAIL_RATE == 0.853 and paper.SCORED_TRACES == 990
    assert paper.MEAN_GRADED_VERBATIM in text and paper.MEAN_GRADED_VERBATIM.endswith("1.3421.342")


def _undouble(text: str) -> str:
    """The extraction writes "409409" for 409 and "[a,b][a,b]" for [a,b]."""
    text = re.sub(r"(\[[^\]]*\])\1", r"\1", text)
    return re.sub(r"(?<![\d.])(\d+(?:\.\d+)?)\1(?![\d.])", r"\1", text)


@pytest.mark.parametrize("key", sorted(paper.QUOTES))
def test_quotes(key: str) -> None:
    q = paper.QUOTES[key]
    assert q.verbatim in _paper()
    assert _undouble(q.verbatim) == q.text
