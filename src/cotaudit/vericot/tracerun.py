"""One trace's run through the step procedure (V-18, V-21 … V-26): :class:`TraceRun` formalises,
merges, guards, checks against the KB, asks for premises, judges, decides, records support and
commits — one step at a time. :class:`~cotaudit.vericot.pipeline.Verifier` drives it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cotaudit.errors import CotauditError
from cotaudit.vericot.compile import Compiled, CompileError, compile_formula, compile_many
from cotaudit.vericot.config import VerifierConfig
from cotaudit.vericot.judge import (
    AcceptAll,
    DeterministicJudge,
    Judge,
    context_text,
)
from cotaudit.vericot.premises import Candidate, PremiseStage, StepOutcome
from cotaudit.vericot.schema import PremiseIn, StepFormalization, StepIn, TraceInput
from cotaudit.vericot.smtlib import SmtError, Vocabulary, parse_field
from cotaudit.vericot.solver import CheckRecord, Entry, KBSession

MAX_LISTED_OPEN_STEPS = 32  # ``tainted_by`` of a depends_on_unknown step; the detail counts the rest
StepFormalizer = Callable[[StepIn, str], StepFormalization]
"""A deterministic formaliser hook: (step, semantics) → its formalization entry."""

NO_FORMALIZER_HINT = (
    "no formaliser is configured for steps without a formalization: give each step a "
    "formalization entry, choose formalizer='prontoqa' or 'proofwriter' for those corpora, or "
    "formalizer='llm' with a model (cotaudit check reads COTAUDIT_LLM_MODEL and COTAUDIT_LLM_BASE_URL)"
)


class TraceLoadError(CotauditError, ValueError):
    """The formalization's shared vocabulary or premises cannot be loaded."""


def _judge_for(cfg: VerifierConfig) -> Judge:
    if cfg.judge == "accept_all":
        return AcceptAll()
    if cfg.judge == "llm":
        judge: Judge = cfg.llm.judge_hook()
        return judge
    return DeterministicJudge(cfg.commonsense_allowlist)


