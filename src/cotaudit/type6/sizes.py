"""A cheap upper bound of a complete listing's size, so that measuring costs nothing when the
document fits its allowance (issue 14; listing.py).

Serialising a listing to measure it costs about as much as the whole analysis of a small
trace, so :func:`complete_listing_bound` bounds the R-1 size of *every* record of a trace from
counts and string lengths (C-level sums, no serialisation): each record kind's fixed part is the
exact indented size of a template record (computed once, so it cannot drift from the shapes),
and each variable part adds at most its JSON length: a string ``len + 2`` when it needs no
escape, ``6 · len + 2`` otherwise, an integer its digits, a list its items plus their line
breaks. A property test checks the bound against the real JSON.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from operator import attrgetter, itemgetter
from typing import Any

from cotaudit.type6.constraints import Constraint
from cotaudit.type6.model import Trace
from cotaudit.type6.projection import PathView
from cotaudit.type6.signals import SequentialRun

RECORD = 4  # depth of a listed record in the R-1 report (details.sequential.events[i] …)
_TEXT, _PROP, _LINE, _OPS = attrgetter("text"), attrgetter("prop"), attrgetter("line"), attrgetter("ops")
_SRC, _DST, _LABEL = attrgetter("src"), attrgetter("dst"), attrgetter("label")
_FIRST = itemgetter(0)
_EDGES, _NODES, _STMTS, _CHAIN = (
    attrgetter("edges"),
    attrgetter("nodes"),
    attrgetter("stmts"),
    attrgetter("chain"),
)
_EVENTS, _RESIDUALS, _TERMINAL = attrgetter("events"), attrgetter("residuals"), attrgetter("terminal")


def ind(depth: int) -> int:
    """A line break and the indentation of an item at ``depth``."""
    return 1 + 2 * depth


def exact(value: Any, depth: int) -> int:
    """The UTF-8 size of ``value`` written by ``json.dumps(indent=2)`` at nesting ``depth``."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return len(text.encode("utf-8", "surrogatepass")) + 2 * depth * text.count("\n")


def _item(template: dict[str, Any], depth: int) -> int:
    """A template record as an item of a list whose items are at ``depth`` (break and comma)."""
    return exact(template, depth) + ind(depth) + 1


@cache
def _fixed() -> dict[str, int]:
    return {
        "statement": _item(
            {
                "index": 0,
                "line": None,
                "alpha": "",
                "ops": [],
                "prop": None,
                "negated": False,
                "text": "",
                "edges": [],
            },
            RECORD,
        ),
        "node": _item({"id": "", "kind": "proposition", "role": None}, RECORD),
        "edge": _item(
            {"id": 0, "src": "", "dst": "", "label": None, "kind": "loopback", "stmt": 0, "revisit": False},
            RECORD,
        ),
        "state": _item({"prop": "", "tau": "Uk", "sigma": None, "delta": 0}, RECORD),
        "constraint": _item(
            {
                "id": 0,
                "stmt": 0,
                "form": "implication",
                "target": "",
                "target_negated": False,
                "operands": [],
                "formula": "",
                "status": "unclear-target",
                "forced": None,
                "holds": None,
            },
            RECORD,
        ),
        "operand": _item({"prop": "", "join": "seed", "negated": False}, RECORD + 2),
        "path": _item(
            {
                "id": 0,
                "edges": [],
                "nodes": [],
                "statements": [],
                "chain": [],
                "coherent": False,
                "consistent": False,
                "score": 0.0,
                "events": [],
                "residuals": [],
                "terminal": {},
            },
            RECORD,
        ),
        "residual": _item({"code": "T6_R01", "prop": "", "elevated": False}, RECORD + 2),
        # an event (details.sequential.events[i], depth 4) and its finding (findings[i], depth 2)
        "event": _item(
            {
                "id": 0,
                "code": "T6_H01",
                "name": "",
                "severity": "diagnostic",
                "weight": 0.0,
                "blocking": False,
                "stmt": None,
                "line": None,
                "prop": None,
                "constraint": None,
                "message": "",
                "data": {},
            },
            RECORD,
        )
        + _item(
            {
                "code": "T6_E101",
                "severity": "warning",
                "location": {"line": None, "step": None, "statement": None},
                "message": "",
                "evidence": {
                    "type6_code": "T6_H01",
                    "event": 0,
                    "name": "",
                    "type6_severity": "diagnostic",
                    "weight": 0.0,
                    "blocking": False,
                    "stmt": None,
                    "prop": None,
                    "constraint": None,
                    "data": {},
                },
            },
            2,
        ),
    }


