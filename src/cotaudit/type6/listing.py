"""What the result document lists, so its size is bounded and linear in the input (issue 14).

The computation always covers the whole trace (every event counts in the scores and in
``summary.event_counts``); only the *listings* are bounded. Measured per top-level key, three
mechanisms made documents 28–470× their input, each bounded where it arises:

- **Repeated events.** An event-dense trace (40,000 alternating ``K p0`` / ``K NOT p0`` lines:
  one ``T6_H01`` per line) listed every event twice, as an event and as an R-1 finding. Events
  are listed by code: the first ``max_events_per_code`` of each code, in canonical order; the
  first of each code and severity always, so a hard event always keeps its error finding.
- **Per-event lists.** ``T6_S05``/``T6_D02`` data listed path ids per value, up to the 10,000
  scored paths, for every proposition: each list keeps ``max_listed_path_ids`` ids
  (:func:`cotaudit.type6.projection.cross_path`).
- **Per-statement structures repeated per path.** Every listed path repeats its edges,
  nodes, statements and terminal state: up to 200 × the trace. Paths are listed while they fit.

The per-statement records themselves (statements, graph nodes and edges, constraints, final
state, chain) are listed as a *prefix of the trace*: statements ``1..k`` with exactly the nodes,
edges, constraints and propositions they created, so a cut document is still consistent.

One allowance bounds the listings: ``report_floor_bytes + report_bytes_per_input_byte × S``
bytes of the R-1 JSON as its writer indents it, ``S`` being the trace's size as ``.t6`` text.
Events may take half, the statement prefix two thirds of what is left, listed paths the rest.
Records are charged an upper bound of their indented size computed from counts and string
lengths (:mod:`cotaudit.type6.sizes`), never by serialising them: serialising to measure cost
as much as the analysis of a small trace. Statements are charged by chunks, then one by one in
the chunk that no longer fits. ``truncated`` in the document says what was cut and how much:
empty when nothing was.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

import cotaudit.limits as budget
from cotaudit.type6.config import Config
from cotaudit.type6.events import Event
from cotaudit.type6.model import Statement, Trace
from cotaudit.type6.projection import PathView
from cotaudit.type6.result import diagnostic_finding, path_record
from cotaudit.type6.signals import SequentialRun
from cotaudit.type6.sizes import events_bound, paths_bound, rough_listing_bound, span_bound

_ALPHA, _TEXT, _PROP = attrgetter("alpha"), attrgetter("text"), attrgetter("prop")
# Deepest line break inside a diagnostic (details.diagnostics(2), one at 3, its fields at 4)
# and inside its finding (findings(1), one at 2, its location's fields at 4).
DIAGNOSTIC_DEPTH = 4
CHUNK = 256  # statements charged together
# A listed event is never smaller than this: once the allowance has less left, the events of
# codes already listed are counted without building their records.
_MIN_EVENT_BYTES = 600


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ": "))


def upper_bytes(value: Any, max_depth: int) -> int:
    """An upper bound of the UTF-8 size of ``value`` as ``json.dumps(indent=2,
    ensure_ascii=False)`` writes it anywhere up to ``max_depth``, plus its own line break: from
    one compact dump, every item (right of a comma, first in a container) and every closing
    bracket gets at most one line break indented ``2 · max_depth``. Commas and brackets inside
    strings are counted too, which only raises the bound."""
    compact = _ENCODER.encode(value)
    size = len(compact) if compact.isascii() else len(compact.encode("utf-8", "surrogatepass"))
    breaks = compact.count(",") + 2 * (compact.count("{") + compact.count("[")) + 1
    return size + 1 + breaks * (1 + 2 * max_depth)


def trace_size(statements: Sequence[Statement], meta: Mapping[str, str], trace_id: str) -> int:
    """``S``: the size of the trace as ``.t6`` text (what the annotator wrote, in whatever form)."""
    size = len(trace_id) + sum(len(k) + len(v) + 6 for k, v in meta.items()) + 4 * len(statements)
    size += sum(map(len, map(_ALPHA, statements))) + sum(map(len, map(_TEXT, statements)))
    ops = [op for s in statements for op in s.ops]
    props = [p for p in map(_PROP, statements) if p is not None]
    return size + sum(map(len, ops)) + len(ops) + sum(map(len, props)) + len(props)


def allowance(trace: Trace, config: Config) -> int:
    """The byte allowance of a document's listings."""
    return config.report_floor_bytes + config.report_bytes_per_input_byte * trace_size(
        trace.statements, trace.meta, trace.id
    )


