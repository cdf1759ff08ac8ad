"""Pass Rate, Precision, VCAR and Task Accuracy with Wilson 95% intervals (V-47), and the
paper's anchor table (V-48; for comparing live runs only)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from cotaudit.stats import wilson_interval

ANCHORS: dict[str, dict[str, dict[str, float]]] = {
    "ProofWriter": {
        "Pass Rate": {"VeriCoT": 45.2, "ER": 14.8, "DSB": 10.0, "NoPrem": 3.3},
        "VCAR": {"VeriCoT": 42.5, "ER": 12.3, "DSB": 9.5, "NoPrem": 3.3},
    },
    "BioASQ": {
        "Pass Rate": {"VeriCoT": 25.3, "ER": 1.5, "DSB": 5.9, "NoPrem": 2.9},
        "VCAR": {"VeriCoT": 21.3, "ER": 1.2, "DSB": 4.2, "NoPrem": 1.6},
    },
    "SARA": {
        "Pass Rate": {"VeriCoT": 15.2, "ER": 6.8, "DSB": 4.8, "NoPrem": 0.6},
        "VCAR": {"VeriCoT": 13.2, "ER": 6.3, "DSB": 4.5, "NoPrem": 0.3},
    },
}
PAPER_PRECISION = {"ProofWriter": 94.1}


def wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials, as percentages (one decimal); the
    closed form of :func:`cotaudit.stats.wilson_interval`."""
    low, high = wilson_interval(k, n, z)
    return (round(100 * low, 1), round(100 * high, 1))


def _metric(k: int, n: int, known: bool = True) -> dict[str, Any]:
    """A rate with its interval; ``known`` False (correctness unknown throughout): no value."""
    if n == 0 or not known:
        return {"value": None, "count": k, "n": n, "ci95": None}
    return {"value": round(100 * k / n, 1), "count": k, "n": n, "ci95": list(wilson(k, n))}


def compute(reports: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Metrics over report dicts (R-1 ``to_dict`` form, engine vericot)."""
    rows = [r.get("details", {}) for r in reports]
    n = len(rows)
    verdicts = [d.get("verdict", "invalid") for d in rows]
    correct = [(d.get("answer") or {}).get("correct") for d in rows]
    valid = sum(v == "valid" for v in verdicts)
    vc = sum(v == "valid" and c is True for v, c in zip(verdicts, correct, strict=True))
    first = Counter(((d.get("first_failure") or {}).get("status") or "none") for d in rows)
    steps = Counter(s.get("status") for d in rows for s in d.get("steps", []))
    # A metric that needs correctness has no value when no report in its population knows it
    # (traces without a predicted or a gold answer): "n/a", never a 0.0 that reads as "all wrong".
    any_known = any(c is not None for c in correct)
    valid_known = any(v == "valid" and c is not None for v, c in zip(verdicts, correct, strict=True))
    return {
        "n": n,
        "pass_rate": _metric(valid, n),
        "precision": _metric(vc, valid, valid_known),
        "vcar": _metric(vc, n, any_known),
        "task_accuracy": _metric(sum(c is True for c in correct), n, any_known),
        "correct_null": sum(c is None for c in correct),
        "by_verdict": dict(sorted(Counter(verdicts).items())),
        "by_first_failure": dict(sorted(first.items())),
        "by_step_status": dict(sorted((k or "none", v) for k, v in steps.items())),
    }


def render_table(m: Mapping[str, Any]) -> str:
    lines = [
        f"n = {m['n']}  (correctness unknown for {m['correct_null']})",
        "metric          value   count    95% CI",
    ]
    for key, label in (
        ("pass_rate", "Pass Rate"),
        ("precision", "Precision"),
        ("vcar", "VCAR"),
        ("task_accuracy", "Task Accuracy"),
    ):
        v = m[key]
        val = "n/a" if v["value"] is None else f"{v['value']:.1f}"
        ci = "-" if v["ci95"] is None else f"[{v['ci95'][0]:.1f}, {v['ci95'][1]:.1f}]"
        lines.append(f"{label:<14} {val:>6}  {v['count']:>4}/{v['n']:<4} {ci}")
    lines.append("verdicts: " + ", ".join(f"{k} {v}" for k, v in m["by_verdict"].items()))
    lines.append("first failure: " + ", ".join(f"{k} {v}" for k, v in m["by_first_failure"].items()))
    lines.append("step statuses: " + ", ".join(f"{k} {v}" for k, v in m["by_step_status"].items()))
    return "\n".join(lines) + "\n"
