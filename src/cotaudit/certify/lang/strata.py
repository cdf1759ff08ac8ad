"""Stratification of NAF programs (C-7) over the predicate dependency graph.

A predicate is ``(name, strongly_negated)``. Edges run from each body predicate to the head
predicate, marked negative for NAF literals. A negative edge inside a strongly connected
component is ``UNSTRATIFIED``. The stratum of a predicate is the least number ≥ the strata of
its positive dependencies and > the strata of its negative ones. Small and dependency-free:
the executor, the reference evaluator and the independent checker all use it.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

from cotaudit.certify.core.errors import ProgramError
from cotaudit.certify.lang.syntax import Rule

Pred = tuple[str, bool]
N = TypeVar("N", bound=Hashable)


def sccs(nodes: Sequence[N], succ: dict[N, list[N]]) -> list[list[N]]:
    """Tarjan's algorithm, iterative; components in reverse topological order."""
    index: dict[N, int] = {}
    low: dict[N, int] = {}
    on_stack: set[N] = set()
    stack: list[N] = []
    out: list[list[N]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work: list[tuple[N, int]] = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack.add(v)
            edges = succ.get(v, [])
            if i < len(edges):
                work.append((v, i + 1))
                w = edges[i]
                if w not in index:
                    work.append((w, 0))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                comp: list[N] = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return out


def stratify(rules: Sequence[Rule]) -> dict[Pred, int]:
    """The stratum of every predicate that occurs in ``rules`` (0 when there is no NAF)."""
    succ: dict[Pred, list[Pred]] = {}
    neg_edges: set[tuple[Pred, Pred]] = set()
    nodes: dict[Pred, None] = {}
    for r in rules:
        head = (r.head.pred, r.head.neg)
        nodes.setdefault(head, None)
        for b in r.body:
            p = (b.lit.pred, b.lit.neg)
            nodes.setdefault(p, None)
            succ.setdefault(p, []).append(head)
            if b.naf:
                neg_edges.add((p, head))
    comps = sccs(list(nodes), succ)
    comp_of = {p: i for i, comp in enumerate(comps) for p in comp}
    for a, h in sorted(neg_edges):
        if comp_of[a] == comp_of[h]:
            culprits = [r.label for r in rules if any(x.naf and (x.lit.pred, x.lit.neg) == a for x in r.body)]
            raise ProgramError(
                "UNSTRATIFIED",
                f"negation through recursion: '{a[0]}' depends on itself through 'not'",
                label=culprits[0] if culprits else None,
                detail={"predicate": ("-" if a[1] else "") + a[0], "rules": culprits},
            )
    stratum: dict[Pred, int] = {}
    preds_of: dict[Pred, list[Pred]] = {}
    for a, targets in succ.items():
        for t in targets:
            preds_of.setdefault(t, []).append(a)
    for comp in reversed(comps):  # topological order: dependencies first
        level = 0
        for v in comp:
            for a in preds_of.get(v, []):
                if comp_of[a] == comp_of[v]:
                    continue
                level = max(level, stratum[a] + (1 if (a, v) in neg_edges else 0))
        for v in comp:
            stratum[v] = level
    return stratum


def rule_strata(rules: Sequence[Rule]) -> list[int]:
    """The stratum of each rule (that of its head predicate)."""
    strata = stratify(rules)
    return [strata[(r.head.pred, r.head.neg)] for r in rules]
