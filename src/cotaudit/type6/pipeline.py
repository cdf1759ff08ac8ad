"""``verify``: parse → BuildGraph + VerifierStep → trace signals → paths → projection → scores.

The engine is pure (Y-93): no I/O, clock, environment or global state; the only randomness is
the per-trace ``random.Random(seed)`` of path sampling (Y-68), so the same input and config give
byte-identical JSON (Y-94).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from typing import Any

from cotaudit.gcpause import paused_collector
from cotaudit.type6.backprop import WorkLimitExceeded
from cotaudit.type6.config import Config
from cotaudit.type6.events import Event
from cotaudit.type6.jsonform import parse_any, parse_json
from cotaudit.type6.listing import select, select_diagnostics
from cotaudit.type6.model import Diagnostic, Trace
from cotaudit.type6.paths import PathSearch, enumerate_paths, sample_paths
from cotaudit.type6.projection import cross_path, project, score_paths
from cotaudit.type6.result import (
    SCHEMA_VERSION,
    Type6Result,
    coherence_report,
    event_counts,
    invalid_document,
    r6,
    signal_records,
)
from cotaudit.type6.signals import SequentialRun, run_sequential, trace_events


def verify(trace: Trace | str | Mapping[str, Any], config: Config | None = None) -> Type6Result:
    """Verify one trace (a :class:`Trace`, ``.t6``/JSON text, or a JSON-like dict). Never raises
    on bad trace input: errors make an ``invalid`` result with diagnostics (Y-14)."""
    config = config or Config()
    # Verification allocates many small, short-lived objects freed by reference counting; the
    # cyclic collector's repeated scans of a growing heap made long traces superlinear, so it
    # is paused for the run and resumed only if it was running (as the te linter does).
    with paused_collector():
        return _verify(trace, config)


def _verify(trace: Trace | str | Mapping[str, Any], config: Config) -> Type6Result:
    if isinstance(trace, str):
        trace = parse_any(trace, None, config.limits)
    elif isinstance(trace, Mapping):
        trace = parse_json(trace, None, config.limits)
    if trace.diagnostics:
        listed, omitted = select_diagnostics(trace, config)
        cut = {"diagnostics": omitted} if omitted else {}
        return Type6Result(invalid_document(trace.id, listed, config.to_dict(), cut))
    try:
        return Type6Result(_analyse(trace, config))
    except WorkLimitExceeded as exc:
        line = trace.statements[exc.stmt - 1].line
        message = f"back-propagation exceeded {exc.limit} constraint evaluations at statement {exc.stmt}"
        return Type6Result(
            invalid_document(trace.id, [Diagnostic("T6_E05", line, message).to_dict()], config.to_dict())
        )


def _search(run: SequentialRun, config: Config) -> tuple[str, PathSearch | None, bool, bool]:
    """(mode, search, truncated, budget_exhausted) per Y-70."""
    if config.path_mode == "off" or run.source is None:
        return ("off" if config.path_mode == "off" else "skipped"), None, False, False
    edges = run.graph.edges
    source, sink = run.source, run.sink
    truncated = exhausted = False
    if config.path_mode in ("auto", "enumerate"):
        found = enumerate_paths(
            edges,
            source,
            sink,
            max_paths=config.max_paths,
            max_loopbacks=config.max_loopbacks,
            max_expansions=config.max_expansions,
        )
        truncated, exhausted = found.truncated, found.budget_exhausted
        if found.complete:
            return "exhaustive", found, False, False
        if config.path_mode == "enumerate":
            return "truncated", found, truncated, exhausted
    sampled = sample_paths(
        edges,
        len(run.graph.nodes),
        source,
        sink,
        samples=config.samples,
        max_loopbacks=config.max_loopbacks,
        max_walk_len=config.max_walk_len,
        max_walk_steps=config.max_walk_steps,
        seed=config.seed,
    )
    return "sampled", sampled, truncated, exhausted or sampled.budget_exhausted


def _analyse(trace: Trace, config: Config) -> dict[str, Any]:
    weights = config.weights
    run = run_sequential(
        trace.statements, config.max_upstream_visits, config.max_evaluations, config.path_mode != "off"
    )
    statement_events = list(run.seq.events)
    head, residuals = trace_events(run)
    mode, search, truncated_paths, exhausted = _search(run, config)
    if search is None:
        reason = "path_mode is off" if mode == "off" else "no source could be resolved"
        head.append(Event("T6_W08", None, None, data={"reason": reason}))
    h05 = Event("T6_H05", None, run.sink) if run.avoidant else None
    events = statement_events + head + ([h05] if h05 else []) + residuals
    for k, event in enumerate(events, start=1):
        event.id = k
    views = project(run, search.paths, statement_events, h05) if search is not None else []
    tail = cross_path(run, views, config.max_listed_path_ids)
    if mode in ("truncated", "sampled"):
        tail.append(
            Event(
                "T6_W07",
                None,
                None,
                data={
                    "mode": mode,
                    "found": len(views),
                    "truncated": truncated_paths,
                    "budget_exhausted": exhausted,
                },
            )
        )
    for k, event in enumerate(tail, start=len(events) + 1):
        event.id = k
    events += tail
    s05 = [e for e in tail if e.code == "T6_S05"]
    score_paths(views, s05, weights, run.avoidant)
    hard_fail = any(e.severity == "hard" for e in events)
    total = sum(e.weight(weights) for e in events)
    graded = 0.0 if run.avoidant else r6(max(0.0, 5.0 - total))
    strict = 0.0 if hard_fail else graded
    # Y-83: proportional is the mean per-path score, graded when no path was scored.
    mean = r6(statistics.fmean(v.score for v in views)) if views else graded
    proportional = 0.0 if run.avoidant else mean
    scores = {"strict": strict, "graded": graded, "proportional": proportional}
    n = len(trace.statements)
    seq = run.seq
    complete = search.complete if search is not None and mode == "exhaustive" else False
    listing = select(trace, run, events, views, tail, config)
    prefix = listing.prefix
    listed_ids = {int(e["id"]) for e in listing.events}
    summary = {
        "n_statements": n,
        "n_propositions": len(run.props),
        "n_constraints": len(seq.constraints),
        "source": run.source,
        "sink": run.sink,
        "hard_fail": hard_fail,
        "reasoning_avoidant": run.avoidant,
        "score": scores[config.score],
        "scores": scores,
        "event_counts": event_counts(events),
        "chain": {
            "propositions": prefix.chain,
            "length": len(run.chain),
            "on_chain_fraction": r6(len(run.chain) / n),
            "elevated_residuals": sum(1 for e in residuals if e.elevated),
        },
        "paths": {
            "mode": mode,
            "count": len(views),
            "coherent": sum(1 for v in views if v.coherent),
            "consistent": sum(1 for v in views if v.consistent),
            "complete": complete,
        },
    }
    per_path = {
        "mode": mode,
        "complete": complete,
        "truncated": truncated_paths,
        "budget_exhausted": exhausted,
        "seed": config.seed,
        "count": len(views),
        "listed": len(listing.paths),
        "paths": listing.paths,
        "disagreements": signal_records(tail, "T6_S05", listed_ids),
        "under_resolutions": signal_records(tail, "T6_D02", listed_ids),
    }
    return {
        "engine": "type6",
        "schema_version": SCHEMA_VERSION,
        "trace_id": trace.id,
        "status": "ok",
        "summary": summary,
        "sequential": {
            "events": listing.events,
            "statements": prefix.statements,
            "constraints": prefix.constraints,
            "final_state": prefix.final_state,
        },
        "per_path": per_path,
        "coherence": coherence_report(views, s05, n),
        "graph": {"nodes": prefix.nodes, "edges": prefix.edges},
        "config": config.to_dict(),
        "diagnostics": [],
        "truncated": listing.truncated,
    }
