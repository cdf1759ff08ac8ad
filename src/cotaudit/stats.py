"""The shared statistics of every engine and evaluation: Wilson intervals, McNemar, Holm, the
bootstraps, Cohen's κ and the zero-error bound — one module, imported by certify, vericot and
:mod:`cotaudit.eval` alike. It imports no engine; SciPy and NumPy are imported on first use.

Two Wilson score intervals, kept apart because their figures are published:

* :func:`wilson_interval` — the closed form, ``(p + z²/2n ± z·√(p(1−p)/n + z²/4n²)) / (1 + z²/n)``
  with a given ``z`` (certify uses ``Z95 = 1.959964``, vericot ``1.959963984540054``), pure
  Python, ``(0, 0)`` for ``n = 0``, a ``(low, high)`` tuple. Used for certify's redundancy
  fractions and serving metrics (C-50, C-87) and vericot's metrics.
* :func:`wilson` — SciPy's ``binomtest(k, n).proportion_ci(method="wilson")``: the same score
  interval with z from the normal quantile of ``confidence``, ``Interval(0, 1)`` for ``n = 0``.
  Used for the TE evaluations (TE-56, TE-57).

McNemar likewise: :func:`mcnemar` is the continuity-corrected χ² test with the exact binomial
p for small counts (TE-56, SciPy); :func:`mcnemar_exact` the exact two-sided p in rational
arithmetic (certify C-90). Holm: :func:`holm_adjusted` gives the adjusted p-values, :func:`holm`
adds the rejections at ``alpha``. Bootstraps: :func:`paired_bootstrap` (stratified, paired,
NumPy; TE-56) and :func:`bootstrap_diff` (paired accuracy difference, pure Python; C-90).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from cotaudit.errors import MissingDependency

Z95 = 1.959964  # certify's z for 95% (C-50, C-87)


def wilson_interval(x: float, n: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of x successes in n trials (0, 0 when n = 0)."""
    if n <= 0:
        return (0.0, 0.0)
    p = x / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def _scipy() -> tuple[Any, Any]:
    try:
        import numpy as np
        from scipy import stats
    except ModuleNotFoundError as exc:  # pragma: no cover - exercised only without the extra
        raise MissingDependency.from_import_error(exc) from None
    return np, stats


@dataclass(frozen=True, slots=True)
class Interval:
    low: float
    high: float

    def to_list(self) -> list[float]:
        return [round(self.low, 6), round(self.high, 6)]


def wilson(successes: int, n: int, confidence: float = 0.95) -> Interval:
    """Wilson score interval of a proportion (SciPy's ``binomtest(...).proportion_ci``)."""
    if n == 0:
        return Interval(0.0, 1.0)
    _, stats = _scipy()
    ci = stats.binomtest(successes, n).proportion_ci(confidence_level=confidence, method="wilson")
    return Interval(float(ci.low), float(ci.high))


@dataclass(frozen=True, slots=True)
class McNemar:
    b: int  # first method right, second wrong
    c: int  # first wrong, second right
    chi2: float
    p: float  # χ²₁ tail with continuity correction; 1 when b + c = 0
    p_exact: float | None  # exact two-sided binomial p, when b + c < 25

    def to_dict(self) -> dict[str, Any]:
        return {"b": self.b, "c": self.c, "chi2": round(self.chi2, 6), "p": self.p, "p_exact": self.p_exact}


def mcnemar(first_correct: Sequence[bool], second_correct: Sequence[bool]) -> McNemar:
    """McNemar's test on paired per-item correctness: χ² = (|b − c| − 1)² / (b + c)."""
    if len(first_correct) != len(second_correct):
        raise ValueError("paired samples must have the same length")
    b = sum(1 for x, y in zip(first_correct, second_correct, strict=True) if x and not y)
    c = sum(1 for x, y in zip(first_correct, second_correct, strict=True) if y and not x)
    if b + c == 0:
        return McNemar(b, c, 0.0, 1.0, 1.0)
    _, stats = _scipy()
    chi2 = (abs(b - c) - 1) ** 2 / (b + c)
    p = float(stats.chi2.sf(chi2, 1))
    exact = float(stats.binomtest(b, b + c, 0.5).pvalue) if b + c < 25 else None
    return McNemar(b, c, chi2, p, exact)


def holm(pvalues: Sequence[float], alpha: float = 0.05) -> list[tuple[float, bool]]:
    """Holm–Bonferroni: adjusted p-values (monotone, capped at 1) and rejections at ``alpha``."""
    return [(p, p <= alpha) for p in holm_adjusted(pvalues)]


def cohen_kappa(a: Sequence[bool], b: Sequence[bool]) -> float:
    """Cohen's κ of two binary labelings; 1.0 when they agree perfectly (even if constant)."""
    n = len(a)
    if n == 0 or n != len(b):
        raise ValueError("kappa needs two labelings of the same, non-zero length")
    observed = sum(1 for x, y in zip(a, b, strict=True) if x == y) / n
    pa, pb = sum(a) / n, sum(b) / n
    expected = pa * pb + (1 - pa) * (1 - pb)
    if expected == 1.0:
        return 1.0 if observed == 1.0 else 0.0
    return (observed - expected) / (1 - expected)


def paired_bootstrap(
    first: Sequence[bool],
    second: Sequence[bool],
    strata: Sequence[str],
    *,
    stratum: str,
    iterations: int = 10_000,
    seed: int = 20260513,
    confidence: float = 0.95,
) -> Interval:
    """Percentile CI of Δ = rate(first) − rate(second) within ``stratum`` (TE-56).

    Resampling is stratified — adversarial and clean items are drawn separately, so ΔTPR and
    ΔFPR each come from their own stratum — and paired: both methods see the same indices.
    """
    np, _ = _scipy()
    idx = [i for i, s in enumerate(strata) if s == stratum]
    if not idx:
        return Interval(0.0, 0.0)
    x = np.asarray([first[i] for i in idx], dtype=float)
    y = np.asarray([second[i] for i in idx], dtype=float)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(idx), size=(iterations, len(idx)))
    deltas = x[draws].mean(axis=1) - y[draws].mean(axis=1)
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(deltas, [tail, 100 - tail])
    return Interval(float(low), float(high))


def zero_error_upper(n: int, alpha: float = 0.05) -> float:
    """C-88: the one-sided upper bound on the error rate after 0 errors in n trials."""
    if n <= 0:
        raise ValueError("n must be ≥ 1")
    return float(1 - alpha ** (1 / n))


def bootstrap_diff(
    paired: Sequence[tuple[bool, bool]], resamples: int = 20000, seed: int = 0, level: float = 0.95
) -> tuple[float, float, float]:
    """Mean accuracy difference (second − first) with a percentile bootstrap interval."""
    if not paired:
        raise ValueError("no paired items")
    diffs = [int(b) - int(a) for a, b in paired]
    n = len(diffs)
    r = random.Random(seed)
    stats = sorted(sum(diffs[r.randrange(n)] for _ in range(n)) / n for _ in range(resamples))
    lo = stats[math.floor((1 - level) / 2 * resamples)]
    hi = stats[min(resamples - 1, math.ceil((1 + level) / 2 * resamples) - 1)]
    return sum(diffs) / n, lo, hi


def mcnemar_exact(b: int, c: int) -> float:
    """C-90: exact two-sided McNemar p-value on the discordant counts (b, c)."""
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(Fraction(math.comb(n, i), 2**n) for i in range(k + 1))
    return float(min(Fraction(1), 2 * tail))


def holm_adjusted(pvalues: Sequence[float]) -> list[float]:
    """Holm step-down adjusted p-values, in the input order."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted
