"""The R-1 report of one vericot trace (V-43 … V-46): ``check`` and ``to_report``.

Verdict: ``valid`` → ``pass``, ``invalid`` → ``fail``, ``unknown`` → ``abstain``; unreadable
input → ``invalid`` with a VC_E005 finding. Reports are byte-identical for the same input and
config; timings appear only with ``include_timings``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from cotaudit.errors import UsageError
from cotaudit.report import Finding, Location, Report, make_report
from cotaudit.vericot.config import ConfigError, VerifierConfig
from cotaudit.vericot.pipeline import StepOutcome, TraceLoadError, TraceResult, Verifier
from cotaudit.vericot.schema import TraceError, TraceInput, answers_equal, load_trace

ENGINE_VERSION = "vericot/1"
R1_VERDICT = {"valid": "pass", "invalid": "fail", "unknown": "abstain"}
STATUS_CODE = {
    "contradicted": "VC_E001",
    "ungrounded": "VC_E002",
    "untranslatable": "VC_E003",
    "unknown": "VC_W001",
}


def step_dict(s: StepOutcome, timings: bool) -> dict[str, Any]:
    d: dict[str, Any] = {
        "index": s.index,
        "step_id": s.step.id,
        "text": s.step.text,
        "status": s.status,
        "path": s.path,
        "reason": s.reason,
        "detail": s.detail,
        "formula": s.formula,
        "support": s.support,
        "core_minimal": s.core_minimal,
        "premises": {
            "accepted": s.accepted,
            "already_known": s.already_known,
            "rejected": s.rejected,
            "dropped": s.dropped,
        },
        "checks": [c.to_dict(timings) for c in s.checks],
        "tainted_by": s.tainted_by,
        "flags": s.flags,
    }
    if timings:
        d["timings"] = {"solver_ms": s.solver_ms, "llm_calls": s.llm_calls}
    return d


def _message(s: StepOutcome) -> str:
    n = s.index + 1
    if s.status == "contradicted":
        by = "the knowledge base" if s.reason == "contradicted_by_kb" else "accepted premises"
        return f"step {n} is contradicted by {by}: '{s.step.text}'"
    if s.status == "ungrounded":
        return f"step {n} is ungrounded: no accepted premise makes '{s.step.text}' follow"
    if s.status == "untranslatable":
        return f"step {n} is untranslatable ({s.reason}): {s.detail or ''}".rstrip(": ")
    if s.reason == "depends_on_unknown":
        return f"step {n} is unknown ({s.reason}): '{s.step.text}' is {s.detail}"
    return f"step {n} is unknown ({s.reason}): the solver could not decide '{s.step.text}'"


def findings(result: TraceResult) -> list[Finding]:
    out: list[Finding] = []
    if result.kb["consistent"] is False:
        core = result.kb["inconsistency_core"]
        out.append(
            Finding(
                "VC_E004",
                "error",
                Location(),
                f"the given premises are inconsistent: {', '.join(core)}",
                {"core": core},
            )
        )
    unformalised = [s for s in result.steps if "no_formalizer" in s.flags]
    if unformalised:  # one warning naming what to configure, not one per step
        first = unformalised[0]
        n, total = len(unformalised), len(result.steps)
        out.append(
            Finding(
                "VC_W003",
                "warning",
                Location(step=first.step.id),
                f"{n} of {total} step{'s' if total != 1 else ''} could not be formalised, so "
                f"{'they are' if n != 1 else 'it is'} unknown: {first.detail}",
                {
                    "index": first.index,
                    "status": "unknown",
                    "reason": first.reason,
                    "steps": [s.step.id for s in unformalised],
                },
            )
        )
    for s in result.steps:
        if "no_formalizer" in s.flags:
            continue
        loc = Location(step=s.step.id)
        ev: dict[str, Any] = {"index": s.index, "status": s.status, "reason": s.reason}
        if s.status in STATUS_CODE:
            code = STATUS_CODE[s.status]
            if s.status == "unknown" and (s.reason == "llm_unavailable" or "llm" in s.flags):
                code = "VC_W003"
            sev: Any = "error" if code.startswith("VC_E") else "warning"
            ev["support"] = [e["id"] for e in s.support]
            if s.tainted_by:
                ev["tainted_by"] = s.tainted_by
            out.append(Finding(code, sev, loc, _message(s), ev))
        elif s.tainted_by:
            ev["tainted_by"] = s.tainted_by
            out.append(
                Finding(
                    "VC_W002",
                    "warning",
                    loc,
                    f"step {s.index + 1} is entailed only through assumed step(s) "
                    + ", ".join(str(i + 1) for i in s.tainted_by),
                    ev,
                )
            )
    return out


def details(result: TraceResult) -> dict[str, Any]:
    cfg = result.config
    steps = result.steps
    failures = [s for s in steps if s.status != "entailed"]
    first = failures[0] if failures else None
    counts: dict[str, int] = {}
    for s in steps:
        counts[s.status] = counts.get(s.status, 0) + 1
    t = result.trace
    d: dict[str, Any] = {
        "verdict": result.verdict,
        "semantics": cfg.semantics,
        "z3_version": result.z3_version,
        "config": cfg.report_dict(),
        "kb": result.kb,
        "vocabulary": result.vocabulary,
        "premises": result.premises,
        "steps": [step_dict(s, cfg.include_timings) for s in steps],
        "first_failure": None
        if first is None
        else {"index": first.index, "step_id": first.step.id, "status": first.status, "reason": first.reason},
        "failures": [s.index for s in failures],
        "tainted": [s.index for s in steps if s.status == "entailed" and s.tainted_by],
        "counts": counts,
        "answer": {
            "predicted": t.answer,
            "gold": t.gold_answer,
            "correct": answers_equal(t.answer, t.gold_answer, t.answer_options),
        },
    }
    return d


def to_report(
    result: TraceResult, text: str, *, path: str | None, item_id: str | None, timing_ms: float | None
) -> Report:
    return make_report(
        "vericot",
        ENGINE_VERSION,
        R1_VERDICT[result.verdict],  # type: ignore[arg-type]
        text=text,
        path=path,
        item_id=item_id,
        findings=findings(result),
        details=details(result),
        timing_ms=timing_ms if result.config.include_timings else None,
    )


def invalid(
    text: str, path: str | None, item_id: str | None, error: str, location: str | None = None
) -> Report:
    return make_report(
        "vericot",
        ENGINE_VERSION,
        "invalid",
        text=text,
        path=path,
        item_id=item_id,
        findings=(Finding("VC_E005", "error", Location(), error, {"field": location}),),
        details={"verdict": "invalid", "error": error},
    )


def make_config(
    config: VerifierConfig | Mapping[str, Any] | None, overrides: Mapping[str, Any]
) -> VerifierConfig:
    try:
        base = (
            config
            if isinstance(config, VerifierConfig)
            else VerifierConfig().with_options(**dict(config or {}))
        )
        return base.with_options(**overrides) if overrides else base
    except ConfigError:
        raise
    except (TypeError, ValueError) as exc:
        raise UsageError(f"engine 'vericot': {exc}") from None


def verify_trace(
    trace: TraceInput,
    config: VerifierConfig,
    text: str = "",
    *,
    path: str | None = None,
    item_id: str | None = None,
) -> Report:
    """The report for an already validated trace."""
    start = time.perf_counter()
    try:
        result = Verifier(config).run(trace)
    except TraceLoadError as exc:
        return invalid(text, path, item_id, str(exc), "formalization")
    elapsed = round((time.perf_counter() - start) * 1000.0, 3)
    return to_report(result, text, path=path, item_id=item_id or trace.id, timing_ms=elapsed)


def check(
    text: str,
    *,
    path: str | None = None,
    item_id: str | None = None,
    config: VerifierConfig | Mapping[str, Any] | None = None,
    **options: Any,
) -> Report:
    """Verify one ``.vcot.json`` trace (or one JSONL line's text) and return the R-1 report."""
    cfg = make_config(config, options)
    loaded = load_trace(text, cfg.limits)
    if isinstance(loaded, TraceError):
        return invalid(text, path, item_id, loaded.message, loaded.location)
    return verify_trace(loaded, cfg, text, path=path, item_id=item_id or loaded.id)
