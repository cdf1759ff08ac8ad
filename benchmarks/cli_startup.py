"""Start-up of the command line: a single-file ``cotaudit check`` of every bundled te example.

    python benchmarks/cli_startup.py [--runs N] [--examples GLOB] [--src OTHER/src]

Each measured run is a whole process (``python -m cotaudit check FILE``), timed from spawn to
exit with ``perf_counter``. The peer, measured in the same run and interleaved with it, is
``python -c 'import json'``: the interpreter's own start-up on this machine, so the ratio
says how much cotaudit adds whatever the machine's speed. Runs of the two alternate, so a
noisy neighbour slows both alike. Prints median / p95 / min per command and the ratio of the
medians; with ``--imports`` it also lists the heavy third-party modules the check imported.

Byte code is cached (in a temporary ``PYTHONPYCACHEPREFIX``) as it is for an installed package.
Benchmarks report; they never assert. Figures depend on the machine.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("pint", "sympy", "z3", "networkx", "numpy", "lark", "pydantic", "rich", "scipy", "mpmath")


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def wall_ms(argv: Sequence[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return (time.perf_counter() - start) * 1000.0


def heavy_imports(path: Path, env: dict[str, str]) -> list[str]:
    """The heavy modules a check of ``path`` imports, and ``sympy-worker`` when it starts te's
    SymPy process (a symbolic trace)."""
    code = (
        "import io, sys, contextlib\n"
        "from cotaudit.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()): main(['check', {str(path)!r}])\n"
        "from cotaudit.te import worker\n"
        "names = {m.split('.')[0] for m in sys.modules} | ({'sympy-worker'} if worker.worker_pid() else set())\n"
        "print(' '.join(sorted(names)), file=sys.stderr)"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    loaded = set(proc.stderr.split())
    return [name for name in (*HEAVY, "sympy-worker") if name in loaded]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=21, help="measured runs per example (default 21)")
    parser.add_argument("--examples", default="examples/te/*.te", help="te files to check")
    parser.add_argument("--imports", action="store_true", help="also list the heavy modules imported")
    parser.add_argument(
        "--src", type=Path, default=ROOT / "src", help="the cotaudit source tree to time (default: this one)"
    )
    args = parser.parse_args()
    # Byte-code caches as an installed package has them (a shell with PYTHONDONTWRITEBYTECODE
    # would otherwise compile every module from source on every run), kept out of the tree.
    cache = tempfile.mkdtemp(prefix="cotaudit-pyc-")
    env = {**os.environ, "PYTHONPATH": str(args.src.resolve()), "PYTHONPYCACHEPREFIX": cache}
    env.pop("COTAUDIT_DEBUG", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    files = sorted(ROOT.glob(args.examples))
    baseline: list[float] = []
    per_file: dict[str, list[float]] = {}
    peer = [sys.executable, "-c", "import json"]
    for _ in range(2):  # warm the page cache and .pyc files; not measured
        wall_ms(peer, env)
        wall_ms([sys.executable, "-m", "cotaudit", "check", str(files[0])], env)
    rng = random.Random(18)
    for _ in range(args.runs):
        # A shuffled order each round, so a slow neighbour (or a SymPy worker still winding
        # down) does not always land on the same example.
        for path in rng.sample(files, len(files)):
            baseline.append(wall_ms(peer, env))
            per_file.setdefault(path.name, []).append(
                wall_ms([sys.executable, "-m", "cotaudit", "check", str(path)], env)
            )
    every = [ms for runs in per_file.values() for ms in runs]
    base_median = statistics.median(baseline)
    print(
        f"{len(files)} examples x {args.runs} runs, Python {sys.version.split()[0]}, {os.cpu_count()} cores"
    )
    print(f"{'command':<44} {'median':>8} {'p95':>8} {'min':>8}  ratio")
    print(
        f"{'python -c import json':<44} {base_median:8.1f} {percentile(baseline, 0.95):8.1f} "
        f"{min(baseline):8.1f}  1.00"
    )
    for name, runs in per_file.items():
        median = statistics.median(runs)
        label = f"cotaudit check {name}"
        print(
            f"{label:<44} {median:8.1f} {percentile(runs, 0.95):8.1f} {min(runs):8.1f}  "
            f"{median / base_median:.2f}"
        )
    median = statistics.median(every)
    print(
        f"{'cotaudit check (all examples)':<44} {median:8.1f} {percentile(every, 0.95):8.1f} "
        f"{min(every):8.1f}  {median / base_median:.2f}"
    )
    print(f"worst per-example median: {max(statistics.median(r) for r in per_file.values()):.1f} ms")
    if args.imports:
        symbolic = []
        for path in files:
            heavy = heavy_imports(path, env)
            if "sympy-worker" in heavy:
                symbolic.append(path.name)
            print(f"{path.name}: heavy imports: {' '.join(heavy) or '-'}")
        exact = [ms for name, runs in per_file.items() if name not in symbolic for ms in runs]
        if exact and symbolic:
            m = statistics.median(exact)
            print(
                f"without the {len(symbolic)} symbolic examples ({', '.join(symbolic)}): median {m:.1f} ms, "
                f"p95 {percentile(exact, 0.95):.1f} ms, ratio {m / base_median:.2f}"
            )


if __name__ == "__main__":
    main()
