"""Benchmark of the vericot engine (shared/spec/vericot.md V-53).

    python benchmarks/vericot_bench.py [--quick] [--workers N]

Workloads (real data under ../shared/data/logic; the script says so and stops if it is absent):

1. ProofWriter stepwise: every sentence of the 802 distinct dev+test theories is a step, checked
   against the earlier ones, no providers (14,955 steps). Per-step solver time: median, p95,
   max, throughput, and the median per KB-size bucket (scaling). Status counts are printed
   (the test suite asserts them: 14,407 ungrounded, 545 entailed, 3 contradicted).
2. The naive peer on the same steps, measured in the same run: a fresh ``z3.Solver`` per step
   that re-asserts the earlier steps (no tags, no push/pop), then ENT and CON. Ratio printed.
3. ProofWriter question mode (``forall`` encoding, ENT + CON), dev and test: per question.
4. ProntoQA chain mode with pool selection and minimisation: per step.
5. 1,200 ProofWriter label questions end to end (formalise + verify + compare), wall time,
   in one process and with ``--workers`` processes (default 2).

Benchmarks report; they never assert. Figures depend on the machine and its load (printed).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from cotaudit.vericot.config import VerifierConfig  # noqa: E402
from cotaudit.vericot.datasets import (  # noqa: E402
    DataMissing,
    iter_results,
    load_items,
    proofwriter_theories,
    run_labels,
    stepwise_trace,
)
from cotaudit.vericot.pipeline import Verifier  # noqa: E402
from cotaudit.vericot.smt import Z3_VERSION  # noqa: E402

BUCKETS = ((0, 5), (5, 10), (10, 15), (15, 20), (20, 30), (30, 10_000))


def pct(values: Sequence[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def summary(label: str, values: Sequence[float], unit: str = "ms", per: str = "step") -> None:
    if not values:
        print(f"{label}: no samples")
        return
    total_s = sum(values) / 1000.0
    thr = len(values) / total_s if total_s else float("inf")
    print(
        f"{label}: n={len(values)}  median {statistics.median(values):.2f} {unit}  p95 {pct(values, 0.95):.2f} {unit}"
        f"  max {max(values):.2f} {unit}  throughput {thr:,.0f} {per}s/s (solver time)"
    )


def stepwise(limit: int | None) -> tuple[list[float], list[int], dict[str, int], list[tuple[str, str]]]:
    theories = proofwriter_theories()[:limit] if limit else proofwriter_theories()
    verifier = Verifier(VerifierConfig(premise_providers=()))
    times: list[float] = []
    sizes: list[int] = []
    counts: dict[str, int] = {}
    for tid, ctx in theories:
        result = verifier.run(stepwise_trace(tid, ctx))
        for s in result.steps:
            times.append(s.solver_ms)
            sizes.append(s.index)
            counts[s.status] = counts.get(s.status, 0) + 1
    return times, sizes, counts, theories


def naive_peer(theories: list[tuple[str, str]]) -> list[float]:
    """A fresh solver per step, earlier steps re-asserted, ENT then CON; no tags, no push/pop."""
    import z3

    times: list[float] = []
    for tid, ctx in theories:
        trace = stepwise_trace(tid, ctx)
        assert trace.formalization is not None
        vocab = trace.formalization.vocabulary
        earlier: list[str] = []
        for sf in trace.formalization.steps:
            smt = sf.smt or ""
            start = time.perf_counter()
            c = z3.Context()
            s = z3.Solver(ctx=c)
            s.set("timeout", 2000)
            s.add(*z3.parse_smt2_string(vocab + " " + " ".join(earlier), ctx=c))
            f = z3.And(*z3.parse_smt2_string(vocab + " " + smt, ctx=c))
            s2 = z3.Solver(ctx=c)
            s2.add(s.assertions())
            s2.add(z3.Not(f))
            ent = s2.check()
            if ent != z3.unsat:
                s3 = z3.Solver(ctx=c)
                s3.add(s.assertions())
                s3.add(f)
                s3.check()
            times.append((time.perf_counter() - start) * 1000.0)
            earlier.append(smt)
    return times


def question_mode() -> None:
    """Per question: the deciding ENT + CON checks (V-53's figure), and the whole step's solver
    time including the tautology guard and support minimisation."""
    for split in ("dev", "test"):
        decide, total = [], []
        for _, result in iter_results("proofwriter", split, "classical", "question"):
            step = result.steps[0]
            decide.append(sum(c.ms for c in step.checks if c.kind in ("ent_kb", "con_kb")))
            total.append(step.solver_ms)
        summary(f"  ProofWriter {split} question mode, ENT + CON", decide, per="question")
        summary(f"  ProofWriter {split} question mode, whole step (guard + support)", total, per="question")


def prontoqa_chain(limit: int | None) -> None:
    items = load_items("prontoqa", "dev")[:limit] if limit else load_items("prontoqa", "dev")
    verifier = Verifier(VerifierConfig(premise_providers=("pool",)))
    from cotaudit.vericot.formalizers import formalize_item

    times = []
    for item in items:
        result = verifier.run(formalize_item(item, dataset="prontoqa", mode="chain"))
        times.extend(s.solver_ms for s in result.steps)
    summary("  ProntoQA chain mode (pool + minimisation)", times)


def _labels(split: str) -> tuple[int, int]:
    run = run_labels("proofwriter", split, "classical")
    return run.agree, len(run.rows)


def end_to_end(workers: int) -> None:
    start = time.perf_counter()
    res = [_labels(s) for s in ("dev", "test")]
    one = time.perf_counter() - start
    print(f"  1,200 label questions, 1 process: {one:.1f} s wall  (agree {res})")
    if workers > 1:
        start = time.perf_counter()
        with ProcessPoolExecutor(max_workers=workers) as pool:
            res = list(pool.map(_labels, ("dev", "test")))
        print(
            f"  1,200 label questions, {workers} processes: {time.perf_counter() - start:.1f} s wall  (agree {res})"
        )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="100 theories / 100 items, no end-to-end run")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    limit = 100 if args.quick else None
    print(f"vericot benchmark  z3 {Z3_VERSION}  python {sys.version.split()[0]}  cpus {os.cpu_count()}")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    try:
        wall = time.perf_counter()
        times, sizes, counts, theories = stepwise(limit)
        wall = time.perf_counter() - wall
        print(
            f"1. ProofWriter stepwise, {len(theories)} theories, {wall:.1f} s wall; statuses {dict(sorted(counts.items()))}"
        )
        summary("  engine (tagged KB, push/pop)", times)
        for lo, hi in BUCKETS:
            bucket = [t for t, k in zip(times, sizes, strict=True) if lo <= k < hi]
            if bucket:
                print(
                    f"    KB size {lo:>2}-{min(hi, 99) - 1:<2}: n={len(bucket):>5}  median {statistics.median(bucket):.2f} ms  p95 {pct(bucket, 0.95):.2f} ms"
                )
        peer = naive_peer(theories)
        summary("2. naive peer (fresh solver per step)", peer)
        print(f"  ratio naive / engine (median): {statistics.median(peer) / statistics.median(times):.2f}x")
        print("3.")
        question_mode()
        print("4.")
        prontoqa_chain(limit)
        if not args.quick:
            print("5.")
            end_to_end(args.workers)
    except DataMissing as exc:
        print(f"skipped: {exc}")
        return 0
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
