"""Metrics and reports of certified serving (certify.md §12, C-87 … C-94).

Counts over a common pool of N items (C correct served, W wrong served, A abstained — parse
failures and errors are abstentions) with their Wilson interval, the loss difference ΔL with
its break-even ratio, the Lemma 1 voting bounds with a Monte Carlo check, and the erasure law
(Corollary 1) with its simulation. The zero-error bound and the paired statistics (bootstrap,
exact McNemar, Holm) are in :mod:`cotaudit.stats`. Everything is deterministic given its seed.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from cotaudit.stats import Z95
from cotaudit.stats import wilson_interval as wilson

CAVEAT = (
    "A certified answer follows, by verified rule applications within depth delta, from premises "
    "that passed the configured source checker; it does not prove the premises say what the "
    "natural-language source says."
)


@dataclass(frozen=True)
class Counts:
    """C-87 for one policy over N items."""

    policy: str
    correct: int
    wrong: int
    abstained: int

    @property
    def n(self) -> int:
        return self.correct + self.wrong + self.abstained

    @property
    def answered(self) -> int:
        return self.correct + self.wrong

    @property
    def coverage(self) -> float | None:
        return self.answered / self.n if self.n else None

    @property
    def answered_accuracy(self) -> float | None:
        return self.correct / self.answered if self.answered else None

    @property
    def full_pool_accuracy(self) -> float | None:
        return self.correct / self.n if self.n else None

    @property
    def risk(self) -> float | None:
        return self.wrong / self.answered if self.answered else None

    @property
    def risk_ci(self) -> tuple[float, float] | None:
        return wilson(self.wrong, self.answered, Z95) if self.answered else None

    def to_json(self) -> dict[str, Any]:
        def r(x: float | None) -> float | None:
            return None if x is None else round(x, 6)

        ci = self.risk_ci
        return {
            "policy": self.policy,
            "C": self.correct,
            "W": self.wrong,
            "A": self.abstained,
            "N": self.n,
            "coverage": r(self.coverage),
            "answered_accuracy": r(self.answered_accuracy),
            "full_pool_accuracy": r(self.full_pool_accuracy),
            "answered_risk": r(self.risk),
            "answered_risk_ci95": None if ci is None else [round(ci[0], 6), round(ci[1], 6)],
        }


def count(policy: str, outcomes: Iterable[bool | None]) -> Counts:
    """``True`` correct served, ``False`` wrong served, ``None`` abstained."""
    c = w = a = 0
    for o in outcomes:
        if o is None:
            a += 1
        elif o:
            c += 1
        else:
            w += 1
    return Counts(policy, c, w, a)


def pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.2f}%"


def cwa_table(rows: Sequence[Counts]) -> str:
    """Paper Table 10 layout: policy, C, W, A, coverage, answered risk [95% CI]."""
    head = f"{'policy':<24} {'C':>6} {'W':>6} {'A':>6} {'coverage':>9}  answered risk [95% CI]"
    out = [head, "-" * len(head)]
    for c in rows:
        ci = c.risk_ci
        risk = "—" if ci is None else f"{pct(c.risk)} [{100 * ci[0]:.2f}, {100 * ci[1]:.2f}]"
        out.append(
            f"{c.policy:<24} {c.correct:>6} {c.wrong:>6} {c.abstained:>6} {pct(c.coverage):>9}  {risk}"
        )
    return "\n".join(out)


def k_table(by_k: Mapping[int, Counts]) -> str:
    """Paper Table 6 layout: one column per k."""
    ks = sorted(by_k)
    rows = [
        ("C", [str(by_k[k].correct) for k in ks]),
        ("W", [str(by_k[k].wrong) for k in ks]),
        ("A", [str(by_k[k].abstained) for k in ks]),
        ("coverage", [pct(by_k[k].coverage) for k in ks]),
        ("answered risk", [pct(by_k[k].risk) for k in ks]),
    ]
    out = [f"{'':<14}" + "".join(f"{'k=' + str(k):>10}" for k in ks)]
    out += [f"{name:<14}" + "".join(f"{v:>10}" for v in vals) for name, vals in rows]
    return "\n".join(out)


def delta_loss(base: Counts, new: Counts, c_w: float, c_a: float, c_t: float = 0.0, dt: float = 0.0) -> float:
    """C-89: ΔL = (ΔW·c_W + ΔA·c_A + ΔT·c_T)/N, Δ = new − base, on the same N items."""
    if base.n != new.n or base.n == 0:
        raise ValueError("policies must be compared on the same non-empty pool")
    return ((new.wrong - base.wrong) * c_w + (new.abstained - base.abstained) * c_a + dt * c_t) / base.n


def break_even_ratio(base: Counts, new: Counts) -> Fraction | None:
    """ΔA/(−ΔW) for ΔW < 0 < ΔA: the c_W/c_A above which the new policy wins (before compute)."""
    dw, da = new.wrong - base.wrong, new.abstained - base.abstained
    if not (dw < 0 < da):
        return None
    return Fraction(da, -dw)


def voting_error_bounds(k: int, beta_ans: float, sigma_c: float, delta_0: float) -> tuple[float, float]:
    """Lemma 1: bounds on err(k), the probability that strict-majority voting over k traces
    serves a wrong certified answer.

    Assumptions: with probability β (the shared regime mass) the item is in a regime where each
    trace independently certifies the *same* wrong answer with probability ≥ 1 − σ_c; elsewhere
    each trace independently certifies the correct answer with probability ≥ 1/2 + δ₀. A strict
    majority of the k traces must agree; ties abstain. Two calls per item cannot identify β or
    σ_c: the bounds are a model, not an estimate. lower = β·(1 − e^(−2k(1/2 − σ_c)²)),
    upper = min(1, β + e^(−2kδ₀²)).
    """
    if k < 1:
        raise ValueError("k must be ≥ 1")
    if not 0 <= beta_ans <= 1:
        raise ValueError("beta_ans must lie in [0, 1]")
    if not 0 <= sigma_c < 0.5:
        raise ValueError("sigma_c must lie in [0, 1/2)")
    if not 0 < delta_0 <= 0.5:
        raise ValueError("delta_0 must lie in (0, 1/2]")
    lower = beta_ans * (1 - math.exp(-2 * k * (0.5 - sigma_c) ** 2))
    upper = min(1.0, beta_ans + math.exp(-2 * k * delta_0**2))
    return lower, upper


def simulate_voting(
    k: int, beta_ans: float, sigma_c: float, delta_0: float, trials: int = 20000, seed: int = 0
) -> float:
    """Monte Carlo err(k) under Lemma 1's model at its extremes (wrong w.p. exactly 1 − σ_c in
    the shared regime; correct w.p. exactly 1/2 + δ₀ elsewhere, else a fresh wrong answer)."""
    voting_error_bounds(k, beta_ans, sigma_c, delta_0)  # same argument checks
    r = random.Random(seed)
    wrong = 0
    for _ in range(trials):
        shared = r.random() < beta_ans
        answers: dict[str, int] = {}
        for t in range(k):
            if shared:
                a = "shared_wrong" if r.random() < 1 - sigma_c else f"other{t}"
            else:
                a = "correct" if r.random() < 0.5 + delta_0 else f"wrong{t}"
            answers[a] = answers.get(a, 0) + 1
        top = max(answers.items(), key=lambda kv: kv[1])
        if 2 * top[1] > k and top[0] != "correct":
            wrong += 1
    return wrong / trials


# ---------------------------------------------------------------------------- erasure law
def _graph(cert: Mapping[str, Any]) -> tuple[dict[int, list[int]], set[int], dict[int, str], int]:
    nodes = cert["nodes"]
    premises: dict[int, list[int]] = {}
    leaves: set[int] = set()
    keys: dict[int, str] = {}
    for n in nodes:
        keys[n["id"]] = "f:" + n["fact"]
        edge = n.get("edge")
        if edge:
            premises[n["id"]] = list(edge.get("premises", []))
        else:
            leaves.add(n["id"])
    return premises, leaves, keys, int(cert["root"])


def exposed_leaves(cert: Mapping[str, Any], cached_keys: Iterable[str] = ()) -> list[int]:
    """D_exp: leaves with a path to the root that avoids every cached node (C-92)."""
    premises, leaves, keys, root = _graph(cert)
    cached = set(cached_keys)
    seen: set[int] = set()
    stack = [root]
    while stack:
        n = stack.pop()
        if n in seen or keys[n] in cached:
            continue
        seen.add(n)
        stack.extend(premises.get(n, []))
    return sorted(seen & leaves)


def recovery_probability(cert: Mapping[str, Any], cached_keys: Iterable[str], eps: float) -> float:
    """(1 − ε)^|D_exp|: the probability the conclusion survives leaf erasure at rate ε."""
    if not 0 <= eps <= 1:
        raise ValueError("eps must lie in [0, 1]")
    return (1 - eps) ** len(exposed_leaves(cert, cached_keys))


@dataclass(frozen=True)
class Simulation:
    successes: int
    trials: int
    interval: tuple[float, float]


def simulate_erasure(
    cert: Mapping[str, Any],
    cached_keys: Iterable[str],
    eps: float,
    trials: int = 3000,
    seed: int = 0,
    z: float = 3.290527,
) -> Simulation:
    """Erase each leaf independently with probability ε; a node is available iff it is cached,
    an unerased leaf, or all its premises are available. Wilson interval at ``z`` (99.9%)."""
    premises, leaves, keys, root = _graph(cert)
    cached = {n for n, k in keys.items() if k in set(cached_keys)}
    depth = {x["id"]: x["depth"] for x in cert["nodes"]}
    order = sorted(keys, key=lambda n: (depth[n], n))
    r = random.Random(seed)
    ok = 0
    for _ in range(trials):
        avail: dict[int, bool] = {}
        for n in order:
            if n in cached:
                avail[n] = True
            elif n in leaves:
                avail[n] = r.random() >= eps
            else:
                avail[n] = all(avail[p] for p in premises[n])
        ok += avail[root]
    return Simulation(ok, trials, wilson(ok, trials, z))
