"""The step procedure (V-18, V-21 … V-26): formalise, merge, guard, KB check, premises,
judge, decide, support and commit — for every step of one trace (one :class:`TraceRun`, in
:mod:`.tracerun`).

:class:`Verifier` returns a :class:`TraceResult`; :mod:`cotaudit.vericot.r1` turns it into the
R-1 report. Nothing here prints or imports the LLM layer: LLM stages arrive as hook objects.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from cotaudit.errors import CotauditError
from cotaudit.limits import checkpoint, remaining
from cotaudit.vericot.config import VerifierConfig
from cotaudit.vericot.premises import StepOutcome
from cotaudit.vericot.schema import TraceError, TraceInput, load_trace, validate_trace
from cotaudit.vericot.smt import Z3_VERSION
from cotaudit.vericot.tracerun import StepFormalizer, TraceLoadError, TraceRun

__all__ = [
    "NotATrace",
    "StepFormalizer",
    "StepOutcome",
    "TraceLoadError",
    "TraceResult",
    "TraceRun",
    "Verifier",
    "as_trace",
]


class NotATrace(CotauditError, TypeError):
    """What was given to :class:`Verifier` is not a vericot trace (the message says why)."""


def as_trace(trace: object) -> TraceInput:
    """A :class:`TraceInput` from itself, a dict in the trace's JSON shape, or its JSON text."""
    if isinstance(trace, TraceInput):
        return trace
    if isinstance(trace, str):
        loaded = load_trace(trace)
    elif isinstance(trace, dict):
        loaded = validate_trace(trace)
    else:
        raise NotATrace(f"a vericot trace is a TraceInput, a dict or JSON text, not {type(trace).__name__}")
    if isinstance(loaded, TraceError):
        raise NotATrace(f"not a vericot trace: {loaded.message}")
    return loaded


@dataclass
class TraceResult:
    """The verified trace: KB state, steps, committed premises and the verdict (V-44, V-45)."""

    trace: TraceInput
    config: VerifierConfig
    steps: list[StepOutcome]
    vocabulary: list[str]
    premises: list[dict[str, Any]]
    kb: dict[str, Any]
    verdict: str
    z3_version: str = Z3_VERSION


def trace_deadline(cfg: VerifierConfig) -> float | None:
    """The monotonic time by which the trace must end: ``trace_budget_ms`` from now, or the
    enclosing :mod:`cotaudit.limits` budget (``api.check`` opens one per input) if that ends
    first; ``None`` when neither bounds it."""
    own = cfg.trace_budget_ms / 1000.0 if cfg.trace_budget_ms is not None else None
    left = remaining(own)
    return None if left is None else time.monotonic() + left


def _verdict(steps: list[StepOutcome], kb: dict[str, Any]) -> str:
    if (
        any(s.status in ("contradicted", "ungrounded", "untranslatable") for s in steps)
        or kb["consistent"] is False
    ):
        return "invalid"
    all_entailed = bool(steps) and all(s.status == "entailed" for s in steps)
    if all_entailed and kb["consistent"] is True and not any("vacuous" in s.flags for s in steps):
        return "valid"
    return "unknown"


class Verifier:
    """``Verifier(config).run(trace)``: the whole procedure for one trace."""

    def __init__(
        self, config: VerifierConfig | None = None, formalizer: StepFormalizer | None = None
    ) -> None:
        self.config = config or VerifierConfig()
        self.formalizer = formalizer
        if self.formalizer is None and self.config.formalizer in ("proofwriter", "prontoqa"):
            from cotaudit.vericot.formalizers import step_formalizer

            self.formalizer = step_formalizer(self.config.formalizer)

    def start(self, trace: TraceInput | dict[str, Any] | str) -> TraceRun:
        """A loaded :class:`TraceRun` whose steps the caller drives (injection, reflection)."""
        trace = as_trace(trace)
        cfg = self.config
        if trace.formalization is not None and trace.formalization.semantics != cfg.semantics:
            cfg = cfg.with_options(semantics=trace.formalization.semantics)
        run = TraceRun(trace, cfg, self.formalizer)
        run.load()
        return run

    def run(self, trace: TraceInput | dict[str, Any] | str) -> TraceResult:
        """Verify ``trace`` (a :class:`TraceInput`, a dict in its JSON shape, or its JSON text);
        :class:`NotATrace` if it is not one, :class:`TraceLoadError` if its shared formalization
        cannot load."""
        trace = as_trace(trace)
        cfg = self.config
        if trace.formalization is not None and trace.formalization.semantics != cfg.semantics:
            cfg = cfg.with_options(semantics=trace.formalization.semantics)
        run = TraceRun(trace, cfg, self.formalizer)
        run.kb.deadline = trace_deadline(cfg)
        run.load()
        steps: list[StepOutcome] = []
        for i, s in enumerate(trace.step_list()):
            if run.kb.out_of_time():
                steps.append(run.skipped(i, s))
                continue
            # Memory (and, should the enclosing budget be the tighter one, time) backstop.
            # Our own deadline is never later than the enclosing one, so a trace that runs
            # out of time normally ends here with its decided steps kept, not in BudgetExceeded.
            checkpoint()
            steps.append(run.step(i, s))
        return TraceResult(
            trace=trace,
            config=cfg,
            steps=steps,
            vocabulary=run.vocab.lines(),
            premises=run.committed,
            kb=run.kb_state,
            verdict=_verdict(steps, run.kb_state),
        )
