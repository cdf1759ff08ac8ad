"""The certified cache's scheduling maths (certify.md §9, C-61 … C-65).

Frequencies are exponentially weighted request rates per tick, f ← λ·f + (1−λ)·c with
λ = 2^(−1/h). A served conclusion is a cache candidate when f(u) > f_c(u) = ρ·ln(m_eff + D(u))
(Proposition 3) and it fits the budget. Allocation maximises
F(X) = Σ_q f(q)·(n_q(∅) − n_q(X)), n_q(X) = rule/calc edges of q's certificate reachable from
its root without passing a node whose key is in X, under Σ size ≤ B: cost-benefit greedy vs the
best single entry, or partial enumeration (seeds of ≤ 3, completed greedily) for small pools.
"""

from __future__ import annotations

import heapq
import itertools
import math
import random
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import cached_property
from typing import Any


def decay(half_life_ticks: float) -> float:
    """λ = 2^(−1/h)."""
    return float(2.0 ** (-1.0 / half_life_ticks))


def update_frequency(f: float, requests: int, half_life_ticks: float = 1.0) -> float:
    lam = decay(half_life_ticks)
    return lam * f + (1.0 - lam) * requests


def threshold(rho: float, m_eff: int, depth: int) -> float:
    """f_c(u) = ρ·ln(m_eff + D_d^cert(u)), natural log (C-62)."""
    return rho * math.log(m_eff + depth) if m_eff + depth > 0 else 0.0


@dataclass(frozen=True)
class Candidate:
    """A cache entry or candidate: key, size (bytes), frequency and its certificate's shape.

    ``nodes`` maps node id → (fact key, premise ids, is_edge) for the reachability of n_q(X).
    """

    key: str
    size: int
    freq: float
    root: int
    nodes: Mapping[int, tuple[str, tuple[int, ...], bool]]

    @classmethod
    def from_certificate(cls, cert: Mapping[str, Any], freq: float, size: int) -> Candidate:
        nodes = {
            n["id"]: ("f:" + n["fact"], tuple(n["edge"]["premises"]) if "edge" in n else (), "edge" in n)
            for n in cert["nodes"]
        }
        return cls(cert["key"], size, freq, cert["root"], nodes)

    def with_freq(self, freq: float) -> Candidate:
        """The same certificate with another frequency. An entry's certificate never changes
        while its frequency does (every tick), so the shape data computed once is kept."""
        if freq == self.freq:
            return self
        other = Candidate(self.key, self.size, freq, self.root, self.nodes)
        for name in ("edge_count", "inner"):
            if name in self.__dict__:
                other.__dict__[name] = self.__dict__[name]
        return other

    @cached_property
    def edge_count(self) -> int:
        """n_q(∅): every edge reachable from the root."""
        return self.edges_outside(frozenset())

    @cached_property
    def inner(self) -> frozenset[str]:
        """Keys of the non-root nodes: the only keys besides its own that can change n_q(X)."""
        return frozenset(key for i, (key, _, _) in self.nodes.items() if i != self.root)

    def edges_outside(self, cached: AbstractSet[str], extra: str | None = None) -> int:
        """n_q(X): edges reachable from the root without entering a node cached in X
        (X = ``cached`` plus ``extra``, which spares the caller building X ∪ {u})."""
        if self.key in cached or self.key == extra:
            return 0
        nodes, root = self.nodes, self.root
        seen: set[int] = set()
        stack = [root]
        count = 0
        while stack:
            i = stack.pop()
            if i in seen:
                continue
            seen.add(i)
            key, prem, is_edge = nodes[i]
            if i != root and (key in cached or key == extra):
                continue
            if is_edge:
                count += 1
                stack.extend(prem)
        return count

    def blocked(self, cached: AbstractSet[str]) -> bool:
        """Whether X can change n_q at all (X holds q's key or one of its inner keys)."""
        return self.key in cached or not self.inner.isdisjoint(cached)


def objective(pool: Sequence[Candidate], chosen: AbstractSet[str]) -> float:
    """F(X) over the pool's queries. Queries X does not touch contribute 0 and are skipped;
    the terms are summed with ``math.fsum`` (exactly rounded, so the pool order never matters)."""
    return math.fsum(q.freq * (q.edge_count - q.edges_outside(chosen)) for q in pool if q.blocked(chosen))


