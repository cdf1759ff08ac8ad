"""The ProofWriter pipeline and its report (C-97): one state per theory, ``admit_batch`` of
every unit under ``pw-parse/1``, one kernel-only ``tfu`` query per question through serving,
every certificate rechecked by the independent checker, and the C/W/A table."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cotaudit.certify.adapters import proofwriter as pw
from cotaudit.certify.proof.recheck import recheck
from cotaudit.certify.serve.serving import serve
from cotaudit.certify.serve.votes import QueryInput
from cotaudit.certify.sources.records import CheckerConfig, SourceRecord
from cotaudit.certify.state.config import CertifyConfig
from cotaudit.certify.state.history import recheck_all
from cotaudit.certify.state.machine import CertState
from cotaudit.certify.state.query import ServeStatus
from cotaudit.eval.certify.metrics import CAVEAT, Counts, count, cwa_table


def _clock() -> str:
    return "1970-01-01T00:00:00Z"  # reports are byte-identical across runs (C-118)


@dataclass
class ItemOutcome:
    item_id: str
    gold: str
    status: str
    answer: str | None
    kind: str | None
    depth: int | None
    abstain_reason: str | None
    rechecked: bool | None
    detail: str = ""

    @property
    def correct(self) -> bool | None:
        if self.answer is None:
            return None
        return self.answer == self.gold

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.item_id,
            "gold": self.gold,
            "status": self.status,
            "answer": self.answer,
            "kind": self.kind,
            "depth": self.depth,
            "abstain_reason": self.abstain_reason,
            "rechecked": self.rechecked,
            "detail": self.detail,
        }


@dataclass
class PWRun:
    split: str
    delta: int
    outcomes: list[ItemOutcome] = field(default_factory=list)
    theories: int = 0
    units: int = 0
    recheck_failures: list[str] = field(default_factory=list)

    @property
    def counts(self) -> Counts:
        return count(f"{self.split} δ={self.delta}", (o.correct for o in self.outcomes))

    def to_json(self) -> dict[str, Any]:
        by_reason: dict[str, int] = {}
        by_kind: dict[str, int] = {}
        depths: dict[str, int] = {}
        for o in self.outcomes:
            if o.abstain_reason:
                by_reason[o.abstain_reason] = by_reason.get(o.abstain_reason, 0) + 1
            if o.kind:
                by_kind[o.kind] = by_kind.get(o.kind, 0) + 1
            if o.depth is not None and o.kind != "NOT_DERIVED":
                depths[str(o.depth)] = depths.get(str(o.depth), 0) + 1
        return {
            "split": self.split,
            "delta": self.delta,
            "theories": self.theories,
            "units": self.units,
            "counts": self.counts.to_json(),
            "abstentions": dict(sorted(by_reason.items())),
            "kinds": dict(sorted(by_kind.items())),
            "certificate_depths": dict(sorted(depths.items(), key=lambda kv: int(kv[0]))),
            "all_rechecked": all(o.rechecked for o in self.outcomes if o.answer is not None)
            and not self.recheck_failures,
            "stored_recheck_failures": list(self.recheck_failures),
            "items": [o.to_json() for o in self.outcomes],
        }


def load_items(path: str | Path) -> list[dict[str, Any]]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, list) or not all(isinstance(x, dict) for x in data):
        raise ValueError(f"{path}: expected a JSON list of ProofWriter items")
    for x in data:
        for key in ("id", "context", "question", "answer"):
            if not isinstance(x.get(key), str):
                raise ValueError(f"{path}: item {x.get('id', '?')} lacks a string {key!r}")
    return data


def theory_state(context: str, delta: int) -> tuple[CertState, list[Any]]:
    """A fresh state holding the theory's units (C-97); returns the gate decisions too."""
    config = CertifyConfig(delta=delta, checkers=CheckerConfig(kernel="pw-parse/1", query="pw-parse/1"))
    state = CertState.open(":memory:", pw.interface(), config, clock=_clock)
    state.checkers.register(pw.PWParseChecker())
    state.add_record(SourceRecord("theory", "document", context))
    theory = pw.theory_units(context)
    decisions = state.admit_batch([(u, ev, "deploy", None) for u, ev in theory.units])
    return state, decisions


def run_proofwriter(items: Sequence[Mapping[str, Any]], split: str, delta: int = 6) -> PWRun:
    run = PWRun(split, delta)
    by_theory: dict[str, list[Mapping[str, Any]]] = {}
    for it in items:
        by_theory.setdefault(str(it["context"]), []).append(it)
    for context, group in by_theory.items():
        run.theories += 1
        try:
            state, decisions = theory_state(context, delta)
        except pw.PWParseError as exc:
            for it in group:
                run.outcomes.append(
                    ItemOutcome(
                        str(it["id"]),
                        pw.GOLD.get(str(it["answer"]), "?"),
                        "ERROR",
                        None,
                        None,
                        None,
                        "PARSE_ERROR",
                        None,
                        str(exc),
                    )
                )
            continue
        rejected = [d for d in decisions if d.reason is not None and d.outcome.value == "REJECT"]
        run.units += len(decisions)
        for it in group:
            gold = pw.GOLD.get(str(it["answer"]), "?")
            if rejected:
                d = rejected[0]
                run.outcomes.append(
                    ItemOutcome(
                        str(it["id"]),
                        gold,
                        "ERROR",
                        None,
                        None,
                        None,
                        "ADMISSION_REJECTED",
                        None,
                        f"{d.reason}: {d.detail.get('message', '')}",
                    )
                )
                continue
            try:
                target = pw.question_target(str(it["question"]))
            except pw.PWParseError as exc:
                run.outcomes.append(
                    ItemOutcome(str(it["id"]), gold, "ERROR", None, None, None, "PARSE_ERROR", None, str(exc))
                )
                continue
            r = serve(state, QueryInput(str(it["id"]), None, target, "tfu"))
            ok = None
            if r.certificate is not None:
                ok = recheck(r.certificate, state.kernel_view(), overlay=r.overlay).ok
            run.outcomes.append(
                ItemOutcome(
                    str(it["id"]),
                    gold,
                    r.status.value,
                    r.answer if r.status in (ServeStatus.CERTIFIED, ServeStatus.CACHED) else None,
                    None if r.answer_kind is None else r.answer_kind.value,
                    None if r.certificate is None else r.certificate.get("depth"),
                    None if r.abstain_reason is None else r.abstain_reason.value,
                    ok,
                    r.detail,
                )
            )
        run.recheck_failures += recheck_all(state)  # every stored certificate, not only answers
        state.close()
    return run


def pw_report(runs: Iterable[PWRun]) -> tuple[dict[str, Any], str]:
    runs = list(runs)
    doc = {
        "format": "cotaudit.certify.eval.proofwriter/1",
        "caveat": CAVEAT,
        "checkers": {"kernel": "pw-parse/1 (re-parses the cited sentence; exact for templated text)"},
        "runs": [r.to_json() for r in runs],
    }
    lines = ["ProofWriter (certify.md C-97): kernel-only tfu queries, every certificate rechecked", ""]
    lines.append(cwa_table([r.counts for r in runs]))
    for r in runs:
        j = r.to_json()
        lines.append("")
        lines.append(
            f"{r.split} δ={r.delta}: {r.theories} theories, {r.units} units; kinds {j['kinds']}; "
            f"abstentions {j['abstentions'] or 'none'}; all certificates recheck: {j['all_rechecked']}"
        )
        lines.append(f"  derivation depths: {j['certificate_depths']}")
    lines += ["", CAVEAT]
    return doc, "\n".join(lines) + "\n"
