"""Benchmarks C-114 (cached query latency) and C-115 (recheck linear in certificate size).

    python benchmarks/certify/bench_serving.py [--runs 5] [--only c114,c115] [--max-size 100000]

C-114: a warm state holding 1,000 cache entries; 10,000 kernel-only queries served from the
cache with the default buffered audit; prints median and p95 per hit (target p95 < 1 ms).
C-115: certificates of chains, binary trees and shared DAGs with 10 … 10⁵ nodes; the median
recheck time per size over ``--runs`` runs, a least-squares fit t = a + b·size with R², and the
10⁵-node time (target < 2 s). Prints figures and the load average; never asserts.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

from cotaudit.certify.engine.evaluation import evaluate
from cotaudit.certify.interface.model import simple_interface
from cotaudit.certify.lang.grammar import Limits
from cotaudit.certify.lang.parse import parse_literal, parse_program
from cotaudit.certify.proof.kernelview import KernelView
from cotaudit.certify.proof.recheck import recheck
from cotaudit.certify.sources.records import Evidence, SourceRecord
from cotaudit.certify.state.config import CertifyConfig
from cotaudit.certify.state.machine import CertState


def load() -> str:
    a, b, c = os.getloadavg()
    return f"load average {a:.2f} {b:.2f} {c:.2f}"


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def c114(entries: int = 1000, hits: int = 10_000) -> None:
    t_start = time.perf_counter()
    iface = simple_interface({"p": 1, "q": 1}, ["p"])
    # ρ = 0.25 so that four requests before a tick pass the threshold f_c = ρ·ln(3 + …) (C-61)
    state = CertState.open(":memory:", iface, CertifyConfig(half_life_ticks=1, rho=0.25))
    facts = "".join(f"p(k{i}).\n" for i in range(entries))
    state.add_record(SourceRecord("src", "facts", facts + "[r] q(X) :- p(X).\n"))
    state.admit_batch([(line, Evidence("src"), "deploy", None) for line in facts.splitlines()])
    state.admit("[r] q(X) :- p(X).", Evidence("src"))
    for _ in range(4):  # warm the frequencies past the caching threshold
        for i in range(entries):
            state.query(f"q(k{i})")
    state.tick()
    for i in range(entries):
        state.query(f"q(k{i})")
    cached = len(state.cache)
    print(
        f"C-114 warm-up done: {cached} entries cached in {time.perf_counter() - t_start:.1f} s "
        f"({5 * entries} queries, {entries} caching decisions) ({load()})",
        flush=True,
    )
    times: list[float] = []
    statuses: dict[str, int] = {}
    for h in range(hits):
        t0 = time.perf_counter()
        r = state.query(f"q(k{h % entries})")
        times.append(time.perf_counter() - t0)
        statuses[r.status.value] = statuses.get(r.status.value, 0) + 1
    print(
        f"C-114 cached query: {cached} entries, {hits} queries {statuses}  "
        f"median {1e3 * statistics.median(times):.3f} ms  p95 {1e3 * pct(times, 0.95):.3f} ms  "
        f"(target p95 < 1 ms)  ({load()})"
    )


def chain(n: int) -> tuple[str, str]:
    lines = ["reach(n0)."] + [f"e(n{i}, n{i + 1})." for i in range(n)]
    lines.append("[step] reach(Y) :- reach(X), e(X, Y).")
    return "\n".join(lines), f"reach(n{n})"


def tree(n: int) -> tuple[str, str]:
    """A complete binary tree of internal nodes 0..n-1; leaves are t facts."""
    lines = ["[node] t(X) :- kids(X, A, B), t(A), t(B)."]
    for i in range(n):
        a, b = 2 * i + 1, 2 * i + 2
        lines.append(f"kids(v{i}, v{a}, v{b}).")
        for c in (a, b):
            if c >= n:
                lines.append(f"t(v{c}).")
    return "\n".join(lines), "t(v0)"


def shared(n: int) -> tuple[str, str]:
    """d(i) :- d(i-1), d(i-2): every node is shared by two parents."""
    lines = ["d(w0).", "d(w1).", "[fib] d(X) :- prev(X, A, B), d(A), d(B)."]
    lines += [f"prev(w{i}, w{i - 1}, w{i - 2})." for i in range(2, n)]
    return "\n".join(lines), f"d(w{n - 1})"


def certificate(text: str, target: str) -> tuple[dict[str, Any], KernelView]:
    units = parse_program(text, Limits(max_bytes=1 << 26, max_units=1_000_000))
    closure = evaluate(units)
    cert = closure.certificate(parse_literal(target), 10**9)
    return cert, KernelView(0, {i + 1: u for i, u in enumerate(units)})


def fit(xs: list[float], ys: list[float]) -> tuple[float, float, float]:
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    a = my - b * mx
    ss_tot = sum((y - my) ** 2 for y in ys)
    ss_res = sum((y - a - b * x) ** 2 for x, y in zip(xs, ys, strict=True))
    return a, b, 1 - ss_res / ss_tot if ss_tot else 1.0


def c115(runs: int, max_size: int) -> None:
    sizes = [s for s in (10, 100, 1_000, 10_000, 100_000) if s <= max_size]
    for name, make, per in (("chain", chain, 2), ("tree", tree, 2), ("shared", shared, 1)):
        xs: list[float] = []
        ys: list[float] = []
        for size in sizes:
            cert, kernel = certificate(*make(max(2, size // per)))
            nodes = len(cert["nodes"])
            times = []
            for _ in range(runs):
                t0 = time.perf_counter()
                report = recheck(cert, kernel, delta=10**9)
                times.append(time.perf_counter() - t0)
            assert report.ok, report  # a benchmark of a failing check would be meaningless
            xs.append(nodes)
            ys.append(statistics.median(times))
            print(
                f"C-115 {name:<6} {nodes:>7} nodes  recheck median {ys[-1]:.4f} s  p95 {pct(times, 0.95):.4f} s"
            )
        a, b, r2 = fit(xs, ys)
        print(f"C-115 {name:<6} fit t = {a:.5f} + {b * 1e6:.3f} µs·size   R² = {r2:.4f}   ({load()})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default="c114,c115")
    ap.add_argument("--max-size", type=int, default=100_000)
    ap.add_argument("--entries", type=int, default=1000, help="C-114 cache entries (spec: 1,000)")
    args = ap.parse_args()
    only = set(args.only.split(","))
    if "c114" in only:
        c114(entries=args.entries)
    if "c115" in only:
        c115(args.runs, args.max_size)


if __name__ == "__main__":
    main()