def _chars(strings: Sequence[str]) -> int:
    """The JSON length of some strings, quotes included (escapes bounded by 6 per character)."""
    total = sum(map(len, strings))
    joined = "".join(strings)
    clean = joined.isascii() and joined.isprintable() and '"' not in joined and "\\" not in joined
    return (total if clean else 6 * total) + 2 * len(strings)


def _digits(n: int) -> int:
    return len(str(abs(n))) + (n < 0)


def _list(items: int, count: int, depth: int) -> int:
    """What a non-empty list at ``depth`` adds over ``[]``: its items' bytes, commas, line
    breaks before each item (at ``depth + 1``) and before the closing bracket."""
    return items + (count - 1) + count * ind(depth + 1) + ind(depth) if count else 0


def rough_listing_bound(run: SequentialRun, n: int, size: int) -> int:
    """A looser bound than :func:`span_bound` over the whole trace, from counts alone (``size`` is the
    trace's ``.t6`` size): each character of the trace costs at most 24 bytes (escaped text, an
    operator token as a list item and again as an edge label), every proposition is as long as
    the longest, a statement adds at most two operands. Enough to see at once that an ordinary
    trace fits."""
    fixed = _fixed()
    graph, seq = run.graph, run.seq
    n_edges, n_nodes, n_props = len(graph.edges), len(graph.nodes), len(run.props)
    longest = max(max(map(len, run.props), default=1), 2 + _digits(n_nodes))
    digits = _digits(max(n, n_edges, n_nodes, len(seq.constraints), 1))
    lines = _digits(max(map(abs, filter(None, map(_LINE, run.folded))), default=0))
    field = ind(RECORD + 2) + 1
    bound = n * (fixed["statement"] + digits + lines + 2 * ind(RECORD + 1)) + 24 * size
    bound += n_edges * (fixed["edge"] + field + 3 * digits + 2 * longest)  # labels: in the 18×
    bound += n_nodes * (fixed["node"] + 4 + longest)
    bound += len(seq.constraints) * (fixed["constraint"] + 2 * digits + 2 * longest + 8)
    bound += 2 * n * (fixed["operand"] + ind(RECORD + 1) + 2 * longest + 4)  # ≤ two operands a statement
    bound += n_props * (fixed["state"] + longest + longest + 2 + ind(RECORD + 1) + 1)
    return bound


