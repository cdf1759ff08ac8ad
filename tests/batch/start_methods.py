"""How long a worker takes to start under each multiprocessing start method (prints, never asserts).

    PYTHONPATH=src python tests/batch/start_methods.py [N]

A worker here is what the local pool starts: a process that has te, type6, vericot and certify
loaded and answers on its pipe. For each method it prints the first start (for ``forkserver``
that includes starting the server) and the median and maximum of the next N-1 starts. The
``forkserver`` row with the engines loaded in the server is what :class:`LocalPool` does.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import statistics
import sys
import time
from typing import Any

ENGINES = ("te", "type6", "vericot", "certify")


def _worker(conn: Any) -> None:
    from cotaudit import api

    for name in ENGINES:
        api.get_engine(name)
    conn.send(os.getpid())
    conn.recv()


def _measure(method: str, preload: list[str], n: int) -> str:
    ctx = mp.get_context(method)
    if method == "forkserver":
        ctx.set_forkserver_preload(preload)
    times = []
    for _ in range(n):
        start = time.perf_counter()
        here, there = ctx.Pipe()
        process = ctx.Process(target=_worker, args=(there,))
        process.start()
        there.close()
        here.recv()
        times.append(time.perf_counter() - start)
        here.send(None)
        process.join()
    label = f"{method}{' (engines in the server)' if preload else ''}"
    later = times[1:]
    return (
        f"{label:36s} first {times[0] * 1000:7.1f} ms   then median {statistics.median(later) * 1000:7.1f} ms"
        f"  max {max(later) * 1000:7.1f} ms"
    )


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    if len(sys.argv) > 2:  # one method per process: a fork server is process-wide
        method, preload = sys.argv[2], sys.argv[3:]
        if method == "fork":
            from cotaudit import api

            for name in ENGINES:  # the fork parent has the engines, as a forking pool's would
                api.get_engine(name)
        print(_measure(method, preload, n), flush=True)
        return
    import subprocess

    runs = [["fork"], ["spawn"], ["forkserver"], ["forkserver", "cotaudit.batch.warm"]]
    for run in runs:
        subprocess.run([sys.executable, __file__, str(n), *run], check=True)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
