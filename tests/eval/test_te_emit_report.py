"""``eval te-emit`` compares with the paper's 5-shot row (issue 19, 6 (b)), quoted exactly; the
fine-tuned 2B model is context only."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cotaudit.eval import te_emit
from cotaudit.eval.te_emit import PAPER_5SHOT, PAPER_SFT_2B, Problem, evaluate, render
from cotaudit.llm import LLMClient, ScriptedBackend

PAPER = Path(__file__).resolve().parents[3] / "shared" / "spec" / "papers" / "telegraph-reasoning.txt"
GOOD = "GIVEN:\n  a := 2\n  b := 3\nGOAL: c\nEQ[e1]: c = a * b = 6\nANS: c\n"


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.skipif(not PAPER.is_file(), reason=f"{PAPER} is absent")
@pytest.mark.parametrize("row", [PAPER_5SHOT, PAPER_SFT_2B], ids=["5-shot", "sft-2b"])
def test_every_quote_is_in_the_paper_and_carries_the_figures(row: te_emit.PaperRow) -> None:
    paper = _flat(PAPER.read_text(encoding="utf-8"))
    quoted = [q for quote in row.quotes for q in re.findall(r"“([^”]+)”", quote)]
    assert quoted and all(_flat(q) in paper for q in quoted), [q for q in quoted if _flat(q) not in paper]
    quotes = " ".join(row.quotes)
    for value in [*row.compliance.values(), *row.accuracy.values()]:
        assert f"{100 * value:g}%" in quotes, value


def test_the_5shot_row_is_the_comparison() -> None:
    """5-shot: compliance 100% / 96.4%, accuracy 96.4% / 62.6% (§5.1, Table 1), not the SFT model's."""
    assert PAPER_5SHOT.compliance == {"gsm8k": 1.0, "math500": 0.964}
    assert PAPER_5SHOT.accuracy == {"gsm8k": 0.964, "math500": 0.626}
    client = LLMClient(ScriptedBackend([GOOD, "no trace here"]), mode="off", retries=1, sleep=lambda s: None)  # type: ignore[arg-type]
    problems = [Problem("g1", "gsm8k", "2*3?", "6"), Problem("m1", "math500", "2*3?", "7")]
    report = evaluate(client, problems)
    assert report["datasets"]["gsm8k"]["paper_5shot"] == {"compliance": 1.0, "accuracy": 0.964}
    assert report["datasets"]["math500"]["paper_5shot"] == {"compliance": 0.964, "accuracy": 0.626}
    assert report["paper"]["5-shot"]["condition"].startswith("R5 (TE), prompt-only 5-shot")
    text = render(report)
    assert "| gsm8k | 1 | 100.0% " in text and "| 100.0% / 96.4% |" in text and "| 96.4% / 62.6% |" in text
    header = next(line for line in text.splitlines() if line.startswith("| dataset |"))
    assert "5-shot" in header and "SFT" not in header  # near miss: SFT only as the context line
    assert "For context only" in text and "99.2%" in text and "R5-SFT" not in header
