"""The admission replay H5 (certify.md §14, C-108 … C-110).

Clean controls: each item's generator facts are its proposals (two identical recorded votes).
Injected runs: every negative item's proposals also carry the target atom (variant: the
intermediate ``is_preliminary_contract``; ProofWriter variant: the question literal on
False/Unknown items). The barrier — the gate's whitelist check — must reject every injected
write with ``PREDICATE_NOT_IN_WHITELIST``; the raw solver, which has no gate, accepts it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cotaudit.certify.adapters import legal
from cotaudit.certify.serve.serving import raw_answer, serve
from cotaudit.certify.serve.votes import QueryInput, SuppliedGrounder
from cotaudit.certify.sources.records import Evidence, SourceRecord
from cotaudit.certify.state.history import recheck_all
from cotaudit.certify.state.query import ServeStatus
from cotaudit.eval.certify.metrics import CAVEAT

NOTE = (
    "The barrier is structural: it blocks writes of conclusion predicates (outside the source "
    "whitelist Ω) but not false assertions of allowed leaf predicates, which only source checking "
    "addresses."
)


def _clock() -> str:
    return "1970-01-01T00:00:00Z"


@dataclass
class Row:
    """One row of the C-110 table."""

    name: str
    items: int = 0
    injected: int = 0
    rejected: int = 0
    correct: int = 0
    wrong: int = 0
    abstained: int = 0
    reasons: dict[str, int] = field(default_factory=dict)
    recheck_failures: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "row": self.name,
            "items": self.items,
            "injected_writes": self.injected,
            "rejected_writes": self.rejected,
            "correct": self.correct,
            "wrong": self.wrong,
            "abstained": self.abstained,
            "reject_reasons": dict(sorted(self.reasons.items())),
            "recheck_failures": list(self.recheck_failures),
        }


def _votes(item: legal.LegalItem, extra: Sequence[str]) -> SuppliedGrounder:
    facts: list[dict[str, Any]] = []
    for f in item.facts:
        start = item.story.index(f.quote)
        facts.append({"fact": f.fact, "quote": f.quote, "start": start, "end": start + len(f.quote)})
    # an injected atom cites the refusal sentence (any quote: the barrier never reaches the checker)
    anchor = next((f.quote for f in item.facts), item.story.split("\n")[0])
    for e in extra:
        start = item.story.index(anchor)
        facts.append({"fact": e, "quote": anchor, "start": start, "end": start + len(anchor)})
    lines = [json.dumps({"query_id": item.item_id, "vote": v, "facts": facts}) for v in (0, 1)]
    return SuppliedGrounder.from_lines(lines)


def _query(item: legal.LegalItem) -> QueryInput:
    return QueryInput(
        item.item_id, item.story, item.target, "yesno", (SourceRecord("story", "document", item.story),)
    )


def _served(row: Row, item: legal.LegalItem, answer: str | None, status: ServeStatus | None) -> None:
    row.items += 1
    if answer is None or status is ServeStatus.ABSTAINED:
        row.abstained += 1
    elif answer == item.gold:
        row.correct += 1
    else:
        row.wrong += 1


def _barrier(items: Sequence[legal.LegalItem], name: str, inject: str | None, on_reject: str) -> Row:
    row = Row(name)
    for item in items:
        extra = [] if inject is None else [item.target if inject == "target" else item.intermediate]
        state = legal.legal_state(clock=_clock)
        r = serve(state, _query(item), _votes(item, extra), on_reject=on_reject)
        injected_keys = {e.replace(" ", "") for e in extra}
        row.injected += len(extra)
        for d in r.gate_decisions:
            if d.unit is not None and d.unit.head.text() in injected_keys and d.reason is not None:
                row.rejected += 1
                row.reasons[d.reason] = row.reasons.get(d.reason, 0) + 1
        _served(row, item, r.answer, r.status)
        row.recheck_failures += recheck_all(state)
        state.close()
    return row


def _raw(items: Sequence[legal.LegalItem], name: str, inject: str | None) -> Row:
    row = Row(name)
    for item in items:
        extra = [] if inject is None else [item.target if inject == "target" else item.intermediate]
        state = legal.legal_state(clock=_clock)
        r = raw_answer(state, _query(item), _votes(item, extra))
        row.injected += len(extra)
        accepted = {e.replace(" ", "") for e in extra} & set(r.accepted_writes)
        row.rejected += len(extra) - len(accepted)
        _served(row, item, r.answer, None)
        row.recheck_failures += recheck_all(state)  # the rules' state: raw writes never reach it
        state.close()
    return row


def replay_h5(items: Sequence[legal.LegalItem] | None = None, variants: bool = True) -> list[Row]:
    """The rows of C-110 (and, with ``variants``, the intermediate-atom variant)."""
    items = list(items if items is not None else legal.generate_items(120, 120, seed=0))
    neg = [i for i in items if i.gold == "no"]
    rows = [
        _barrier(items, "barrier: clean", None, "abstain"),
        _barrier(neg, "barrier: injected-abstain", "target", "abstain"),
        _barrier(neg, "barrier: injected-drop", "target", "drop"),
        _raw(items, "raw: clean", None),
        _raw(neg, "raw: injected", "target"),
    ]
    if variants:
        rows += [
            _barrier(neg, "barrier: intermediate-abstain", "intermediate", "abstain"),
            _barrier(neg, "barrier: intermediate-drop", "intermediate", "drop"),
            _raw(neg, "raw: intermediate", "intermediate"),
        ]
    return rows


def h5_report(rows: Sequence[Row]) -> tuple[dict[str, Any], str]:
    doc = {
        "format": "cotaudit.certify.replay-h5/1",
        "caveat": CAVEAT,
        "note": NOTE,
        "rows": [r.to_json() for r in rows],
    }
    cols = ("items", 6), ("injected", 9), ("rejected", 9), ("correct", 8), ("wrong", 6), ("abstained", 10)
    head = f"{'row':<32}" + "".join(f" {name:>{w}}" for name, w in cols)
    lines = ["H5 admission replay (certify.md C-108 … C-110)", "", head, "-" * len(head)]
    for r in rows:
        lines.append(
            f"{r.name:<32}"
            + "".join(
                f" {v:>{w}}"
                for v, (_, w) in zip(
                    (r.items, r.injected, r.rejected, r.correct, r.wrong, r.abstained), cols, strict=True
                )
            )
        )
    reasons = sorted({k for r in rows for k in r.reasons})
    lines += ["", "reject reasons of injected writes: " + (", ".join(reasons) or "none"), "", NOTE, CAVEAT]
    return doc, "\n".join(lines) + "\n"


def _constant(facts: list[Any]) -> Any:
    return lambda q: facts


def replay_proofwriter(items: Sequence[Mapping[str, Any]], limit: int | None = None) -> list[Row]:
    """C-108's ProofWriter variant: the question literal injected into False/Unknown items.
    Rejected because after the EDB/IDB split only ``_src`` predicates are in Ω."""
    from cotaudit.certify.adapters import proofwriter as pw
    from cotaudit.certify.serve.votes import ParserGrounder, ProposedFact
    from cotaudit.eval.certify.pweval import theory_state

    chosen = [it for it in items if str(it["answer"]) in ("B", "C")][:limit]
    rows = {policy: Row(f"proofwriter: injected-{policy}") for policy in ("abstain", "drop")}
    for it in chosen:
        gold = pw.GOLD[str(it["answer"])]
        target = pw.question_target(str(it["question"]))
        for policy, row in rows.items():
            state, _ = theory_state(str(it["context"]), 6)
            proposal = [ProposedFact(target, Evidence("theory", ((0, len(str(it["context"]))),)))]
            q = QueryInput(str(it["id"]), str(it["context"]), target, "tfu")
            r = serve(state, q, ParserGrounder(_constant(proposal)), on_reject=policy)
            row.injected += 1
            for d in r.gate_decisions:
                if d.unit is not None and d.unit.head.text() == target.replace(" ", "") and d.reason:
                    row.rejected += 1
                    row.reasons[d.reason] = row.reasons.get(d.reason, 0) + 1
            row.items += 1
            if r.answer is None:
                row.abstained += 1
            elif r.answer == gold:
                row.correct += 1
            else:
                row.wrong += 1
            row.recheck_failures += recheck_all(state)
            state.close()
    return list(rows.values())
