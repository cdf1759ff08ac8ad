"""C-61 … C-65: frequencies, the caching threshold, allocation under a budget, the diagnostic."""

from __future__ import annotations

import math

import pytest

from cotaudit.certify.state.cachemath import (
    Candidate,
    allocate,
    decay,
    objective,
    submodularity_check,
    threshold,
    update_frequency,
)


def chain(key: str, keys: list[str], freq: float, size: int) -> Candidate:
    """A certificate chain: leaf, then one edge per key in ``keys`` (the last is the root)."""
    nodes = {0: ("f:leaf", (), False)}
    for i, k in enumerate(keys, start=1):
        nodes[i] = (k, (i - 1,), True)
    return Candidate(key, size, freq, len(keys), nodes)


def test_frequency_and_threshold_vectors() -> None:
    assert decay(1) == 0.5 and decay(2) == pytest.approx(2**-0.5)
    assert update_frequency(0.0, 4, 1) == 2.0
    assert update_frequency(2.0, 0, 1) == 1.0
    assert threshold(0.5, 3, 2) == pytest.approx(0.5 * math.log(5))
    assert f"{threshold(0.5, 3, 2):.5f}" == "0.80472"


def test_objective_counts_edges_not_behind_cached_nodes() -> None:
    q = chain("f:q", ["f:q"], 1.0, 10)
    s = chain("f:s", ["f:q", "f:s"], 2.0, 10)
    assert s.edges_outside(frozenset()) == 2 and s.edges_outside(frozenset({"f:q"})) == 1
    assert s.edges_outside(frozenset({"f:s"})) == 0
    assert objective([q, s], frozenset({"f:q"})) == 1.0 * 1 + 2.0 * 1


def test_allocation_respects_the_budget_and_prefers_gain_per_byte() -> None:
    a = chain("f:a", ["f:x", "f:a"], 5.0, 60)
    b = chain("f:b", ["f:b"], 1.0, 50)
    c = chain("f:c", ["f:c"], 1.0, 10)
    pool = [a, b, c]
    for budget in (0, 9, 10, 60, 70, 120):
        keep = allocate(pool, budget)
        assert sum(x.size for x in pool if x.key in keep) <= budget
    assert allocate(pool, 9) == frozenset()
    assert allocate(pool, 70) == frozenset({"f:a", "f:c"})
    assert allocate(pool, 1000) == frozenset({"f:a", "f:b", "f:c"})


def test_allocation_is_deterministic_and_uses_partial_enumeration() -> None:
    pool = [chain(f"f:{i}", [f"f:{i}"], float(i % 3 + 1), 10 + i) for i in range(14)]
    assert allocate(pool, 60) == allocate(list(reversed(pool)), 60)
    big = [chain(f"f:{i}", [f"f:{i}"], 1.0, 5) for i in range(50)]
    assert len(allocate(big, 100)) == 20


def test_submodularity_diagnostic_is_reported() -> None:
    pool = [
        chain("f:q", ["f:q"], 1.0, 1),
        chain("f:s", ["f:q", "f:s"], 1.0, 1),
        chain("f:t", ["f:q", "f:s", "f:t"], 1.0, 1),
    ]
    rep = submodularity_check(pool, samples=50, seed=1)
    assert rep.samples == 50 and 0 <= rep.violations <= 50
    assert submodularity_check(pool[:1]).samples == 0
