"""The kernel / deploy report (C-53, Algorithms 2 and 4) for a state.

D1 re-verifies every active unit through the gate's checks (the failing fraction ε̂_fr and C1);
D2/D3 run the scan and Ess and report |A Δ Ess|; D4 reports the redundancy fractions and the C3
verdict with its τ sensitivity. It also gives the depth distribution of Cn(A) (quantiles and
the δ recommendation, the 95th percentile), f_c for every cache entry, the B recommendation
(canonical bytes of K) and the C4 check. C2 is the adapter's declaration and is echoed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from cotaudit.certify.core.errors import ComputationCap, ResourceCap
from cotaudit.certify.engine.evaluation import evaluate
from cotaudit.certify.gate.decision import Outcome
from cotaudit.certify.gate.source import source as gate_source
from cotaudit.certify.kernel.redundancy import fractions, rederivation_table, sensitivity, verdict
from cotaudit.certify.kernel.scan import essential, order_sensitivity
from cotaudit.certify.lang.syntax import program_text
from cotaudit.certify.sources.records import Evidence
from cotaudit.certify.state.cachemath import threshold
from cotaudit.certify.state.view import StateView

DELTA_MAX = 64


def _quantile(values: list[int], q: float) -> int | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def kernel_report(
    state: StateView,
    *,
    weights: Mapping[int, float] | None = None,
    k_table: bool = False,
    c2: str | None = None,
) -> dict[str, Any]:
    """The report as canonical-JSON-ready data (fractions and percentages as strings)."""
    cfg = state.config
    sources = state.sources()
    failing = []
    for row in state.active():
        ev_rows = state.store.conn.execute(
            "SELECT evidence_json FROM evidence WHERE unit_id=? AND verdict='SUPPORTED' ORDER BY evidence_id",
            (row.unit_id,),
        ).fetchall()
        import json

        ev = Evidence.from_json(json.loads(ev_rows[0][0])) if ev_rows else None
        d = gate_source(row.unit, ev, writer=row.writer, scope="kernel", state=state, scan=False)
        if d.outcome is Outcome.REJECT:
            failing.append({"unit_id": row.unit_id, "label": row.unit.label, "reason": d.reason})
    eps = len(failing) / len(sources) if sources else 0.0
    scan = state.scan()
    naf = state.interface.negation == "naf"
    ess, ess_capped = essential(sources, k=cfg.rederive_k, cap=cfg.scan_cap, naf=naf, limits=state.limits)
    order = order_sensitivity(scan, ess)
    frac = fractions(sources, scan.J, weights)
    depths: list[int] = []
    finite = True
    try:
        closure = evaluate(state.kernel_sources(), limits=state.limits)
        depths = [closure.store.depth[f] for f in range(len(closure)) if not closure.is_base(f)]
        finite = all(d <= DELTA_MAX for d in depths)
    except ResourceCap:
        raise  # time or memory: the report is not made, rather than made differently
    except ComputationCap:
        finite = False  # a work bound: the same on every machine
    m_eff = len(state.kernel_sources())
    fc = {
        e.ckey: f"{threshold(cfg.rho, m_eff, e.depth):.6f}"
        for e in sorted(state.cache.values(), key=lambda e: e.ckey)
    }
    freqs = [state.freq.get(k, 0.0) for k in fc]
    straddle = any(f > float(fc[k]) for k, f in zip(fc, freqs, strict=True)) and any(
        f <= float(fc[k]) for k, f in zip(fc, freqs, strict=True)
    )
    labels = {s.unit_id: s.unit.label for s in sources}
    report: dict[str, Any] = {
        "units": len(sources),
        "kernel_version": state.version,
        "order": "order_rank then key (C-45)",
        "D1": {"failing": failing, "epsilon_fr": f"{eps:.4f}", "C1": not failing and eps <= cfg.c1_floor},
        "D2": {
            "A": len(scan.A),
            "R": len(scan.R),
            "J": [labels[u] for u in scan.J],
            "capped": [labels[u] for u in scan.capped],
            "flags": scan.flags,
        },
        "D3": {
            "essential": len(ess),
            "essential_capped": len(ess_capped),
            "A_delta_Ess": [labels[u] for u in order.delta],
        },
        "D4": {
            **frac.to_json(),
            "C3": verdict(frac.uniform, cfg.tau),
            "tau": str(cfg.tau),
            "sensitivity": sensitivity(frac.uniform),
        },
        "depth": {
            "facts": len(depths),
            **{
                name: _quantile(depths, q)
                for name, q in (("p50", 0.5), ("p90", 0.9), ("p95", 0.95), ("p99", 0.99))
            },
            "max": max(depths) if depths else None,
            "delta_recommendation": _quantile(depths, 0.95),
        },
        "cache_thresholds": fc,
        "B_recommendation_bytes": len(program_text([s.unit for s in state.kernel_sources()]).encode("utf-8")),
        "C2": c2 if c2 is not None else "declared by the adapter (entailment defines task fidelity)",
        "C4": {"finite_within_delta_max": finite, "frequencies_straddle_f_c": straddle},
    }
    if k_table:
        report["k_table"] = [
            {
                "k": row.k,
                "redundant": row.redundant,
                "uniform_pct": f"{100 * row.uniform:.2f}",
                "ci_pct": [f"{100 * v:.2f}" for v in row.ci],
                "capped": row.capped,
            }
            for row in rederivation_table(sources, order=state.order(), cap=cfg.scan_cap)
        ]
    return report
