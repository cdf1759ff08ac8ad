"""Statistics for verifier comparisons (TE-56), on SciPy and NumPy — the one module that imports them.

Wilson intervals and the exact binomial test come from :mod:`scipy.stats`; the χ² tail of
McNemar's test too. What SciPy does not have — the paired, stratified bootstrap the spec
prescribes, Holm–Bonferroni, Cohen's κ on two label vectors — is written here in a few lines
each, and tested against hand-computed values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cotaudit.errors import MissingDependency


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
    from cotaudit.eval.certify.metrics import holm as holm_adjusted

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
