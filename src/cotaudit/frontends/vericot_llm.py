"""The LLM stages of vericot (shared/spec/vericot.md §5–§6) on the shared LLM layer.

:class:`VericotLLM` is the hook object passed as ``VerifierConfig(llm=...)``; the engine calls
it and never imports ``cotaudit.llm``:

- ``formalize_step`` / premise formalisation: the two-stage loop of V-33 (stage 1 with the
  current vocabulary, stage 2 for missing declarations, at most ``max_rounds`` rounds);
- ``propose_premises``: premise generation (V-34), formalising premises without usable SMT;
- ``judge_hook``: the LLM judge (V-35), behind the deterministic pre-checks;
- :class:`LLMReflector`: the reasoner for self-reflection (V-49);
- :func:`check`: the vericot engine as ``cotaudit check`` / ``audit`` / the API run it. A trace
  whose steps all carry formulas is checked as it is; one with steps to formalise (a raw chain
  of thought) gets the LLM stages when the environment configures a model (``COTAUDIT_LLM_*``,
  see :mod:`cotaudit.llm.config`), and otherwise its unformalised steps are ``unknown`` with one
  warning naming what to configure (issue 19: unknown is never false).

Every stage fails closed (V-31): an invalid answer after one repair call fails the round, yields
no premises, rejects every premise or stops reflection; a replay miss or the per-trace call
budget makes the step ``unknown``. No verdict is ever fabricated.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from cotaudit.llm.client import LLMClient
from cotaudit.llm.config import API_KEY_ENV, LLMSettings, build_client
from cotaudit.llm.prompts import Prompt
from cotaudit.llm.types import ReplayMiss, Request
from cotaudit.report import Report
from cotaudit.vericot import r1
from cotaudit.vericot.compile import CompileError, compile_formula
from cotaudit.vericot.config import VerifierConfig
from cotaudit.vericot.contracts import (
    CoTRequest,
    CoTResponse,
    FormalizeRequest,
    FormalizeResponse,
    JudgedPremise,
    JudgeRequest,
    JudgeResponse,
    KnownEntry,
    PremiseRequest,
    PremiseResponse,
    ReflectResponse,
    VocabularyRequest,
    VocabularyResponse,
)
from cotaudit.vericot.contracts import ReflectRequest as ReflectContract
from cotaudit.vericot.contracts import StepFeedback as FeedbackContract
from cotaudit.vericot.judge import JudgeItem, Verdict
from cotaudit.vericot.reflect import ReflectRequest
from cotaudit.vericot.schema import (
    Context,
    PremiseIn,
    StepFormalization,
    StepIn,
    TraceError,
    TraceInput,
    load_trace,
)
from cotaudit.vericot.smtlib import SmtError, Vocabulary, parse_field

PROMPT_DIR = Path(__file__).resolve().parents[1] / "vericot" / "prompts"


class StageUnavailable(Exception):
    """A replay miss or the call budget: the step becomes ``unknown``."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


def load_stage_prompt(name: str, version: int = 1) -> Prompt:
    text = (PROMPT_DIR / f"{name}.v{version}.txt").read_text(encoding="utf-8")
    return Prompt(name, version, text)


@dataclass
class _Budget:
    used: int
    limit: int


