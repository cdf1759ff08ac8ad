"""Bounded self-reflection (V-49): render solver feedback for every failing step, ask a
reflector for a revision of the chain from the first failure on, re-verify, repeat.

The loop stops when the chain is valid, after ``max_rounds``, or when a revision repeats the
previous one. A reflector is any object with ``revise(request) -> (steps, answer)``; the LLM
reflector lives in ``cotaudit.frontends.vericot_llm``, the offline ``OracleReflector`` here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from cotaudit.report import Report
from cotaudit.vericot.schema import StepIn, TraceInput


@dataclass(frozen=True)
class StepFeedback:
    index: int
    status: str
    reason: str | None
    message: str


@dataclass(frozen=True)
class ReflectRequest:
    trace: TraceInput
    steps: list[str]
    answer: str | None
    round: int
    first_failure: int
    feedback: list[StepFeedback]


class Reflector(Protocol):
    def revise(self, request: ReflectRequest) -> tuple[list[str], str | None] | None: ...


def feedback_for(report: Report, with_judge: bool) -> list[StepFeedback]:
    """Deterministic feedback for every failing step."""
    out = []
    for s in report.details.get("steps", []):
        if s["status"] == "entailed":
            continue
        parts = [f"step {s['index'] + 1} is {s['status']}" + (f" ({s['reason']})" if s["reason"] else "")]
        if s.get("formula") and s["formula"].get("smt"):
            parts.append(f"formula: {s['formula']['smt']}")
        if s["support"]:
            parts.append("refuted by: " + ", ".join(e["id"] for e in s["support"]))
        for d in s["premises"]["dropped"]:
            parts.append(f"premise {d['id']} dropped: {d['reason']}")
        if with_judge:
            for r in s["premises"]["rejected"]:
                parts.append(f"premise {r['id']} rejected by {r['by']}: {r['reason']}")
        out.append(StepFeedback(s["index"], s["status"], s["reason"], "; ".join(parts)))
    return out


def reflect(
    trace: TraceInput,
    report: Report,
    reasoner: Reflector,
    verify: Callable[[TraceInput], Report],
    *,
    max_rounds: int = 3,
    feedback: str = "solver",
) -> tuple[TraceInput, Report, list[dict[str, Any]]]:
    """Run the loop; returns the last trace, its report and the rounds (``details.reflection``)."""
    rounds: list[dict[str, Any]] = [_round(0, trace, report)]
    prev_steps = [s.text for s in trace.step_list()]
    for rnd in range(1, max_rounds + 1):
        ff = report.details.get("first_failure")
        if report.details.get("verdict") == "valid" or ff is None:
            break
        k = ff["index"]
        req = ReflectRequest(
            trace, prev_steps, trace.answer, rnd, k, feedback_for(report, feedback == "solver+judge")
        )
        try:
            revised = reasoner.revise(req)
        except Exception:  # fail closed: reflection stops
            revised = None
        if revised is None:
            break
        new_steps = prev_steps[:k] + list(revised[0])
        if new_steps == prev_steps:
            break
        trace = _with_steps(trace, new_steps, revised[1])
        report = verify(trace)
        rounds.append(_round(rnd, trace, report))
        prev_steps = new_steps
    return trace, report, rounds


def _round(n: int, trace: TraceInput, report: Report) -> dict[str, Any]:
    ff = report.details.get("first_failure")
    return {
        "round": n,
        "steps": [s.text for s in trace.step_list()],
        "answer": trace.answer,
        "verdict": report.details.get("verdict"),
        "first_failure": None if ff is None else ff["index"],
    }


def _with_steps(trace: TraceInput, steps: list[str], answer: str | None) -> TraceInput:
    data = trace.model_dump()
    data["steps"] = [StepIn(id=f"s{i}", text=t).model_dump() for i, t in enumerate(steps, start=1)]
    data["cot"] = None
    data["answer"] = answer if answer is not None else trace.answer
    form = data.get("formalization")
    if form is not None:
        form["steps"] = []  # revised steps are formalised afresh by the configured formalizer
    return TraceInput.model_validate(data)


class OracleReflector:
    """Offline reflector: puts the gold step back at the first failure (tests, V-49)."""

    def __init__(self, gold_steps: list[str]) -> None:
        self.gold = gold_steps

    def revise(self, request: ReflectRequest) -> tuple[list[str], str | None] | None:
        k = request.first_failure
        if k >= len(self.gold):
            return None
        return [self.gold[k], *request.steps[k + 1 :]], request.answer


class EchoReflector:
    """Returns its input unchanged; the loop must stop after one round."""

    def revise(self, request: ReflectRequest) -> tuple[list[str], str | None] | None:
        return request.steps[request.first_failure :], request.answer
