"""Serving the MedCalc calculators (certify.md §13.3, C-103 … C-105): a state holding the five
calc rules, votes given as attribute maps, and votes with evidence quotes into a clinical note.

The calculators and the normalisation of attribute maps are :mod:`.medcalc`; the evidence
checker and the notes are :mod:`.medcalc_evidence`. This module uses both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cotaudit.certify.adapters.medcalc import EntityError, facts, interface, normalise, program, target
from cotaudit.certify.adapters.medcalc_evidence import (
    attribute_evidence,
    calc_checkers,
    calc_config,
    note_record,
)
from cotaudit.certify.serve.agreement import POLICIES, replace_votes
from cotaudit.certify.serve.serving import serve
from cotaudit.certify.serve.votes import ProposedFact, QueryInput, Vote
from cotaudit.certify.sources.records import Evidence, SourceRecord
from cotaudit.certify.state.machine import CertState


def calc_state(config: Any = None, clock: Any = None) -> Any:
    """A fresh state holding the five calc rules (writer deploy, match/1 record mode); attribute
    facts are checked by ``all_of(schema/1, medcalc-span/1)`` under source-checking policies."""
    cfg = calc_config(config)
    kwargs = {} if clock is None else {"clock": clock}
    state = CertState.open(":memory:", interface(), cfg, checkers=calc_checkers(cfg), **kwargs)
    text = program()
    state.add_record(SourceRecord("calculators", "rules", text))
    decisions = state.admit_batch(
        [(line, Evidence("calculators"), "deploy", None) for line in text.splitlines()]
    )
    bad = [d for d in decisions if d.outcome.value == "REJECT"]
    if bad:
        raise RuntimeError(f"calculator rule rejected: {bad[0].reason}")
    return state


@dataclass
class MapGrounder:
    """Votes given as attribute maps (one per vote index); a map that does not normalise is an
    invalid vote with the reason, never a guess. With ``evidence`` (quotes per attribute, same
    keys as the maps) or a query record, every fact carries evidence into the note (C-103)."""

    maps: Mapping[tuple[str, int], Mapping[str, Any]]
    cid: int
    id: str = "entity-maps/1"
    evidence: Mapping[tuple[str, int], Mapping[str, Any]] = field(default_factory=dict)

    def ground(self, q: Any, interface: Any, vote: int) -> Any:
        m = self.maps.get((q.query_id, vote))
        if m is None:
            return Vote(None, f"no attribute map for vote {vote}")
        if not isinstance(m, Mapping):
            return Vote(None, "parse failure: an attribute map must be an object")
        try:
            values = normalise(m, self.cid)
        except EntityError as exc:
            return Vote(None, f"parse failure: {exc}")
        raw = repr(sorted(m.items()))
        quotes = self.evidence.get((q.query_id, vote))
        record = q.records[0] if q.records else None
        if quotes is None and record is None:
            return Vote(tuple(ProposedFact(f) for f in facts(values)), None, raw)
        try:
            evs = attribute_evidence(
                m,
                quotes or {},
                self.cid,
                None if record is None else record.record_id,
                None if record is None else record.body,
            )
        except EntityError as exc:
            return Vote(None, f"parse failure: {exc}")
        lits = facts(values)
        return Vote(
            tuple(ProposedFact(f, evs[a]) for a, f in zip(sorted(values), lits, strict=True)), None, raw
        )


def serve_maps(
    state: Any, query_id: str, cid: int, maps: list[Mapping[str, Any]], policy: str = "agreement_only"
) -> Any:
    """Serve calculator ``cid`` on k attribute-map votes. The default policy has no source
    checker: gold or recorded maps carry no quotes (see docs/certify.md); :func:`.medcalc_evidence.serve_note`
    is the source-checked path."""
    grounder = MapGrounder({(query_id, i): m for i, m in enumerate(maps)}, cid)
    pol = replace_votes(POLICIES[policy], len(maps))
    return serve(state, QueryInput(query_id, "note", target(cid), "numeric"), grounder, policy=pol)


def serve_note(
    state: Any,
    query_id: str,
    cid: int,
    note: str,
    votes: Sequence[Mapping[str, Any]],
    policy: str = "native",
    record_id: str | None = None,
) -> Any:
    """Serve calculator ``cid`` on a clinical note with k votes, each
    ``{"entities": {…}, "evidence": {attr: {"quote", "start", "end"}}}`` (the shape of a
    ``notes.jsonl`` line). Under ``native`` every agreed fact must pass
    ``all_of(schema/1, medcalc-span/1)`` against the note (C-103)."""
    maps = {(query_id, i): v.get("entities") for i, v in enumerate(votes)}
    quotes = {(query_id, i): v.get("evidence") or {} for i, v in enumerate(votes)}
    grounder = MapGrounder(maps, cid, evidence=quotes)  # type: ignore[arg-type]
    pol = replace_votes(POLICIES[policy], len(votes))
    q = QueryInput(query_id, note, target(cid), "numeric", records=(note_record(note, record_id),))
    return serve(state, q, grounder, policy=pol)
