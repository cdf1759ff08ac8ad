"""Redundancy fractions with Wilson intervals, the bounded-k table and the C3 verdict (C-50 … C-52).

Uniform: x = |J|, n = |S|, p = x/n with a Wilson 95% interval. Weighted (**Decision** of the
spec): p_w = Σ_J w / Σ_S w with the Wilson interval at n_eff = (Σw)²/Σw² (Kish) and
x = p_w·n_eff. The rule-layer fraction and the composition law (Corollary 2: overall ≈
|R_S|/|S| × rule-layer fraction) are reported beside them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from cotaudit.certify.engine.facts import Source
from cotaudit.certify.kernel.scan import OrderRank, kernel_scan
from cotaudit.certify.lang.syntax import Rule
from cotaudit.stats import wilson_interval as wilson


@dataclass(frozen=True)
class Fractions:
    """C-50's numbers (fractions in [0, 1])."""

    n: int
    x: int
    uniform: float
    uniform_ci: tuple[float, float]
    weighted: float | None
    weighted_ci: tuple[float, float] | None
    rule_layer: float | None
    composition_predicted: float | None
    composition_difference: float | None

    def to_json(self) -> dict[str, object]:
        def pct(v: float | None) -> str | None:
            return None if v is None else f"{100 * v:.2f}"

        return {
            "n": self.n,
            "redundant": self.x,
            "uniform_pct": pct(self.uniform),
            "uniform_ci_pct": [pct(v) for v in self.uniform_ci],
            "weighted_pct": pct(self.weighted),
            "weighted_ci_pct": None if self.weighted_ci is None else [pct(v) for v in self.weighted_ci],
            "rule_layer_pct": pct(self.rule_layer),
            "composition_predicted_pct": pct(self.composition_predicted),
            "composition_difference_pct": pct(self.composition_difference),
        }


def fractions(
    units: Sequence[Source], redundant: Sequence[int], weights: Mapping[int, float] | None = None
) -> Fractions:
    n = len(units)
    J = set(redundant)
    x = len(J & {s.unit_id for s in units})
    p = x / n if n else 0.0
    weighted = weighted_ci = None
    if weights:
        w = [max(0.0, float(weights.get(s.unit_id, 0.0))) for s in units]
        total, sq = sum(w), sum(v * v for v in w)
        if total > 0 and sq > 0:
            weighted = sum(v for s, v in zip(units, w, strict=True) if s.unit_id in J) / total
            n_eff = total * total / sq
            weighted_ci = wilson(weighted * n_eff, n_eff)
    rules = [s for s in units if isinstance(s.unit, Rule)]
    rule_layer = predicted = diff = None
    if rules:
        rule_layer = len([s for s in rules if s.unit_id in J]) / len(rules)
        predicted = len(rules) / n * rule_layer
        diff = p - predicted
    return Fractions(n, x, p, wilson(x, n), weighted, weighted_ci, rule_layer, predicted, diff)


@dataclass(frozen=True)
class KRow:
    k: int | None
    redundant: int
    uniform: float
    ci: tuple[float, float]
    capped: int
    seconds: float


def rederivation_table(
    units: Sequence[Source],
    ks: Sequence[int | None] = (1, 2, 3, 4, None),
    *,
    order: Mapping[int, OrderRank] | None = None,
    cap: int = 100_000,
) -> list[KRow]:
    """The scan per k (C-51): redundancy with Wilson interval and the CAPPED count."""
    rows = []
    for k in ks:
        result = kernel_scan(units, order=order, k=k, cap=cap)
        n = len(units)
        rows.append(
            KRow(
                k,
                len(result.J),
                len(result.J) / n if n else 0.0,
                wilson(len(result.J), n),
                len(result.capped),
                result.seconds,
            )
        )
    return rows


def verdict(p: float, tau: float = 0.5) -> str:
    """C3 (C-52): ELIGIBLE if p ≥ τ, HYBRID if τ/2 ≤ p < τ, INELIGIBLE below."""
    if p >= tau:
        return "ELIGIBLE"
    if p >= tau / 2:
        return "HYBRID"
    return "INELIGIBLE"


def sensitivity(p: float, taus: Sequence[float] = (0.3, 0.5, 0.7)) -> dict[str, str]:
    return {f"{t:.1f}": verdict(p, t) for t in taus}
