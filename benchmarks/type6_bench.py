"""Benchmark of the type6 verifier (Y-96 … Y-100).

    python benchmarks/type6_bench.py [--rounds N] [--quick]

1. Generates the benchmark traces deterministically: a seeded repetition of an 11-statement
   block that uses every operator (K, B, ?, R, N, NOT, IF, THEN, AND, OR) and revisits one
   proposition per block, wrapped in ``T q … THEN a`` and cut to exactly N statements.
2. Times Y-96's core (parse + BuildGraph + VerifierStep + trace-level signals) on 55
   statements, and ``verify(text, Config(path_mode="off"))`` — the core plus the result
   document — on 55, 1,000 and 10,000 statements (Y-96, Y-97), and the full pipeline with
   ``path_mode="auto"`` on 55 statements (Y-99).
3. Adversarial inputs (Y-98): many revisits with parallel edges, and 100,000 statements,
   each reported with its wall time and path mode.

Each figure is the median (and p95, and the fastest run) over ``rounds`` timed runs after warm-up
runs in the same process, in wall-clock time, plus the median of the process's CPU time (on a
shared machine the wall clock also counts time spent waiting for a core). Throughput is
statements per second at the wall-clock median. Benchmarks report; they never assert. Figures
depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from cotaudit import type6  # noqa: E402
from cotaudit.type6.signals import run_sequential, trace_events  # noqa: E402

SEED = 20260601


def block(k: int, rng: random.Random) -> list[str]:
    """Eleven statements over fresh propositions ``b<k>_1 …`` using every operator; one revisit.

    The loopback comes third, so cutting the last block anywhere never leaves the closing
    ``THEN a`` without an antecedent.
    """
    x = [f"b{k}_{j}" for j in range(1, 9)]
    v = "F" if rng.random() < 0.3 else "T"
    return [
        f"T  K {x[0]} : I know fact {k}.1.",
        f"{rng.choice('TTF')}  B {x[1]} : I believe fact {k}.2.",
        "Uk R : Let me go back.",
        f"T  IF {x[2]} : If condition {k}.3 holds,",
        f"T  AND {x[3]} : and condition {k}.4 holds,",
        f"{rng.choice('TF')}  OR NOT {x[4]} : or {k}.5 does not,",
        f"T  THEN {x[5]} : then consequence {k}.6 follows.",
        "Uk N : Hmm.",
        f"{rng.choice(['T', 'Uk'])}  ? {x[6]} : Is {k}.7 true?",
        f"{v}  {x[0]} : Fact {k}.1 again.",
        f"{v}  THEN {x[7]} : So {k}.8.",
    ]


def trace(n: int, seed: int = SEED) -> str:
    """Exactly ``n`` statements: ``T q``, blocks, ``T THEN a``."""
    rng = random.Random(seed)
    body: list[str] = []
    k = 0
    while len(body) < n - 2:
        k += 1
        body += block(k, rng)
    lines = ["#@ id: bench", "T  q : The question.", *body[: n - 2], "T  THEN a : So the answer."]
    return "\n".join(lines) + "\n"


def adversarial_revisits(pairs: int) -> str:
    """Two propositions revisited alternately: parallel jump edges, exponentially many paths."""
    lines = ["T q : Q", "T p1 : x"]
    for _ in range(pairs):
        lines += ["T p2 : y", "T p1 : x"]
    return "\n".join([*lines, "T THEN a : so a"]) + "\n"


def adversarial_fan(width: int) -> str:
    """One proposition revisited ``width`` times in a row: ``width`` parallel self-loops."""
    return "\n".join(["T q : Q", "T p1 : x", *(["T p1 : x"] * width), "T THEN a : so"]) + "\n"


def core(text: str) -> object:
    """Y-96's scope: parse, BuildGraph, VerifierStep and the trace-level signals (no paths, no
    result document)."""
    run = run_sequential(type6.parse_t6(text).statements)
    return trace_events(run)


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


class Timing(NamedTuple):
    """Milliseconds per run: wall clock and this process's CPU time (the two differ when other
    processes compete for the cores; CPU time is the "one core" figure)."""

    wall: list[float]
    cpu: list[float]


def timed(fn: Callable[[], object], rounds: int, warmup: int) -> Timing:
    for _ in range(warmup):
        fn()
    wall, cpu = [], []
    for _ in range(rounds):
        start, start_cpu = time.perf_counter_ns(), time.process_time_ns()
        fn()
        cpu.append((time.process_time_ns() - start_cpu) / 1e6)
        wall.append((time.perf_counter_ns() - start) / 1e6)
    return Timing(wall, cpu)


def interleaved(
    small: Callable[[], object], large: Callable[[], object], rounds: int
) -> tuple[Timing, Timing]:
    """``rounds`` times: three timed runs of ``small``, then one of ``large`` (after one warm-up each)."""
    small(), large()
    a, b = Timing([], []), Timing([], [])
    for _ in range(rounds):
        for fn, into in ((small, a), (small, a), (small, a), (large, b)):
            start, start_cpu = time.perf_counter_ns(), time.process_time_ns()
            fn()
            into.cpu.append((time.process_time_ns() - start_cpu) / 1e6)
            into.wall.append((time.perf_counter_ns() - start) / 1e6)
    return a, b


def row(name: str, n: int, t: Timing) -> str:
    med, cpu = statistics.median(t.wall), statistics.median(t.cpu)
    return (
        f"| {name} | {n:,} | {med:.3f} ms | {percentile(t.wall, 0.95):.3f} ms | {min(t.wall):.3f} ms "
        f"| {cpu:.3f} ms | {n / (med / 1000):,.0f} stmt/s |"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200, help="timed runs of the 55-statement trace")
    parser.add_argument("--quick", action="store_true", help="fewer rounds for the large traces")
    args = parser.parse_args(argv)
    off = type6.Config(path_mode="off")
    auto = type6.Config()
    t55, t1k, t10k = trace(55), trace(1_000), trace(10_000)
    big_rounds = 5 if args.quick else 15
    print(f"load average before the run: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print()
    print("| pipeline | statements | median (wall) | p95 (wall) | fastest | median (CPU) | throughput |")
    print("|---|---|---|---|---|---|---|")
    core55 = timed(lambda: core(t55), args.rounds, 50)
    print(row("core: parse + BuildGraph + VerifierStep + trace signals (Y-96)", 55, core55))
    ms55 = timed(lambda: type6.verify(t55, off), args.rounds, 50)
    print(row("verify, path_mode=off, with the result document", 55, ms55))
    # Y-97's ratio: the 1,000- and 10,000-statement runs alternate (three short runs, then one
    # long one), so that both sizes see the same machine state; timed separately, a drift in
    # the machine's speed between the two blocks shows up as a false non-linearity.
    ms1k, ms10k = interleaved(lambda: type6.verify(t1k, off), lambda: type6.verify(t10k, off), big_rounds)
    print(row("verify, path_mode=off", 1_000, ms1k))
    print(row("verify, path_mode=off (Y-97)", 10_000, ms10k))
    ms55a = timed(lambda: type6.verify(t55, auto), max(20, args.rounds // 4), 5)
    print(row("verify, path_mode=auto (Y-99)", 55, ms55a))
    ratio = statistics.median(ms10k.wall) / statistics.median(ms1k.wall)
    ratio_cpu = statistics.median(ms10k.cpu) / statistics.median(ms1k.cpu)
    print()
    print(
        f"scaling ratio time(10,000) / time(1,000) = {ratio:.2f} wall, {ratio_cpu:.2f} CPU "
        "(Y-97: <= 12; 10 is linear)"
    )
    r55 = type6.verify(t55, auto)
    print(
        f"55-statement trace: {r55.summary['paths']['count']} paths ({r55.summary['paths']['mode']}), "
        f"events {r55.summary['event_counts']}"
    )
    print()
    print("| adversarial input (Y-98) | statements | wall time | path mode | W07 |")
    print("|---|---|---|---|---|")
    for name, text in (
        ("40 alternating revisits of two propositions", adversarial_revisits(40)),
        ("2,000 parallel self-loops", adversarial_fan(2_000)),
        ("10,000-statement benchmark trace, path_mode=auto", t10k),
        ("100,000-statement benchmark trace, path_mode=off", trace(100_000)),
    ):
        config = off if "path_mode=off" in name else auto
        start = time.perf_counter()
        result = type6.verify(text, config)
        wall = time.perf_counter() - start
        s = result.summary
        w07 = "yes" if "T6_W07" in s["event_counts"] else "no"
        print(f"| {name} | {s['n_statements']:,} | {wall:.2f} s | {s['paths']['mode']} | {w07} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
