"""Grounding votes (C-74, C-75): the query input, the grounder protocol and the two grounders
that need no model — recorded votes (:class:`SuppliedGrounder`) and deterministic adapters
(:class:`ParserGrounder`).

A vote is untrusted text. :func:`parse_vote_lines` accepts only JSON lines
``{"fact": "...", "quote": "...", "start": n, "end": n}``; anything else makes the whole vote a
parse failure (it counts in k but supports nothing). The LLM grounder lives outside the engine
(the engine never imports the LLM layer); it implements the same :class:`Grounder` protocol.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from cotaudit.certify.core.canon import JsonLineError, json_lines
from cotaudit.certify.sources.records import Evidence, SourceRecord
from cotaudit.errors import CotauditError

if TYPE_CHECKING:
    from cotaudit.certify.interface.model import Interface

MAX_VOTE_BYTES = 1_000_000
MAX_VOTE_FACTS = 10_000


@dataclass(frozen=True)
class QueryInput:
    """C-74. The adapter supplies ``target``; the model never chooses it."""

    query_id: str
    text: str | None
    target: str
    answer_space: str = "yesno"
    records: tuple[SourceRecord, ...] = ()
    case_constants: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.answer_space not in ("yesno", "tfu", "numeric"):
            raise ValueError(f"answer_space must be yesno, tfu or numeric, not {self.answer_space!r}")


@dataclass(frozen=True)
class ProposedFact:
    literal: str
    evidence: Evidence | None = None


@dataclass(frozen=True)
class Vote:
    """One grounding sample. ``facts is None`` (with ``error``) is a parse failure."""

    facts: tuple[ProposedFact, ...] | None
    error: str | None = None
    raw: str = ""
    model: str | None = None
    tokens: int = 0
    seconds: float = 0.0

    @property
    def valid(self) -> bool:
        return self.facts is not None and self.error is None


@runtime_checkable
class Grounder(Protocol):
    id: str

    def ground(self, q: QueryInput, interface: Interface, vote: int) -> Vote: ...


class VoteFormatError(CotauditError, ValueError):
    """A vote that is not the JSON-lines format of C-75."""


def _fact_from_json(obj: Any, record_id: str | None, line: int) -> ProposedFact:
    if not isinstance(obj, Mapping) or not isinstance(obj.get("fact"), str):
        raise VoteFormatError(f"line {line}: expected an object with a string 'fact'")
    unknown = set(obj) - {"fact", "quote", "start", "end", "record"}
    if unknown:
        raise VoteFormatError(f"line {line}: unexpected key(s) {', '.join(sorted(unknown))}")
    quote = obj.get("quote")
    if quote is not None and not isinstance(quote, str):
        raise VoteFormatError(f"line {line}: 'quote' must be a string")
    start, end = obj.get("start"), obj.get("end")
    spans: tuple[tuple[int, int], ...] = ()
    if start is not None or end is not None:
        if not (type(start) is int and type(end) is int and 0 <= start <= end):
            raise VoteFormatError(f"line {line}: 'start'/'end' must be integers with 0 <= start <= end")
        spans = ((start, end),)
    rid = obj.get("record", record_id)
    if rid is not None and not isinstance(rid, str):
        raise VoteFormatError(f"line {line}: 'record' must be a string")
    return ProposedFact(obj["fact"], Evidence(rid, spans, quote))


def parse_vote_lines(raw: str, record_id: str | None = None) -> tuple[ProposedFact, ...]:
    """The facts of a raw vote (JSON lines); :class:`VoteFormatError` on anything else."""
    if len(raw.encode("utf-8", "replace")) > MAX_VOTE_BYTES:
        raise VoteFormatError(f"vote larger than {MAX_VOTE_BYTES} bytes")
    out: list[ProposedFact] = []
    try:
        for i, obj in json_lines(raw.splitlines()):
            out.append(_fact_from_json(obj, record_id, i))
            if len(out) > MAX_VOTE_FACTS:
                raise VoteFormatError(f"more than {MAX_VOTE_FACTS} facts")
    except JsonLineError as exc:
        raise VoteFormatError(str(exc)) from None
    return tuple(out)


def vote_from_json(obj: Any, record_id: str | None = None) -> Vote:
    """A recorded vote: ``{"facts": [...]}`` or ``{"raw": "json lines"}`` plus cost fields."""
    if not isinstance(obj, Mapping):
        return Vote(None, "vote is not a JSON object")
    tokens = obj.get("tokens", 0)
    seconds = obj.get("seconds", 0)
    model = obj.get("model")
    cost_ok = type(tokens) is int and isinstance(seconds, int | float) and not isinstance(seconds, bool)
    tokens, seconds = (tokens, float(seconds)) if cost_ok else (0, 0.0)
    model = model if isinstance(model, str) else None
    raw = obj.get("raw")
    if obj.get("error") is not None:
        return Vote(None, str(obj["error"]), raw if isinstance(raw, str) else "", model, tokens, seconds)
    try:
        if isinstance(raw, str):
            facts = parse_vote_lines(raw, record_id)
        elif isinstance(obj.get("facts"), list):
            facts = tuple(_fact_from_json(f, record_id, i) for i, f in enumerate(obj["facts"], 1))
        else:
            raise VoteFormatError("a vote needs 'facts' (a list) or 'raw' (JSON lines)")
    except VoteFormatError as exc:
        return Vote(
            None, f"parse failure: {exc}", raw if isinstance(raw, str) else "", model, tokens, seconds
        )
    text = raw if isinstance(raw, str) else json.dumps(obj.get("facts"), sort_keys=True, ensure_ascii=False)
    return Vote(facts, None, text, model, tokens, seconds)


@dataclass
class SuppliedGrounder:
    """Recorded votes, JSONL keyed by ``query_id`` and ``vote`` (fixed-trace ablations).

    Each line: ``{"query_id": "...", "vote": 0, "facts": [{"fact": ..., "quote": ...}]}`` or
    ``{"query_id": ..., "vote": 1, "raw": "..."}``; ``"record"`` names the evidence record
    (default: the query's first record). A missing vote is an invalid vote, never invented.
    """

    votes: Mapping[tuple[str, int], Mapping[str, Any]]
    id: str = "supplied/1"

    @classmethod
    def from_path(cls, path: str | Path) -> SuppliedGrounder:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        return cls.from_lines(lines, where=str(path))

    @classmethod
    def from_lines(cls, lines: Iterable[str], where: str = "<votes>") -> SuppliedGrounder:
        votes: dict[tuple[str, int], Mapping[str, Any]] = {}
        try:
            parsed = list(json_lines(lines))
        except JsonLineError as exc:
            raise VoteFormatError(f"{where}:{exc.line}: not JSON ({exc.msg})") from None
        for n, obj in parsed:
            if not isinstance(obj, dict) or not isinstance(obj.get("query_id"), str):
                raise VoteFormatError(f"{where}:{n}: a vote line needs a string 'query_id'")
            idx = obj.get("vote")
            if type(idx) is not int or idx < 0:
                raise VoteFormatError(f"{where}:{n}: 'vote' must be an integer ≥ 0")
            if (obj["query_id"], idx) in votes:
                raise VoteFormatError(f"{where}:{n}: duplicate vote {idx} for {obj['query_id']}")
            votes[(obj["query_id"], idx)] = obj
        return cls(votes)

    def ground(self, q: QueryInput, interface: Interface, vote: int) -> Vote:
        obj = self.votes.get((q.query_id, vote))
        if obj is None:
            return Vote(None, f"no recorded vote {vote} for {q.query_id}")
        default = q.records[0].record_id if q.records else None
        return vote_from_json(obj, default)


@dataclass
class ParserGrounder:
    """A deterministic adapter as a grounder: every vote is the adapter's parse of the text."""

    adapter: Callable[[QueryInput], Sequence[ProposedFact]]
    id: str = "parser/1"
    calls: list[str] = field(default_factory=list)

    def ground(self, q: QueryInput, interface: Interface, vote: int) -> Vote:
        self.calls.append(q.query_id)
        try:
            facts = tuple(self.adapter(q))
        except ValueError as exc:
            return Vote(None, f"parse failure: {exc}")
        return Vote(facts, None, "\n".join(f.literal for f in facts), None, 0, 0.0)
