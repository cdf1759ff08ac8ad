"""A real inspect_ai eval, with inspect's own mockllm/model provider (no network), scored by
cotaudit; the scores are read back from the log inspect wrote (issue 17)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.rewards.completions import FENCED, GOOD, PROSE, THINK, WRONG, WRONG_QUANTITY

pytest.importorskip("inspect_ai", reason="inspect_ai is not installed (pip install 'cotaudit[inspect]')")

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, ModelUsage, get_model
from inspect_ai.solver import generate

from cotaudit.integrations.inspect import cotaudit_scorer

# What the mock model answers to each prompt (mockllm/model with a callable: deterministic
# whatever order inspect runs the samples in).
ANSWERS = {
    "good": GOOD,
    "wrong": WRONG,
    "fenced": FENCED,
    "think": THINK,
    "prose": PROSE,
    "quantity": WRONG_QUANTITY,
    "hang": "GIVEN:\n  a := 10\nGOAL: b\nEQ[e1]: b = a ** a ** a ** a = 1\nANS: b\n",
}


def _answer(messages: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
    output = ModelOutput.from_content(model="mockllm/model", content=ANSWERS[messages[-1].text])
    # usage given, so mockllm does not count tokens with tiktoken (whose first use downloads
    # its encoding: this test runs offline)
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


def _run(tmp_path: Path, **scorer_args: Any) -> dict[str, Any]:
    task = Task(
        dataset=[Sample(input=name, target="18", id=name) for name in ANSWERS],
        solver=generate(),
        scorer=cotaudit_scorer(**scorer_args),
    )
    model = get_model("mockllm/model", custom_outputs=_answer)
    (log,) = eval(task, model=model, log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    read = read_eval_log(log.location)  # what inspect wrote to disk, read back
    assert read.samples is not None
    return {"log": read, "scores": {s.id: s.scores["cotaudit"] for s in read.samples if s.scores}}


def test_eval_log_holds_cotaudit_scores(tmp_path: Path) -> None:
    run = _run(tmp_path)
    scores = run["scores"]
    values = {k: s.value for k, s in scores.items() if k != "hang"}
    assert values == {"good": 1.0, "wrong": 0.0, "fenced": 1.0, "think": 1.0, "prose": 0.0, "quantity": 1.0}
    wrong = scores["wrong"]
    assert "TE_E006" in wrong.explanation and "line 8" in wrong.explanation
    assert wrong.metadata["report"]["verdict"] == "fail"
    assert wrong.metadata["report"]["findings"][0]["code"] == "TE_E006"
    assert scores["fenced"].metadata["line_offset"] == 3 and scores["good"].answer == "18"
    assert (
        scores["prose"].reason == "invalid_response_format"
        and scores["prose"].metadata["status"] == "invalid"
    )
    # could not check (TE_E014 only): recorded, unscored, and left out of the mean
    hang = scores["hang"]
    assert hang.reason == "scoring_failed" and hang.metadata["status"] == "unknown"
    assert hang.value != hang.value  # NaN, inspect's unscored sentinel
    (result,) = run["log"].results.scores
    assert result.name == "cotaudit"
    assert result.metrics["mean"].value == pytest.approx(4 / 6)


def test_answer_aware_mode_reads_the_target(tmp_path: Path) -> None:
    scores = _run(tmp_path, mode="process*answer")["scores"]
    assert scores["quantity"].value == 0.0 and scores["quantity"].answer == "9"
    assert scores["good"].value == 1.0 and scores["think"].value == 1.0
    assert scores["wrong"].value == 0.0


def test_bad_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown reward mode"):
        cotaudit_scorer(mode="sum")
