"""Sequential pass and trace-level signals (§7, Y-48..Y-53, Y-69).

:func:`run_sequential` drives BuildGraph and VerifierStep statement by statement, takes the
residual snapshot right after the last sink statement ``s*`` (D14), and then adds the trace
events: inferred endpoints, reasoning-avoidance and residuals with their elevation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cotaudit.limits as budget
from cotaudit.type6.constraints import Constraint
from cotaudit.type6.events import Event
from cotaudit.type6.fold import Folded, Folder
from cotaudit.type6.graph import GraphBuilder
from cotaudit.type6.model import Statement
from cotaudit.type6.parse import resolve_sink
from cotaudit.type6.sequential import Sequential


@dataclass(frozen=True, slots=True)
class Residual:
    """A proposition's residual state in the snapshot (Y-49)."""

    prop: str
    tau: str
    delta: int
    stmt: int  # the last statement ≤ s* that wrote it


@dataclass(slots=True)
class SequentialRun:
    """Everything the sequential pass produces, for the path analysis and the reports."""

    folded: list[Folded]
    graph: GraphBuilder
    seq: Sequential
    source: str | None
    sink: str
    source_inferred: bool
    sink_inferred: bool
    s_star: int
    snapshot: list[Residual]
    props: list[str]  # first-appearance order
    first_index: dict[str, int]
    chain: list[str]  # C*, first-appearance order
    avoidant: bool


def upstream(sink: str, seq: Sequential, keep: Callable[[Constraint], bool]) -> set[str]:
    """``{sink} ∪ Up(sink)`` over the constraints ``keep`` admits (Y-50, Y-75)."""
    seen = {sink}
    frontier = [sink]
    while frontier:
        node = frontier.pop()
        for cid in seq.by_target.get(node, ()):
            c = seq.constraints[cid - 1]
            if not keep(c):
                continue
            for x in c.operand_props:
                if x not in seen:
                    seen.add(x)
                    frontier.append(x)
    return seen


def endpoints(statements: Sequence[Statement]) -> tuple[str | None, str, bool, bool]:
    """Y-69: (source, sink, source inferred, sink inferred). The caller ensures a sink exists."""
    sink = resolve_sink(statements) or ""
    props = [s.prop for s in statements if s.prop is not None]
    source: str | None = "q" if "q" in props else None
    if source is None:
        source = next((p for p in props if p != sink), None)
    return source, sink, source != "q", sink != "a"


def run_sequential(
    statements: Sequence[Statement],
    upstream_budget: int = 1_000_000,
    evaluations: int = 500_000,
    record_states: bool = True,
) -> SequentialRun:
    """BuildGraph + VerifierStep over every statement, then the snapshot at ``s*``."""
    source, sink, source_inferred, sink_inferred = endpoints(statements)
    s_star = max(k for k, s in enumerate(statements, start=1) if s.prop == sink)
    graph = GraphBuilder()
    jump_prefix = [0]
    seq = Sequential(jump_prefix, upstream_budget, evaluations, record_states)
    folded: list[Folded] = []
    props: list[str] = []
    first_index: dict[str, int] = {}
    snapshot: list[Residual] = []
    folder = Folder()
    for index, stmt in enumerate(statements, start=1):
        if not index & 63:
            budget.checkpoint()  # the caller's wall-time budget (cotaudit.limits), every 64 statements
        f = folder.fold(stmt, index)
        folded.append(f)
        if f.prop is not None and f.prop not in first_index:
            first_index[f.prop] = index
            props.append(f.prop)
        graph.add(f)
        jump_prefix.append(jump_prefix[-1] + graph.owns_jump[index])
        seq.step(f)
        if index == s_star:
            snapshot = [
                Residual(p, seq.tau.get(p, "Uk"), seq.delta.get(p, 0), seq.last_write[p])
                for p in props
                if seq.tau.get(p, "Uk") == "Uk" or seq.delta.get(p, 0) == 1
            ]
    n = len(statements)
    seq.finish(n, folded[-1].line if folded else None)
    on_chain = upstream(sink, seq, lambda c: c.stmt <= s_star)
    chain = [p for p in props if p in on_chain]
    avoidant = not seq.by_target.get(sink)
    return SequentialRun(
        folded,
        graph,
        seq,
        source,
        sink,
        source_inferred,
        sink_inferred,
        s_star,
        snapshot,
        props,
        first_index,
        chain,
        avoidant,
    )


def trace_events(run: SequentialRun) -> tuple[list[Event], list[Event]]:
    """(events before the path signals, residual events): W02, W03, [W08 later], H05, R01/R02."""
    head: list[Event] = []
    if run.source_inferred and run.source is not None:
        head.append(Event("T6_W02", None, run.source))
    if run.sink_inferred:
        head.append(Event("T6_W03", None, run.sink))
    residuals: list[Event] = []
    chain = set(run.chain)
    line_of = {f.stmt: f.line for f in run.folded}
    for r in run.snapshot:
        for code, fires in (("T6_R01", r.delta == 1), ("T6_R02", r.tau == "Uk")):
            if fires:
                event = Event(code, r.stmt, r.prop, elevated=r.prop in chain)
                event.line = line_of.get(r.stmt)
                residuals.append(event)
    return head, residuals
