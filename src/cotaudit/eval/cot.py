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
import re
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from cotaudit import api
from cotaudit.eval.cot_render import render

__all__ = [
    "BBM_TASKS",
    "PROCESSBENCH_SPLITS",
    "classify",
    "eval_bbm",
    "eval_np_human",
    "eval_processbench",
    "render",
]

BBM_TASKS = (
    "dyck_languages",
    "logical_deduction",
    "multistep_arithmetic",
    "tracking_shuffled_objects",
    "word_sorting",
)
PROCESSBENCH_SPLITS = ("gsm8k", "math")
# Steps the annotators never saw (dataset README: in multistep arithmetic the first step, the
# same for every trace, was removed before annotation). A second accuracy leaves our flags on
# them out; the first accuracy and every disagreement are reported as they are.
HIDDEN_STEPS = {"multistep_arithmetic": frozenset({0})}
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


def _false_claim(report: Any, step: int | None) -> str | None:
    """The first false claim the report shows at ``step``: expression (or what was replayed),
    the claimed and the computed value; ``None`` if there is none."""
    for f in report.findings:
        if f.code not in ("COT_E001", "COT_E002") or f.location.step != str(step):
            continue
        ev = f.evidence
        if f.code == "COT_E001":
            return f"{ev.get('expression')}: claimed {ev.get('claimed')}, computed {ev.get('computed')}"
        note = f" ({ev['note']})" if ev.get("note") else ""
        said, got = ev.get("claimed"), ev.get("expected")
        return f"{ev.get('what')}: the trace says {said!r}; the replay gives {got!r}{note}"
    return None


def _row(report: Any, step: int | None) -> dict[str, Any]:
    if step is None:
        return {}
    for row in report.details.get("steps", []):
        if row.get("index") == step:
            return dict(row)
    return {}


def _replayed(row: Mapping[str, Any]) -> str:
    parts = []
    for c in row.get("replayed", [])[:4]:
        parts.append(f"{c['what']}: the trace says {c['claimed']!r}, the replay gives {c['expected']!r}")
    return "; ".join(parts)


def classify(report: Any, predicted: int | None, label: int | None) -> tuple[str, str]:
    """(class, evidence) of one disagreement between our first wrong step and the label.

    ``label looks wrong`` needs positive evidence, shown in the evidence text:

    - we flag a step before the labelled one (or the trace is labelled correct), and the report
      shows the false claim there with its claimed and computed values; or
    - the labelled step is *complete*: its replayer read every statement in it and recomputed
      each one equal to what the trace says (the comparisons are listed).

    Anything else is ``our miss`` (the labelled step was unchecked, or only partly read), or
    ``our false alarm`` (a flag with no false claim to show, which the engine never emits).
    """
    if predicted is not None and (label is None or predicted < label):
        shown = _false_claim(report, predicted)
        if shown is None:
            return "our false alarm", f"flag at step {predicted} with no false claim shown"
        where = "labelled correct" if label is None else f"before the labelled step {label}"
        return "label looks wrong", f"false claim at step {predicted}, {where}: {shown}"
    row = _row(report, label)
    if row.get("complete"):
        after = (
            f"; we flag step {predicted}: {_false_claim(report, predicted)}" if predicted is not None else ""
        )
        return (
            "label looks wrong",
            f"labelled step {label} fully read and replayed, all {row.get('checked')} check(s) equal: "
            f"{_replayed(row)}{after}",
        )
    status = row.get("status") or "unchecked"
    if status == "verified":
        status = "verified, but not every statement in it was read"
    why = [
        n.split(": ", 1)[1] for n in report.details.get("replay_notes", []) if n.startswith(f"step {label}: ")
    ]
    if why:
        status += ": " + "; ".join(why)[:200]
    return "our miss", f"labelled step {label} ({status})"


def _disagreement(item: str, label: Any, predicted: Any, report: Any) -> dict[str, Any]:
    kind, why = classify(report, predicted, label)
    return {"id": item, "label": label, "predicted": predicted, "class": kind, "evidence": why[:700]}


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
        hidden = HIDDEN_STEPS.get(task, frozenset())
        right_shown = 0
        for n, row in enumerate(rows):
            record = {k: v for k, v in row.items() if k not in ("mistake_index", "source_line")}
            report = _check(record, task=task)
            pred = report.details.get("first_wrong_step") if report.verdict != "invalid" else None
            label = row.get("mistake_index")
            confusion[f"{label}->{pred}"] += 1
            if hidden:
                wrong = [k for k in report.details.get("wrong_steps", []) if k not in hidden]
                right_shown += (wrong[0] if wrong else None) == label
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
        if hidden and rows:
            out["tasks"][task]["accuracy_steps_shown"] = round(right_shown / len(rows), 4)
            out["tasks"][task]["hidden_steps"] = sorted(hidden)
    return out