class _Allocation:
    """Exact marginal gains of a fixed pool under a growing chosen set X (C-63).

    Adding u to X changes n_q only for the queries q whose certificate has u's key (as its
    own key or an inner node's); so a gain is a sum over those queries, and after u is chosen
    only the gains of candidates sharing such a query are recomputed. The greedy then costs
    about the pool size times log of it, instead of re-evaluating F over the whole pool for
    every candidate in every round (cubic: a 1,000-entry cache never finished a decision).
    The maths and tie-breaking are those of the plain greedy: largest gain per byte, ties by
    key, only positive gains, a candidate that no longer fits never fits again.
    """

    def __init__(self, pool: Sequence[Candidate]) -> None:
        self.pool = pool
        self.size: dict[str, int] = {}  # decision unit: a key (its first candidate's size)
        for c in pool:
            self.size.setdefault(c.key, c.size)
        # key → indices of the queries whose n_q it can change
        self.touches: dict[str, list[int]] = {k: [] for k in self.size}
        for qi, q in enumerate(pool):
            self.touches[q.key].append(qi)
            for k in q.inner:
                if k in self.touches and k != q.key:
                    self.touches[k].append(qi)

    def gain(self, key: str, chosen: AbstractSet[str], n_now: list[int]) -> float:
        """F(X ∪ {key}) − F(X), from the queries ``key`` touches (summed with ``fsum``, so
        exactly as :func:`objective` would difference it)."""
        pool = self.pool
        terms = []
        for qi in self.touches[key]:
            n = n_now[qi]
            if n:
                q = pool[qi]
                # caching q itself removes all its remaining edges: n_q(X ∪ {q}) = 0
                terms.append(q.freq * (n if q.key == key else n - q.edges_outside(chosen, key)))
        return terms[0] if len(terms) == 1 else math.fsum(terms)

    def value(self, n_now: list[int]) -> float:
        """F(X) from the current n_q(X): ``objective(pool, X)`` without re-walking."""
        return math.fsum(q.freq * (q.edge_count - n) for q, n in zip(self.pool, n_now, strict=True))

    def greedy(self, budget: int, seed: frozenset[str]) -> tuple[frozenset[str], float]:
        """Cost-benefit greedy from ``seed``: largest marginal gain per byte, ties by key.
        Returns the chosen keys and their F."""
        chosen = set(seed)
        used = sum(self.size[k] for k in chosen)
        n_now = [q.edges_outside(chosen) if q.blocked(chosen) else q.edge_count for q in self.pool]
        stamp: dict[str, int] = dict.fromkeys(self.size, 0)

        def rated(key: str) -> tuple[float, str, int] | None:
            """A fresh heap entry for ``key`` (older ones go stale), or None when it cannot be
            picked now: chosen, over the budget or no positive gain."""
            stamp[key] += 1
            if key in chosen or used + self.size[key] > budget:
                return None
            g = self.gain(key, chosen, n_now)
            return (-g / max(self.size[key], 1), key, stamp[key]) if g > 0 else None

        heap = [e for e in map(rated, self.size) if e is not None]
        heapq.heapify(heap)
        while heap:
            _, key, st = heapq.heappop(heap)
            if st != stamp[key] or key in chosen:
                continue
            if used + self.size[key] > budget:
                continue  # ``used`` only grows: it never fits again
            chosen.add(key)
            used += self.size[key]
            changed = self.touches[key]
            for qi in changed:
                n_now[qi] = self.pool[qi].edges_outside(chosen)
            dirty = {k for qi in changed for k in (self.pool[qi].key, *self.pool[qi].inner) if k in stamp}
            for k in sorted(dirty - chosen):
                fresh = rated(k)
                if fresh is not None:
                    heapq.heappush(heap, fresh)
        return frozenset(chosen), self.value(n_now)


def allocate(pool: Sequence[Candidate], budget: int, partial_enum_max: int = 40) -> frozenset[str]:
    """The keys to keep (C-63); never exceeds ``budget``."""
    feasible = [c for c in pool if c.size <= budget]
    if not feasible:
        return frozenset()
    alloc = _Allocation(pool)
    n_empty = [q.edge_count for q in pool]
    single = {c.key: alloc.gain(c.key, frozenset(), n_empty) for c in feasible}  # F({u})
    best_single = max(feasible, key=lambda c: (single[c.key], c.key))
    # (set, F(set)): F({u}) is u's gain from ∅ (the same fsum terms as objective's)
    candidates = [(frozenset({best_single.key}), single[best_single.key]), alloc.greedy(budget, frozenset())]
    if len(feasible) <= partial_enum_max:
        # partial enumeration: seeds of feasible entries, each completed greedily. Seeds of 3
        # for ≤ 12 candidates, of 2 for ≤ 24, of 1 above (cotaudit's bound on the work: 40
        # candidates with 3-seeds would be ~10^4 greedy completions per allocation).
        keys = sorted(c.key for c in feasible)
        size = {c.key: c.size for c in feasible}
        max_seed = 3 if len(keys) <= 12 else (2 if len(keys) <= 24 else 1)
        for r in range(1, max_seed + 1):
            for seed in itertools.combinations(keys, r):
                if sum(size[k] for k in seed) <= budget:
                    candidates.append(alloc.greedy(budget, frozenset(seed)))
    return max(candidates, key=lambda xv: (xv[1], sorted(xv[0])))[0]


@dataclass(frozen=True)
class SubmodularityReport:
    samples: int
    violations: int


def submodularity_check(pool: Sequence[Candidate], samples: int = 200, seed: int = 0) -> SubmodularityReport:
    """C-65: sample X ⊆ Y and u, count F(X∪u)−F(X) < F(Y∪u)−F(Y) (reported, never fatal)."""
    rng = random.Random(seed)
    keys = sorted(c.key for c in pool)
    violations = 0
    if len(keys) < 2:
        return SubmodularityReport(0, 0)
    for _ in range(samples):
        u = rng.choice(keys)
        rest = [k for k in keys if k != u]
        y = frozenset(k for k in rest if rng.random() < 0.5)
        x = frozenset(k for k in y if rng.random() < 0.5)
        gx = objective(pool, x | {u}) - objective(pool, x)
        gy = objective(pool, y | {u}) - objective(pool, y)
        if gx < gy - 1e-12:
            violations += 1
    return SubmodularityReport(samples, violations)
