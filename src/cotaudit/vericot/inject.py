"""Error injection on real data (V-52): ProntoQA dev in chain mode, classical semantics, the
pool provider and the deterministic judge. Generation is deterministic (no RNG).

Each perturbation changes step k (or the pool premises step k used) and re-checks the trace.
A case is *flagged* when the trace is not valid and the first failure is at k. Steps after k
cannot move the first failure, and steps before k are unchanged, so the check runs the gold
prefix once and tries each perturbation of step k on a restored snapshot of that prefix
(``full=True`` re-runs every perturbed trace from scratch instead; a test shows they agree).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from cotaudit.vericot.config import VerifierConfig
from cotaudit.vericot.formalizers import (
    Parse,
    chain_texts,
    formalize_item,
    formalize_step,
    item_parser,
    prontoqa,
)
from cotaudit.vericot.formalizers.ast import ParseFailure
from cotaudit.vericot.pipeline import StepOutcome, TraceRun, Verifier
from cotaudit.vericot.schema import StepFormalization, StepIn, TraceInput

KINDS = ("G0", "NF", "NT", "D", "U")
FRESH_NOUN = "blorpus"
EXPECTED = {
    "G0": "entailed",
    "NF": "contradicted",
    "NT": "contradicted",
    "D": "ungrounded",
    "U": "ungrounded",
}


@dataclass
class Case:
    kind: str
    item_id: str
    index: int
    status: str
    flagged: bool


@dataclass
class InjectRun:
    cases: list[Case] = field(default_factory=list)

    def table(self) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for kind in KINDS:
            mine = [c for c in self.cases if c.kind == kind]
            if not mine:
                continue
            statuses = Counter(c.status for c in mine)
            out[kind] = {
                "cases": len(mine),
                "flagged": sum(c.flagged for c in mine),
                "statuses": dict(sorted(statuses.items())),
            }
        return out

    def misses(self) -> list[Case]:
        return [c for c in self.cases if not c.flagged]


def negated_formula(sf: StepFormalization) -> StepFormalization:
    """NF: ``(assert φ)`` → ``(assert (not φ))``."""
    smt = (sf.smt or "").strip()
    inner = smt[len("(assert ") : -1] if smt.startswith("(assert ") else smt
    return StepFormalization(step_id=sf.step_id, decls=sf.decls, smt=f"(assert (not {inner}))")


def unseen_predicate_text(text: str, parse: Parse | None = None) -> str | None:
    """U: the predicate of the step replaced by a fresh class noun."""
    ast = (parse or prontoqa.parse_sentence)(text)
    if isinstance(ast, ParseFailure):
        return None
    return prontoqa.realize(prontoqa.with_predicate(ast, FRESH_NOUN, noun=True))


def _config() -> VerifierConfig:
    return VerifierConfig(semantics="classical", premise_providers=("pool",), judge="deterministic")


def _flagged(outcomes: list[StepOutcome], k: int, kb_consistent: bool | None) -> bool:
    failures = [o.index for o in outcomes if o.status != "entailed"]
    return bool(failures) and failures[0] == k


def _try_step(
    run: TraceRun, k: int, step: StepIn, sf: StepFormalization | None, drop: Iterable[str] = ()
) -> StepOutcome:
    snap = run.snapshot()
    try:
        if sf is not None:
            run.step_forms[step.id] = sf
        for pid in drop:
            if pid in run.pool:
                run.pool.remove(pid)
        return run.step(k, step)
    finally:
        run.restore(snap)


def inject_item(item: dict[str, Any], kinds: tuple[str, ...] = KINDS, *, full: bool = False) -> list[Case]:
    """All cases for one ProntoQA item."""
    verifier = Verifier(_config())
    trace = formalize_item(item, dataset="prontoqa", mode="chain")
    parse = item_parser(prontoqa, chain_texts(prontoqa, item))  # the parser the trace was built with
    run = verifier.start(trace)
    steps = trace.step_list()
    item_id = str(item["id"])
    cases: list[Case] = []
    gold: list[StepOutcome] = []
    for k, step in enumerate(steps):
        before = run.snapshot()
        g = run.step(k, step)
        after = run.snapshot()
        run.restore(before)
        perturbed: list[tuple[str, StepIn, StepFormalization | None, tuple[str, ...]]] = []
        sf = run.step_forms.get(step.id)
        if "NF" in kinds and sf is not None:
            perturbed.append(("NF", step, negated_formula(sf), ()))
        if "NT" in kinds:
            text = prontoqa.negate_text(step.text)
            perturbed.append(
                (
                    "NT",
                    StepIn(id=step.id, text=text),
                    formalize_step(prontoqa, step.id, text, "classical", parse=parse),
                    (),
                )
            )
        if "U" in kinds:
            utext = unseen_predicate_text(step.text, parse)
            if utext is not None:
                new = StepIn(id=step.id, text=utext)
                usf = formalize_step(prontoqa, step.id, utext, "classical", parse=parse)
                perturbed.append(("U", new, usf, ()))
        if "D" in kinds and g.status == "entailed" and g.path == "premises":
            drop = tuple(e["id"] for e in g.support if e["kind"] == "premise")
            perturbed.append(("D", step, None, drop))
        for kind, pstep, psf, drop in perturbed:
            if full:
                outcomes = _full_rerun(item, steps, k, pstep, psf, drop)
            else:
                outcomes = [*gold, _try_step(run, k, pstep, psf, drop)]
            o = outcomes[k]
            cases.append(Case(kind, item_id, k, o.status, _flagged(outcomes, k, run.kb_state["consistent"])))
        run.restore(after)
        gold.append(g)
        if "G0" in kinds:
            cases.append(Case("G0", item_id, k, g.status, g.status == "entailed"))
    return cases


def _full_rerun(
    item: dict[str, Any],
    steps: list[StepIn],
    k: int,
    pstep: StepIn,
    psf: StepFormalization | None,
    drop: tuple[str, ...],
) -> list[StepOutcome]:
    texts = [s.text for s in steps]
    texts[k] = pstep.text
    trace: TraceInput = formalize_item(
        item, dataset="prontoqa", mode="chain", steps=texts, drop_premises=frozenset(drop)
    )
    if psf is not None and trace.formalization is not None:
        trace.formalization.steps[k] = psf
    return Verifier(_config()).run(trace).steps


def run_inject(
    items: list[dict[str, Any]], kinds: tuple[str, ...] = KINDS, *, full: bool = False
) -> InjectRun:
    out = InjectRun()
    for item in items:
        out.cases.extend(inject_item(item, kinds, full=full))
    return out
