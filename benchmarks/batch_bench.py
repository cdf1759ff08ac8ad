"""Batch throughput: items/s on 1 and 2 local workers and on Ray with 2 workers, in one run.

    python benchmarks/batch_bench.py [--items N] [--repeat R] [--no-ray] [--synthetic MS] [--ignore CODES]

The items are the bundled examples of every engine that runs here (te, type6, certify ...),
repeated to N items with distinct ids. For each backend the pool is started and warmed first —
every worker loads its engines and sees each distinct example twice (te starts its SymPy worker
process on the first trace that needs it) — and only then is ``run_batch`` timed, writing a real
run log. The configurations take turns, round after round (``--repeat`` rounds), so a change in the
machine's load hits all of them alike; the median per configuration is reported, with the
speed-up over one local worker. Benchmarks report; they never assert. Figures depend on the
machine, so the run also measures the machine's own ceiling — the speed-up of two processes
that only burn CPU over one — and prints the load average: on a shared or throttled machine
that ceiling, not the pool, bounds what two workers can show. ``--synthetic MS`` replaces the
examples by items that only wait MS milliseconds: the pool's own parallelism and overhead,
measured without competing for the CPU. ``--ignore CODES`` runs under that rule selection (as
``cotaudit batch --ignore``): what selecting in the workers costs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from cotaudit import api  # noqa: E402
from cotaudit.batch.jobs import Payload  # noqa: E402
from cotaudit.batch.runner import Backend, BatchOptions, run_batch  # noqa: E402
from cotaudit.report import InputRef, Report  # noqa: E402
from cotaudit.selection import Selection  # noqa: E402


def examples() -> list[tuple[str, str, str]]:
    """(engine, id, text) for every example file whose engine runs here (R-3 detection, so a
    newly registered engine's examples join without a change here)."""
    found = []
    for path in sorted((ROOT / "examples").rglob("*")):
        engine = api.engine_for_path(path) if path.is_file() else None
        if engine is None:
            continue
        try:
            api.get_engine(engine)
        except Exception:
            continue
        found.append((engine, path.stem, path.read_text(encoding="utf-8")))
    return found


def sleep_check(text: str, *, path: str | None = None, item_id: str | None = None) -> Report:
    """The ``--synthetic`` engine: waits ``text`` milliseconds, then passes (no CPU used)."""
    time.sleep(float(text) / 1000)
    return Report("benchsleep", "benchsleep/1", InputRef.for_text(text, path, item_id), "pass")


def synthetic(ms: float) -> list[tuple[str, str, str]]:
    """Items of the waiting engine, registered by name so Ray's workers can import it too."""
    here = str(Path(__file__).resolve().parent)
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH")) if p)
    sys.path.insert(0, here)
    api.register_engine("benchsleep", "batch_bench:sleep_check", (".benchsleep",))
    return [("benchsleep", "wait", f"{ms:g}")]


def write_items(path: Path, base: list[tuple[str, str, str]], n: int) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for k in range(n):
            engine, stem, text = base[k % len(base)]
            fh.write(json.dumps({"id": f"{stem}-{k}", "engine": engine, "text": text}) + "\n")


def warm(pool: Backend, base: list[tuple[str, str, str]]) -> None:
    futures = [pool.submit(Payload(e, t, None, f"warm-{r}-{i}")) for r in range(2) for e, i, t in base]
    for f in futures:
        f.result()


def measure_once(
    make: Callable[[], Backend],
    items: Path,
    base: list[tuple[str, str, str]],
    selection: Selection | None = None,
) -> float:
    """Items/s of one timed run on a freshly started, warmed backend."""
    with tempfile.TemporaryDirectory() as tmp:
        pool = make()
        try:
            warm(pool, base)
            out = str(Path(tmp) / "out.jsonl")
            options = BatchOptions(
                input=str(items), output=out, timeout=120.0, selection=selection or Selection()
            )
            start = time.perf_counter()
            result = run_batch(options, backend=pool)
            return result.checked / (time.perf_counter() - start)
        finally:
            pool.close()


def _burn(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i
    return total


def cpu_ceiling(n: int = 5_000_000) -> float:
    """Speed-up of two CPU-burning processes over one: what two workers could show at best."""
    import multiprocessing as mp

    start = time.perf_counter()
    _burn(n)
    one = time.perf_counter() - start
    with mp.get_context("fork").Pool(2) as pool:
        start = time.perf_counter()
        pool.map(_burn, [n, n])
        two = time.perf_counter() - start
    return 2 * one / two


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-ray", action="store_true")
    parser.add_argument(
        "--synthetic",
        type=float,
        metavar="MS",
        help="items that only wait MS milliseconds instead of the examples: the pool's parallelism "
        "without the CPU, so the figures do not depend on how busy the machine is",
    )
    parser.add_argument("--ignore", metavar="CODES", help="run under this selection, e.g. TE_E006,T6_W2")
    args = parser.parse_args(argv)
    codes = [c for c in (args.ignore or "").split(",") if c]
    selection = Selection.of(None, (), codes)
    base = synthetic(args.synthetic) if args.synthetic is not None else examples()
    engines = sorted({e for e, _, _ in base})
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"machine: {os.cpu_count()} cores, load average {load}; CPU ceiling for 2 processes: {cpu_ceiling():.2f}x"
    )
    what = f"a {args.synthetic:g} ms wait each" if args.synthetic is not None else f"{len(base)} examples"
    print(f"items: {args.items} from {what} ({', '.join(engines)})")
    if codes:
        print(f"selection: --ignore {','.join(selection.ignore)}")
    from cotaudit.batch.pool import LocalPool

    configs: list[tuple[str, Callable[[], Backend]]] = [
        ("local, 1 worker", lambda: LocalPool(1, timeout=120.0, preload=engines)),
        ("local, 2 workers", lambda: LocalPool(2, timeout=120.0, preload=engines)),
    ]
    if not args.no_ray:
        try:
            from cotaudit.batch.ray_backend import RayPool

            configs.append(("ray, 2 workers", lambda: RayPool(2, timeout=120.0, preload=engines)))
        except Exception as exc:  # ray not installed
            print(f"ray: skipped ({exc})")
    with tempfile.TemporaryDirectory() as tmp:
        items = Path(tmp) / "items.jsonl"
        write_items(items, base, args.items)
        rates: dict[str, list[float]] = {name: [] for name, _ in configs}
        for round_ in range(args.repeat):
            for name, make in configs:
                rates[name].append(measure_once(make, items, base, selection))
            print(
                f"round {round_ + 1}: " + ", ".join(f"{n} {r[-1]:.1f}" for n, r in rates.items()), flush=True
            )
    print(f"{'backend':<18} {'median items/s':>15} {'runs':>28} {'speed-up':>9}")
    one = statistics.median(rates["local, 1 worker"])
    for name, runs in rates.items():
        median = statistics.median(runs)
        shown = ", ".join(f"{r:.1f}" for r in runs)
        print(f"{name:<18} {median:>15.1f} {shown:>28} {median / one:>8.2f}x")
    print(
        f"after: load average {', '.join(f'{x:.1f}' for x in os.getloadavg())}; CPU ceiling {cpu_ceiling():.2f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
