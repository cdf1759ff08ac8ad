"""The te evaluation as Markdown: our figures beside the paper's (TE-57) and the targets (TE-58)."""

from __future__ import annotations

from typing import Any

from cotaudit.te.corpus.perturb import CATEGORIES as _CATEGORY_ORDER  # the paper's five, then ROSCOE's

# Which rule carries which category (explained in docs/eval.md).
_CARRIER = {
    "TE_E004": "lost variable, removed or shuffled steps (with E003 for `.value`/`from`)",
    "TE_E005": "wrong unit",
    "TE_E006": "arithmetic slip, contradicting equation, swapped numbers/operators, random number, negation",
    "TE_E007": "slips and contradictions a CHECK restates",
    "TE_E009": "wrong unit inside an expression",
    "TE_E011": "unsupported conclusion",
}


def pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def ci(pair: list[float] | None) -> str:
    return "" if not pair else f" [{100 * pair[0]:.1f}, {100 * pair[1]:.1f}]"


def render(report: dict[str, Any], *, title: str = "te evaluation") -> str:
    corpus = report["corpus"]
    paper = report["paper"]
    lines = [
        f"# {title}",
        "",
        f"Corpus: {corpus['items']} traces — {corpus['adversarial']} adversarial, {corpus['clean']} clean "
        f"(parts: {', '.join(f'{k} {v}' for k, v in corpus['parts'].items())}).",
        "",
        "## Main table",
        "",
        "| method | TPR [95% Wilson] | code-correct TPR | FPR [95% Wilson] | Loc±3 | κ (min) | paper TPR / FPR / Loc±3 / κ |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, m in report["methods"].items():
        p = paper["methods"].get(name, {})
        paper_cell = (
            f"{pct(p.get('tpr'))} / {pct(p.get('fpr'))} / {pct(p.get('loc3'))} / {p.get('kappa', '—')}"
            if p
            else "—"
        )
        if not m.get("available", True):
            lines.append(f"| {name} | {m['reason']} | | | | | {paper_cell} |")
            continue
        kappa = "—" if m["kappa_mean"] is None else f"{m['kappa_mean']:.2f} ({m['kappa_min']:.2f})"
        lines.append(
            f"| {name} | {pct(m['tpr'])}{ci(m['tpr_ci'])} | {pct(m['code_tpr'])} | {pct(m['fpr'])}{ci(m['fpr_ci'])} "
            f"| {pct(m['loc3'])}{ci(m['loc3_ci'])} | {kappa} | {paper_cell} |"
        )
    t = report["targets"]
    lines += [
        "",
        f"Targets (TE-58): TPR {pct(t['tpr'])}, code-correct TPR ≥ {pct(t['code_tpr'])}, raw FPR ≤ {pct(t['fpr'])}, "
        f"Loc±3 ≥ {pct(t['loc3'])}, median ≤ {t['median_ms']} ms, p95 ≤ {t['p95_ms']} ms.",
        "",
    ]
    lines += _per_category(report)
    lines += _ablation(report)
    lines += _comparisons(report)
    lines += _latency(report)
    lines += _determinism(report)
    lines += _errors(report)
    lines += [
        "## Threats to validity (TE-59)",
        "",
        "Converted traces are written in the linter's own dialect, so the false-positive rate measured on them "
        "is optimistic; the real false-positive test is the 20 hand-written MATH500 traces. The corpus is "
        "synthetic and its categories were chosen to match the rules. M3 and M4 need a language model and "
        "are reported only when one is configured.",
        "",
    ]
    return "\n".join(lines)


def _per_category(report: dict[str, Any]) -> list[str]:
    live = [n for n, m in report["methods"].items() if m.get("available", True)]
    cats = [c for c in _CATEGORY_ORDER if any(c in report["methods"][n]["per_category"] for n in live)]
    if not cats:
        return []
    paper = report["paper"]["per_category"]
    head = "| category | n | " + " | ".join(live) + " | paper M2 / M3 / M4 |"
    out = ["## Per-category TPR", "", head, "|---|---|" + "---|" * len(live) + "---|"]
    for c in cats:
        n = report["methods"][live[0]]["per_category"].get(c, {}).get("n", 0)
        cells = [pct(report["methods"][m]["per_category"].get(c, {}).get("value")) for m in live]
        p = paper.get(c)
        ref = f"{pct(p['M2'])} / {pct(p['M3'])} / {pct(p['M4'])}" if p else "(extra category)"
        out.append(f"| {c.replace('_', ' ')} | {n} | " + " | ".join(cells) + f" | {ref} |")
    return [*out, ""]


def _ablation(report: dict[str, Any]) -> list[str]:
    table = report.get("ablation")
    if not table:
        return []
    paper = report["paper"]["ablation_delta_tpr"]
    out = [
        "## Per-rule ablation (M2 with one rule disabled; TE-45 fallbacks apply)",
        "",
        "| rule | TPR without it | ΔTPR | uniquely detected | fires on (adversarial) | paper ΔTPR | carries |",
        "|---|---|---|---|---|---|---|",
    ]
    for rule, row in table.items():
        out.append(
            f"| {rule} | {pct(row['tpr'])} | {100 * row['delta_tpr']:+.2f} pp | {row['uniquely_detected']} "
            f"| {row['fires_on']} | {'—' if rule not in paper else f'{100 * paper[rule]:+.1f} pp'} "
            f"| {_CARRIER.get(rule, '')} |"
        )
    ov = report.get("overlap_e006_e007")
    if ov:
        out += [
            "",
            f"E006/E007 overlap: both fire on {ov['both']} of the {ov['either']} adversarial traces where "
            f"either fires ({pct(ov['share'])}; the paper: about 45%).",
        ]
    return [*out, ""]


def _comparisons(report: dict[str, Any]) -> list[str]:
    out = ["## Paired comparisons", ""]
    rows = report.get("comparisons", [])
    if rows:
        out += [
            "| pair | ΔTPR [95% paired bootstrap] | ΔFPR [95%] | McNemar b / c | χ² p | exact p | Holm p |",
            "|---|---|---|---|---|---|---|",
        ]
        for c in rows:
            mc = c["mcnemar"]
            exact = "—" if mc["p_exact"] is None else f"{mc['p_exact']:.3g}"
            out.append(
                f"| {c['pair']} | {100 * c['delta_tpr']:+.2f} pp{ci(c['delta_tpr_ci'])} | {100 * c['delta_fpr']:+.2f} pp"
                f"{ci(c['delta_fpr_ci'])} | {mc['b']} / {mc['c']} | {mc['p']:.3g} | {exact} | {c['p_holm']:.3g} |"
            )
    if report.get("comparisons_not_run"):
        out += ["", "Not run (a method is not configured): " + ", ".join(report["comparisons_not_run"]) + "."]
    return [*out, ""]


def _latency(report: dict[str, Any]) -> list[str]:
    lat = report.get("latency")
    if not lat:
        return []
    p = report["paper"]["latency_ms"]
    return [
        "## Latency (M2, per lint() call, warm process)",
        "",
        "| median | p95 | p99 | max | whole corpus | traces/s |",
        "|---|---|---|---|---|---|",
        f"| {lat['median_ms']:.3f} ms | {lat['p95_ms']:.3f} ms | {lat['p99_ms']:.3f} ms | {lat['max_ms']:.2f} ms "
        f"| {lat['total_s']:.3f} s | {lat['per_s']:.0f} |",
        "",
        f"Paper: median {p['median']} ms, p95 {p['p95']} ms, max {p['max']} ms, whole corpus under 3 s.",
        "",
    ]


def _determinism(report: dict[str, Any]) -> list[str]:
    det = report.get("determinism")
    if not det:
        return []
    state = "identical" if det["identical"] else "DIFFERENT"
    return [
        "## Determinism",
        "",
        f"M2 reports over the whole corpus are {state} across {', '.join(det['digests'])} "
        f"(sha256 {next(iter(det['digests'].values()))[:16]}…); κ over 3 reruns is in the main table.",
        "",
    ]


def _errors(report: dict[str, Any]) -> list[str]:
    misses = report.get("misses")
    if not misses:
        return []
    out = [
        "## M2's errors",
        "",
        f"Missed: {len(misses['missed'])}; flagged but not localised within ±3 lines: {len(misses['mislocalised'])}; "
        f"false positives: {len(misses['false_positives'])}.",
    ]
    for fp in misses["false_positives"][:20]:
        out.append(
            f"- false positive {fp['id']} ({fp['part']}): " + ", ".join(f"{c}@{ln}" for ln, c in fp["errors"])
        )
    for miss in misses["missed"][:20]:
        out.append(f"- missed {miss['id']} ({miss['category']}, gold line {miss['gold_line']})")
    return [*out, ""]
