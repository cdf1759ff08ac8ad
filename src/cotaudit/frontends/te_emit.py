"""Telegraph emission: a problem → the 5-shot TE prompt → a completion → a checked trace.

:func:`emit` asks the model once (the prompt ``te_emit``: the TE rules and five worked
examples, then the problem), cuts the trace out of the completion with TE-5's
:func:`~cotaudit.te.grammar.extract_trace`, and lints it twice: with the structural preset
(M1) for *structural compliance*, and with the full linter (M2) for the verdict. It never
raises for what the model wrote: an empty answer, prose without a trace, or a server that
failed all end in an :class:`Emission` whose ``status`` and ``reason`` say so.

Structural compliance means: the completion holds a ``GIVEN:`` … ``ANS:`` span and the M1
preset finds no error in it (tags, IDs, citations, order, blocks — not the arithmetic).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from cotaudit import te
from cotaudit.frontends.answers import ans_value
from cotaudit.llm.client import LLMClient
from cotaudit.llm.prompts import load_prompt
from cotaudit.llm.types import LLMError, ReplayMiss, Request
from cotaudit.te.grammar import extract_trace

PROMPT = "te_emit"
RECORDED_PROMPT_VERSION = 1
"""The version the committed replay recordings answer (tests/fixtures/llm/te_emit). The default
is the latest version (v2 teaches ``:=`` rebinding, ``≈`` and base-n numerals, issue 19); a
recording is keyed by the prompt's id and text, so v1 stays selectable to replay it."""
EmitStatus = Literal["compliant", "noncompliant", "abstain"]


@dataclass(frozen=True, slots=True)
class Emission:
    """One emitted trace and what the linter made of it."""

    status: EmitStatus
    reason: str | None
    completion: str
    trace: str
    line_offset: int  # lines of the completion before the trace (add to diagnostic lines)
    structural_errors: tuple[str, ...] = ()  # ``CODE@line`` of the M1 errors, completion lines
    verdict: str | None = None  # the full linter's CLEAN / FLAG
    answer: str | None = None  # the ANS expression as written
    value: Fraction | None = None  # its value, when it can be known

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "reason": self.reason,
            "verdict": self.verdict,
            "answer": self.answer,
            "value": str(self.value) if self.value is not None else None,
            "structural_errors": list(self.structural_errors),
            "line_offset": self.line_offset,
            "trace": self.trace,
            "completion": self.completion,
        }


def emission_request(
    problem: str, *, sample: int = 0, max_tokens: int = 512, tag: str = "", prompt_version: int | None = None
) -> Request:
    """The 5-shot TE request for ``problem`` (temperature 0), with the latest prompt unless
    ``prompt_version`` names another."""
    prompt = load_prompt(PROMPT, prompt_version)
    return Request(
        prompt.render(problem=" ".join(problem.split())),
        prompt=prompt.id,
        temperature=0.0,
        max_tokens=max_tokens,
        sample=sample,
        tag=tag,
    )


def emit(
    client: LLMClient, problem: str, *, sample: int = 0, tag: str = "", prompt_version: int | None = None
) -> Emission:
    """Ask for a TE trace of ``problem`` and check it (see the module doc)."""
    try:
        request = emission_request(problem, sample=sample, tag=tag, prompt_version=prompt_version)
        completion = client.complete(request).text
    except ReplayMiss:
        raise
    except LLMError as exc:
        return Emission("abstain", f"no answer: {exc}", "", "", 0)
    return check_completion(completion)


def check_completion(completion: str) -> Emission:
    """Extract (TE-5) and lint a raw completion."""
    if not completion.strip():
        return Emission("noncompliant", "the answer was empty", completion, "", 0)
    extracted = extract_trace(completion)
    trace, offset = extracted.trace, extracted.line_offset
    has_given = any(line.lstrip().startswith("GIVEN:") for line in trace.split("\n"))
    has_ans = any(line.lstrip().startswith("ANS:") for line in trace.split("\n"))
    answer, value = ans_value(trace)
    structural = te.lint(trace, te.M1)
    errors = tuple(f"{d.code}@{d.line + offset}" for d in structural.diagnostics if d.severity == "error")
    verdict = te.lint(trace, te.M2).verdict
    if not (has_given and has_ans):
        missing = " and ".join(tag for tag, ok in (("GIVEN:", has_given), ("ANS:", has_ans)) if not ok)
        reason = f"no TE trace: no {missing} line"
        return Emission("noncompliant", reason, completion, trace, offset, errors, verdict, answer, value)
    if errors:
        reason = f"{len(errors)} structural error(s): {', '.join(errors[:5])}"
        return Emission("noncompliant", reason, completion, trace, offset, errors, verdict, answer, value)
    return Emission("compliant", None, completion, trace, offset, (), verdict, answer, value)
