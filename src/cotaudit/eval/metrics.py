"""Verifier metrics (TE-56): detection, false positives, localisation, determinism, ablation.

All rates are computed on run 0; reruns only feed the determinism figures. Intervals come
from :mod:`cotaudit.stats`.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from cotaudit import stats
from cotaudit.eval.model import EvalItem, Outcome, Results

LOCALISATION_WINDOW = 3


@dataclass(frozen=True, slots=True)
class Rate:
    """k of n, with its Wilson 95% interval."""

    k: int
    n: int
    ci: stats.Interval

    @property
    def value(self) -> float:
        return self.k / self.n if self.n else 0.0

    @classmethod
    def of(cls, k: int, n: int) -> Rate:
        return cls(k, n, stats.wilson(k, n))

    def to_dict(self) -> dict[str, Any]:
        return {"value": round(self.value, 6), "k": self.k, "n": self.n, "ci": self.ci.to_list()}


def _outcomes(results: Results, method: str, items: Sequence[EvalItem], run: int = 0) -> list[Outcome]:
    out = []
    for item in items:
        o = results.get(method, item.id, run)
        if o is None:
            raise KeyError(f"no outcome of {method} on {item.id} (run {run})")
        out.append(o)
    return out


def localised(outcome: Outcome, gold: int | None, *, any_line: bool = False) -> bool:
    """The earliest error (or, with ``any_line``, any error) within ±3 lines of the gold line."""
    if gold is None:
        return False
    if any_line:
        return any(line is not None and abs(line - gold) <= LOCALISATION_WINDOW for line, _ in outcome.errors)
    first = outcome.first_error_line
    return first is not None and abs(first - gold) <= LOCALISATION_WINDOW


@dataclass(frozen=True, slots=True)
class MethodMetrics:
    tpr: Rate
    code_tpr: Rate
    fpr: Rate
    loc3: Rate
    loc3_any: Rate
    per_category: dict[str, Rate]
    kappa_mean: float | None
    kappa_min: float | None
    flips: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "tpr": self.tpr.value,
            "tpr_ci": self.tpr.ci.to_list(),
            "code_tpr": self.code_tpr.value,
            "code_tpr_ci": self.code_tpr.ci.to_list(),
            "fpr": self.fpr.value,
            "fpr_ci": self.fpr.ci.to_list(),
            "loc3": self.loc3.value,
            "loc3_ci": self.loc3.ci.to_list(),
            "loc3_any": self.loc3_any.value,
            "counts": {
                "tp": self.tpr.k,
                "adversarial": self.tpr.n,
                "fp": self.fpr.k,
                "clean": self.fpr.n,
                "localised": self.loc3.k,
                "code_correct": self.code_tpr.k,
            },
            "per_category": {c: r.to_dict() for c, r in sorted(self.per_category.items())},
            "kappa_mean": self.kappa_mean,
            "kappa_min": self.kappa_min,
            "flips": self.flips,
            "seconds": round(self.seconds, 6),
        }


def method_metrics(results: Results, method: str, items: Sequence[EvalItem]) -> MethodMetrics:
    outs = _outcomes(results, method, items)
    adv = [(i, o) for i, o in zip(items, outs, strict=True) if i.adversarial]
    clean = [(i, o) for i, o in zip(items, outs, strict=True) if not i.adversarial]
    tp = [(i, o) for i, o in adv if o.flagged]
    per_category: dict[str, list[bool]] = {}
    for i, o in adv:
        per_category.setdefault(i.category or "?", []).append(o.flagged)
    runs = results.runs(method)
    kappas: list[float] = []
    flips = 0
    if len(runs) > 1:
        labels = {r: [o.flagged for o in _outcomes(results, method, items, r)] for r in runs}
        kappas = [stats.cohen_kappa(labels[a], labels[b]) for a, b in combinations(runs, 2)]
        flips = sum(1 for k in range(len(items)) if len({labels[r][k] for r in runs}) > 1)
    return MethodMetrics(
        tpr=Rate.of(len(tp), len(adv)),
        code_tpr=Rate.of(sum(1 for i, o in tp if o.codes() & set(i.expected_codes)), len(adv)),
        fpr=Rate.of(sum(1 for _, o in clean if o.flagged), len(clean)),
        loc3=Rate.of(sum(1 for i, o in tp if localised(o, i.gold_line)), len(tp)),
        loc3_any=Rate.of(sum(1 for i, o in tp if localised(o, i.gold_line, any_line=True)), len(tp)),
        per_category={c: Rate.of(sum(v), len(v)) for c, v in per_category.items()},
        kappa_mean=statistics.fmean(kappas) if kappas else None,
        kappa_min=min(kappas) if kappas else None,
        flips=flips,
        seconds=sum(o.seconds for o in outs),
    )


def correct(item: EvalItem, outcome: Outcome) -> bool:
    """Per-item correctness for McNemar: flag the adversarial, pass the clean."""
    return outcome.flagged == item.adversarial


@dataclass(frozen=True, slots=True)
class Comparison:
    first: str
    second: str
    delta_tpr: float
    delta_tpr_ci: stats.Interval
    delta_fpr: float
    delta_fpr_ci: stats.Interval
    mcnemar: stats.McNemar
    p_holm: float = 1.0
    significant: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "pair": f"{self.first}-{self.second}",
            "delta_tpr": round(self.delta_tpr, 6),
            "delta_tpr_ci": self.delta_tpr_ci.to_list(),
            "delta_fpr": round(self.delta_fpr, 6),
            "delta_fpr_ci": self.delta_fpr_ci.to_list(),
            "mcnemar": self.mcnemar.to_dict(),
            "p_holm": self.p_holm,
            "significant": self.significant,
        }


def compare(
    results: Results, first: str, second: str, items: Sequence[EvalItem], *, iterations: int, seed: int
) -> Comparison:
    a = _outcomes(results, first, items)
    b = _outcomes(results, second, items)
    flags_a = [o.flagged for o in a]
    flags_b = [o.flagged for o in b]
    strata = [i.stratum for i in items]

    def rate(flags: list[bool], stratum: str) -> float:
        picked = [f for f, s in zip(flags, strata, strict=True) if s == stratum]
        return sum(picked) / len(picked) if picked else 0.0

    kwargs = {"iterations": iterations, "seed": seed}
    return Comparison(
        first,
        second,
        rate(flags_a, "adversarial") - rate(flags_b, "adversarial"),
        stats.paired_bootstrap(flags_a, flags_b, strata, stratum="adversarial", **kwargs),
        rate(flags_a, "clean") - rate(flags_b, "clean"),
        stats.paired_bootstrap(flags_a, flags_b, strata, stratum="clean", **kwargs),
        stats.mcnemar(
            [correct(i, o) for i, o in zip(items, a, strict=True)],
            [correct(i, o) for i, o in zip(items, b, strict=True)],
        ),
    )


def with_holm(comparisons: list[Comparison], alpha: float = 0.05) -> list[Comparison]:
    """Holm–Bonferroni over the family of comparisons (on the χ² McNemar p-values)."""
    adjusted = stats.holm([c.mcnemar.p for c in comparisons], alpha)
    return [
        Comparison(
            c.first, c.second, c.delta_tpr, c.delta_tpr_ci, c.delta_fpr, c.delta_fpr_ci, c.mcnemar, p, sig
        )
        for c, (p, sig) in zip(comparisons, adjusted, strict=True)
    ]


def latency(results: Results, method: str, items: Sequence[EvalItem]) -> dict[str, float]:
    ms = sorted(o.seconds * 1000 for o in _outcomes(results, method, items))
    if not ms:
        return {}

    def pct(q: float) -> float:
        k = (len(ms) - 1) * q
        lo, hi = int(k), min(int(k) + 1, len(ms) - 1)
        return ms[lo] + (ms[hi] - ms[lo]) * (k - lo)

    return {
        "median_ms": round(statistics.median(ms), 4),
        "p95_ms": round(pct(0.95), 4),
        "p99_ms": round(pct(0.99), 4),
        "max_ms": round(ms[-1], 4),
        "total_s": round(sum(ms) / 1000, 4),
        "per_s": round(len(ms) / (sum(ms) / 1000), 1) if sum(ms) else 0.0,
    }


def ablation(
    results: Results, full: str, ablated: dict[str, str], items: Sequence[EvalItem]
) -> dict[str, dict[str, Any]]:
    """Per rule: ΔTPR when it is disabled, and the share of detections only it makes."""
    base = _outcomes(results, full, items)
    adv = [k for k, i in enumerate(items) if i.adversarial]
    tpr_full = sum(base[k].flagged for k in adv) / len(adv) if adv else 0.0
    out: dict[str, dict[str, Any]] = {}
    for rule, method in sorted(ablated.items()):
        outs = _outcomes(results, method, items)
        tpr = sum(outs[k].flagged for k in adv) / len(adv) if adv else 0.0
        unique = sum(1 for k in adv if base[k].flagged and not outs[k].flagged)
        fires = sum(1 for k in adv if rule in base[k].codes())
        out[rule] = {
            "tpr": round(tpr, 6),
            "delta_tpr": round(tpr - tpr_full, 6),
            "uniquely_detected": unique,
            "uniquely_detected_share": round(unique / len(adv), 6) if adv else 0.0,
            "fires_on": fires,
        }
    return out


def overlap(
    results: Results, method: str, items: Sequence[EvalItem], rule_a: str, rule_b: str
) -> dict[str, Any]:
    """Of the adversarial items where either rule fires, the share where both fire."""
    outs = _outcomes(results, method, items)
    a = {k for k, (i, o) in enumerate(zip(items, outs, strict=True)) if i.adversarial and rule_a in o.codes()}
    b = {k for k, (i, o) in enumerate(zip(items, outs, strict=True)) if i.adversarial and rule_b in o.codes()}
    union = a | b
    return {
        "rules": [rule_a, rule_b],
        "either": len(union),
        "both": len(a & b),
        "share": round(len(a & b) / len(union), 6) if union else 0.0,
    }
