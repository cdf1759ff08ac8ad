"""Metrics and reports (certify.md §12): the C-94 vectors, Lemma 1, the erasure law."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cotaudit.eval.certify.metrics import (
    Counts,
    break_even_ratio,
    count,
    cwa_table,
    delta_loss,
    exposed_leaves,
    k_table,
    recovery_probability,
    simulate_erasure,
    simulate_voting,
    voting_error_bounds,
)
from cotaudit.stats import bootstrap_diff, mcnemar_exact, zero_error_upper
from cotaudit.stats import holm_adjusted as holm

TABLE10 = [
    ((858, 128, 51), "95.08%", "12.98%", (11.03, 15.22)),
    ((844, 120, 73), "92.96%", "12.45%", (10.51, 14.68)),
    ((1482, 189, 420), "79.91%", "11.31%", (9.88, 12.92)),
    ((797, 61, 242), "78.00%", "7.11%", (5.57, 9.03)),
    ((185, 12, 3), "98.50%", "6.09%", (3.52, 10.34)),
]


@pytest.mark.parametrize(("cwa", "coverage", "risk", "ci"), TABLE10)
def test_table10_vectors(
    cwa: tuple[int, int, int], coverage: str, risk: str, ci: tuple[float, float]
) -> None:
    c = Counts("p", *cwa)
    assert f"{100 * c.coverage:.2f}%" == coverage  # type: ignore[operator]
    assert f"{100 * c.risk:.2f}%" == risk  # type: ignore[operator]
    lo, hi = c.risk_ci  # type: ignore[misc]
    assert (round(100 * lo, 2), round(100 * hi, 2)) == ci
    assert f"{risk} [{ci[0]:.2f}, {ci[1]:.2f}]" in cwa_table([c])


def test_rates_and_empty_pools() -> None:
    c = count("native", [True, True, False, None])
    assert (c.correct, c.wrong, c.abstained, c.n) == (2, 1, 1, 4)
    assert (c.coverage, c.answered_accuracy, c.full_pool_accuracy) == (0.75, 2 / 3, 0.5)
    empty = Counts("none", 0, 0, 5)
    assert empty.answered_accuracy is None and empty.risk is None and empty.coverage == 0
    assert "—" in cwa_table([empty])
    assert Counts("x", 0, 0, 0).to_json()["coverage"] is None
    table = k_table({1: Counts("k1", 9, 1, 0), 2: Counts("k2", 8, 0, 2)})
    assert "k=1" in table and "k=2" in table


def test_break_even_and_delta_loss_vectors() -> None:
    assert break_even_ratio(Counts("b", 1533, 252, 306), Counts("n", 1482, 189, 420)) == Fraction(114, 63)
    assert round(float(Fraction(114, 63)), 2) == 1.81
    assert break_even_ratio(Counts("b", 858, 128, 51), Counts("n", 844, 120, 73)) == Fraction(22, 8)
    assert break_even_ratio(Counts("b", 10, 2, 0), Counts("n", 9, 3, 0)) is None  # near miss: ΔW > 0
    base, new = Counts("b", 100, 10, 0), Counts("n", 96, 8, 6)  # ΔW = −2, ΔA = +6
    dt = 145_422
    # ΔL < 0 iff 2 c_W > 6 c_A + 145,422 c_T
    assert delta_loss(base, new, c_w=1.0, c_a=0.1, c_t=1e-6, dt=dt) < 0  # 2 > 0.6 + 0.145
    assert delta_loss(base, new, c_w=1.0, c_a=0.3, c_t=1e-5, dt=dt) > 0  # 2 < 1.8 + 1.45
    with pytest.raises(ValueError):
        delta_loss(base, Counts("n", 1, 0, 0), 1, 1)


def test_mcnemar_holm_zero_error_vectors() -> None:
    assert mcnemar_exact(3, 7) == pytest.approx(0.34375)
    assert mcnemar_exact(36, 6) == pytest.approx(2.83e-6, rel=0.01)
    assert mcnemar_exact(0, 0) == 1.0
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert round(100 * zero_error_upper(233), 2) == 1.28
    with pytest.raises(ValueError):
        zero_error_upper(0)


def test_bootstrap_diff_is_seeded_and_brackets_the_mean() -> None:
    paired = [(True, True)] * 50 + [(False, True)] * 10 + [(True, False)] * 2
    a = bootstrap_diff(paired, resamples=2000, seed=3)
    assert a == bootstrap_diff(paired, resamples=2000, seed=3)
    assert a[1] <= a[0] <= a[2] and a[0] == pytest.approx(8 / 62)


def test_voting_bounds_vector_and_argument_checks() -> None:
    lo, hi = voting_error_bounds(2, 0.05, 0.1, 0.3)
    assert (round(lo, 6), round(hi, 6)) == (0.023635, 0.747676)
    for bad in [
        (0, 0.1, 0.1, 0.3),
        (2, 1.5, 0.1, 0.3),
        (2, 0.1, 0.5, 0.3),
        (2, 0.1, 0.1, 0.0),
        (2, 0.1, 0.1, 0.6),
    ]:
        with pytest.raises(ValueError):
            voting_error_bounds(*bad)


@pytest.mark.parametrize("k", [1, 2, 3, 9])
def test_simulated_voting_error_lies_inside_lemma1_bounds(k: int) -> None:
    lo, hi = voting_error_bounds(k, 0.05, 0.1, 0.3)
    est = simulate_voting(k, 0.05, 0.1, 0.3, trials=20000, seed=k)
    assert lo - 0.01 <= est <= hi + 0.01


# ---------------------------------------------------------------------------- erasure law
def cert(edges: dict[int, list[int]], n: int) -> dict[str, Any]:
    depth: dict[int, int] = {}
    for i in range(n):
        depth[i] = 0 if i not in edges else 1 + max(depth[p] for p in edges[i])
    nodes = [
        {
            "id": i,
            "fact": f"a{i}",
            "depth": depth[i],
            **({"edge": {"premises": edges[i]}} if i in edges else {}),
        }
        for i in range(n)
    ]
    return {"nodes": nodes, "root": n - 1}


CHAIN = cert({3: [0], 4: [3, 1], 5: [4, 2]}, 6)
TREE = cert({4: [0, 1], 5: [2, 3], 6: [4, 5]}, 7)
SHARED = cert({3: [0, 1], 4: [3, 2], 5: [3, 4]}, 6)


@pytest.mark.parametrize("c", [CHAIN, TREE, SHARED], ids=["chain", "tree", "shared"])
@pytest.mark.parametrize("eps", [0.05, 0.1, 0.3])
@pytest.mark.parametrize("cached", [(), ("f:a3",)])
def test_erasure_law_inside_simulated_interval(
    c: dict[str, Any], eps: float, cached: tuple[str, ...]
) -> None:
    law = recovery_probability(c, cached, eps)
    sim = simulate_erasure(c, cached, eps, trials=3000, seed=7)
    assert sim.interval[0] <= law <= sim.interval[1]


def test_caching_raises_the_law_iff_it_shrinks_exposed_leaves() -> None:
    assert exposed_leaves(TREE, ()) == [0, 1, 2, 3]
    assert exposed_leaves(TREE, ("f:a4",)) == [2, 3]
    assert recovery_probability(TREE, ("f:a4",), 0.1) > recovery_probability(TREE, (), 0.1)
    assert exposed_leaves(SHARED, ("f:a3",)) == [2] and exposed_leaves(SHARED, ("f:a4",)) == [0, 1]
    # near miss: a2 = f(a0) is cached, but a0 still reaches the root through a3: D_exp unchanged
    near = cert({2: [0], 3: [0, 1], 4: [2, 3]}, 5)
    assert exposed_leaves(near, ("f:a2",)) == exposed_leaves(near, ()) == [0, 1]
    assert recovery_probability(near, ("f:a2",), 0.1) == recovery_probability(near, (), 0.1)
    with pytest.raises(ValueError):
        recovery_probability(TREE, (), 1.5)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.booleans(), st.none()), min_size=0, max_size=60))
def test_count_partitions_the_pool(outcomes: list[bool | None]) -> None:
    c = count("p", outcomes)
    assert c.n == len(outcomes) and c.correct + c.wrong + c.abstained == c.n
    if c.answered:
        assert c.answered_accuracy + c.risk == pytest.approx(1)  # type: ignore[operator]
        lo, hi = c.risk_ci  # type: ignore[misc]
        assert lo - 1e-9 <= c.risk <= hi + 1e-9  # type: ignore[operator]
