"""Benchmark of the te linter (TE-56 latency protocol) against the naive SymPy approach.

    python benchmarks/te_bench.py [--gsm8k PATH] [--repeat N]

1. Converts the GSM8K test split (TE-50) and lints every converted trace plus the spec's
   examples A–T, timing each ``lint()`` with ``perf_counter_ns`` in a warm process (20
   warm-up traces first): count, median, p95, p99, max, total and traces/s.
2. The peer, measured in the same run on the same traces: the naive approach the paper's
   implementation took, ``sympy.parse_expr`` on every EQ line, substituting the GIVEN
   values and comparing both sides with SymPy. (The benchmark feeds it only the converter's
   own, trusted output; cotaudit itself never calls ``parse_expr`` — TE-18.)
3. Scaling: synthetic traces of 10 … 990 EQ lines (the 2,000-line cap), time per trace and per line.

Benchmarks report; they never assert. Figures depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from cotaudit import te  # noqa: E402
from cotaudit.te import expr  # noqa: E402
from cotaudit.te.corpus.gsm8k import CORPUS_STYLE, convert_jsonl  # noqa: E402

DEFAULT_GSM8K = ROOT.parent / "shared" / "data" / "gsm8k" / "test.jsonl"
WARMUP = 20


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def measure(
    items: Sequence[str], fn: Callable[[str], object], rounds: int, *, cold: bool = False
) -> list[float]:
    """Milliseconds per item: for each item, the fastest of ``rounds`` passes.

    The process is warmed on 20 traces that are not measured (TE-56). With ``cold=True`` the
    expression cache is emptied before every pass, so each measured lint parses its
    expressions for the first time (a trace never seen before); the minimum over passes damps
    the scheduler and frequency noise of a shared machine, not the work.
    """
    for text in items[-WARMUP:]:
        fn(text)
    items = items[:-WARMUP] if len(items) > 2 * WARMUP else items
    best = [float("inf")] * len(items)
    for _ in range(rounds):
        if cold:
            expr._parse_cached.cache_clear()
        for i, text in enumerate(items):
            start = time.perf_counter_ns()
            fn(text)
            best[i] = min(best[i], (time.perf_counter_ns() - start) / 1e6)
    return best


def describe(name: str, ms: Sequence[float]) -> dict[str, float]:
    total = sum(ms)
    row = {
        "count": len(ms),
        "median": statistics.median(ms),
        "p95": percentile(ms, 0.95),
        "p99": percentile(ms, 0.99),
        "max": max(ms),
        "total_s": total / 1000,
        "per_s": len(ms) / (total / 1000) if total else float("inf"),
    }
    print(
        f"{name:<34} n={row['count']:>5}  median {row['median']:8.3f} ms  p95 {row['p95']:8.3f} ms  "
        f"p99 {row['p99']:8.3f} ms  max {row['max']:8.2f} ms  total {row['total_s']:6.2f} s  "
        f"{row['per_s']:9.0f} traces/s"
    )
    return row


# --- the naive peer: SymPy's string parser on every EQ line ---------------------------------

_DECL = re.compile(r"^\s*([A-Za-z_]\w*)\s*:?=\s*(.*?)\s*(\[[^\]]*\])?\s*$")
_EQ = re.compile(r"^EQ\[[^\]]*\]:\s*(.*?)\s*(\[[^\]]*\])?\s*$")


_PERCENT = re.compile(r"(\d+(?:\.\d+)?)%")


def naive_sympy_check(text: str) -> bool:
    """Evaluate each EQ's parts with parse_expr after substituting earlier values."""
    try:
        return _naive(text)
    except Exception:  # the naive parser fails on some traces; that still costs its time
        return False


