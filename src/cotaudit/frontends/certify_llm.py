"""The model-backed parts of certify (C-75, C-77) on the shared LLM layer.

- :class:`ContractNLIGrounder`: one grounding vote for a (document, hypothesis) pair — a
  structured answer ``{"label", "clause", "quote"}`` turned into the hypothesis's source fact
  with the clause span as evidence (:func:`cotaudit.certify.adapters.contractnli.vote_from_label`).
  Each vote is a separate sample (``Request.sample`` = the vote index, so record/replay keeps
  them apart) at ``temperature`` (default 0.7: two votes at temperature 0 would be one vote).
- :class:`LLMGrounder`: the generic grounder of C-75 for any interface — the prompt lists only
  the Ω predicates with their roles and the legend, the answer is JSON lines
  ``{"fact", "quote", "start", "end"}``; anything else is a parse failure for that vote.
- :func:`recheck_ask`: the ``ask(prompt) -> LLMReply`` of the model rechecker
  (``nli-recheck/1``, ``llm_recheck/1``), with the verdict as a validated JSON object.

Nothing here invents a vote: a server failure, an answer that stays invalid after the re-ask
or a replay miss is an invalid vote (it counts in k, supports nothing) with the reason kept.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from cotaudit.certify.adapters import contractnli as cnli
from cotaudit.certify.serve.votes import QueryInput, Vote, VoteFormatError, parse_vote_lines
from cotaudit.certify.sources.checkers import LLMReply
from cotaudit.llm.client import LLMClient
from cotaudit.llm.prompts import load_prompt
from cotaudit.llm.types import Message, ReplayMiss, Request

if TYPE_CHECKING:
    from cotaudit.certify.interface.model import Interface

_WORD = re.compile(r"[a-z]+")
_STOP = frozenset(
    {
        "a", "an", "and", "any", "as", "at", "be", "by", "for", "from", "in", "information", "may",
        "of", "or", "party", "receiving", "disclosing", "shall", "some", "such", "that", "the", "to",
        "with", "agreement", "confidential",
    }
)  # fmt: skip
MAX_CLAUSE_CHARS = 600
MAX_QUOTE_CHARS = 4000


class GroundAnswer(BaseModel):
    """The grounding answer for one hypothesis."""

    model_config = ConfigDict(extra="forbid")
    label: Literal["Entailment", "Contradiction", "NotMentioned"]
    # no length or range constraints in the schema: llama.cpp turns them into grammar
    # repetitions it refuses to build ("exceeds sane defaults"); the check enforces them
    clause: int | None = None
    quote: str | None = None


class VerdictAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    verdict: Literal["holds", "does_not_hold", "unclear"]


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 2}


def select_clauses(doc: cnli.Document, hypothesis: cnli.Hypothesis, n: int) -> list[int]:
    """The ``n`` clauses sharing the most content words with the hypothesis (ties: earlier
    clause first), in document order; ``n <= 0`` keeps every clause. Deterministic, so the
    prompt (and the record/replay key) depends only on the data."""
    idx = list(range(len(doc.spans)))
    if n <= 0 or n >= len(idx):
        return idx
    want = _words(hypothesis.text + " " + hypothesis.short)
    scored = sorted(idx, key=lambda i: (-len(want & _words(doc.text[slice(*doc.spans[i])])), i))
    return sorted(scored[:n])


def clause_listing(doc: cnli.Document, chosen: Sequence[int]) -> str:
    lines = []
    for i in chosen:
        a, b = doc.spans[i]
        text = " ".join(doc.text[a:b].split())
        if len(text) > MAX_CLAUSE_CHARS:
            text = text[:MAX_CLAUSE_CHARS] + " …"
        lines.append(f"{i}: {text}")
    return "\n".join(lines)


class ContractNLIGrounder:
    """Grounding votes for ContractNLI pairs through ``client`` (see the module docstring)."""

    def __init__(
        self,
        client: LLMClient,
        pairs: Sequence[cnli.Pair],
        *,
        clauses: int = 12,
        temperature: float = 0.7,
        max_tokens: int = 256,
    ) -> None:
        self.client = client
        self.pairs = {p.query_id: p for p in pairs}
        self.clauses = clauses
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.prompt = load_prompt("certify_cnli_ground")
        self.id = f"llm-cnli/1+{self.prompt.id}+{client.model}"
        self.unavailable = 0  # replay misses: reported, never turned into answers

    def ground(self, q: QueryInput, interface: Interface, vote: int) -> Vote:
        pair = self.pairs.get(q.query_id)
        if pair is None:
            return Vote(None, f"no ContractNLI pair {q.query_id!r}")
        chosen = select_clauses(pair.document, pair.hypothesis, self.clauses)
        messages = self.prompt.render(
            hypothesis=pair.hypothesis.text, clauses=clause_listing(pair.document, chosen)
        )
        request = Request(
            messages,
            prompt=self.prompt.id,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            sample=vote,
            tag=f"ground {q.query_id} vote {vote}",
        )
        start = time.perf_counter()
        try:
            result = self.client.structured(request, GroundAnswer, check=_clause_check(chosen), reasks=1)
        except ReplayMiss as exc:
            self.unavailable += 1
            return Vote(None, f"llm unavailable: {exc}", "", self.client.model)
        seconds = time.perf_counter() - start
        if not result.ok or result.value is None:
            return Vote(
                None,
                f"parse failure: {result.status}: {result.reason}",
                result.raw,
                self.client.model,
                0,
                seconds,
            )
        a = result.value
        return cnli.vote_from_label(
            pair, a.label, a.clause, a.quote, model=self.client.model, seconds=seconds
        )


def _clause_check(chosen: Sequence[int]) -> Callable[[GroundAnswer], str | None]:
    allowed = set(chosen)

    def check(a: GroundAnswer) -> str | None:
        if a.quote is not None and len(a.quote) > MAX_QUOTE_CHARS:
            return f"'quote' must be at most {MAX_QUOTE_CHARS} characters"
        if a.label == "NotMentioned":
            return None
        if a.clause is None or a.clause not in allowed:
            return f"'clause' must be one of the listed clause numbers for {a.label}"
        if not a.quote:
            return f"'quote' must copy the deciding words of clause {a.clause}"
        return None

    return check


class LLMGrounder:
    """C-75's generic grounder: Ω predicates with roles and the legend in the prompt, the
    records' text, the question; the answer is JSON lines parsed by
    :func:`cotaudit.certify.serve.votes.parse_vote_lines` (no JSON mode: JSON lines are several
    objects). A fact whose ``record`` is not named gets the query's first record."""

    def __init__(self, client: LLMClient, *, temperature: float = 0.7, max_tokens: int = 512) -> None:
        self.client = client
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.id = f"llm/1+{client.model}"

    @staticmethod
    def prompt(q: QueryInput, interface: Interface) -> str:
        lines = ["You extract facts from a source text. You may write only these predicates:"]
        for name in sorted(interface.whitelist):
            sig = interface.predicates[name]
            lines.append(f"- {name}({', '.join(sig.args)})")
        if interface.legend:
            lines.append("Constants (use exactly these names):")
            for const, entry in sorted(interface.legend.items(), key=lambda kv: kv[0].text()):
                lines.append(f"- {const.text()}: {entry.label} ({entry.role})")
        if q.case_constants:
            lines.append("Case constants: " + ", ".join(q.case_constants))
        for rec in q.records:
            lines.append(f"Source {rec.record_id}:\n{rec.body}")
        if q.text:
            lines.append(f"Question: {q.text}")
        lines.append(
            'Answer with JSON lines only, one fact per line: {"fact": "pred(arg, ...)", "quote": '
            '"exact words of the source", "start": <char offset>, "end": <char offset>}. '
            "Write nothing else. Write no line for a fact the source does not state."
        )
        return "\n".join(lines)

    def ground(self, q: QueryInput, interface: Interface, vote: int) -> Vote:
        request = Request(
            (Message("user", self.prompt(q, interface)),),
            prompt="certify_ground@inline",
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            sample=vote,
            tag=f"ground {q.query_id} vote {vote}",
        )
        start = time.perf_counter()
        try:
            completion = self.client.complete(request)
        except ReplayMiss as exc:
            return Vote(None, f"llm unavailable: {exc}", "", self.client.model)
        except Exception as exc:  # a failing server is an invalid vote, with the reason
            return Vote(None, f"grounder error: {type(exc).__name__}: {exc}", "", self.client.model)
        seconds = time.perf_counter() - start
        raw = completion.text
        tokens = completion.usage.prompt_tokens + completion.usage.completion_tokens
        default = q.records[0].record_id if q.records else None
        try:
            facts = parse_vote_lines(raw, default)
        except VoteFormatError as exc:
            return Vote(None, f"parse failure: {exc}", raw, self.client.model, tokens, seconds)
        return Vote(facts, None, raw, self.client.model, tokens, seconds)


def recheck_ask(client: LLMClient, *, max_tokens: int = 64) -> Callable[[str], LLMReply]:
    """``ask(check_text) -> LLMReply`` for a model rechecker: the verdict word, or ``invalid``
    / ``abstain: …`` (neither is a verdict, so the checker does not support the fact).
    A replay miss propagates: the checker runner turns it into a checker ERROR."""
    prompt = load_prompt("certify_cnli_recheck")

    def ask(text: str) -> LLMReply:
        request = Request(prompt.render(check=text), prompt=prompt.id, max_tokens=max_tokens, tag="recheck")
        result = client.structured(request, VerdictAnswer, reasks=1)
        if result.ok and result.value is not None:
            return LLMReply(result.value.verdict, client.model)
        return LLMReply(f"{result.status}: {result.reason}", client.model)

    return ask
