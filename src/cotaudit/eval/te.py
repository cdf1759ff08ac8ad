"""The te evaluation (TE-55 … TE-59): the paper's audit table, reproduced and compared.

Methods: **M1** the structural rules only, **M2** the full linter, and per-rule ablations of
M2 (TE-45 fallbacks apply). **M3** (LLM self-verification on the Natural Program rendering)
and **M4** (an LLM judge on the raw trace) need a language model (:mod:`cotaudit.llm`, passed
as ``llm``): without one they report *not configured* — never made-up numbers.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cotaudit import te
from cotaudit.eval import metrics
from cotaudit.eval.baselines import LLMMethod, llm_summary
from cotaudit.eval.model import EvalItem, Method, Outcome, Results
from cotaudit.eval.runner import run_methods
from cotaudit.te.corpus.adversarial import PAPER_SEED, CorpusItem, build_corpus, read_jsonl

if TYPE_CHECKING:
    from cotaudit.llm.client import LLMClient

_WARM_UP = "GIVEN:\n  n := param(integer)\nGOAL: y\nEQ[e1]: y = n + 1\nANS: y\n"
ABLATED_RULES = ("TE_E004", "TE_E005", "TE_E006", "TE_E007", "TE_E009", "TE_E011")

# TE-57: the paper's figures, the bar to beat.
PAPER: dict[str, Any] = {
    "methods": {
        "M1": {"tpr": 0.0, "fpr": 0.0, "loc3": 0.0, "kappa": 1.0},
        "M2": {
            "tpr": 0.995,
            "tpr_ci": [0.972, 0.999],
            "fpr": 0.100,
            "fpr_strict": 0.071,
            "loc3": 0.903,
            "kappa": 1.0,
        },
        "M3": {"tpr": 0.663, "fpr": 0.029, "loc3": 0.846, "kappa": 0.89},
        "M4": {"tpr": 0.872, "fpr": 0.057, "loc3": 0.977, "kappa": 0.93},
    },
    "per_category": {
        "arithmetic_slip": {"M2": 1.0, "M3": 0.848, "M4": 0.848},
        "lost_variable": {"M2": 1.0, "M3": 0.522, "M4": 0.696},
        "unsupported_conclusion": {"M2": 1.0, "M3": 0.913, "M4": 0.957},
        "wrong_unit": {"M2": 0.917, "M3": 0.167, "M4": 0.833},
        "contradicting_equation": {"M2": 1.0, "M3": 0.50, "M4": 1.0},
    },
    "ablation_delta_tpr": {"TE_E004": -0.005, "TE_E005": -0.056, "TE_E006": -0.214, "TE_E007": -0.026},
    "latency_ms": {"median": 9, "p95": 81, "max": 703},
}
# TE-58: our targets.
TARGETS: dict[str, Any] = {
    "tpr": 1.0,
    "code_tpr": 0.98,
    "fpr": 0.02,
    "loc3": 0.99,
    "median_ms": 1.0,
    "p95_ms": 10.0,
}


class LintMethod:
    """M1, M2 or an ablation: the linter with one configuration."""

    deterministic = True

    def __init__(self, name: str, description: str, config: te.LintConfig) -> None:
        self.name = name
        self.description = description
        self.config = config

    def unavailable(self) -> str | None:
        return None

    def run(self, item: EvalItem, run: int) -> Outcome:
        start = time.perf_counter()
        result = te.lint(item.text, self.config)
        seconds = time.perf_counter() - start
        counted = {"error", "warning"} if self.config.strict else {"error"}
        errors = tuple(sorted((d.line, d.code) for d in result.diagnostics if d.severity in counted))
        return Outcome(self.name, item.id, run, result.verdict == "FLAG", errors, seconds)


def methods(llm: LLMClient | None = None, llm_reason: str | None = None) -> dict[str, Method]:
    """Every method by name; M3 and M4 use ``llm`` (``llm_reason`` says why there is none)."""
    table: dict[str, Method] = {
        "M1": LintMethod("M1", "structural rules only (E001 E002 E003 E008 E010 E012 E013)", te.M1),
        "M2": LintMethod("M2", "the full linter", te.M2),
        "M3": LLMMethod("M3", "LLM self-verification on the Natural Program rendering", llm, llm_reason),
        "M4": LLMMethod("M4", "LLM judge on the raw trace", llm, llm_reason),
    }
    for rule in ABLATED_RULES:
        name = f"M2-{rule}"
        table[name] = LintMethod(name, f"M2 without {rule}", te.LintConfig(disabled_rules=frozenset({rule})))
    return table


def to_eval_item(item: CorpusItem) -> EvalItem:
    return EvalItem(
        item.id,
        "te",
        item.text,
        adversarial=item.adversarial,
        category=item.category,
        gold_line=item.gold_line,
        expected_codes=item.expected_codes,
        part=item.part,
    )


def load_corpus(corpus: str, gsm8k: str | Path, seed: int = PAPER_SEED) -> list[EvalItem]:
    """``paper266``, ``large``, or a JSONL file written by ``cotaudit te corrupt``."""
    if corpus == "paper266":
        items = build_corpus(gsm8k, seed, "paper")
    elif corpus == "large":
        items = build_corpus(gsm8k, seed, "full")
    else:
        items = list(read_jsonl(corpus))
    return [to_eval_item(i) for i in items]


def _determinism(items: Sequence[EvalItem]) -> dict[str, Any]:
    """M2 report digests across PYTHONHASHSEED 0/1/12345 and both symbolic modes (TE-56)."""
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "items.json"
        corpus.write_text(json.dumps([i.text for i in items]), encoding="utf-8")
        script = (
            "import hashlib, json, sys\n"
            "from cotaudit import te\n"
            "texts = json.load(open(sys.argv[1], encoding='utf-8'))\n"
            "cfg = te.LintConfig(symbolic=sys.argv[2])\n"
            "h = hashlib.sha256()\n"
            "for t in texts:\n"
            "    report = te.check(t, config=cfg).to_dict(timing=False)\n"
            "    h.update(json.dumps(report, sort_keys=True).encode())\n"
            "print(h.hexdigest())\n"
        )
        digests: dict[str, str] = {}
        for seed in ("0", "1", "12345"):
            for mode in ("worker", "inprocess"):
                env = {**os.environ, "PYTHONHASHSEED": seed}
                proc = subprocess.run(
                    [sys.executable, "-c", script, str(corpus), mode],
                    capture_output=True,
                    text=True,
                    env=env,
                    timeout=900,
                )
                digests[f"PYTHONHASHSEED={seed},{mode}"] = (
                    proc.stdout.strip() or f"error: {proc.stderr[-200:]}"
                )
    return {"digests": digests, "identical": len(set(digests.values())) == 1}


def evaluate(
    items: Sequence[EvalItem],
    method_names: Sequence[str] = ("M1", "M2", "M3", "M4"),
    *,
    runs: int = 3,
    ablate: bool = True,
    determinism: bool = True,
    iterations: int = 10_000,
    seed: int = PAPER_SEED,
    log: str | Path | None = None,
    llm: LLMClient | None = None,
    llm_reason: str | None = None,
) -> dict[str, Any]:
    """Run the methods and compute every TE-56 figure; returns the JSON report.

    M3 and M4 use ``llm``; without it they are reported as not configured (``llm_reason``).
    """
    table = methods(llm, llm_reason)
    unknown = [m for m in method_names if m not in table]
    if unknown:
        raise ValueError(f"unknown method(s): {', '.join(unknown)} (known: M1, M2, M3, M4)")
    chosen = [table[m] for m in method_names]
    ablations = [table[f"M2-{r}"] for r in ABLATED_RULES] if ablate and "M2" in method_names else []
    te.lint(_WARM_UP)  # start the SymPy worker before anything is timed
    config = {
        "methods": list(method_names),
        "runs": runs,
        "ablate": ablate,
        "seed": seed,
        "items": len(items),
    }
    results = run_methods(items, chosen, runs=runs, log=log, config=config)
    # Ablations only feed ΔTPR, so one pass each; their determinism is M2's.
    for outcome in run_methods(items, ablations, runs=1, log=log, config=config).outcomes.values():
        results.add(outcome)
    report: dict[str, Any] = {
        "corpus": _corpus_summary(items),
        "methods": {},
        "paper": PAPER,
        "targets": TARGETS,
    }
    for m in chosen:
        reason = m.unavailable()
        if reason is not None:
            report["methods"][m.name] = {"available": False, "reason": reason, "description": m.description}
            continue
        entry = {"available": True, "description": m.description}
        entry.update(metrics.method_metrics(results, m.name, items).to_dict())
        report["methods"][m.name] = entry
    live = [m.name for m in chosen if m.unavailable() is None]
    summary = llm_summary(results, chosen)
    if summary:
        report["llm"] = summary
    family = [("M2", "M3"), ("M2", "M4"), ("M1", "M3"), ("M1", "M4"), ("M2", "M1")]
    pairs = [(a, b) for a, b in family if a in live and b in live]
    comparisons = [metrics.compare(results, a, b, items, iterations=iterations, seed=seed) for a, b in pairs]
    report["comparisons"] = [c.to_dict() for c in metrics.with_holm(comparisons)]
    report["comparisons_not_run"] = [f"{a}-{b}" for a, b in family if (a, b) not in pairs]
    if "M2" in live:
        report["latency"] = metrics.latency(results, "M2", items)
        if ablate:
            report["ablation"] = metrics.ablation(results, "M2", {r: f"M2-{r}" for r in ABLATED_RULES}, items)
            report["overlap_e006_e007"] = metrics.overlap(results, "M2", items, "TE_E006", "TE_E007")
        report["misses"] = _misses(results, items)
        if determinism:
            report["determinism"] = _determinism(items)
    return report


def _corpus_summary(items: Sequence[EvalItem]) -> dict[str, Any]:
    parts: dict[str, int] = {}
    cats: dict[str, int] = {}
    for i in items:
        parts[i.part] = parts.get(i.part, 0) + 1
        if i.category:
            cats[i.category] = cats.get(i.category, 0) + 1
    return {
        "items": len(items),
        "adversarial": sum(i.adversarial for i in items),
        "clean": sum(not i.adversarial for i in items),
        "parts": dict(sorted(parts.items())),
        "categories": dict(sorted(cats.items())),
    }


def _misses(results: Results, items: Sequence[EvalItem]) -> dict[str, list[dict[str, Any]]]:
    """M2's errors, item by item: missed adversarial, mislocalised, and flagged clean traces."""
    out: dict[str, list[dict[str, Any]]] = {"missed": [], "mislocalised": [], "false_positives": []}
    for item in items:
        o = results.get("M2", item.id)
        if o is None:
            continue
        if item.adversarial and not o.flagged:
            out["missed"].append({"id": item.id, "category": item.category, "gold_line": item.gold_line})
        elif item.adversarial and not metrics.localised(o, item.gold_line):
            out["mislocalised"].append(
                {
                    "id": item.id,
                    "gold_line": item.gold_line,
                    "first_error": o.first_error_line,
                    "errors": [list(e) for e in o.errors],
                }
            )
        elif not item.adversarial and o.flagged:
            out["false_positives"].append(
                {"id": item.id, "part": item.part, "errors": [list(e) for e in o.errors]}
            )
    return out


def digest(report: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(report, sort_keys=True).encode()).hexdigest()