def span_bound(
    trace: Trace,
    run: SequentialRun,
    start: int,
    stop: int,
    constraints: Sequence[Constraint],
    props: Sequence[str],
    on_chain: set[str],
) -> int:
    """An upper bound of the R-1 bytes of the records of statements ``start..stop-1``: their
    statement, node, edge and final-state records, the ``constraints`` they created and the
    chain entries of the propositions ``props`` they introduced."""
    fixed = _fixed()
    graph = run.graph
    statements = trace.statements[start - 1 : stop - 1]
    owned = graph.stmt_edges[start:stop]
    n, n_total = len(statements), len(trace.statements)
    field = RECORD + 1
    texts = list(map(_TEXT, statements))
    ops = [op for s in statements for op in s.ops]
    lines = [line for line in map(_LINE, statements) if line is not None]
    size = n * (fixed["statement"] + _digits(n_total) - 1 + 2)  # index digits, alpha (≤ 2 characters)
    size += len(lines) * max(0, _digits(max(lines, key=abs, default=0)) - 4) + _chars(texts) - 2 * n
    size += sum(len(p) for p in map(_PROP, statements) if p is not None)  # "p" for null: len + 2 - 4
    # ops and edges lists: per item its text, a comma and a line break; per list one more break
    with_ops, with_edges = sum(map(bool, map(_OPS, statements))), sum(map(bool, owned))
    size += _chars(ops) + len(ops) * (1 + ind(field + 1)) + with_ops * (ind(field) - 1)
    edges = graph.edges[graph.edges_after[start - 1] : graph.edges_after[stop - 1]]
    edge_digits = _digits(len(graph.edges))
    size += len(edges) * (edge_digits + 1 + ind(field + 1)) + with_edges * (ind(field) - 1)
    # graph nodes and edges
    nodes = list(map(_FIRST, graph.nodes[graph.nodes_after[start - 1] : graph.nodes_after[stop - 1]]))
    size += len(nodes) * (fixed["node"] + 4) + _chars(nodes) - 2 * len(nodes)
    size += len(edges) * (fixed["edge"] + 2 * (edge_digits - 1) + _digits(n_total) - 1)
    ends = list(map(_SRC, edges)) + list(map(_DST, edges))
    size += _chars(ends) - 2 * len(ends)
    size += _chars([label for label in map(_LABEL, edges) if label is not None])
    # constraints, final state, chain
    for c in constraints:
        operands = [p for p, _join, _neg in c.operands]
        size += fixed["constraint"] + 2 * (_digits(c.id) + _digits(c.stmt)) + len(c.target)
        size += _list(len(operands) * fixed["operand"] + sum(map(len, operands)), len(operands), field)
        size += len(c.formula)
    size += len(props) * fixed["state"] + sum(map(len, props))
    size += sum(len(p) + 2 + ind(RECORD + 1) + 1 for p in props if p in on_chain)
    return size


def events_bound(records: Sequence[dict[str, Any]]) -> int:
    """An upper bound of the R-1 bytes of these event records and of their findings: each
    appears twice, the data (small, free-form) is measured by one compact dump."""
    fixed = _fixed()["event"]
    size = len(records) * (fixed + 2 * 24)  # the two weights' reprs
    for r in records:
        size += 2 * (len(r["name"]) + _digits(r["id"]))
        for key in ("stmt", "line", "constraint"):
            if r[key] is not None:
                size += 3 * _digits(r[key])  # stmt also as the finding's location.statement
        if r["prop"] is not None:
            size += 2 * len(r["prop"])
    size += 2 * _chars([r["message"] for r in records])
    data = json.dumps([r["data"] for r in records], ensure_ascii=False, separators=(",", ": "))
    data_bytes = len(data.encode("utf-8", "surrogatepass"))
    breaks = data.count(",") + 2 * (data.count("{") + data.count("["))
    return size + 2 * (data_bytes + breaks * ind(RECORD + 4))


def paths_bound(views: Sequence[PathView], run: SequentialRun) -> int:
    """An upper bound of the R-1 bytes of these paths' records (Y-87), from list lengths alone:
    every node id as long as the longest (ids are proposition symbols or blank ids, which
    never need an escape: Y-4), every id with as many digits as the largest."""
    if not views:
        return 0
    fixed = _fixed()
    graph = run.graph
    longest = max(map(len, map(_FIRST, graph.nodes)), default=1)
    per_item = 1 + ind(RECORD + 2)  # a comma and a line break
    lists = 6 * len(views) * ind(RECORD + 1)  # each list's closing line break
    edges = sum(map(len, map(_EDGES, views))) * (_digits(len(graph.edges)) + per_item)
    nodes = sum(map(len, map(_NODES, views))) * (longest + 2 + per_item)
    stmts = sum(map(len, map(_STMTS, views))) * (_digits(len(run.folded)) + per_item)
    chain = sum(map(len, map(_CHAIN, views))) * (longest + 2 + per_item)
    top_event = max((v.events[-1].id for v in views if v.events), default=0)
    events = sum(map(len, map(_EVENTS, views))) * (_digits(top_event) + per_item)
    residuals = sum(map(len, map(_RESIDUALS, views))) * (fixed["residual"] + longest + per_item)
    terminal = sum(map(len, map(_TERMINAL, views))) * (longest + 8 + per_item)  # "p": "Uk"
    ids = len(views) * (fixed["path"] + _digits(max(v.id for v in views)) + 24)  # 24: the score
    return ids + lists + edges + nodes + stmts + chain + events + residuals + terminal
