"""BuildGraph (Y-58..Y-62): the labelled multi-digraph of a trace, one statement at a time.

Nodes are propositions (the symbol) and blanks (``_b1``, ``_b2`` … between consecutive
operators). Edges keep insertion ids, owner statements and the ``revisit`` flag; parallel
edges and self-loops are kept. The builder runs in the same loop as the verifier, before its
step (Y-60 step 7), and records per statement the edges it owns and whether it owns a jump.
"""

from __future__ import annotations

from typing import NamedTuple

from cotaudit.type6.fold import Folded, OpItem
from cotaudit.type6.model import CONNECTIVES

LOGICAL = "logical"
GAP = "gap"
JUMP = "jump"
LOOPBACK = "loopback"
MEANDER = "meander"
UNKNOWN = "unknown"
EDGE_KINDS = (LOGICAL, GAP, JUMP, LOOPBACK, MEANDER, UNKNOWN)


class Edge(NamedTuple):
    """One edge (Y-58); ``label`` is None for gap and jump edges. ``reenters`` is policy 3
    (Y-66): whether the edge may enter a node already on the path."""

    id: int
    src: str
    dst: str
    label: str | None
    kind: str
    stmt: int
    revisit: bool
    reenters: bool

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "src": self.src,
            "dst": self.dst,
            "label": self.label,
            "kind": self.kind,
            "stmt": self.stmt,
            "revisit": self.revisit,
        }


_CONNECTIVE_LABELS = frozenset({*CONNECTIVES, *(f"NOT {c}" for c in CONNECTIVES)})


def reenters(kind: str, label: str | None, revisit: bool) -> bool:
    """Policy 3 (Y-66): jump, loopback, connective-labelled logical, or revisit-flagged (D28)."""
    if revisit or kind in (JUMP, LOOPBACK):
        return True
    return kind == LOGICAL and label is not None and label.removeprefix("NOT ") in CONNECTIVES


def _edge_kind(item: OpItem) -> str:
    if not item.known:
        return UNKNOWN
    if item.token == "R":
        return LOOPBACK
    if item.token == "N":
        return MEANDER
    return LOGICAL


class GraphBuilder:
    """Y-60, state ``prev``, ``seen``, ``meander``, ``rtail`` plus the growing node and edge lists."""

    def __init__(self) -> None:
        self.nodes: list[tuple[str, str]] = []  # (id, "proposition" | "blank") in creation order
        self.seen: set[str] = set()
        self.edges: list[Edge] = []
        self.stmt_edges: list[list[int]] = [[]]  # index 0 unused: statements are 1-based
        self.nodes_after: list[int] = [0]  # how many nodes and edges exist after each statement
        self.edges_after: list[int] = [0]
        self.owns_jump: list[bool] = [False]
        self.prev: str | None = None
        self.meander = False
        self.rtail: str | None = None
        self._blanks = 0

    def _blank(self) -> str:
        self._blanks += 1
        node = f"_b{self._blanks}"
        self.nodes.append((node, "blank"))
        return node

    def _edge(
        self, src: str, dst: str, label: str | None, kind: str, stmt: int, revisit: bool = False
    ) -> None:
        eid = len(self.edges) + 1
        again = revisit or kind in (JUMP, LOOPBACK) or (kind == LOGICAL and label in _CONNECTIVE_LABELS)
        self.edges.append(Edge(eid, src, dst, label, kind, stmt, revisit, again))
        self.stmt_edges[stmt].append(eid)
        if kind == JUMP:
            self.owns_jump[stmt] = True

    def add(self, f: Folded) -> None:
        """Y-60 steps 1-6 for statement ``f.stmt`` (statements arrive in order)."""
        self._add(f)
        self.nodes_after.append(len(self.nodes))
        self.edges_after.append(len(self.edges))

    def _add(self, f: Folded) -> None:
        i = f.stmt
        self.stmt_edges.append([])
        self.owns_jump.append(False)
        pi = f.prop
        revisit = False
        if pi is not None:
            if pi in self.seen:
                revisit = True
            else:
                self.seen.add(pi)
                self.nodes.append((pi, "proposition"))
            if self.rtail is not None:
                self._edge(self.rtail, pi, "R", LOOPBACK, i)
                self.rtail = None
                revisit = True
        items = f.reading.items
        if (
            pi is None
            and self.rtail is not None
            and len(items) == 1
            and items[0].known
            and items[0].token == "R"
        ):
            blank = self._blank()  # a lone R after a pending R extends the loopback tail (step 3)
            self._edge(self.rtail, blank, "R", LOOPBACK, i)
            self.rtail = blank
            return
        if not items:
            if pi is None:
                return  # filler (step 4)
            if self.prev is not None:
                self._edge(self.prev, pi, None, JUMP if revisit else GAP, i)
            self.prev = pi
            self.meander = False
            return
        c = self.prev
        if c is not None and items[0].token not in CONNECTIVES and not revisit and not self.meander:
            blank = self._blank()
            self._edge(c, blank, None, GAP, i)
            c = blank
        elif c is not None and revisit:
            blank = self._blank()
            self._edge(c, blank, None, JUMP, i)
            c = blank
        if c is None:
            c = self._blank()
        last = len(items) - 1
        for k, item in enumerate(items):
            if k == last and pi is None and item.known and item.token == "R":
                self.rtail = c  # a deferred loopback: drawn from here to the next proposition
                break
            target = pi if (k == last and pi is not None) else self._blank()
            self._edge(c, target, item.label, _edge_kind(item), i, revisit and target == pi)
            c = target
        self.prev = pi if pi is not None else c
        self.meander = items[-1].known and items[-1].token == "N"
