"""Type-6 annotation: raw chain of thought → an annotated ``.t6`` trace (the paper's stages 1-3).

1. **Split and normalise** — sentences are cut deterministically; the model (prompt
   ``type6_split``) states each one's claim as a positive proposition and its polarity. If no
   valid answer comes after the re-asks, each sentence becomes its own proposition (noted).
2. **Symbols** — claims with the same normalised key share a symbol; only pairs normalisation
   cannot decide go to the model (``type6_same``). The last proposition becomes the sink ``a``;
   a given question becomes the source ``q``.
3. **Annotate** — the model assigns each statement an annotation and operators following the
   rubric in ``type6_annotate``; connectives go first, unknown tokens are dropped (noted).
4. **Verify and correct** — the model reviews the whole annotation (``type6_verify``); then the
   type6 parser reads the ``.t6`` text, and its diagnostics go back to the model for at most
   ``repairs`` rounds. A trace the parser still rejects is ``invalid``, with the diagnostics.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from pydantic import BaseModel, Field

from cotaudit.frontends.type6_symbols import (
    Draft,
    assign_symbols,
    canonical_ops,
    proposition_key,
    sentences,
    sink_symbol,
    undecided_pairs,
)
from cotaudit.llm.client import LLMClient
from cotaudit.llm.prompts import load_prompt
from cotaudit.llm.structured import Structured
from cotaudit.llm.types import Request
from cotaudit.type6 import parse_t6

_TOKEN_JUNK = re.compile(r"[\s:]")
_ALIASES = {"U_c": "Uc", "U_k": "Uk"}


class SplitItem(BaseModel):
    sentence: int
    claim: str = Field(default="", max_length=300)
    negated: bool = False


class SplitAnswer(BaseModel):
    statements: list[SplitItem] = Field(max_length=600)


class SameAnswer(BaseModel):
    same: list[bool]


class Label(BaseModel):
    n: int
    alpha: str = Field(max_length=8)
    ops: list[str] = Field(default_factory=list, max_length=8)


class LabelAnswer(BaseModel):
    labels: list[Label] = Field(max_length=600)


class OneLabel(BaseModel):
    alpha: str = Field(max_length=8)
    ops: list[str] = Field(default_factory=list, max_length=8)


@dataclass(frozen=True, slots=True)
class Annotation:
    """The annotated trace, or why there is none, and what it took."""

    status: Literal["ok", "invalid", "abstain"]
    t6: str
    reason: str | None = None
    statements: int = 0
    symbols: int = 0
    asked_same: int = 0  # stage-2 pairs the model decided
    reasks: int = 0
    repairs: int = 0  # parser-feedback rounds
    notes: tuple[str, ...] = field(default_factory=tuple)


class _Run:
    """One annotation: the client, the trace id and the running counts."""

    def __init__(self, client: LLMClient, trace_id: str) -> None:
        self.client = client
        self.trace_id = trace_id
        self.reasks = 0
        self.notes: list[str] = []

    def ask(
        self, name: str, model: type[BaseModel], check: Callable[..., str | None], **fields: str
    ) -> Structured[BaseModel]:
        prompt = load_prompt(name)
        request = Request(
            prompt.render(**fields), prompt=prompt.id, max_tokens=1024, tag=f"{name} {self.trace_id}"
        )
        result = self.client.structured(request, model, check=check)
        self.reasks += result.reasks
        return result


def annotate(
    client: LLMClient, raw: str, *, question: str | None = None, trace_id: str = "trace", repairs: int = 2
) -> Annotation:
    """Annotate ``raw`` (see the module doc); never raises for what the model answers."""
    sents = sentences(raw)
    if not sents:
        return Annotation("invalid", "", "the raw trace has no sentence")
    run = _Run(client, trace_id)
    numbered = "\n".join(f"{i}: {s}" for i, s in enumerate(sents, start=1))
    split = run.ask("type6_split", SplitAnswer, _split_check(len(sents)), numbered=numbered)
    if split.ok and isinstance(split.value, SplitAnswer):
        parts = [(sents[s.sentence - 1], s.claim, s.negated) for s in split.value.statements]
    elif split.status == "abstain":
        return Annotation("abstain", "", f"stage 1: {split.reason}", reasks=run.reasks)
    else:
        run.notes.append(f"stage 1 fell back to one proposition per sentence ({split.reason})")
        parts = [(s, s, False) for s in sents]
    drafts, asked = _symbols(run, parts, question)
    statements = "\n".join(f"{i}: [{d.symbol or '-'}] {d.text}" for i, d in enumerate(drafts, start=1))
    labels = run.ask("type6_annotate", LabelAnswer, _label_check(len(drafts), True), statements=statements)
    if labels.ok and isinstance(labels.value, LabelAnswer):
        drafts = _apply(run, drafts, labels.value.labels)
    elif labels.status == "abstain":
        return Annotation("abstain", "", f"stage 3: {labels.reason}", len(drafts), reasks=run.reasks)
    else:
        # A small model that cannot label a whole list often can label one statement at a time.
        run.notes.append(f"stage 3 labelled statement by statement ({labels.reason})")
        each = _label_each(run, drafts)
        if isinstance(each, str):
            status: Literal["invalid", "abstain"] = "abstain" if each.startswith("abstain") else "invalid"
            return Annotation(status, "", f"stage 3: {each}", len(drafts), reasks=run.reasks)
        drafts = each
    problems = ""
    rounds = 0
    while True:
        review = run.ask(
            "type6_verify",
            LabelAnswer,
            _label_check(len(drafts), False),
            problems=problems,
            annotation=_listing(drafts),
        )
        if review.ok and isinstance(review.value, LabelAnswer):
            drafts = _apply(run, drafts, review.value.labels, corrections=True)
        else:
            run.notes.append(f"verify pass {rounds + 1} gave no usable corrections ({review.reason})")
        text = f"#@ id: {trace_id}\n" + "".join(d.line() + "\n" for d in drafts)
        trace = parse_t6(text, trace_id)
        symbols = len({d.symbol for d in drafts if d.symbol is not None})
        counts = (len(drafts), symbols, asked, run.reasks, rounds)
        if trace.valid:
            return Annotation("ok", text, None, *counts, tuple(run.notes))
        report = "; ".join(_diagnostic(d.line, d.code, d.message) for d in trace.diagnostics[:10])
        if rounds >= repairs:
            return Annotation(
                "invalid", text, f"the type6 parser rejects it: {report}", *counts, tuple(run.notes)
            )
        rounds += 1
        problems = f"The Type-6 parser rejected this annotation: {report}. Fix these statements."


def _diagnostic(line: int | None, code: str, message: str) -> str:
    # .t6 line L holds statement L - 1: the first line is the ``#@ id`` header.
    where = f"statement {line - 1}" if line is not None and line > 1 else "the trace"
    return f"{where}: {code} {message}"


def _split_check(n: int) -> Callable[[SplitAnswer], str | None]:
    def check(answer: SplitAnswer) -> str | None:
        seen = [s.sentence for s in answer.statements]
        bad = [k for k in seen if not 1 <= k <= n]
        if bad:
            return f"sentence numbers must be between 1 and {n}, not {bad[:5]}"
        if seen != sorted(seen):
            return "statements must follow the sentences' order"
        missing = sorted(set(range(1, n + 1)) - set(seen))
        return f"sentences {missing[:10]} have no statement" if missing else None

    return check


def _label_check(n: int, complete: bool) -> Callable[[LabelAnswer], str | None]:
    def check(answer: LabelAnswer) -> str | None:
        numbers = [label.n for label in answer.labels]
        bad = [k for k in numbers if not 1 <= k <= n]
        if bad:
            return f"statement numbers must be between 1 and {n}, not {bad[:5]}"
        if len(set(numbers)) != len(numbers):
            return "each statement must be labelled once"
        missing = sorted(set(range(1, n + 1)) - set(numbers))
        return f"statements {missing[:10]} have no label" if complete and missing else None

    return check


def _symbols(
    run: _Run, parts: Sequence[tuple[str, str, bool]], question: str | None
) -> tuple[list[Draft], int]:
    keys = [proposition_key(claim) for _, claim, _ in parts]
    pairs = undecided_pairs(keys)
    same: dict[tuple[str, str], bool] = {}
    if pairs:
        listing = "\n".join(f"{i}. '{a}' / '{b}'" for i, (a, b) in enumerate(pairs, start=1))

        def check(answer: SameAnswer) -> str | None:
            ok = len(answer.same) == len(pairs)
            return None if ok else f"give exactly {len(pairs)} answers, one per pair, not {len(answer.same)}"

        result = run.ask("type6_same", SameAnswer, check, pairs=listing)
        if result.ok and isinstance(result.value, SameAnswer):
            same = dict(zip(pairs, result.value.same, strict=True))
        else:
            run.notes.append(f"stage 2 kept {len(pairs)} undecided pair(s) apart ({result.reason})")
    symbols = assign_symbols(keys, same)
    drafts = [
        Draft(text, symbols.get(key), negated) for (text, _, negated), key in zip(parts, keys, strict=True)
    ]
    sink = sink_symbol(drafts)
    drafts = [replace(d, symbol="a") if d.symbol == sink and sink else d for d in drafts]
    if question and question.strip():
        drafts.insert(0, Draft(" ".join(question.split()), "q", False, "T"))
    return drafts, len(pairs) if same else 0


def _apply(
    run: _Run, drafts: list[Draft], labels: Sequence[Label], *, corrections: bool = False
) -> list[Draft]:
    """Labels onto drafts. In a correction (the verify pass) an empty annotation or an empty
    operator list means "unchanged": the pass lists what must change, and small models fill the
    fields they do not mean to change with blanks. Elsewhere an empty annotation is written as
    ``_``, which the parser rejects, so the repair loop sees it."""
    out = list(drafts)
    for label in labels:
        current = out[label.n - 1]
        alpha = _TOKEN_JUNK.sub("", label.alpha)
        ops, dropped = canonical_ops(label.ops)
        if dropped:
            run.notes.append(f"statement {label.n}: dropped operator token(s) {dropped}")
        if corrections:
            alpha = alpha or current.alpha
            ops = ops if any(o.strip() for o in label.ops) else current.ops
        out[label.n - 1] = replace(current, alpha=_ALIASES.get(alpha, alpha) or "_", ops=ops)
    return out


def _label_each(run: _Run, drafts: list[Draft]) -> list[Draft] | str:
    """Stage 3 one statement at a time (the five statements before it as context); the first
    statement without a valid label ends it, with ``"<status>: statement n: <reason>"``."""
    out = list(drafts)
    for i, d in enumerate(drafts):
        context = "\n".join(f"[{c.symbol or '-'}] {c.text}" for c in drafts[max(0, i - 5) : i]) or "(none)"
        result = run.ask(
            "type6_label",
            OneLabel,
            lambda v: None,
            context=context,
            statement=f"[{d.symbol or '-'}] {d.text}",
        )
        if not result.ok or not isinstance(result.value, OneLabel):
            return f"{result.status}: statement {i + 1}: {result.reason}"
        label = Label(n=i + 1, alpha=result.value.alpha, ops=result.value.ops)
        out = _apply(run, out, [label])
    return out


def _listing(drafts: Sequence[Draft]) -> str:
    return "\n".join(f"{i}: {d.line()}" for i, d in enumerate(drafts, start=1))
