"""Per-path projection (§11, Y-72..Y-80): statements, state, chain, residuals and verdicts of a path.

A path sees the statements that own its edges (plus the first statement on the source), the
state each proposition had right after the last of those statements that wrote it, and the
events about its statements or the propositions it visits (D21). Cross-path signals compare
the *consistent* paths only (D22).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import cotaudit.limits as budget
from cotaudit.type6.constraints import CONFLICT
from cotaudit.type6.events import Event
from cotaudit.type6.graph import EDGE_KINDS
from cotaudit.type6.sequential import State
from cotaudit.type6.signals import SequentialRun, upstream

_PATH_SEVERITIES = frozenset({"hard", "soft", "quality", "structural"})


@dataclass(slots=True)
class PathView:
    """One scored path."""

    id: int
    edges: tuple[int, ...]
    nodes: list[str]
    stmts: list[int]
    terminal: dict[str, State]
    chain: list[str]
    residuals: list[tuple[str, str, bool]]  # (code, prop, elevated)
    events: list[Event]
    coherent: bool
    consistent: bool
    kinds: dict[str, int] = field(default_factory=dict)
    score: float = 0.0
    propositions: int = 0  # distinct proposition nodes on the path


class EventIndex:
    """Path-effect events (Y-73) by statement and by proposition; W/I/D02 have no path effect."""

    def __init__(self, events: Sequence[Event]) -> None:
        self.by_stmt: dict[int, list[Event]] = {}
        self.by_prop: dict[str, list[Event]] = {}
        for event in events:
            if event.severity not in _PATH_SEVERITIES:
                continue
            if event.stmt is not None:
                self.by_stmt.setdefault(event.stmt, []).append(event)
            if event.prop is not None:
                self.by_prop.setdefault(event.prop, []).append(event)

    def on_path(self, stmts: set[int], nodes: set[str]) -> list[Event]:
        """Events about a statement in ``stmts`` or a proposition in ``nodes`` (no duplicates)."""
        chosen: dict[int, Event] = {}
        for i in self.by_stmt.keys() & stmts:
            for event in self.by_stmt[i]:
                chosen[id(event)] = event
        for node in self.by_prop.keys() & nodes:
            for event in self.by_prop[node]:
                chosen[id(event)] = event
        return list(chosen.values())


def project(
    run: SequentialRun, paths: Sequence[tuple[int, ...]], statement_events: Sequence[Event], h05: Event | None
) -> list[PathView]:
    """Y-72..Y-76 for every scored path, in path-id order."""
    seq = run.seq
    edges = run.graph.edges
    # Per-edge columns indexed by edge id, so a path's statements, nodes and kinds are C-level maps.
    edge_stmt = [0, *(e.stmt for e in edges)]
    edge_dst = ["", *(e.dst for e in edges)]
    edge_kind = ["", *(e.kind for e in edges)]
    index = EventIndex(statement_events)
    first = run.first_index
    start = first[run.source] if run.source is not None else 1
    by_stmt: dict[int, list[int]] = {}
    for c in seq.constraints:
        by_stmt.setdefault(c.stmt, []).append(c.id)
    step_writes = seq.step_writes
    views: list[PathView] = []
    for pid, path in enumerate(paths, start=1):
        budget.checkpoint()
        stmt_set = set(map(edge_stmt.__getitem__, path))
        stmt_set.add(start)
        stmts = sorted(stmt_set)
        nodes = [run.source or "", *map(edge_dst.__getitem__, path)]
        node_set = set(nodes)
        # The state right after the last statement of the path that wrote each proposition
        # (Y-74): statements ascending, so later writes overwrite earlier ones.
        state: dict[str, State] = dict(chain.from_iterable(map(step_writes.__getitem__, stmts)))
        terminal = {p: state[p] for p in sorted(state, key=first.__getitem__)}
        on_chain = upstream(run.sink, seq, lambda c, s=stmt_set: c.stmt in s)  # type: ignore[misc]
        chain_props = sorted(on_chain, key=first.__getitem__)
        residuals: list[tuple[str, str, bool]] = []
        for prop, (tau, _sigma, delta) in terminal.items():
            if delta == 1:
                residuals.append(("T6_R01", prop, prop in on_chain))
            if tau == "Uk":
                residuals.append(("T6_R02", prop, prop in on_chain))
        events = index.on_path(stmt_set, node_set)
        if h05 is not None:
            events.append(h05)
        events.sort(key=lambda e: e.id)
        coherent = not any(e.blocking for e in events) and not any(r[2] for r in residuals)
        consistent = coherent and _no_conflict(run, stmts, by_stmt, terminal)
        kinds = dict.fromkeys(EDGE_KINDS, 0)
        kinds.update(Counter(map(edge_kind.__getitem__, path)))
        view = PathView(
            pid, path, nodes, stmts, terminal, chain_props, residuals, events, coherent, consistent, kinds
        )
        view.propositions = len(node_set & first.keys())
        views.append(view)
    return views


def _no_conflict(
    run: SequentialRun, stmts: Sequence[int], by_stmt: Mapping[int, list[int]], terminal: Mapping[str, State]
) -> bool:
    """Y-76: no constraint created in stmts(P) is in conflict under Σ_P (absent reads Uk)."""
    tau = {p: st[0] for p, st in terminal.items()}
    constraints = run.seq.constraints
    for i in stmts:
        for cid in by_stmt.get(i, ()):
            if constraints[cid - 1].evaluate(tau)[0] == CONFLICT:
                return False
    return True


def cross_path(run: SequentialRun, views: Sequence[PathView], max_ids: int = 100) -> list[Event]:
    """Y-80: S05 (T and F) and D02 (Uk with T or F) over consistent paths, first-appearance order.

    Each ``values`` list keeps its first ``max_ids`` path ids; ``omitted`` (only when some were
    cut) says how many each value lost, so the data stays small with thousands of paths."""
    consistent = [v for v in views if v.consistent]
    if len(consistent) < 2:
        return []
    s05: list[Event] = []
    d02: list[Event] = []
    for prop in run.props:
        budget.checkpoint()
        values: dict[str, list[int]] = {"T": [], "F": [], "Uk": []}
        for v in consistent:
            st = v.terminal.get(prop)
            if st is not None and st[0] in values:
                values[st[0]].append(v.id)
        kept, omitted = cap_ids({k: ids for k, ids in values.items() if ids}, max_ids)
        data: dict[str, Any] = {"values": kept}
        if omitted:
            data["omitted"] = omitted
        if values["T"] and values["F"]:
            s05.append(Event("T6_S05", None, prop, data=data))
        if values["Uk"] and (values["T"] or values["F"]):
            d02.append(Event("T6_D02", None, prop, data=data))
    return s05 + d02


def cap_ids(values: Mapping[str, list[int]], limit: int) -> tuple[dict[str, list[int]], dict[str, int]]:
    """A ``values`` map of path-id lists with each list cut to ``limit`` ids, and how many ids
    each lost (only the values that lost some)."""
    kept = {k: ids[:limit] for k, ids in values.items()}
    omitted = {k: len(ids) - limit for k, ids in values.items() if len(ids) > limit}
    return kept, omitted


def score_paths(
    views: Sequence[PathView], s05: Sequence[Event], weights: Mapping[str, float], avoidant: bool
) -> None:
    """Y-77: 5 minus the weights on the path (its residuals and every S05 included); 0 if avoidant."""
    s05_weight = sum(e.weight(weights) for e in s05)
    for v in views:
        if avoidant:
            v.score = 0.0
            continue
        total = sum(e.weight(weights) for e in v.events) + s05_weight
        total += sum(weights["hard"] if elevated else weights["soft"] for _, _, elevated in v.residuals)
        v.score = round(max(0.0, 5.0 - total), 6)