class VericotLLM:
    """The stage hooks for one configured client."""

    name = "llm"

    def __init__(
        self, client: LLMClient, *, max_rounds: int = 3, max_premises: int = 6, max_calls_per_trace: int = 200
    ) -> None:
        self.client = client
        self.max_rounds = max_rounds
        self.max_premises = max_premises
        self.max_calls = max_calls_per_trace
        self._prompts = {
            n: load_stage_prompt(n)
            for n in (
                "vericot_formalize",
                "vericot_vocabulary",
                "vericot_premises",
                "vericot_judge",
                "vericot_reflect",
                "vericot_cot",
            )
        }

    # ------------------------------------------------------------------ one call

    def call(
        self, stage: str, payload: BaseModel, response: type[BaseModel], budget: _Budget
    ) -> tuple[Any, int]:
        """One structured call with at most one repair; ``(value or None, calls spent)``."""
        if budget.used >= budget.limit:
            raise StageUnavailable("budget_exhausted", f"more than {budget.limit} LLM calls in this trace")
        prompt = self._prompts[stage]
        body = json.dumps(payload.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)
        request = Request(
            prompt.render(request=body), prompt=prompt.id, temperature=0.0, max_tokens=1024, tag=stage
        )
        try:
            result = self.client.structured(request, response, reasks=1)
        except ReplayMiss as exc:
            raise StageUnavailable("llm_unavailable", f"{stage}: replay miss {exc}") from None
        spent = 1 + result.reasks
        budget.used += spent
        return (result.value if result.ok else None), spent

    # ------------------------------------------------------------------ stage context

    @staticmethod
    def stage_context(run: Any) -> dict[str, Any]:
        kb = run.kb
        known = []
        for i in kb.active[-60:]:
            e = kb.entries[i]
            known.append(
                KnownEntry(id=run.trace_step_id(e), kind=e.kind, source=e.source, text=e.text, smt=e.smt)
            )
        return {"context": run.trace.context, "vocabulary": run.vocab.lines(), "known": known}

    # ------------------------------------------------------------------ V-33 loop

    def formalize_text(
        self, run: Any, kind: str, text: str, budget: _Budget
    ) -> tuple[str | None, str, tuple[str, str] | None]:
        """``(smt with new declarations, decls text, failure)``; failure is (reason, detail)."""
        v_work: Vocabulary = run.vocab.copy()
        feedback: str | None = None
        for rnd in range(1, self.max_rounds + 1):
            base = self.stage_context(run) | {"vocabulary": v_work.lines()}
            req = FormalizeRequest(**base, kind=kind, text=text, round=rnd, feedback=feedback)  # type: ignore[arg-type]
            resp, _ = self.call("vericot_formalize", req, FormalizeResponse, budget)
            if resp is None:
                feedback = "the answer did not match the FormalizeResponse schema"
                continue
            assert isinstance(resp, FormalizeResponse)
            if resp.outcome == "untranslatable":
                return None, "", ("llm_declined", resp.reason or "the model declined")
            if resp.outcome == "formula":
                new = [d for name, d in v_work.decls.items() if name not in run.vocab.decls]
                decls = " ".join(d.canon() for d in new)
                comp = compile_formula(run.kb.z3, run.vocab, resp.smt or "", decls=decls)
                if isinstance(comp, CompileError):
                    feedback = comp.detail
                    continue
                return comp.smt, decls, None
            vreq = VocabularyRequest(**base, text=text, missing=resp.missing)
            vresp, _ = self.call("vericot_vocabulary", vreq, VocabularyResponse, budget)
            if vresp is None:
                feedback = "the answer did not match the VocabularyResponse schema"
                continue
            assert isinstance(vresp, VocabularyResponse)
            problems = []
            for text_decl in vresp.declarations:
                try:
                    field = parse_field(text_decl, assertions=False)
                    if len(field.decls) != 1:
                        raise SmtError("parse_error", "one declaration per item")
                    v_work.extend(v_work.new_decls(list(field.decls)))
                except SmtError as exc:
                    problems.append(f"{text_decl}: {exc.message}")
            feedback = "; ".join(problems) or None
        return None, "", ("rounds_exhausted", feedback or "no valid formula within the round limit")

    def formalize_step(
        self, run: Any, step: StepIn
    ) -> tuple[StepFormalization | None, int, tuple[str, str | None]]:
        budget = _Budget(run.llm_calls, self.max_calls)
        start = budget.used
        try:
            smt, decls, failure = self.formalize_text(run, "step", step.text, budget)
        except StageUnavailable as exc:
            return None, budget.used - start, (exc.reason, exc.detail)
        if failure is not None:
            return None, budget.used - start, failure
        return StepFormalization(step_id=step.id, decls=decls, smt=smt), budget.used - start, ("", None)

    # ------------------------------------------------------------------ V-34

    def propose_premises(self, run: Any, out: Any, comp: Any) -> tuple[list[PremiseIn], int, str | None]:
        budget = _Budget(run.llm_calls, self.max_calls)
        start = budget.used
        try:
            req = PremiseRequest(
                **self.stage_context(run),
                step_text=out.step.text,
                step_smt=comp.smt,
                max_premises=self.max_premises,
            )
            resp, _ = self.call("vericot_premises", req, PremiseResponse, budget)
            if resp is None:
                return [], budget.used - start, None  # fail closed: no candidates
            assert isinstance(resp, PremiseResponse)
            proposed = sorted(resp.premises[: self.max_premises], key=lambda p: p.source != "context")
            premises: list[PremiseIn] = []
            for j, p in enumerate(proposed, start=1):
                smt = p.smt
                if smt is not None and isinstance(compile_formula(run.kb.z3, run.vocab, smt), CompileError):
                    smt = None
                if smt is None:
                    body, decls, failure = self.formalize_text(run, "premise", p.text, budget)
                    if failure is not None or body is None:
                        smt = "(assert (vc_untranslatable))"  # rejected by the filter as untranslatable
                    else:
                        smt = f"{decls} {body}".strip()
                pid = f"{out.step.id}_llm{j}"
                premises.append(PremiseIn(id=pid, text=p.text, source=p.source, smt=smt, evidence=p.evidence))
            return premises, budget.used - start, None
        except StageUnavailable as exc:
            return [], budget.used - start, f"{exc.reason}: {exc.detail}"

    # ------------------------------------------------------------------ V-35

    def judge_hook(self) -> LLMJudge:
        return LLMJudge(self)