def _naive(text: str) -> bool:
    from sympy import Abs, Rational, Symbol
    from sympy.parsing.sympy_parser import parse_expr

    values: dict[str, object] = {}
    ok = True
    in_given = False
    for raw in text.split("\n"):
        line = raw.strip()
        if line.startswith("GIVEN:"):
            in_given = True
            continue
        if line.startswith(("GOAL:", "STEP[", "EQ[", "CHECK[", "ANS:")):
            in_given = False
        if in_given and line:
            m = _DECL.match(line)
            if m:
                values[m.group(1)] = parse_expr(
                    _PERCENT.sub(r"(\1/100)", m.group(2)), local_dict=dict(values)
                )
            continue
        m = _EQ.match(line)
        if not m:
            continue
        parts = [p.strip() for p in re.split(r"≈|(?<![<>=!:])=(?!=)", m.group(1))]
        target, rest = parts[0], parts[1:]
        local = {k: v for k, v in values.items()} | {"Symbol": Symbol}
        local.update({f"{k}.value": v for k, v in values.items()})
        texts = [_PERCENT.sub(r"(\1/100)", re.sub(r"\b(e\d+)\.value\b", r"\1_value", p)) for p in rest]
        evaluated = [parse_expr(t, local_dict=local) for t in texts]
        for a, b in pairwise(evaluated):
            if Abs(a - b) > Rational(1, 2):
                ok = False
        values[target] = evaluated[0]
        values[f"{line[3 : line.index(']')]}_value"] = evaluated[0]
    return ok


# --- scaling ------------------------------------------------------------------------------------


def synthetic(n_eq: int) -> str:
    lines = ["GIVEN:", "  a := 3", "  b := 4 [USD]", "GOAL: r0"]
    prev = "a"
    for k in range(1, n_eq + 1):
        lines.append(f"STEP[s{k}]: step {k} (from {prev})")
        lines.append(f"EQ[e{k}]: r{k} = {prev} + {k} = {3 + k * (k + 1) // 2}")
        prev = f"r{k}"
    lines[3] = f"GOAL: {prev}"
    lines.append(f"ANS: {prev}")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gsm8k", type=Path, default=DEFAULT_GSM8K)
    parser.add_argument("--repeat", type=int, default=3, help="passes per trace; the fastest counts")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = parser.parse_args(argv)
    if not args.gsm8k.exists():
        print(f"GSM8K not found at {args.gsm8k}; pass --gsm8k PATH", file=sys.stderr)
        return 2

    start = time.perf_counter()
    converted = [c.trace for _, c in convert_jsonl(args.gsm8k, CORPUS_STYLE) if c.trace is not None]
    convert_s = time.perf_counter() - start
    print(f"converted {len(converted)} GSM8K items in {convert_s:.2f} s")
    examples = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "examples" / "te").glob("*.te"))]

    config = te.LintConfig()  # the default: fast path in-process, SymPy in the worker when needed
    te.lint(examples[0], config)  # warm once: imports and the first unit lookups
    lint = lambda t: te.lint(t, config)  # noqa: E731

    figures: dict[str, object] = {"converted": len(converted), "convert_s": round(convert_s, 3)}
    print("te linter (exact Fractions, curated units; per lint() call, warm process)")
    ours = describe("  GSM8K traces, never seen before", measure(converted, lint, args.repeat, cold=True))
    figures["gsm8k_first_sight"] = ours
    figures["gsm8k_seen_before"] = describe(
        "  GSM8K traces, seen before", measure(converted, lint, args.repeat)
    )
    figures["examples"] = describe(
        "  spec examples A-T, never seen", measure(examples, lint, args.repeat, cold=True)
    )
    flagged = sum(te.lint(t, config).verdict == "FLAG" for t in converted)
    figures["flagged"] = flagged
    print(f"  flagged {flagged} of {len(converted)} converted traces (TE-51 expects 0)")
    print("  paper's implementation (its Table, same metric): median 9 ms, p95 81 ms, max 703 ms")

    print("\npeer: naive sympy.parse_expr evaluation of the same EQ lines")
    naive = describe("  converted GSM8K traces", measure(converted, naive_sympy_check, args.repeat))
    figures["naive_sympy"] = naive
    print(
        f"\nspeed-up over the naive SymPy approach: median x{naive['median'] / ours['median']:.1f}, "
        f"p95 x{naive['p95'] / ours['p95']:.1f}, throughput x{ours['per_s'] / naive['per_s']:.1f}"
    )

    print("\nscaling: synthetic traces (two lines per EQ)")
    scaling = {}
    for n in (10, 50, 200, 500, 990):
        ms = min(measure([synthetic(n)], lint, 3))
        scaling[n] = ms
        print(f"  {n:>5} EQ lines  {ms:9.2f} ms per trace  {1000 * ms / n:8.1f} us per EQ line")
    figures["scaling_ms"] = scaling
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
