"""Markdown for ``cotaudit eval cot`` reports (the figures and every disagreement, classified)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

BBM_NOTE = (
    "Metric (Tyen et al.): a trace is right when our first wrong step equals `mistake_index`, or both "
    "say no mistake. *label looks wrong* is claimed only with the evidence shown: a false claim at a "
    "step before the labelled one (its claimed and recomputed value), or a labelled step whose every "
    "statement was read and recomputed equal to the trace's. The paper's Table 4 (GPT-4-Turbo, GPT-4, "
    "GPT-3.5-Turbo prompted for the mistake step) could not be obtained offline here; its figures are "
    "not quoted."
)
NP_NOTE = (
    "Chain-level labels (`flag`: 1 valid, 0 contains a mistake). *Flagged* = a step shown wrong. A "
    "final answer that contradicts `final_answer` is counted apart: the label judges the reasoning, "
    "not the answer."
)


def pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}"


def md(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(md(c) for c in row) + " |" for row in rows]
    return out


def _disagreements(items: Iterable[dict[str, Any]]) -> list[str]:
    rows = [(d["id"], d["label"], d["predicted"], d["class"], d["evidence"]) for d in items]
    return table(("item", "label", "ours", "class", "evidence"), rows)


def _bbm(report: dict[str, Any]) -> list[str]:
    lines = [BBM_NOTE, ""]
    header = ("task", "n", "accuracy %", "our miss", "label looks wrong", "our false alarm", "s")
    rows = []
    for task, t in report["tasks"].items():
        c = t["classes"]
        rows.append(
            (task, t["n"], pct(t["accuracy"]), c.get("our miss", 0), c.get("label looks wrong", 0),
             c.get("our false alarm", 0), t["seconds"])
        )  # fmt: skip
    lines += table(header, rows)
    for task, t in report["tasks"].items():
        if "accuracy_steps_shown" in t:
            lines += [
                "",
                f"{task}: steps {t['hidden_steps']} were never shown to the annotators (dataset README); "
                f"leaving our flags on them out, accuracy is {pct(t['accuracy_steps_shown'])}%.",
            ]
    for task, t in report["tasks"].items():
        lines += ["", f"## {task}: every disagreement", ""]
        lines += _disagreements(t["disagreements"])
    return lines


def _processbench(report: dict[str, Any]) -> list[str]:
    header = (
        "split", "n", "acc erroneous %", "acc correct %", "F1", "naive floor F1", "flagged",
        "precision when flagged %", "flagged before the label", "step coverage %", "s",
    )  # fmt: skip
    rows = [
        (split, s["n"], pct(s["acc_erroneous"]), pct(s["acc_correct"]), pct(s["f1"]),
         pct(s.get("naive_floor_f1")), s["flagged"], pct(s["precision_when_flagged"]),
         s["flagged_before_label"], pct(s["coverage"]), s["seconds"])
        for split, s in report["splits"].items()
    ]  # fmt: skip
    lines = table(header, rows)
    lines += [
        "",
        "*naive floor*: the first step with a false `a op b = c` (digits only), measured in this run.",
        "",
        "Published F1 (GSM8K / MATH):",
        "",
    ]
    lines += table(
        ("verifier", "GSM8K", "MATH"),
        [(name, g, "—" if m is None else m) for name, (g, m) in report["peers"].items()],
    )
    for split, s in report["splits"].items():
        by_check = s.get("flags_by_check")
        if by_check:
            lines += ["", f"## {split}: flags by check (right = at the labelled step)", ""]
            lines += table(
                ("check", "flags", "right", "before the label", "after the label", "on a correct trace"),
                [
                    (k, v["flags"], v["right"], v["before"], v["after"], v["correct_trace"])
                    for k, v in by_check.items()
                ],
            )
        if s.get("labelled_steps"):
            lines += ["", f"## {split}: what the labelled erroneous steps contain", ""]
            lines += table(("labelled step", "traces"), sorted(s["labelled_steps"].items()))
        lines += [
            "",
            f"## {split}: every flag that disagrees with the label",
            "",
            f"({s['misses']} erroneous traces we do not flag are not listed one by one.)",
            "",
        ]
        lines += _disagreements(s["disagreements"])
    return lines


def _np(report: dict[str, Any]) -> list[str]:
    lines = [NP_NOTE, ""]
    header = (
        "file",
        "valid",
        "valid flagged",
        "valid, answer contradicts gold",
        "invalid",
        "invalid flagged",
    )
    rows = [
        (name, f["valid"], f["valid_flagged"], f["valid_answer_contradicts_gold"], f["invalid"],
         f["invalid_flagged"])
        for name, f in report["files"].items()
    ]  # fmt: skip
    lines += table(header, rows)
    lines.append("")
    for name, f in report["files"].items():
        for d in f["flagged_valid_chains"]:
            lines.append(f"- flagged valid chain {name} #{d['index']}: {md(d['evidence'])}")
        for d in f["valid_chains_with_wrong_answer"]:
            lines.append(
                f"- valid chain, answer contradicts gold (label looks wrong) {name} #{d['index']}: "
                f"{md(d['evidence'])}"
            )
    return lines


def render(report: dict[str, Any], command: str) -> str:
    """The Markdown report of one ``eval cot`` run."""
    lines = [f"# cot evaluation — {report['bench']}", "", f"Made by `{command}`.", ""]
    if report["bench"] == "bbm":
        lines += _bbm(report)
    elif report["bench"] == "processbench":
        lines += _processbench(report)
    else:
        lines += _np(report)
    return "\n".join(lines) + "\n"
