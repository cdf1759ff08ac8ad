"""Benchmark of the cot engine on ProcessBench traces, beside its two peers, in one run.

    python benchmarks/cot_bench.py [--data DIR] [--repeat N]

1. ``cot.check`` on every ProcessBench GSM8K (and MATH) trace in a warm process (20 warm-up
   traces first): median, p95, max per trace, total and traces/s.
2. Peers on the same traces: the naive floor (a regex ``a op b = c`` on the raw text, each
   match recomputed with Python ``Fraction``s) and ``math-verify`` alone (its ``parse`` of the
   last step, LaTeX extraction only), when it is installed.
3. Scaling: one chain of k copies of a GSM8K trace, k = 1 … 64, time per step (linear when
   the per-step time stays flat).
4. BIG-Bench Mistake: ``cot.check`` per trace on each task file (``--bbm DIR``), with its task
   replayer (logical deduction asks Z3 about every placement claim).

Benchmarks report; they never assert. Figures depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from cotaudit.cot import check, mathverify  # noqa: E402
from cotaudit.eval.cot import naive_false  # noqa: E402


def timed(fn: Callable[[str], object], texts: Sequence[str], repeat: int) -> list[float]:
    for t in texts[:20]:
        fn(t)
    out = []
    for _ in range(repeat):
        for t in texts:
            start = time.perf_counter_ns()
            fn(t)
            out.append((time.perf_counter_ns() - start) / 1e6)
    return out


def summary(name: str, ms: list[float]) -> str:
    ms = sorted(ms)
    p95 = ms[int(0.95 * (len(ms) - 1))]
    total = sum(ms) / 1000
    return (
        f"{name:<28} n={len(ms):5d}  median {statistics.median(ms):7.3f} ms  p95 {p95:7.3f} ms  "
        f"max {ms[-1]:8.2f} ms  total {total:6.2f} s  {len(ms) / total if total else 0:8.0f}/s"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "processbench"))
    ap.add_argument("--bbm", default=str(ROOT.parent / "shared" / "data" / "bbm"))
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    for split in ("gsm8k", "math"):
        path = Path(args.data) / f"{split}.json"
        if not path.exists():
            print(f"{path}: not found, skipped")
            continue
        rows = json.loads(path.read_text())
        records = [json.dumps({"problem": r["problem"], "steps": r["steps"]}) for r in rows]
        raw = ["\n\n".join(r["steps"]) for r in rows]
        print(f"ProcessBench {split}: {len(rows)} traces")
        print(summary("cot.check (record)", timed(lambda t: check(t), records, args.repeat)))
        print(summary("naive a op b = c floor", timed(naive_false, raw, args.repeat)))
        if mathverify.available():
            from math_verify import LatexExtractionConfig, parse

            last = [r["steps"][-1][-400:] for r in rows]

            config = [LatexExtractionConfig()]

            def mv_parse(t: str, cfg: list[object] = config) -> object:
                return parse(t, extraction_config=cfg)

            print(summary("math-verify parse alone", timed(mv_parse, last, 1)))
        else:
            print("math-verify alone: not installed (pip install 'cotaudit[cot]')")
    gsm = Path(args.data) / "gsm8k.json"
    if gsm.exists():
        steps = json.loads(gsm.read_text())[0]["steps"]
        print("scaling: one chain of k copies of a GSM8K trace")
        for k in (1, 4, 16, 64):
            text = json.dumps({"steps": steps * k})
            ms = statistics.median(timed(lambda t: check(t), [text] * 5, 1))
            print(
                f"  k={k:3d}  steps={len(steps) * k:5d}  {ms:8.2f} ms  {1000 * ms / (len(steps) * k):7.1f} µs/step"
            )

    for task in (
        "dyck_languages",
        "logical_deduction",
        "multistep_arithmetic",
        "tracking_shuffled_objects",
        "word_sorting",
    ):
        path = Path(args.bbm) / f"{task}.jsonl"
        if not path.exists():
            print(f"{path}: not found, skipped")
            continue
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        records = [
            json.dumps({k: v for k, v in r.items() if k not in ("mistake_index", "source_line")})
            for r in rows
        ]
        print(summary(f"BBM {task}", timed(lambda t, task=task: check(t, task=task), records, 1)))


if __name__ == "__main__":
    main()
