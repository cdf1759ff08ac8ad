"""Run the cot engine on freshly generated items and tabulate, per task / style / phrasing:
false alarms on correct traces (verdict ``fail``: must be 0), abstentions, and the injected
mistakes caught at their step.

    PYTHONPATH=src python -m tests.cot.fresh.measure [--per-cell N] [--seed S] [--show K]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict

from tests.cot.fresh.gen import Item, items

from cotaudit.cot.engine import audit


def run(item: Item, with_task: bool = True) -> dict[str, object]:
    if item.task == "arithmetic":
        return audit("\n".join(item.steps), record=False)
    return audit(json.dumps(item.record(with_task)), record=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--per-cell", type=int, default=6)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--show", type=int, default=3, help="false alarms printed per cell")
    ap.add_argument("--task", action="append")
    ap.add_argument("--no-task-field", action="store_true", help="let the engine recognise the task")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    tasks = tuple(args.task) if args.task else None
    its = items(args.seed, args.per_cell, tasks) if tasks else items(args.seed, args.per_cell)
    table: dict[tuple[str, str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    shown: dict[tuple[str, str, str], int] = defaultdict(int)
    for it in its:
        key = (it.task, it.style, it.phrasing)
        row = table[key]
        r = run(it, not args.no_task_field)
        verdict = r["verdict"]
        first = r["details"]["first_wrong_step"]  # type: ignore[index]
        wrong_steps = r["details"]["wrong_steps"]  # type: ignore[index]
        if it.mistake is None:
            row["correct"] += 1
            row["false_alarm"] += verdict == "fail"
            row["abstain"] += verdict == "abstain"
            if verdict == "fail" and shown[key] < args.show:
                shown[key] += 1
                msgs = [f.message for f in r["findings"] if f.severity == "error"]  # type: ignore[attr-defined]
                print(
                    f"FALSE ALARM {key}: {msgs[:2]}\n  problem={it.problem[:160]!r}\n  steps={it.steps[:6]}",
                    file=sys.stderr,
                )
        else:
            row["mistaken"] += 1
            row["caught"] += first == it.mistake
            row["flag_elsewhere"] += first is not None and first != it.mistake
            if first is not None and first < it.mistake:
                row["early_flag"] += 1
                if shown[key] < args.show:
                    shown[key] += 1
                    msgs = [f.message for f in r["findings"] if f.severity == "error"]  # type: ignore[attr-defined]
                    print(
                        f"EARLY FLAG {key} (mistake at {it.mistake}): {msgs[:2]}\n  steps={it.steps[:8]}",
                        file=sys.stderr,
                    )
            _ = wrong_steps
    print(
        "| task | style | phrasing | correct | false alarms | abstain | mistaken | caught at step | flagged elsewhere | flagged before the mistake |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    total_fa = 0
    for key in sorted(table):
        row = table[key]
        total_fa += row["false_alarm"]
        print(
            f"| {' | '.join(key)} | {row['correct']} | {row['false_alarm']} | {row['abstain']} | {row['mistaken']} | "
            f"{row['caught']} | {row['flag_elsewhere']} | {row['early_flag']} |"
        )
    print(f"\nfalse alarms in all: {total_fa} of {sum(r['correct'] for r in table.values())} correct traces")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"|".join(k): dict(v) for k, v in table.items()}, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
