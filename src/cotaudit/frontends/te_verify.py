"""The te baselines' model calls (TE-55): M3 Natural Program self-verification, M4 LLM judge.

Both show the model a line-numbered text — M3 the deterministic NP rendering of the trace
(TE-49, one NP line per TE line, so a cited line is a TE line), M4 the raw TE trace — and ask
for ``{"verdict", "first_error_line", "explanation"}``. Each judgement is ``votes`` requests at
temperature 0 (samples ``run * votes + k``), validated with re-asks; the verdict is the
majority of the valid votes (a tie is not a flag), the line the most cited one among the
flagging votes. With no valid vote the result abstains, with the reasons.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from cotaudit.llm.client import LLMClient
from cotaudit.llm.prompts import load_prompt
from cotaudit.llm.structured import Structured
from cotaudit.llm.types import Request
from cotaudit.te.corpus.np import render_np
from cotaudit.te.grammar import split_lines

Kind = Literal["M3", "M4"]
PROMPTS: dict[str, str] = {"M3": "np_verify", "M4": "te_judge"}
MAX_TOKENS = 160  # a verdict, a line number and one sentence; small models ramble past that


class TraceVerdict(BaseModel):
    """The answer both prompts ask for."""

    verdict: Literal["correct", "incorrect"]
    first_error_line: int | None = None
    explanation: str = Field(default="", max_length=1000)


@dataclass(frozen=True, slots=True)
class VoteResult:
    """The majority of one judgement's votes."""

    status: Literal["ok", "abstain"]
    flagged: bool
    line: int | None
    votes: tuple[Structured[TraceVerdict], ...]
    reason: str | None = None

    @property
    def reasks(self) -> int:
        return sum(v.reasks for v in self.votes)


def numbered(text: str) -> str:
    """``1: …`` per TE-1 line (``str.splitlines`` would split where the linter does not)."""
    lines = split_lines(text)
    return "\n".join(f"{i}: {line}" for i, line in enumerate(lines, start=1))


def verification_text(kind: Kind, trace: str) -> str:
    """What the model reads: the NP rendering (M3) or the raw trace (M4)."""
    return render_np(trace).text if kind == "M3" else trace


def _checker(n_lines: int) -> Callable[[TraceVerdict], str | None]:
    def check(v: TraceVerdict) -> str | None:
        if v.verdict == "incorrect" and v.first_error_line is None:
            return "first_error_line is required when the verdict is incorrect"
        line = v.first_error_line
        if v.verdict == "incorrect" and line is not None and not 1 <= line <= n_lines:
            return f"first_error_line must be a line number between 1 and {n_lines}, not {line}"
        return None

    return check


def judge(
    client: LLMClient, kind: Kind, trace: str, *, run: int = 0, votes: int = 3, tag: str = ""
) -> VoteResult:
    """``votes`` validated verdicts on ``trace`` and their majority (see the module doc)."""
    text = verification_text(kind, trace)
    n_lines = len(split_lines(text))
    prompt = load_prompt(PROMPTS[kind])
    messages = prompt.render(numbered=numbered(text))
    check = _checker(n_lines)

    def one(k: int) -> Structured[TraceVerdict]:
        request = Request(
            messages,
            prompt=prompt.id,
            temperature=0.0,
            max_tokens=MAX_TOKENS,
            sample=run * votes + k,
            tag=f"{tag} vote {k}".strip(),
        )
        return client.structured(request, TraceVerdict, check=check)

    results = tuple(client.map(one, list(range(votes))))
    valid = [r.value for r in results if r.ok and r.value is not None]
    if not valid:
        reasons = "; ".join(sorted({f"{r.status}: {r.reason}" for r in results}))
        return VoteResult("abstain", False, None, results, f"no valid vote of {votes} ({reasons})")
    flags = [v for v in valid if v.verdict == "incorrect"]
    flagged = len(flags) > len(valid) - len(flags)
    line = None
    if flagged:
        cited = Counter(v.first_error_line for v in flags if v.first_error_line is not None)
        line = min(cited, key=lambda n: (-cited[n], n)) if cited else None
    return VoteResult("ok", flagged, line, results)
