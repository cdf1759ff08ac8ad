"""The result object and its reports (§13, Y-85..Y-90): summary, sequential, per-path, coherence.

:class:`Type6Result` offers the pydantic-style ``model_dump()`` / ``model_dump_json()`` the spec
names (Y-85) without depending on pydantic, which is not a core dependency of cotaudit: the
document is plain JSON data with a fixed key order, so ``model_dump_json`` is byte-identical
across runs (Y-94).
"""

from __future__ import annotations

import copy
import json
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import cotaudit.limits as budget
from cotaudit.type6.codemap import r1_severity, stable_code
from cotaudit.type6.events import Event
from cotaudit.type6.projection import PathView

SCHEMA_VERSION = "1.0"
CRITERIA = (
    "length",
    "propositions",
    "statements",
    "logical",
    "gap",
    "jump",
    "loopback",
    "meander",
    "unknown",
    "hard",
    "soft",
    "quality",
    "structural",
    "residuals_elevated",
    "residuals_offchain",
    "chain_length",
    "on_chain_fraction",
    "score",
    "coherent",
    "consistent",
)


def r6(x: float) -> float:
    """Y-84: six decimals, Python ``round``."""
    return round(float(x), 6)


@dataclass(frozen=True)
class Type6Result:
    """The verifier's answer (Y-85). ``document`` is the JSON document, keys in spec order."""

    document: Mapping[str, Any]

    def model_dump(self) -> dict[str, Any]:
        """A deep copy of the document (pydantic's name for it)."""
        return copy.deepcopy(dict(self.document))

    def model_dump_json(self, *, indent: int | None = None) -> str:
        """Deterministic JSON (``ensure_ascii=False``, keys in spec order)."""
        return json.dumps(self.document, ensure_ascii=False, indent=indent)

    @property
    def status(self) -> str:
        return str(self.document["status"])

    @property
    def trace_id(self) -> str:
        return str(self.document["trace_id"])

    @property
    def summary(self) -> Mapping[str, Any]:
        summary: Mapping[str, Any] = self.document["summary"]
        return summary

    @property
    def hard_fail(self) -> bool | None:
        value: bool | None = self.summary["hard_fail"]
        return value

    @property
    def score(self) -> float | None:
        value: float | None = self.summary["score"]
        return value

    @property
    def scores(self) -> Mapping[str, float] | None:
        value: Mapping[str, float] | None = self.summary["scores"]
        return value

    @property
    def events(self) -> list[dict[str, Any]]:
        sequential = self.document.get("sequential") or {}
        events: list[dict[str, Any]] = sequential.get("events", [])
        return events

    @property
    def diagnostics(self) -> list[dict[str, Any]]:
        diagnostics: list[dict[str, Any]] = self.document["diagnostics"]
        return diagnostics

    def at(self) -> list[str]:
        """``["T6_H01@2/p1", "T6_W02@-/p1", ...]``: code, statement and proposition of every event."""
        return [
            f"{e['code']}@{e['stmt'] if e['stmt'] is not None else '-'}/{e['prop'] or '-'}"
            for e in self.events
        ]


def path_criteria(view: PathView, s05: Sequence[Event], n_statements: int) -> dict[str, float]:
    """Y-78 for one path (events by effective severity, per-path residuals and S05 included)."""
    counts = {"hard": 0, "soft": 0, "quality": 0, "structural": 0}
    for event in [*view.events, *s05]:
        if event.severity in counts:
            counts[event.severity] += 1
    elevated = sum(1 for _, _, on in view.residuals if on)
    counts["hard"] += elevated
    counts["soft"] += len(view.residuals) - elevated
    return {
        "length": len(view.edges),
        "propositions": view.propositions,
        "statements": len(view.stmts),
        **view.kinds,
        **counts,
        "residuals_elevated": elevated,
        "residuals_offchain": len(view.residuals) - elevated,
        "chain_length": len(view.chain),
        "on_chain_fraction": r6(len(view.chain) / n_statements) if n_statements else 0.0,
        "score": view.score,
        "coherent": int(view.coherent),
        "consistent": int(view.consistent),
    }