class LLMJudge:
    """Context premises must be grounded in the source; commonsense ones acceptable."""

    name = "llm"

    def __init__(self, stages: VericotLLM) -> None:
        self.stages = stages

    def judge(self, context: Context, step_text: str, items: list[JudgeItem]) -> list[Verdict]:
        req = JudgeRequest(
            context=context,
            step_text=step_text,
            premises=[
                JudgedPremise(id=i.id, text=i.text, source=i.source, evidence=i.evidence, smt=i.smt)
                for i in items
            ],
        )
        try:
            resp, _ = self.stages.call("vericot_judge", req, JudgeResponse, _Budget(0, self.stages.max_calls))
        except StageUnavailable:
            return []  # fail closed: every premise is rejected (no verdict)
        if resp is None:
            return []
        assert isinstance(resp, JudgeResponse)
        return [Verdict(v.premise_id, v.accept, v.reason or v.criterion, "judge") for v in resp.verdicts]


class LLMReasoner:
    """Generates a chain of thought for a context (V-36 ``CoTRequest``); ``None`` on failure."""

    def __init__(self, stages: VericotLLM) -> None:
        self.stages = stages

    def generate(
        self, context: Context, answer_options: list[str] | None = None
    ) -> tuple[list[str], str] | None:
        req = CoTRequest(context=context, answer_options=answer_options)
        try:
            resp, _ = self.stages.call("vericot_cot", req, CoTResponse, _Budget(0, self.stages.max_calls))
        except StageUnavailable:
            return None
        if resp is None:
            return None
        assert isinstance(resp, CoTResponse)
        return list(resp.steps), resp.answer


