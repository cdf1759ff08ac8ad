"""The certified cache's scheduling maths (certify.md §9, C-61 … C-65).

Frequencies are exponentially weighted request rates per tick, f ← λ·f + (1−λ)·c with
λ = 2^(−1/h). A served conclusion is a cache candidate when f(u) > f_c(u) = ρ·ln(m_eff + D(u))
(Proposition 3) and it fits the budget. Allocation maximises
F(X) = Σ_q f(q)·(n_q(∅) − n_q(X)), n_q(X) = rule/calc edges of q's certificate reachable from
its root without passing a node whose key is in X, under Σ size ≤ B: cost-benefit greedy vs the
best single entry, or partial enumeration (seeds of ≤ 3, completed greedily) for small pools.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
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

    def edges_outside(self, cached: frozenset[str]) -> int:
        """n_q(X): edges reachable from the root without entering a node cached in X."""
        if self.key in cached:
            return 0
        seen: set[int] = set()
        stack = [self.root]
        count = 0
        while stack:
            i = stack.pop()
            if i in seen:
                continue
            seen.add(i)
            key, prem, is_edge = self.nodes[i]
            if i != self.root and key in cached:
                continue
            if is_edge:
                count += 1
                stack.extend(prem)
        return count


def objective(pool: Sequence[Candidate], chosen: frozenset[str]) -> float:
    """F(X) over the pool's queries."""
    return sum(q.freq * (q.edges_outside(frozenset()) - q.edges_outside(chosen)) for q in pool)


def _greedy(pool: Sequence[Candidate], budget: int, seed: frozenset[str]) -> frozenset[str]:
    chosen = set(seed)
    used = sum(c.size for c in pool if c.key in chosen)
    base = objective(pool, frozenset(chosen))
    while True:
        best: tuple[float, str] | None = None
        for c in sorted(pool, key=lambda c: c.key):
            if c.key in chosen or used + c.size > budget:
                continue
            gain = objective(pool, frozenset(chosen | {c.key})) - base
            ratio = gain / max(c.size, 1)
            if gain > 0 and (best is None or ratio > best[0]):
                best = (ratio, c.key)
        if best is None:
            return frozenset(chosen)
        key = best[1]
        chosen.add(key)
        used += next(c.size for c in pool if c.key == key)
        base = objective(pool, frozenset(chosen))


def allocate(pool: Sequence[Candidate], budget: int, partial_enum_max: int = 40) -> frozenset[str]:
    """The keys to keep (C-63); never exceeds ``budget``."""
    feasible = [c for c in pool if c.size <= budget]
    if not feasible:
        return frozenset()
    best_single = max(feasible, key=lambda c: (objective(pool, frozenset({c.key})), c.key))
    candidates = [frozenset({best_single.key}), _greedy(pool, budget, frozenset())]
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
                    candidates.append(_greedy(pool, budget, frozenset(seed)))
    return max(candidates, key=lambda x: (objective(pool, x), sorted(x)))


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