class TraceRun(PremiseStage):
    """The mutable state of one trace's verification."""

    def __init__(self, trace: TraceInput, cfg: VerifierConfig, formalizer: StepFormalizer | None) -> None:
        self.trace = trace
        self.cfg = cfg
        self.formalizer = formalizer
        self.kb = KBSession(cfg.timeout_ms, cfg.rlimit, cfg.max_core_checks)
        self.vocab = Vocabulary()
        self.judge = _judge_for(cfg)
        self.ctx_text = context_text(trace.context)
        self.form = trace.formalization
        self.semantics = self.form.semantics if self.form is not None else cfg.semantics
        self.step_forms = {s.step_id: s for s in (self.form.steps if self.form else [])}
        self.pool: list[str] = []  # inactive pool premise ids, input order
        self.removed: set[str] = set()
        self.committed: list[dict[str, Any]] = []
        self.canon_active: dict[str, str] = {}
        self.premise_text: dict[str, PremiseIn] = {}
        self.step_entry: dict[int, str] = {}
        self.kb_state: dict[str, Any] = {
            "consistent": True,
            "inconsistency_core": [],
            "pool_consistent": True,
        }
        self.llm_calls = 0
        # Steps whose content never reached the KB because nobody could check it (unknown,
        # uncommitted) or formalise it (untranslatable): a later step may rest on them, so
        # under "assume" it is never ungrounded (issue 19: unknown is never false).
        self.open_steps: list[int] = []

    # ------------------------------------------------------------------ loading

    def load(self) -> None:
        if self.form is None:
            return
        try:
            vfield = parse_field(self.form.vocabulary, assertions=False)
            self.vocab.extend(self.vocab.new_decls(list(vfield.decls)))
        except SmtError as exc:
            raise TraceLoadError(f"formalization.vocabulary: {exc.reason}: {exc.message}") from None
        given: list[str] = []
        compiled = compile_many(self.kb.z3, self.vocab, [p.smt for p in self.form.premises])
        for i, (p, comp) in enumerate(zip(self.form.premises, compiled, strict=True)):
            if isinstance(comp, CompileError):
                raise TraceLoadError(f"formalization.premises.{i} ({p.id}): {comp.reason}: {comp.detail}")
            self.vocab.extend(list(comp.new_decls))
            self.kb.add_entry(
                p.id,
                "premise",
                p.source,
                p.text,
                comp.smt,
                comp.term,
                origin="pool" if p.use == "pool" else "input",
            )
            self.premise_text[p.id] = p
            if p.use == "given":
                given.append(p.id)
            else:
                self.pool.append(p.id)
        for pid in given:
            self._commit_premise(pid, None)
        if given:
            rec = self.kb.sat(list(self.kb.active), "kb_sat")
            if rec.result == "unsat":
                core, _ = self.kb.minimize(rec)
                self.kb_state["consistent"] = False
                self.kb_state["inconsistency_core"] = core
            elif rec.result == "unknown":
                self.kb_state["consistent"] = None
        if self.pool:
            if self.kb_state["consistent"] is False:
                self.kb_state["pool_consistent"] = False
            else:
                rec = self.kb.sat([*self.kb.active, *self.pool], "pool_sat")
                self.kb_state["pool_consistent"] = {"sat": True, "unsat": False}.get(rec.result)

    def _commit_premise(self, pid: str, step_index: int | None) -> None:
        e = self.kb.entries[pid]
        self.kb.activate(pid)
        e.committed_at_step = step_index
        self.canon_active.setdefault(e.smt, pid)
        if pid in self.pool:
            self.pool.remove(pid)
        self.committed.append(
            {
                "id": pid,
                "source": e.source,
                "text": e.text,
                "smt": e.smt,
                "origin": e.origin,
                "committed_at_step": step_index,
            }
        )

    # ------------------------------------------------------------------ what-if support

    def snapshot(self) -> tuple[Any, ...]:
        """The Python-side KB state. Tagged assertions of later entries stay in Z3 but inactive,
        so restoring this gives the same answers as a fresh run of the prefix (V-49, V-52)."""
        kb = self.kb
        return (
            list(kb.active),
            dict(kb.entries),
            list(self.pool),
            dict(self.vocab.decls),
            dict(self.canon_active),
            list(self.committed),
            dict(self.step_entry),
            dict(self.step_forms),
            list(self.open_steps),
        )

    def restore(self, snap: tuple[Any, ...]) -> None:
        active, entries, pool, decls, canon, committed, step_entry, forms, open_steps = snap
        kb = self.kb
        kb.active = list(active)
        kb._active_set = set(active)
        kb.entries = dict(entries)
        self.pool = list(pool)
        self.vocab.decls = dict(decls)
        self.vocab._canon = None
        self.canon_active = dict(canon)
        self.committed = list(committed)
        self.step_entry = dict(step_entry)
        self.step_forms = dict(forms)
        self.open_steps = list(open_steps)

    # ------------------------------------------------------------------ formula

    def _formalization(self, step: StepIn) -> tuple[StepFormalization | None, str]:
        sf = self.step_forms.get(step.id)
        if sf is not None:
            return sf, "input"
        if self.cfg.formalizer in ("proofwriter", "prontoqa") and self.formalizer is not None:
            return self.formalizer(step, self.semantics), self.cfg.formalizer
        if self.cfg.formalizer == "llm" and self.cfg.llm is not None:
            return None, "llm"
        return None, "none"

    # ------------------------------------------------------------------ the step

    def step(self, index: int, step: StepIn) -> StepOutcome:
        out = StepOutcome(index, step)
        self.kb.start_step(self.cfg.step_budget_ms)
        try:
            self._step(out)
        finally:
            out.solver_ms = round(self.kb.step_ms, 3)
            self.kb.end_step()
            for rec in out.checks:  # the pushed goals are Z3 terms: keep no context alive (issue 14)
                rec.goal = None
        self._note_open(out)
        return out

    def skipped(self, index: int, step: StepIn) -> StepOutcome:
        """A step the trace's wall budget left no time for: ``unknown`` (``budget_exhausted``),
        never a failure, since nothing about it was checked (V-14, V-15)."""
        out = StepOutcome(index, step, status="unknown", reason="budget_exhausted")
        out.detail = "the trace's time budget ran out before this step was checked"
        self._note_open(out)
        return out

    def _note_open(self, out: StepOutcome) -> None:
        """Remember a step whose content is not in the KB for want of a check: ``unknown`` and
        not committed (no formula, or CON(KB, F) undecided), or ``untranslatable`` (a tautology
        excepted: its content is known and adds nothing). ``strict`` keeps V-18's "dependent
        steps fail too"."""
        if self.cfg.commit_policy != "assume" or out.index in self.step_entry:
            return
        if out.status == "unknown" or (out.status == "untranslatable" and out.reason != "tautology"):
            self.open_steps.append(out.index)

    def _untranslatable(self, out: StepOutcome, reason: str, detail: str | None) -> None:
        out.status, out.reason, out.detail = "untranslatable", reason, detail

    def _step(self, out: StepOutcome) -> None:
        sf, origin = self._formalization(out.step)
        if origin == "llm":
            sf, failure = self._llm_formalize(out)
            if sf is None:
                if failure[0] in ("llm_unavailable", "budget_exhausted"):
                    return self._unknown_llm(out, failure[0], failure[1])
                return self._untranslatable(out, failure[0], failure[1])
        if sf is None:  # nobody could formalise the step, so nothing about it was checked
            return self._no_formalizer(out)
        out.formula = {"origin": origin, "decls_added": [], "smt": None, "negation_smt": sf.negation_smt}
        if sf.smt is None:
            return self._untranslatable(
                out,
                "parse_error" if origin in ("proofwriter", "prontoqa") else "no_formalization",
                sf.error or "the formalizer failed",
            )
        comp = compile_formula(self.kb.z3, self.vocab, sf.smt, decls=sf.decls, negation_smt=sf.negation_smt)
        if isinstance(comp, CompileError):
            out.formula["smt"] = " ".join(sf.smt.split())
            return self._untranslatable(out, comp.reason, comp.detail)
        out.formula = {
            "origin": origin,
            "decls_added": [d.canon() for d in comp.new_decls],
            "smt": comp.smt,
            "negation_smt": comp.negation_smt,
        }
        kb = self.kb
        # Tautology guard (V-20).
        taut = kb.ent([], comp.term, "tautology")
        out.checks.append(taut)
        if taut.result == "unsat":
            if self.cfg.tautology == "reject":
                return self._untranslatable(out, "tautology", "the formula is valid on its own")
            out.flags.append("tautology")
        # KB check.
        active = list(kb.active)
        r1 = kb.ent(active, comp.term, "ent_kb")
        out.checks.append(r1)
        if r1.result == "unsat":
            return self._decide(out, comp, "entailed", "kb", None, r1, [])
        r2 = kb.con(active, comp.term, comp.negation, "con_kb")
        out.checks.append(r2)
        if r2.result == "unsat":
            return self._decide(out, comp, "contradicted", "kb", "contradicted_by_kb", r2, [])
        # Premises.
        providers = self.cfg.providers
        if not providers:
            if "unknown" in (r1.result, r2.result):
                return self._decide(out, comp, "unknown", None, self._unknown_reason(out), None, [], r2)
            return self._ungrounded(out, comp, "premises_disabled", r2)
        accepted: list[Candidate] = []
        offered = 0
        r3: CheckRecord | None = None
        r4: CheckRecord | None = None
        llm_failure: str | None = None
        for provider in providers:
            if provider == "input":
                cands = self._input_candidates(sf)
            elif provider == "pool":
                cands = self._pool_candidates(out, comp)
            else:
                cands, llm_failure = self._llm_candidates(out, comp)
            offered += len(cands)
            if not cands:
                continue
            accepted.extend(self._filter(out, cands, accepted))
            r3, r4 = self._premise_checks(out, comp, accepted)
            if "unsat" in (r3.result, r4.result if r4 else None):
                accepted = self._judge(out, accepted)
                r3, r4 = self._premise_checks(out, comp, accepted)
                if "unsat" in (r3.result, r4.result if r4 else None):
                    break
        out.accepted = [c.entry_id or c.id for c in accepted]
        if r3 is not None and r3.result == "unsat":
            return self._decide(out, comp, "entailed", "premises", None, r3, accepted, r2)
        if r4 is not None and r4.result == "unsat":
            return self._decide(out, comp, "contradicted", "premises", "contradicted_by_premises", r4, [], r2)
        results = [c.result for c in out.checks if c.kind != "tautology"]
        if "unknown" in results or kb.budget_exhausted:
            return self._decide(out, comp, "unknown", None, self._unknown_reason(out), None, [], r2)
        if llm_failure is not None:
            out.flags.append("llm")
            reason = "budget_exhausted" if llm_failure.startswith("budget_exhausted") else "llm_unavailable"
            return self._decide(out, comp, "unknown", None, reason, None, [], r2, detail=llm_failure)
        if out.rejected:
            reason = "premise_rejected"
        elif accepted or out.already_known or offered:
            reason = "not_entailed" if (accepted or out.already_known) else "no_premises"
        else:
            reason = "no_premises"
        return self._ungrounded(out, comp, reason, r2)

    def _ungrounded(self, out: StepOutcome, comp: Compiled, reason: str, r2: CheckRecord) -> None:
        """``ungrounded`` only when every earlier step's content is in the KB. Entailment and
        refutation are monotone, so an unchecked earlier step cannot undo them; non-entailment
        is not: the step may rest on what nobody could check, so it is ``unknown``
        (``depends_on_unknown``), ``tainted_by`` those steps, and committed as assumed (V-18)."""
        if not self.open_steps:
            return self._decide(out, comp, "ungrounded", None, reason, None, [], r2)
        shown = self.open_steps[:MAX_LISTED_OPEN_STEPS]
        out.tainted_by = list(shown)
        n = len(self.open_steps)
        listed = ", ".join(str(i + 1) for i in shown) + (
            f" and {n - len(shown)} more" if n > len(shown) else ""
        )
        detail = (
            f"not entailed by what was checked ({reason}), but step{'s' if n != 1 else ''} {listed} "
            f"could not be checked and may be what it rests on"
        )
        return self._decide(out, comp, "unknown", None, "depends_on_unknown", None, [], r2, detail=detail)

    def _unknown_reason(self, out: StepOutcome) -> str:
        if self.kb.budget_exhausted:
            return "budget_exhausted"
        if any(d["reason"] == "consistency_unknown" for d in out.dropped):
            return "premise_consistency_unknown"
        return "solver_unknown"

    def _no_formalizer(self, out: StepOutcome) -> None:
        """A step without a formalization when no formaliser is available: ``unknown``
        (``llm_unavailable``), never ``untranslatable`` — unknown is never false (issue 19)."""
        out.status, out.reason = "unknown", "llm_unavailable"
        out.detail = self.cfg.formalizer_hint or NO_FORMALIZER_HINT
        out.flags.append("no_formalizer")

    def _unknown_llm(self, out: StepOutcome, reason: str, detail: str | None) -> None:
        out.status, out.reason, out.detail = "unknown", reason, detail
        out.flags.append("llm")

    # ------------------------------------------------------------------ decide and commit

    def _decide(
        self,
        out: StepOutcome,
        comp: Compiled,
        status: str,
        path: str | None,
        reason: str | None,
        deciding: CheckRecord | None,
        accepted: list[Candidate],
        r2: CheckRecord | None = None,
        detail: str | None = None,
    ) -> None:
        out.status, out.path, out.reason = status, path, reason
        kb = self.kb
        support: list[str] = []
        if deciding is not None:
            support, out.core_minimal = kb.minimize(deciding)
        out.support = [self._support_entry(i) for i in support]
        if status == "unknown" and detail is None:
            detail = self._unknown_detail(out)
        out.detail = detail if status != "ungrounded" else self._ungrounded_detail(out)
        if status == "contradicted":
            out.detail = None
        taint: set[int] = set()
        for i in support:
            taint |= kb.entries[i].taint
        if status == "entailed":
            for c in accepted:
                if c.entry_id is not None:
                    self._commit_premise(c.entry_id, out.index)
                    self.vocab.extend(list(c.new_decls))
            self._commit_step(out, comp, frozenset(taint), assumed=False)
            if taint:
                out.tainted_by = sorted(taint)
            if self.kb_state["consistent"] is False:
                out.flags.append("vacuous")
        elif (
            status in ("ungrounded", "unknown")
            and self.cfg.commit_policy == "assume"
            and r2 is not None
            and r2.result == "sat"
        ):  # V-18: assumed, provided CON(KB, F_i) was sat
            self._commit_step(out, comp, frozenset({out.index}), assumed=True)
            out.flags.append("assumed")

    def _unknown_detail(self, out: StepOutcome) -> str | None:
        unk = [d["detail"] for d in out.dropped if d["reason"] == "consistency_unknown"]
        if unk:
            return "; ".join(unk)
        reasons = sorted({c.reason_unknown or "" for c in out.checks if c.result == "unknown"})
        return f"solver returned unknown ({', '.join(reasons)})" if reasons else None

    def _ungrounded_detail(self, out: StepOutcome) -> str:
        return f"no accepted premise makes '{out.step.text}' follow"

    def _commit_step(self, out: StepOutcome, comp: Compiled, taint: frozenset[int], *, assumed: bool) -> None:
        kb = self.kb
        entry_id = f"{out.step.id}"
        if entry_id in kb.entries:  # a premise with the step's id cannot exist (V-1); be safe
            entry_id = f"{out.step.id}#step"
        kb.add_entry(
            entry_id,
            "step",
            "step",
            out.step.text,
            comp.smt,
            comp.term,
            step_index=out.index,
            assumed=assumed,
            taint=taint,
        )
        kb.activate(entry_id)
        self.canon_active.setdefault(comp.smt, entry_id)
        self.step_entry[out.index] = entry_id
        self.vocab.extend(list(comp.new_decls))
        if self.cfg.debug_invariants and not assumed:
            rec = kb.sat(list(kb.active), "invariant")
            if self.kb_state["consistent"] is not False and rec.result == "unsat":
                raise AssertionError(f"KB became inconsistent after committing step {out.index}")

    def _support_entry(self, entry_id: str) -> dict[str, Any]:
        e: Entry = self.kb.entries[entry_id]
        d: dict[str, Any] = {"id": e.id, "kind": e.kind, "source": e.source, "text": e.text}
        if e.kind == "step":
            d["id"] = self.trace_step_id(e)
            d["step_index"] = e.step_index
        return d

    @staticmethod
    def trace_step_id(e: Entry) -> str:
        return e.id[:-5] if e.id.endswith("#step") else e.id
