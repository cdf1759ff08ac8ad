"""Deterministic formalisers for ProofWriter and ProntoQA (V-37 … V-40).

``formalize_item(item, semantics=..., encoding=..., mode=...)`` turns a dataset item into a
:class:`TraceInput`: in ``question`` mode the context sentences are ``given`` premises and the
question statement is the only step; in ``chain`` mode they are ``pool`` premises and the
steps are a gold chain (ProntoQA's ``explanation``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
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


Parse = Callable[[str], Sentence | ParseFailure]


def item_parser(mod: ModuleType, texts: Iterable[str]) -> Parse:
    """The sentence parser for one item: ProntoQA's reads bare plurals the way the item's own
    ``texts`` use the words (:func:`prontoqa.lexicon_of`); ProofWriter's lexicon is closed."""
    if mod is prontoqa:
        lexicon = prontoqa.lexicon_of(texts)
        return lambda s: prontoqa.parse_sentence(s, lexicon)
    parse: Parse = mod.parse_sentence
    return parse


def chain_texts(mod: ModuleType, item: dict[str, Any], steps: list[str] | None = None) -> list[str]:
    """The sentences of an item's chain-mode trace: context, then the chain (``steps`` if given);
    what :func:`formalize_item` builds its parser from in ``chain`` mode."""
    chain = steps if steps is not None else list(item.get("explanation") or [])
    return [*mod.split_sentences(item["context"]), *chain]


def formalize_step(
    mod: ModuleType,
    step_id: str,
    text: str,
    semantics: str,
    encoding: str = "forall",
    entities: tuple[str, ...] = (),
    parse: Parse | None = None,
) -> StepFormalization:
    """One step's formalization entry; a parse failure gives ``smt=None`` with the reason.
    ``parse`` defaults to the module's context-free ``parse_sentence``."""
    parsed = (parse or mod.parse_sentence)(text)
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
    if mode == "question":
        step_texts = [mod.question_statement(item["question"])]
    else:
        step_texts = list(steps if steps is not None else item.get("explanation") or [])
    parse = item_parser(mod, [*sentences, *step_texts])  # what the trace itself contains
    parsed: list[tuple[str, str, Sentence]] = []
    for i, s in enumerate(sentences, start=1):
        p = parse(s)
        if not isinstance(p, ParseFailure):
            parsed.append((f"c{i}", s, p))
    step_asts = [p for p in (parse(t) for t in step_texts) if not isinstance(p, ParseFailure)]
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
    forms = [formalize_step(mod, s.id, s.text, semantics, encoding, entities, parse) for s in step_ins]
    return TraceInput(
        id=str(item["id"]),
        context=Context(question=item["context"] + "\n" + item["question"]),
        steps=step_ins,
        gold_answer=item.get("answer"),
        answer_options=item.get("options"),
        formalization=Formalization(semantics=semantics, vocabulary=vocab, premises=premises, steps=forms),  # type: ignore[arg-type]
        meta={"dataset": dataset, "mode": mode},
    )


__all__ = [
    "chain_texts",
    "formalize_item",
    "formalize_step",
    "item_parser",
    "module_for",
    "prontoqa",
    "proofwriter",
    "step_formalizer",
]