class Allowance:
    """A byte budget for one listing: ``take`` says whether a record of ``cost`` bytes fits."""

    __slots__ = ("limit", "used")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0

    def take(self, cost: int) -> bool:
        if self.used + cost > self.limit:
            return False
        self.used += cost
        return True

    def force(self, cost: int) -> None:
        """Count a record that is listed whatever the budget (the first event of each code)."""
        self.used += cost

    @property
    def left(self) -> int:
        return max(0, self.limit - self.used)


@dataclass(slots=True)
class Prefix:
    """Statements ``1..k`` with the nodes, edges, constraints and propositions they created."""

    k: int = 0
    statements: list[dict[str, Any]] = field(default_factory=list)
    constraints: list[dict[str, Any]] = field(default_factory=list)
    final_state: list[dict[str, Any]] = field(default_factory=list)
    nodes: list[dict[str, Any]] = field(default_factory=list)
    edges: list[dict[str, Any]] = field(default_factory=list)
    chain: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Listing:
    """What one result document lists, and what it left out (the document's ``truncated``)."""

    events: list[dict[str, Any]]
    prefix: Prefix
    paths: list[dict[str, Any]]
    truncated: dict[str, Any]


def select(
    trace: Trace,
    run: SequentialRun,
    events: Sequence[Event],
    views: Sequence[PathView],
    tail: Sequence[Event],
    config: Config,
) -> Listing:
    """Events, then the statement prefix, then paths, each within its share of the allowance.

    Most documents fit whole: the count caps then decide alone, and measuring costs the bounds."""
    n, limit = len(trace.statements), config.path_detail_limit
    kept, omitted = _capped(events, config.max_events_per_code)
    listed = [e.to_dict(config.weights) for e in kept]
    events_cost = events_bound(listed)
    size = trace_size(trace.statements, trace.meta, trace.id)
    total = config.report_floor_bytes + config.report_bytes_per_input_byte * size
    shown = views[:limit]
    paths_cost = paths_bound(shown, run)
    records = _Records(trace, run)
    chunks: list[tuple[int, int, int]] = []  # (start, stop, bound) of each chunk of statements
    if events_cost + rough_listing_bound(run, n, size) + paths_cost > total:
        if events_cost + 160 * n + paths_cost <= total:  # else it certainly does not fit
            chunks = [(a, min(n + 1, a + CHUNK), 0) for a in range(1, n + 1, CHUNK)]
            chunks = [(a, b, records.bound(a, b)) for a, b, _ in chunks]
        fits = bool(chunks) and events_cost + sum(c[2] for c in chunks) + paths_cost <= total
    else:
        fits = True
    if fits:
        prefix = records.span(1, n + 1)
        paths = [path_record(v) for v in shown]
    else:
        event_share = Allowance(total // 2)
        if not event_share.take(events_cost):
            listed, omitted = _charged(events, config.weights, config.max_events_per_code, event_share)
        prefix_share = Allowance((total - event_share.used) * 2 // 3)
        prefix = _prefix(records, n, chunks, prefix_share)
        paths = _paths(views, limit, run, Allowance(total - event_share.used - prefix_share.used))
    cut: dict[str, Any] = {}
    if omitted:
        cut["sequential.events"] = omitted
    if prefix.k < n:
        counts = {
            "sequential.statements": n - prefix.k,
            "sequential.constraints": len(run.seq.constraints) - len(prefix.constraints),
            "sequential.final_state": len(run.props) - len(prefix.final_state),
            "graph.nodes": len(run.graph.nodes) - len(prefix.nodes),
            "graph.edges": len(run.graph.edges) - len(prefix.edges),
            "summary.chain.propositions": len(run.chain) - len(prefix.chain),
        }
        cut.update((k, v) for k, v in counts.items() if v)
    if len(paths) < len(views):
        cut["per_path.paths"] = len(views) - len(paths)
    ids = sum(sum(e.data.get("omitted", {}).values()) for e in tail if e.code in ("T6_S05", "T6_D02"))
    if ids:
        cut["path_ids"] = ids
    return Listing(listed, prefix, paths, cut)


def _capped(events: Sequence[Event], per_code: int) -> tuple[list[Event], dict[str, int]]:
    """The events the per-code cap admits (the first of each code and severity always)."""
    kept: list[Event] = []
    per: dict[str, int] = {}
    kinds: set[tuple[str, str]] = set()
    omitted: dict[str, int] = {}
    for e in events:
        kind = (e.code, e.severity)
        if kind in kinds and per.get(e.code, 0) >= per_code:
            omitted[e.code] = omitted.get(e.code, 0) + 1
            continue
        kinds.add(kind)
        per[e.code] = per.get(e.code, 0) + 1
        kept.append(e)
    return kept, dict(sorted(omitted.items()))


def _charged(
    events: Sequence[Event], weights: Mapping[str, float], per_code: int, share: Allowance
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Events charged one by one: those the per-code cap admits while they fit ``share``."""
    listed: list[dict[str, Any]] = []
    per: dict[str, int] = {}
    kinds: set[tuple[str, str]] = set()
    omitted: dict[str, int] = {}
    for e in events:
        budget.checkpoint()
        kind = (e.code, e.severity)
        first = kind not in kinds
        if not first and (per.get(e.code, 0) >= per_code or share.left < _MIN_EVENT_BYTES):
            omitted[e.code] = omitted.get(e.code, 0) + 1
            continue
        record = e.to_dict(weights)
        cost = events_bound((record,))
        if first:
            share.force(cost)
        elif not share.take(cost):
            omitted[e.code] = omitted.get(e.code, 0) + 1
            continue
        kinds.add(kind)
        per[e.code] = per.get(e.code, 0) + 1
        listed.append(record)
    return listed, dict(sorted(omitted.items()))


def _prefix(records: _Records, n: int, chunks: Sequence[tuple[int, int, int]], share: Allowance) -> Prefix:
    """Y-86 (statements, constraints, final state), Y-89 (graph) and the summary's chain, for
    the longest prefix of the trace whose records fit ``share``: chunk by chunk, then by
    bisection inside the chunk that does not fit whole (the bound grows with the span)."""
    if not chunks:
        chunks = [(a, min(n + 1, a + CHUNK), -1) for a in range(1, n + 1, CHUNK)]
    end = 1  # statements 1..end-1 fit
    for start, stop, cost in chunks:
        budget.checkpoint()
        if share.take(cost if cost >= 0 else records.bound(start, stop)):
            end = stop
            continue
        lo, hi = start, stop - 1  # the largest last statement in [start, stop - 1] that fits
        while lo <= hi:
            mid = (lo + hi) // 2
            if records.bound(start, mid + 1) <= share.left:
                end, lo = mid + 1, mid + 1
            else:
                hi = mid - 1
        if end > start:
            share.take(records.bound(start, end))
        break
    return records.span(1, end) if end > 1 else Prefix()


class _Records:
    """The records of a span of statements, and an upper bound of their size."""

    def __init__(self, trace: Trace, run: SequentialRun) -> None:
        self.trace, self.run = trace, run
        self.roles = {run.sink: "sink"}
        if run.source is not None:
            self.roles[run.source] = "source"
        self.on_chain = set(run.chain)
        # Constraints are created, and propositions first appear, in statement order.
        self.constraint_stmts = [c.stmt for c in run.seq.constraints]
        self.prop_stmts = [run.first_index[p] for p in run.props]

    def _ranges(self, start: int, stop: int) -> tuple[slice, slice]:
        """The constraints and the propositions that statements ``start..stop-1`` created."""
        cs, ps = self.constraint_stmts, self.prop_stmts
        return (
            slice(bisect_left(cs, start), bisect_left(cs, stop)),
            slice(bisect_left(ps, start), bisect_left(ps, stop)),
        )

    def bound(self, start: int, stop: int) -> int:
        """An upper bound of what :meth:`span` lists (:func:`~cotaudit.type6.sizes.span_bound`)."""
        made, props = self._ranges(start, stop)
        run = self.run
        return span_bound(
            self.trace, run, start, stop, run.seq.constraints[made], run.props[props], self.on_chain
        )

    def span(self, start: int, stop: int) -> Prefix:
        """The records of statements ``start..stop-1``, built chunk by chunk (each chunk one
        budget checkpoint)."""
        out = Prefix(k=stop - 1)
        for a in range(start, stop, CHUNK):
            budget.checkpoint()
            part = self._span(a, min(stop, a + CHUNK))
            out.statements += part.statements
            out.nodes += part.nodes
            out.edges += part.edges
            out.constraints += part.constraints
            out.final_state += part.final_state
            out.chain += part.chain
        return out

    def _span(self, start: int, stop: int) -> Prefix:
        run, seq, graph = self.run, self.run.seq, self.run.graph
        out = Prefix(k=stop - 1)
        out.statements = [
            {
                "index": f.stmt,
                "line": f.line,
                "alpha": f.alpha,
                "ops": list(s.ops),
                "prop": f.prop,
                "negated": f.negated,
                "text": s.text,
                "edges": edges,
            }
            for f, s, edges in zip(
                run.folded[start - 1 : stop - 1],
                self.trace.statements[start - 1 : stop - 1],
                graph.stmt_edges[start:stop],
                strict=True,
            )
        ]
        roles = self.roles
        out.nodes = [
            {"id": node, "kind": kind, "role": roles.get(node) if kind == "proposition" else None}
            for node, kind in graph.nodes[graph.nodes_after[start - 1] : graph.nodes_after[stop - 1]]
        ]
        # edges are added in statement order: those of a span of statements are a slice
        first, last = graph.edges_after[start - 1], graph.edges_after[stop - 1]
        out.edges = [e.to_dict() for e in graph.edges[first:last]]
        made, props = self._ranges(start, stop)
        out.constraints = [c.to_dict(seq.tau) for c in seq.constraints[made]]
        new_props = run.props[props]
        out.final_state = [
            {"prop": p, "tau": seq.tau.get(p, "Uk"), "sigma": seq.sigma.get(p), "delta": seq.delta.get(p, 0)}
            for p in new_props
        ]
        out.chain = [p for p in new_props if p in self.on_chain]
        return out


def _paths(
    views: Sequence[PathView], limit: int, run: SequentialRun, share: Allowance
) -> list[dict[str, Any]]:
    """Y-87's listed paths: the first ``path_detail_limit`` that fit ``share``."""
    listed: list[dict[str, Any]] = []
    for v in views[:limit]:
        budget.checkpoint()
        if not share.take(paths_bound((v,), run)):
            break
        listed.append(path_record(v))
    return listed


def select_diagnostics(trace: Trace, config: Config) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Y-14 lists every error; an input with thousands of bad lines lists the first
    ``max_events_per_code`` of each code within the allowance (the first of each always)."""
    share = Allowance(allowance(trace, config))
    listed: list[dict[str, Any]] = []
    per: dict[str, int] = {}
    omitted: dict[str, int] = {}
    for d in trace.diagnostics:
        budget.checkpoint()
        record = d.to_dict()
        n = per.get(d.code, 0)
        cost = upper_bytes(record, DIAGNOSTIC_DEPTH) + upper_bytes(
            diagnostic_finding(record), DIAGNOSTIC_DEPTH
        )
        if n == 0:
            share.force(cost)
        elif n >= config.max_events_per_code or not share.take(cost):
            omitted[d.code] = omitted.get(d.code, 0) + 1
            continue
        per[d.code] = n + 1
        listed.append(record)
    return listed, dict(sorted(omitted.items()))
