"""Premises for one step (V-23 … V-27): the providers (input, pool, llm), the solver filter,
the judge with its deterministic pre-checks, and the R3/R4 checks over KB ∪ P.

:class:`PremiseStage` is mixed into :class:`~cotaudit.vericot.tracerun.TraceRun`; it holds no
state of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cotaudit.vericot.compile import Compiled, CompileError, compile_formula
from cotaudit.vericot.config import VerifierConfig
from cotaudit.vericot.judge import Judge, JudgeItem, precheck, run_judge
from cotaudit.vericot.schema import PremiseIn, StepFormalization, StepIn, TraceInput
from cotaudit.vericot.smtlib import Decl, Vocabulary
from cotaudit.vericot.solver import CheckRecord, KBSession


@dataclass
class Candidate:
    """A candidate premise for one step (V-23)."""

    id: str
    source: str
    text: str
    origin: str  # input | pool | llm
    evidence: str | None = None
    entry_id: str | None = None
    new_decls: tuple[Decl, ...] = ()
    error: CompileError | None = None


@dataclass
class StepOutcome:
    """Everything recorded about one step (V-43)."""

    index: int
    step: StepIn
    status: str = "untranslatable"
    path: str | None = None
    reason: str | None = None
    detail: str | None = None
    formula: dict[str, Any] | None = None
    support: list[dict[str, Any]] = field(default_factory=list)
    core_minimal: bool = True
    accepted: list[str] = field(default_factory=list)
    already_known: list[dict[str, str]] = field(default_factory=list)
    rejected: list[dict[str, str]] = field(default_factory=list)
    dropped: list[dict[str, Any]] = field(default_factory=list)
    checks: list[CheckRecord] = field(default_factory=list)
    tainted_by: list[int] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    solver_ms: float = 0.0
    llm_calls: int = 0


class PremiseStage:
    """Providers, filter and judge; the attributes are those of ``TraceRun``."""

    trace: TraceInput
    cfg: VerifierConfig
    kb: KBSession
    vocab: Vocabulary
    judge: Judge
    ctx_text: str
    pool: list[str]
    removed: set[str]
    canon_active: dict[str, str]
    premise_text: dict[str, PremiseIn]
    llm_calls: int

    # ------------------------------------------------------------------ providers

    def _input_candidates(self, sf: StepFormalization) -> list[Candidate]:
        return [self._register_candidate(p, "input") for p in sf.premises]

    def _register_candidate(self, p: PremiseIn, origin: str) -> Candidate:
        cand = Candidate(p.id, p.source, p.text, origin, p.evidence)
        if p.id in self.kb.entries:
            cand.entry_id = p.id
            return cand
        comp = compile_formula(self.kb.z3, self.vocab, p.smt)
        if isinstance(comp, CompileError):
            cand.error = comp
            return cand
        self.kb.add_entry(p.id, "premise", p.source, p.text, comp.smt, comp.term, origin=origin)
        self.premise_text[p.id] = p
        cand.entry_id = p.id
        cand.new_decls = comp.new_decls
        return cand

    def _pool_candidates(self, out: StepOutcome, comp: Compiled) -> list[Candidate]:
        avail = [p for p in self.pool if p not in self.removed]
        if not avail:
            return []
        kb = self.kb
        base = list(kb.active)
        rec = kb.ent([*base, *avail], comp.term, "pool_ent")
        out.checks.append(rec)
        if rec.result != "unsat":
            rec = kb.con([*base, *avail], comp.term, comp.negation, "pool_con")
            out.checks.append(rec)
            if rec.result != "unsat":
                return []
        support, _ = kb.minimize(rec)
        chosen = [i for i in support if i in avail]
        out_c = []
        for pid in chosen:
            e = kb.entries[pid]
            out_c.append(Candidate(pid, e.source, e.text, "pool", self.premise_text[pid].evidence, pid))
        return out_c

    def _llm_candidates(self, out: StepOutcome, comp: Compiled) -> tuple[list[Candidate], str | None]:
        hook = self.cfg.llm
        try:
            proposed, calls, failure = hook.propose_premises(self, out, comp)
        except Exception as exc:  # fail closed
            return [], f"premise generation failed: {type(exc).__name__}"
        out.llm_calls += calls
        self.llm_calls += calls
        return [self._register_candidate(p, "llm") for p in proposed], failure

    def _llm_formalize(self, out: StepOutcome) -> tuple[StepFormalization | None, tuple[str, str | None]]:
        """The LLM formaliser hook (``cotaudit.frontends.vericot_llm``); fails closed."""
        hook = self.cfg.llm
        try:
            sf, calls, failure = hook.formalize_step(self, out.step)
        except Exception as exc:  # fail closed
            return None, ("llm_unavailable", f"formalization failed: {type(exc).__name__}")
        out.llm_calls += calls
        self.llm_calls += calls
        return sf, failure

    # ------------------------------------------------------------------ filter and judge

    def _filter(self, out: StepOutcome, cands: list[Candidate], accepted: list[Candidate]) -> list[Candidate]:
        ordered = [c for c in cands if c.source == "context"] + [c for c in cands if c.source != "context"]
        new: list[Candidate] = []
        kb = self.kb
        for c in ordered:
            if c.error is not None or c.entry_id is None:
                err = c.error or CompileError("parse_error", "no formula")
                out.dropped.append(
                    {
                        "id": c.id,
                        "reason": "untranslatable",
                        "detail": f"{err.reason}: {err.detail}",
                        "core": [],
                    }
                )
                continue
            e = kb.entries[c.entry_id]
            known = self.canon_active.get(e.smt)
            if known is not None:
                out.already_known.append({"id": c.id, "entry": known})
                continue
            if any(kb.entries[a.entry_id or ""].smt == e.smt for a in (*accepted, *new)):
                continue
            ids = [*kb.active, *(a.entry_id or "" for a in (*accepted, *new)), c.entry_id]
            rec = kb.sat(ids, "filter", premise=c.id)
            out.checks.append(rec)
            if rec.result == "sat":
                new.append(c)
            elif rec.result == "unsat":
                core, _ = kb.minimize(rec)
                out.dropped.append(
                    {"id": c.id, "reason": "inconsistent", "detail": "inconsistent with the KB", "core": core}
                )
            else:
                out.dropped.append(
                    {
                        "id": c.id,
                        "reason": "consistency_unknown",
                        "detail": f"{c.id}: consistency check returned unknown ({rec.reason_unknown})",
                        "core": [],
                    }
                )
        return new

    def _premise_checks(
        self, out: StepOutcome, comp: Compiled, accepted: list[Candidate]
    ) -> tuple[CheckRecord, CheckRecord | None]:
        ids = [*self.kb.active, *(c.entry_id or "" for c in accepted)]
        r3 = self.kb.ent(ids, comp.term, "ent_premises")
        out.checks.append(r3)
        if r3.result == "unsat":
            return r3, None
        r4 = self.kb.con(ids, comp.term, comp.negation, "con_premises")
        out.checks.append(r4)
        return r3, r4

    def _judge(self, out: StepOutcome, accepted: list[Candidate]) -> list[Candidate]:
        keep: list[Candidate] = []
        items: list[JudgeItem] = []
        for c in accepted:
            e = self.kb.entries[c.entry_id or ""]
            item = JudgeItem(c.id, c.text, c.source, c.evidence, e.smt)
            v = precheck(item, self.ctx_text, self.vocab, self.cfg.commonsense_no_individuals)
            if v is not None:
                out.rejected.append({"id": c.id, "by": "precheck", "reason": v.reason})
            else:
                items.append(item)
        verdicts = run_judge(self.judge, self.trace.context, out.step.text, items)
        for c in accepted:
            v2 = verdicts.get(c.id)
            if v2 is None:
                continue
            if v2.accept:
                keep.append(c)
            else:
                out.rejected.append({"id": c.id, "by": v2.by, "reason": v2.reason})
        return keep
