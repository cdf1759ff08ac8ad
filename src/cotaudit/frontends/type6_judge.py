"""The Type-6 paper's LLM-judge baseline: a 4-axis rubric and an overall 0–5 coherence score.

The model reads the raw chain of thought (prompt ``type6_judge``) and answers four yes/no axes
— contradiction, unsupported conclusion, modal mismatch, unresolved doubt — and a score. As in
the paper, the judge hard-fails a trace when any axis fires. An answer that never validates
abstains, with the reason; it is never read as a pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from cotaudit.llm.client import LLMClient
from cotaudit.llm.prompts import load_prompt
from cotaudit.llm.types import Request

AXES = ("contradiction", "unsupported_conclusion", "modal_mismatch", "unresolved_doubt")
MAX_CHARS = 12_000  # of the raw trace shown to the judge: small servers have small contexts


class JudgeAnswer(BaseModel):
    contradiction: bool
    unsupported_conclusion: bool
    modal_mismatch: bool
    unresolved_doubt: bool
    score: float = Field(ge=0, le=5)
    explanation: str = Field(default="", max_length=1000)


@dataclass(frozen=True, slots=True)
class JudgeResult:
    status: Literal["ok", "invalid", "abstain"]
    hard_fail: bool | None = None
    score: float | None = None
    axes: tuple[str, ...] = ()  # the axes that fired
    reason: str | None = None
    reasks: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "hard_fail": self.hard_fail,
            "score": self.score,
            "axes": list(self.axes),
            "reason": self.reason,
            "reasks": self.reasks,
        }


def judge_type6(client: LLMClient, raw: str, *, sample: int = 0, tag: str = "") -> JudgeResult:
    """One rubric judgement of ``raw`` (temperature 0)."""
    prompt = load_prompt("type6_judge")
    text = raw.strip()[:MAX_CHARS]
    request = Request(prompt.render(trace=text), prompt=prompt.id, max_tokens=256, sample=sample, tag=tag)
    result = client.structured(request, JudgeAnswer)
    if not result.ok or result.value is None:
        return JudgeResult(result.status, reason=result.reason, reasks=result.reasks)
    answer = result.value
    fired = tuple(axis for axis in AXES if getattr(answer, axis))
    return JudgeResult("ok", bool(fired), round(answer.score, 6), fired, reasks=result.reasks)