class LLMReflector:
    """The reasoner for self-reflection (V-49); ``None`` (stop) on any failure."""

    def __init__(self, stages: VericotLLM) -> None:
        self.stages = stages

    def revise(self, request: ReflectRequest) -> tuple[list[str], str | None] | None:
        req = ReflectContract(
            context=request.trace.context,
            steps=request.steps,
            answer=request.answer,
            round=request.round,
            first_failure=request.first_failure,
            feedback=[
                FeedbackContract(index=f.index, status=f.status, reason=f.reason, message=f.message)
                for f in request.feedback
            ],
        )
        try:
            resp, _ = self.stages.call(
                "vericot_reflect", req, ReflectResponse, _Budget(0, self.stages.max_calls)
            )
        except StageUnavailable:
            return None
        if resp is None:
            return None
        assert isinstance(resp, ReflectResponse)
        return list(resp.revised_steps), resp.answer


# --------------------------------------------------------------------------- the engine entry


def needs_formalizer(trace: TraceInput) -> bool:
    """Some step has no formalization entry (a raw chain of thought has none at all)."""
    have = {sf.step_id for sf in (trace.formalization.steps if trace.formalization else [])}
    return any(step.id not in have for step in trace.step_list())


def unconfigured_hint(settings: LLMSettings, reason: str) -> str:
    """What to configure, in the words of ``cotaudit check`` (which reads the environment)."""
    hint = (
        "no formaliser is configured: set COTAUDIT_LLM_MODEL and COTAUDIT_LLM_BASE_URL for the LLM "
        "formaliser (or COTAUDIT_LLM_MODE=replay with COTAUDIT_LLM_CACHE=DIR to replay recordings); "
        "see docs/llm.md"
    )
    return hint if not settings.model else f"{hint} ({reason})"


@lru_cache(maxsize=4)
def _client(settings: LLMSettings, api_key: str | None) -> LLMClient:
    """One client per configuration, reused across traces (its cache, call log and slots)."""
    return build_client(settings, {API_KEY_ENV: api_key} if api_key else {})


def formalizer_config(
    cfg: VerifierConfig, trace: TraceInput, environ: Mapping[str, str] | None = None
) -> VerifierConfig:
    """``cfg`` for ``trace``: unchanged when every step has a formula or a formaliser is already
    chosen; else with the LLM stages (V-56: LLM formaliser, premise generation and judge) when
    ``environ`` configures a model, or with the hint of what to configure when it does not."""
    if cfg.formalizer != "none" or cfg.llm is not None or not needs_formalizer(trace):
        return cfg
    semantics = trace.formalization.semantics if trace.formalization is not None else cfg.semantics
    if semantics == "proofwriter" or cfg.semantics == "proofwriter":
        return cfg.with_options(
            formalizer_hint="no formaliser for steps without a formalization: the LLM formaliser "
            "cannot be combined with 'proofwriter' semantics (V-19); give those steps formulas"
        )
    env = os.environ if environ is None else environ
    settings = LLMSettings.from_env(env)
    reason = settings.unconfigured_reason()
    if reason is not None:
        return cfg.with_options(formalizer_hint=unconfigured_hint(settings, reason))
    client = _client(settings, env.get(API_KEY_ENV) or None)
    stages = VericotLLM(
        client,
        max_rounds=cfg.max_rounds,
        max_premises=cfg.max_premises,
        max_calls_per_trace=cfg.max_llm_calls_per_trace,
    )
    judge = "llm" if cfg.judge == "deterministic" else cfg.judge
    return cfg.with_options(formalizer="llm", llm=stages, judge=judge)


def check(
    text: str,
    *,
    path: str | None = None,
    item_id: str | None = None,
    config: VerifierConfig | Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    **options: Any,
) -> Report:
    """The vericot engine behind ``cotaudit check`` and ``audit``: :func:`cotaudit.vericot.check`
    with the formaliser this trace needs (see :func:`formalizer_config`)."""
    cfg = r1.make_config(config, options)
    loaded = load_trace(text, cfg.limits)
    if isinstance(loaded, TraceError):
        return r1.invalid(text, path, item_id, loaded.message, loaded.location)
    cfg = formalizer_config(cfg, loaded, environ)
    return r1.verify_trace(loaded, cfg, text, path=path, item_id=item_id or loaded.id)
