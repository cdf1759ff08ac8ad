"""Deterministic formalisers for ProofWriter and ProntoQA (V-37 … V-40).

``formalize_item(item, semantics=..., encoding=..., mode=...)`` turns a dataset item into a
:class:`TraceInput`: in ``question`` mode the context sentences are ``given`` premises and the
question statement is the only step; in ``chain`` mode they are ``pool`` premises and the
steps are a gold chain (ProntoQA's ``explanation``).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any, Literal

from cotaudit.vericot.formalizers import prontoqa, proofwriter
from cotaudit.vericot.formalizers.ast import ParseFailure, Sentence, declarations, to_smt
from cotaudit.vericot.schema import (
    Context,
    Formalization,
    PremiseIn,
    StepFormalization,
    StepIn,
    TraceInput,
)

MODULES: dict[str, ModuleType] = {"proofwriter": proofwriter, "prontoqa": prontoqa}


def module_for(dataset: str) -> ModuleType:
    return MODULES[dataset]


def formalize_step(
    mod: ModuleType,
    step_id: str,
    text: str,
    semantics: str,
    encoding: str = "forall",
    entities: tuple[str, ...] = (),
) -> StepFormalization:
    """One step's formalization entry; a parse failure gives ``smt=None`` with the reason."""
    parsed = mod.parse_sentence(text)
    if isinstance(parsed, ParseFailure):
        return StepFormalization(
            step_id=step_id, smt=None, error=f"{parsed.message} (token '{parsed.token}')"
        )
    smt = to_smt(parsed, semantics, encoding, entities)
    return StepFormalization(step_id=step_id, decls=smt.decls, smt=smt.smt, negation_smt=smt.negation_smt)


def step_formalizer(dataset: str) -> Callable[[StepIn, str], StepFormalization]:
    """A formaliser hook for :class:`~cotaudit.vericot.pipeline.Verifier` (``formalizer=...``)."""
    mod = module_for(dataset)

    def hook(step: StepIn, semantics: str) -> StepFormalization:
        return formalize_step(mod, step.id, step.text, semantics)

    return hook


def formalize_item(
    item: dict[str, Any],
    *,
    dataset: str,
    semantics: str = "classical",
    encoding: str = "forall",
    mode: str = "question",
    steps: list[str] | None = None,
    drop_premises: frozenset[str] = frozenset(),
) -> TraceInput:
    """A dataset item as a trace (V-40). ``steps`` overrides the chain; ``drop_premises`` removes
    context premises by id (error injection, V-52)."""
    mod = module_for(dataset)
    sentences = mod.split_sentences(item["context"])
    parsed: list[tuple[str, str, Sentence]] = []
    for i, s in enumerate(sentences, start=1):
        p = mod.parse_sentence(s)
        if not isinstance(p, ParseFailure):
            parsed.append((f"c{i}", s, p))
    if mode == "question":
        step_texts = [mod.question_statement(item["question"])]
    else:
        step_texts = list(steps if steps is not None else item.get("explanation") or [])
    step_asts = [p for p in (mod.parse_sentence(t) for t in step_texts) if not isinstance(p, ParseFailure)]
    entities = mod.entities_of([p for _, _, p in parsed] + step_asts)
    vocab = " ".join(declarations([p for _, _, p in parsed], semantics, entities))
    use: Literal["given", "pool"] = "given" if mode == "question" else "pool"
    premises = []
    for pid, text, ast in parsed:
        if pid in drop_premises:
            continue
        premises.append(
            PremiseIn(
                id=pid,
                text=text,
                source="context",
                smt=to_smt(ast, semantics, encoding, entities).smt,
                use=use,
                evidence=text,
            )
        )
    step_ins = [StepIn(id=f"s{i}", text=t) for i, t in enumerate(step_texts, start=1)]
    forms = [formalize_step(mod, s.id, s.text, semantics, encoding, entities) for s in step_ins]
    return TraceInput(
        id=str(item["id"]),
        context=Context(question=item["context"] + "\n" + item["question"]),
        steps=step_ins,
        gold_answer=item.get("answer"),
        answer_options=item.get("options"),
        formalization=Formalization(semantics=semantics, vocabulary=vocab, premises=premises, steps=forms),  # type: ignore[arg-type]
        meta={"dataset": dataset, "mode": mode},
    )


__all__ = ["formalize_item", "formalize_step", "module_for", "prontoqa", "proofwriter", "step_formalizer"]
