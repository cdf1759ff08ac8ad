"""``cotaudit batch`` on 5 items, run many times: wall time per run (prints, exit 1 over the bound).

    PYTHONPATH=$PWD/src python tests/batch/startup_runs.py [--runs 20] [--bound 15]

Issue 14: with ``--workers 1`` four runs of five took ~121 s (a worker forked under another
thread's import lock hung until the 120 s start timeout). This runs the real command in a fresh
interpreter ``--runs`` times with ``--workers 1`` and as many with ``--workers 2`` on five te
examples, prints every wall time and the maximum, and exits 1 if any run took ``--bound``
seconds or more (or failed).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="runs per worker count (default 20)")
    parser.add_argument("--bound", type=float, default=15.0, help="seconds a run must stay under")
    args = parser.parse_args()
    examples = sorted((REPO / "examples" / "te").glob("*.te"))[:5]
    env = {k: v for k, v in os.environ.items() if k != "COTAUDIT_DEBUG"}
    env["PYTHONPATH"] = str(REPO / "src") + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    worst = 0.0
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        items = Path(tmp) / "items.jsonl"
        with items.open("w", encoding="utf-8") as fh:
            for path in examples:
                fh.write(
                    json.dumps({"id": path.stem, "engine": "te", "text": path.read_text("utf-8")}) + "\n"
                )
        for workers in (1, 2):
            times = []
            for n in range(args.runs):
                out = Path(tmp) / f"run-{workers}-{n}.jsonl"
                command = [sys.executable, "-m", "cotaudit", "batch", str(items), "-o", str(out)]
                start = time.monotonic()
                done = subprocess.run(
                    [*command, "--workers", str(workers), "--no-timing", "--quiet"],
                    env=env,
                    capture_output=True,
                    timeout=300,
                    check=False,
                )
                elapsed = time.monotonic() - start
                times.append(elapsed)
                lines = out.read_bytes().count(b"\n") if out.exists() else 0
                if done.returncode not in (0, 1) or lines != 1 + len(examples) or elapsed >= args.bound:
                    bad += 1
                    print(f"  run {n}: exit {done.returncode}, {lines} lines: {done.stderr.decode()[-300:]}")
            worst = max(worst, *times)
            print(
                f"--workers {workers}: {args.runs} runs, max {max(times):.2f} s, "
                f"min {min(times):.2f} s, mean {sum(times) / len(times):.2f} s"
            )
    print(f"max wall time of {2 * args.runs} runs: {worst:.2f} s (bound {args.bound:g} s); {bad} bad")
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