def coherence_report(views: Sequence[PathView], s05: Sequence[Event], n_statements: int) -> dict[str, Any]:
    """Y-88: distributions over the scored paths, never collapsed to one number."""
    rows = []
    for v in views:
        budget.checkpoint()
        rows.append(path_criteria(v, s05, n_statements))
    criteria: dict[str, dict[str, float | None]] = {}
    for name in CRITERIA:
        values = [row[name] for row in rows]
        if not values:
            criteria[name] = {"min": None, "max": None, "mean": None, "median": None}
        else:
            criteria[name] = {
                "min": round(min(values), 6),
                "max": round(max(values), 6),
                "mean": r6(statistics.fmean(values)),
                "median": r6(statistics.median(values)),
            }
    n = len(views)
    coherent = sum(1 for v in views if v.coherent)
    return {
        "n_paths": n,
        "n_coherent": coherent,
        "n_consistent": sum(1 for v in views if v.consistent),
        "coherent_fraction": r6(coherent / n) if n else None,
        "criteria": criteria,
    }


def path_record(view: PathView) -> dict[str, Any]:
    """One listed path (Y-87)."""
    return {
        "id": view.id,
        "edges": list(view.edges),
        "nodes": view.nodes,
        "statements": view.stmts,
        "chain": view.chain,
        "coherent": view.coherent,
        "consistent": view.consistent,
        "score": view.score,
        "events": [e.id for e in view.events],
        "residuals": [{"code": c, "prop": p, "elevated": on} for c, p, on in view.residuals],
        "terminal": {p: st[0] for p, st in view.terminal.items()},
    }


def finding_record(e: Mapping[str, Any]) -> dict[str, Any]:
    """The R-1 finding of one listed event, as ``Finding.to_dict`` writes it (the R-1 report
    builds its findings from these; the listing allowance measures them)."""
    stmt = e["stmt"]
    return {
        "code": stable_code(e["code"], elevated=e["data"].get("elevated")),
        "severity": r1_severity(e["severity"]),
        "location": {"line": e["line"], "step": None, "statement": str(stmt) if stmt is not None else None},
        "message": e["message"],
        "evidence": {
            "type6_code": e["code"],
            "event": e["id"],
            "name": e["name"],
            "type6_severity": e["severity"],
            "weight": e["weight"],
            "blocking": e["blocking"],
            "stmt": stmt,
            "prop": e["prop"],
            "constraint": e["constraint"],
            "data": e["data"],
        },
    }


def diagnostic_finding(d: Mapping[str, Any]) -> dict[str, Any]:
    """The R-1 finding of one input error."""
    return {
        "code": stable_code(d["code"]),
        "severity": "error",
        "location": {"line": d["line"], "step": None, "statement": None},
        "message": d["message"],
        "evidence": {"type6_code": d["code"]},
    }


def signal_records(events: Sequence[Event], code: str, listed: set[int]) -> list[dict[str, Any]]:
    """Y-87's disagreements / under-resolutions: one per *listed* S05 / D02 event."""
    records: list[dict[str, Any]] = []
    for e in events:
        if e.code == code and e.id in listed:
            record: dict[str, Any] = {"prop": e.prop, "event": e.id, "values": e.data["values"]}
            if "omitted" in e.data:
                record["omitted"] = e.data["omitted"]
            records.append(record)
    return records


def event_counts(events: Sequence[Event]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for e in events:
        counts[e.code] = counts.get(e.code, 0) + 1
    return dict(sorted(counts.items()))


def invalid_document(
    trace_id: str,
    diagnostics: Sequence[Mapping[str, Any]],
    config: Mapping[str, Any],
    truncated: Mapping[str, Any] | None = None,
) -> Any:
    """Y-14: status invalid, every diagnostic, no events, null verdict and scores."""
    return {
        "engine": "type6",
        "schema_version": SCHEMA_VERSION,
        "trace_id": trace_id,
        "status": "invalid",
        "summary": {
            "n_statements": 0,
            "n_propositions": 0,
            "n_constraints": 0,
            "source": None,
            "sink": None,
            "hard_fail": None,
            "reasoning_avoidant": None,
            "score": None,
            "scores": None,
            "event_counts": {},
            "chain": None,
            "paths": None,
        },
        "sequential": None,
        "per_path": None,
        "coherence": None,
        "graph": None,
        "config": dict(config),
        "diagnostics": [dict(d) for d in diagnostics],
        "truncated": dict(truncated or {}),
    }
