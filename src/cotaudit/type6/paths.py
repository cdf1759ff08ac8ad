"""Source-to-sink paths (§10, Y-64..Y-71): exhaustive DFS with caps, and seeded sampling.

Both searches follow the same three policies: sink absorption, at most ``L`` loopback edges
per path, and re-entry into a node already on the path only through a jump, a loopback, a
connective-labelled logical edge or a revisit-flagged edge (:attr:`Edge.reenters`). Work is
counted in out-edge examinations, never in seconds (Y-71, Y-95): DFS stops at
``max_expansions``, sampling at ``max_walk_steps`` examinations, so adversarial graphs with
thousands of parallel edges stay bounded (Y-98).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import cotaudit.limits as budget
from cotaudit.type6.graph import LOOPBACK, Edge


@dataclass(frozen=True, slots=True)
class PathSearch:
    """The outcome of one search: paths as edge-id tuples, in the order found."""

    paths: tuple[tuple[int, ...], ...]
    truncated: bool  # stopped at K paths
    budget_exhausted: bool  # a step budget ended the search

    @property
    def complete(self) -> bool:
        return not (self.truncated or self.budget_exhausted)


def adjacency(edges: Sequence[Edge]) -> dict[str, list[Edge]]:
    """Out-edges per node, ascending id (Y-64)."""
    out: dict[str, list[Edge]] = {}
    for e in edges:
        out.setdefault(e.src, []).append(e)
    return out


def enumerate_paths(
    edges: Sequence[Edge], source: str, sink: str, *, max_paths: int, max_loopbacks: int, max_expansions: int
) -> PathSearch:
    """EnumeratePaths (Y-67): iterative DFS over edge-simple paths, out-edges by ascending id."""
    out = adjacency(edges)
    found: list[tuple[int, ...]] = []
    if max_paths <= 0:
        return PathSearch((), True, False)
    used = bytearray(len(edges) + 1)
    on_path: dict[str, int] = {source: 1}
    path: list[Edge] = []
    ids: list[int] = []  # the edge ids of ``path``, copied in C when a path is recorded
    nodes: list[str] = [source]  # the DFS stack: a node and the index of its next out-edge
    nexts: list[int] = [0]
    loops = expansions = 0
    truncated = exhausted = False
    empty: list[Edge] = []
    while nodes:
        outs = out.get(nodes[-1], empty)
        idx = nexts[-1]
        if idx >= len(outs):
            nodes.pop()
            nexts.pop()
            if path:
                e = path.pop()
                ids.pop()
                used[e.id] = 0
                on_path[e.dst] -= 1
                if e.kind == LOOPBACK:
                    loops -= 1
            continue
        nexts[-1] = idx + 1
        if expansions >= max_expansions:
            exhausted = True
            break
        expansions += 1
        if not expansions & 1023:
            budget.checkpoint()  # the caller's wall-time budget (cotaudit.limits)
        e = outs[idx]
        if used[e.id] or (e.kind == LOOPBACK and loops >= max_loopbacks):
            continue
        if on_path.get(e.dst) and not e.reenters:
            continue
        if e.dst == sink:  # sink absorption (Y-65)
            # Recording a path costs its length too, so the stored paths (and the projection
            # work over them) stay within max_expansions even when paths are very long (Y-71).
            expansions += len(ids)
            if expansions > max_expansions:
                exhausted = True
                break
            ids.append(e.id)
            found.append(tuple(ids))
            ids.pop()
            if len(found) >= max_paths:
                truncated = True
                break
            continue
        used[e.id] = 1
        path.append(e)
        ids.append(e.id)
        on_path[e.dst] = on_path.get(e.dst, 0) + 1
        if e.kind == LOOPBACK:
            loops += 1
        nodes.append(e.dst)
        nexts.append(0)
    return PathSearch(tuple(found), truncated, exhausted)


def reentry_edges(edges: Sequence[Edge]) -> int:
    """J of Y-68: edges that policy 3 lets re-enter a node."""
    return sum(1 for e in edges if e.reenters)


def sample_paths(
    edges: Sequence[Edge],
    n_nodes: int,
    source: str,
    sink: str,
    *,
    samples: int,
    max_loopbacks: int,
    max_walk_len: int | None,
    max_walk_steps: int,
    seed: int,
) -> PathSearch:
    """SamplePaths (Y-68): up to 50·S seeded random walks; distinct successes in first-success order.

    A walk never backtracks, so "on the path" and "used" are per-walk stamps in flat arrays
    (node and edge ids as integers) instead of sets rebuilt for every walk.
    """
    index: dict[str, int] = {source: 0}
    for e in edges:
        index.setdefault(e.src, len(index))
        index.setdefault(e.dst, len(index))
    # Out-edges per node as (edge id, target index, is loopback, may re-enter), ascending id.
    out: list[list[tuple[int, int, bool, bool]]] = [[] for _ in index]
    for e in edges:
        out[index[e.src]].append((e.id, index[e.dst], e.kind == LOOPBACK, e.reenters))
    target = index.get(sink, -1)
    rng = random.Random(seed)
    limit = max_walk_len if max_walk_len is not None else n_nodes + max_loopbacks + reentry_edges(edges)
    seen_at = [0] * len(index)  # walk number that last put the node on its path
    used_at = [0] * (len(edges) + 1)  # walk number that last used the edge
    found: dict[tuple[int, ...], None] = {}
    steps = 0
    exhausted = False
    walks = 0
    while walks < 50 * samples and len(found) < samples:
        budget.checkpoint()  # the caller's wall-time budget, per walk (a walk is at most ℓmax steps)
        walks += 1
        node = 0
        seen_at[0] = walks
        walk: list[int] = []
        loops = 0
        while True:
            outs = out[node]
            cost = len(outs) or 1
            if steps + cost > max_walk_steps:
                exhausted = True
                break
            steps += cost
            feasible = [
                x
                for x in outs
                if used_at[x[0]] != walks
                and not (x[2] and loops >= max_loopbacks)
                and (seen_at[x[1]] != walks or x[3])
            ]
            if not feasible:
                break
            eid, node, loop, _ = feasible[rng.randrange(len(feasible))]
            walk.append(eid)
            if node == target:
                found.setdefault(tuple(walk), None)
                break
            if len(walk) >= limit:
                break
            used_at[eid] = walks
            seen_at[node] = walks
            loops += loop
        if exhausted:
            break
    if not exhausted and len(found) < samples and walks >= 50 * samples:
        exhausted = True  # 50·S walks spent before S distinct paths
    return PathSearch(tuple(found), False, exhausted)
