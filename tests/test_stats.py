"""Statistics against hand-computed values and SciPy's own results."""

from __future__ import annotations

import math

import pytest

from cotaudit import stats

pytest.importorskip("scipy", reason="SciPy is not installed (pip install -e '.[eval]')")


def test_wilson_matches_the_papers_interval_and_the_formula() -> None:
    ci = stats.wilson(195, 196)
    assert (round(100 * ci.low, 1), round(100 * ci.high, 1)) == (97.2, 99.9)  # TE-57
    k, n, z = 7, 70, 1.959963984540054
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    got = stats.wilson(k, n)
    assert got.low == pytest.approx(centre - half, abs=1e-9) and got.high == pytest.approx(
        centre + half, abs=1e-9
    )
    assert stats.wilson(0, 0) == stats.Interval(0.0, 1.0)


def test_mcnemar_continuity_corrected_and_exact() -> None:
    # b = 10 (first right, second wrong), c = 2: chi2 = (|10 - 2| - 1)^2 / 12 = 49 / 12
    first = [True] * 10 + [False] * 2 + [True] * 5 + [False] * 3
    second = [False] * 10 + [True] * 2 + [True] * 5 + [False] * 3
    r = stats.mcnemar(first, second)
    assert (r.b, r.c) == (10, 2)
    assert r.chi2 == pytest.approx(49 / 12)
    assert r.p == pytest.approx(0.04331, abs=1e-4)  # chi2.sf(49/12, 1)
    assert r.p_exact == pytest.approx(0.03857, abs=1e-4)  # 2 * P(X <= 2), X ~ Bin(12, 1/2) = 158/4096
    assert stats.mcnemar([True, False], [True, False]).p == 1.0
    big = stats.mcnemar([True] * 30, [False] * 30)
    assert big.p_exact is None and big.p < 1e-6


def test_holm_bonferroni() -> None:
    adjusted = stats.holm([0.01, 0.04, 0.03, 0.005])
    assert [round(p, 6) for p, _ in adjusted] == [0.03, 0.06, 0.06, 0.02]
    assert [sig for _, sig in adjusted] == [True, False, False, True]
    assert stats.holm([0.9, 0.8]) == [(1.0, False), (1.0, False)]


def test_cohen_kappa() -> None:
    assert stats.cohen_kappa([True, True, False, False], [True, False, False, False]) == pytest.approx(0.5)
    assert stats.cohen_kappa([True] * 5, [True] * 5) == 1.0
    # 20 items, 15 agree; marginals 0.5 and 0.5 -> expected 0.5 -> kappa 0.5
    a = [True] * 10 + [False] * 10
    b = [True] * 8 + [False] * 2 + [True] * 3 + [False] * 7
    assert stats.cohen_kappa(a, b) == pytest.approx(
        (15 / 20 - (0.5 * 11 / 20 + 0.5 * 9 / 20)) / (1 - (0.5 * 11 / 20 + 0.5 * 9 / 20))
    )


def test_paired_bootstrap_is_seeded_paired_and_stratified() -> None:
    first = [True] * 90 + [False] * 10 + [False] * 50
    second = [True] * 60 + [False] * 40 + [False] * 50
    strata = ["adversarial"] * 100 + ["clean"] * 50
    one = stats.paired_bootstrap(first, second, strata, stratum="adversarial", iterations=2000, seed=1)
    two = stats.paired_bootstrap(first, second, strata, stratum="adversarial", iterations=2000, seed=1)
    assert one == two
    assert one.low < 0.30 < one.high  # the observed difference is 30 pp
    assert one.low > 0.18 and one.high < 0.42
    clean = stats.paired_bootstrap(first, second, strata, stratum="clean", iterations=500, seed=1)
    assert clean == stats.Interval(0.0, 0.0)
    # Identical methods: every paired resample gives exactly 0.
    assert stats.paired_bootstrap(
        first, first, strata, stratum="adversarial", iterations=200
    ) == stats.Interval(0.0, 0.0)


def test_the_two_wilson_intervals_are_the_same_score_interval() -> None:
    """The closed form (certify, vericot) and SciPy's (the TE evaluations) agree at the same z;
    they differ only at n = 0 and in the z each caller passes (module docstring)."""
    z = 1.959963984540054
    for k, n in ((0, 10), (7, 70), (195, 196), (50, 50)):
        low, high = stats.wilson_interval(k, n, z)
        ci = stats.wilson(k, n)
        assert (low, high) == (pytest.approx(ci.low, abs=1e-9), pytest.approx(ci.high, abs=1e-9))
    assert stats.wilson_interval(0, 0) == (0.0, 0.0)
    assert stats.wilson(0, 0) == stats.Interval(0.0, 1.0)