def eval_processbench(data: Path, splits: Iterable[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"bench": "processbench", "splits": {}, "peers": PROCESSBENCH_PEERS}
    for split in splits:
        rows = json.loads((data / f"{split}.json").read_text(encoding="utf-8"))
        start = time.perf_counter()
        err = err_ok = cor = cor_ok = flagged = flagged_ok = flagged_before = 0
        checked_steps = total_steps = 0
        disagreements = []
        by_check: dict[str, Counter[str]] = {}
        labelled: Counter[str] = Counter()
        naive_err_ok = naive_cor_ok = 0
        for row in rows:
            record = {"id": row.get("id"), "problem": row.get("problem"), "steps": row.get("steps")}
            report = _check(record)
            pred = report.details.get("first_wrong_step") if report.verdict != "invalid" else None
            cov = report.details.get("coverage") or {}
            checked_steps += int(cov.get("checked", 0))
            total_steps += int(cov.get("steps", 0))
            label = row.get("label")
            label_i = None if label == -1 else label
            naive = naive_first_wrong(row.get("steps") or [])
            if label_i is None:
                cor += 1
                cor_ok += pred is None
                naive_cor_ok += naive is None
            else:
                err += 1
                err_ok += pred == label_i
                naive_err_ok += naive == label_i
            if pred is not None:
                flagged += 1
                flagged_ok += pred == label_i
                flagged_before += label_i is None or pred < label_i
                tally = by_check.setdefault(_check_kind(report, pred), Counter())
                tally["flags"] += 1
                if label_i is None:
                    tally["correct_trace"] += 1
                else:
                    tally["right" if pred == label_i else "before" if pred < label_i else "after"] += 1
            if label_i is not None:
                status = _row(report, label_i).get("status")
                labelled[
                    "a false claim shown"
                    if status == "wrong"
                    else "every claim holds (the error is not arithmetic)"
                    if status == "verified"
                    else "nothing checkable"
                ] += 1
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
            "flags_by_check": {
                k: {x: v.get(x, 0) for x in ("flags", "right", "before", "after", "correct_trace")}
                for k, v in sorted(by_check.items())
            },
            "labelled_steps": dict(sorted(labelled.items())),
            "naive_floor_f1": round(_f1(naive_err_ok, err, naive_cor_ok, cor), 4),
            "seconds": round(time.perf_counter() - start, 2),
        }
    return out


NAIVE = re.compile(r"(\d+(?:\.\d+)?)\s*([-+*/x\u00d7])\s*(\d+(?:\.\d+)?)\s*=\s*(\d+(?:\.\d+)?)")


def naive_false(text: str) -> bool:
    """The floor the issue names: find ``a op b = c`` in raw text and recompute; True if one is false."""
    for a, op, b, c in NAIVE.findall(text):
        x, y = Fraction(a), Fraction(b)
        if op == "/" and y == 0:
            continue
        value = {"+": x + y, "-": x - y, "/": x / y if y else x}.get(op, x * y)
        if value != Fraction(c):
            return True
    return False


def naive_first_wrong(steps: Sequence[str]) -> int | None:
    """The first step the naive floor flags."""
    return next((i for i, step in enumerate(steps) if naive_false(step)), None)


def _f1(err_ok: int, err: int, cor_ok: int, cor: int) -> float:
    acc_e = err_ok / err if err else 0.0
    acc_c = cor_ok / cor if cor else 0.0
    return 2 * acc_e * acc_c / (acc_e + acc_c) if acc_e + acc_c else 0.0


def _check_kind(report: Any, step: int) -> str:
    """Which check made the first flag at ``step``: an equation, a labelled line, a replay."""
    for f in report.findings:
        if f.location.step == str(step) and f.code == "COT_E001":
            source = f.evidence.get("source", "prose")
            return {"label": "a labelled line carried on", "annotation": "a <<a*b=c>> annotation"}.get(
                source, "an equation in the step"
            )
        if f.location.step == str(step) and f.code == "COT_E002":
            return "a task replay"
    return "other"


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
                    flagged_valid.append({"index": n, "evidence": _false_claim(report, first) or ""})
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
