"""``cotaudit eval cot``: the cot engine against human-labelled benchmarks.

- BIG-Bench Mistake (Tyen et al.): a trace is right when our first wrong step equals
  ``mistake_index``, or both say "no mistake". Per task: accuracy, n, and the confusion of
  predicted vs labelled index.
- ProcessBench (Zheng et al.): accuracy on erroneous samples (exact earliest error index), on
  correct samples, their harmonic mean F1; plus precision when flagged (flagged index ==
  label, over the traces we flag) and coverage.
- Natural Program human annotations (Ling et al.): chain-level valid / invalid; how many valid
  chains we flag.

Every disagreement is listed and classified: ``our miss`` (a labelled step we did not catch),
``our false alarm`` (a flag on a step the label calls correct whose claim we cannot show
false — by construction the engine shows one for every flag, so this class stays for
completeness), ``label looks wrong`` (a false claim we show at a step labelled correct, or a
labelled step whose claims all recompute true). Nothing here reads item ids or phrasings.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from cotaudit import api

BBM_TASKS = (
    "dyck_languages",
    "logical_deduction",
    "multistep_arithmetic",
    "tracking_shuffled_objects",
    "word_sorting",
)
PROCESSBENCH_SPLITS = ("gsm8k", "math")
PROCESSBENCH_PEERS = {  # published F1 (GSM8K / MATH), ProcessBench paper
    "o1-mini": (93.2, 88.9),
    "QwQ-32B-Preview": (88.0, 78.7),
    "GPT-4o": (79.2, 63.6),
    "Skywork-PRM-7B": (70.8, 53.6),
    "Qwen2.5-Math-7B-PRM800K": (68.2, 62.6),
    "Math-Shepherd-PRM-7B": (47.9, 29.5),
    "naive a op b = c floor (issue 15)": (11.0, None),
}


def _check(record: Mapping[str, Any], task: str | None = None, gold: str | None = None) -> Any:
    return api.check(
        json.dumps(record, ensure_ascii=False), "cot", item_id=str(record.get("id", "")), task=task, gold=gold
    )


def _evidence(report: Any, step: int | None) -> str:
    for f in report.findings:
        if f.severity == "error" and f.location.step == str(step):
            ev = f.evidence
            if "expression" in ev:
                return f"{ev['expression']} (computed {ev.get('computed')})"
            return f"{ev.get('what')}: says {ev.get('claimed')!r}, replay {ev.get('expected')!r}"
    return ""


def _step_status(report: Any, step: int | None) -> tuple[int, str]:
    if step is None:
        return 0, ""
    for row in report.details.get("steps", []):
        if row.get("index") == step:
            return int(row.get("checked", 0)), str(row.get("status"))
    return 0, ""


def classify(report: Any, predicted: int | None, label: int | None) -> tuple[str, str]:
    """(class, evidence) of one disagreement between our first wrong step and the label."""
    if predicted is not None and (label is None or predicted < label):
        return (
            "label looks wrong",
            f"false claim at step {predicted}, labelled correct: {_evidence(report, predicted)}",
        )
    checked, status = _step_status(report, label)
    if status == "verified" and checked:
        return "label looks wrong", f"labelled step {label}: all {checked} claim(s) in it recompute true"
    return "our miss", f"labelled step {label} ({status or 'unchecked'})"


def _disagreement(item: str, label: Any, predicted: Any, report: Any) -> dict[str, Any]:
    kind, why = classify(report, predicted, label)
    return {"id": item, "label": label, "predicted": predicted, "class": kind, "evidence": why[:400]}


def eval_bbm(data: Path, tasks: Iterable[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"bench": "bbm", "tasks": {}}
    for task in tasks:
        path = data / f"{task}.jsonl"
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        start = time.perf_counter()
        right = 0
        confusion: Counter[str] = Counter()
        disagreements = []
        flagged_correct_state = 0
        for n, row in enumerate(rows):
            record = {k: v for k, v in row.items() if k not in ("mistake_index", "source_line")}
            report = _check(record, task=task)
            pred = report.details.get("first_wrong_step") if report.verdict != "invalid" else None
            label = row.get("mistake_index")
            confusion[f"{label}->{pred}"] += 1
            if pred == label:
                right += 1
            else:
                d = _disagreement(f"line {row.get('source_line', n + 1)}", label, pred, report)
                disagreements.append(d)
                if d["class"] == "our false alarm":
                    flagged_correct_state += 1
        out["tasks"][task] = {
            "n": len(rows),
            "accuracy": round(right / len(rows), 4) if rows else None,
            "confusion": dict(sorted(confusion.items())),
            "disagreements": disagreements,
            "classes": dict(Counter(d["class"] for d in disagreements)),
            "flags_at_correct_state": flagged_correct_state,
            "seconds": round(time.perf_counter() - start, 2),
        }
    return out


def eval_processbench(data: Path, splits: Iterable[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"bench": "processbench", "splits": {}, "peers": PROCESSBENCH_PEERS}
    for split in splits:
        rows = json.loads((data / f"{split}.json").read_text(encoding="utf-8"))
        start = time.perf_counter()
        err = err_ok = cor = cor_ok = flagged = flagged_ok = flagged_before = 0
        checked_steps = total_steps = 0
        disagreements = []
        for row in rows:
            record = {"id": row.get("id"), "problem": row.get("problem"), "steps": row.get("steps")}
            report = _check(record)
            pred = report.details.get("first_wrong_step") if report.verdict != "invalid" else None
            cov = report.details.get("coverage") or {}
            checked_steps += int(cov.get("checked", 0))
            total_steps += int(cov.get("steps", 0))
            label = row.get("label")
            label_i = None if label == -1 else label
            if label_i is None:
                cor += 1
                cor_ok += pred is None
            else:
                err += 1
                err_ok += pred == label_i
            if pred is not None:
                flagged += 1
                flagged_ok += pred == label_i
                flagged_before += label_i is None or pred < label_i
            if pred != label_i:
                disagreements.append(_disagreement(str(row.get("id")), label, pred, report))
        acc_e = err_ok / err if err else 0.0
        acc_c = cor_ok / cor if cor else 0.0
        f1 = 2 * acc_e * acc_c / (acc_e + acc_c) if acc_e + acc_c else 0.0
        out["splits"][split] = {
            "n": len(rows),
            "acc_erroneous": round(acc_e, 4),
            "acc_correct": round(acc_c, 4),
            "f1": round(f1, 4),
            "flagged": flagged,
            "precision_when_flagged": round(flagged_ok / flagged, 4) if flagged else None,
            "flagged_before_label": flagged_before,
            "coverage": round(checked_steps / total_steps, 4) if total_steps else None,
            "disagreements": [d for d in disagreements if d["predicted"] is not None],
            "misses": sum(1 for d in disagreements if d["predicted"] is None),
            "seconds": round(time.perf_counter() - start, 2),
        }
    return out


def eval_np_human(data: Path) -> dict[str, Any]:
    out: dict[str, Any] = {"bench": "np-human", "files": {}}
    for path in sorted(data.glob("*_100.json")):
        rows = json.loads(path.read_text(encoding="utf-8"))
        valid_flagged = invalid_flagged = valid = invalid = valid_answer_wrong = 0
        flagged_valid: list[dict[str, Any]] = []
        answer_valid: list[dict[str, Any]] = []
        for n, row in enumerate(rows):
            record = {
                "id": n,
                "question": row.get("question"),
                "text": row.get("answer"),
                "gold": str(row.get("final_answer")),
            }
            report = _check(record)
            first = report.details.get("first_wrong_step")
            bad = first is not None  # a step shown wrong
            answer = report.details.get("answer") or {}
            if row.get("flag") == 1:
                valid += 1
                valid_flagged += bad
                if bad:
                    flagged_valid.append({"index": n, "evidence": _evidence(report, first)})
                if answer.get("match") is False:
                    valid_answer_wrong += 1
                    why = f"final answer {answer.get('extracted')!r}, gold {answer.get('gold')!r}"
                    answer_valid.append({"index": n, "evidence": why})
            else:
                invalid += 1
                invalid_flagged += bad
        out["files"][path.name] = {
            "valid": valid,
            "valid_flagged": valid_flagged,
            "valid_answer_contradicts_gold": valid_answer_wrong,
            "invalid": invalid,
            "invalid_flagged": invalid_flagged,
            "flagged_valid_chains": flagged_valid,
            "valid_chains_with_wrong_answer": answer_valid,
        }
    return out


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}"


def render(report: dict[str, Any], command: str) -> str:
    lines = [f"# cot evaluation — {report['bench']}", "", f"Made by `{command}`.", ""]
    if report["bench"] == "bbm":
        lines += [
            "Metric (Tyen et al.): a trace is right when our first wrong step equals `mistake_index`, or both say "
            "no mistake. The paper's Table 4 (GPT-4-Turbo, GPT-4, GPT-3.5-Turbo, prompted for the mistake step) "
            "could not be obtained offline here; its figures are not quoted.",
            "",
            "| task | n | accuracy % | our miss | label looks wrong | our false alarm | s |",
            "|---|---|---|---|---|---|---|",
        ]
        for task, t in report["tasks"].items():
            c = t["classes"]
            lines.append(
                f"| {task} | {t['n']} | {_pct(t['accuracy'])} | {c.get('our miss', 0)} | {c.get('label looks wrong', 0)} "
                f"| {c.get('our false alarm', 0)} | {t['seconds']} |"
            )
        for task, t in report["tasks"].items():
            lines += [
                "",
                f"## {task}: every disagreement",
                "",
                "| item | label | ours | class | evidence |",
                "|---|---|---|---|---|",
            ]
            for d in t["disagreements"]:
                lines.append(
                    f"| {d['id']} | {d['label']} | {d['predicted']} | {d['class']} | {_md(d['evidence'])} |"
                )
    elif report["bench"] == "processbench":
        lines += [
            "| split | n | acc erroneous % | acc correct % | F1 | flagged | precision when flagged % | flagged before the label | step coverage % | s |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for split, s in report["splits"].items():
            lines.append(
                f"| {split} | {s['n']} | {_pct(s['acc_erroneous'])} | {_pct(s['acc_correct'])} | {_pct(s['f1'])} | {s['flagged']} "
                f"| {_pct(s['precision_when_flagged'])} | {s['flagged_before_label']} | {_pct(s['coverage'])} | {s['seconds']} |"
            )
        lines += ["", "Published F1 (GSM8K / MATH):", "", "| verifier | GSM8K | MATH |", "|---|---|---|"]
        for name, (g, m) in report["peers"].items():
            lines.append(f"| {name} | {g} | {'—' if m is None else m} |")
        for split, s in report["splits"].items():
            lines += [
                "",
                f"## {split}: every flag that disagrees with the label ({s['misses']} erroneous traces we do not flag are not listed one by one)",
                "",
                "| item | label | ours | class | evidence |",
                "|---|---|---|---|---|",
            ]
            for d in s["disagreements"]:
                lines.append(
                    f"| {d['id']} | {d['label']} | {d['predicted']} | {d['class']} | {_md(d['evidence'])} |"
                )
    else:
        lines += [
            "Chain-level labels (`flag`: 1 valid, 0 contains a mistake). *Flagged* = a step shown wrong. A final "
            "answer that contradicts `final_answer` is counted apart: the label judges the reasoning, not the answer.",
            "",
            "| file | valid | valid flagged | valid, answer contradicts gold | invalid | invalid flagged |",
            "|---|---|---|---|---|---|",
        ]
        for name, f in report["files"].items():
            lines.append(
                f"| {name} | {f['valid']} | {f['valid_flagged']} | {f['valid_answer_contradicts_gold']} "
                f"| {f['invalid']} | {f['invalid_flagged']} |"
            )
        lines.append("")
        for name, f in report["files"].items():
            for d in f["flagged_valid_chains"]:
                lines.append(f"- flagged valid chain {name} #{d['index']}: {_md(d['evidence'])}")
            for d in f["valid_chains_with_wrong_answer"]:
                lines.append(
                    f"- valid chain, answer contradicts gold (label looks wrong) {name} #{d['index']}: {_md(d['evidence'])}"
                )
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")
