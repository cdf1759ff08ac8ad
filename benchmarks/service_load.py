"""Service latency under load, on loopback only: N requests, C at a time, against a fresh server.

    python benchmarks/service_load.py [--requests 2000] [--concurrency 8] [--workers 2]
    python benchmarks/service_load.py --half-open 600 --slowloris 20 [--read-timeout 10]
    python benchmarks/service_load.py --heavy 5 [--item-timeout 120]

Starts ``cotaudit serve`` on 127.0.0.1 with a free port, warms it with 200 requests, then sends
``--requests`` POST /v1/check requests (the te and type6 examples in turn) from
``--concurrency`` threads, each with its own keep-alive connection, while a prober asks
``GET /v1/health`` on a fresh connection every 50 ms. Prints throughput, request and health
latency percentiles and the server's memory, open files and worker count before and after,
then stops the server. With ``--half-open``/``--slowloris`` the run happens under attack:
``tests/service/hostile.py`` (its own process) holds that many half-open and slowloris
connections open, re-opening each one the server closes, and its summary is printed too. With
``--heavy N`` the measured requests are instead N checks, one at a time, of a 560 KB type6 trace
whose report is about 40 MB (:func:`heavy_type6`): what health does while such a report comes
back from a worker and is shortened to the response limit. The
load is bounded in count and aimed at 127.0.0.1 only. Benchmarks report; they never assert
(tests/service/test_load.py does).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ROOT / "tests" / "service" / "hostile.py"


def corpus() -> list[dict[str, str]]:
    bodies = []
    for path in sorted((ROOT / "examples").rglob("*")):
        engine = {".te": "te", ".t6": "type6"}.get(path.suffix)
        if engine and path.name != "O_parametric.te":  # seconds of SymPy: measured by te_bench
            bodies.append({"engine": engine, "text": path.read_text(encoding="utf-8"), "id": path.stem})
    return bodies


def heavy_type6(lines: int = 40_000) -> dict[str, str]:
    """A 560 KB type6 trace of ``lines`` alternating ``T  K p0 : f`` / ``T  K NOT p0 : f`` lines."""
    text = "".join("T  K NOT p0 : f\n" if n % 2 else "T  K p0 : f\n" for n in range(lines))
    return {"engine": "type6", "text": text, "id": "heavy"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_stats(pid: int) -> str:
    fields = dict(
        ln.split(":", 1) for ln in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in ln
    )
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    kids = sum(
        1
        for p in os.listdir("/proc")
        if p.isdigit() and os.path.exists(f"/proc/{p}/stat") and _ppid(p) == pid
    )
    return f"rss {int(fields['VmRSS'].split()[0]) / 1024:.1f} MiB, {fds} open files, {kids} workers"


def _ppid(pid: str) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return -1


def hammer(url: str, bodies: list[dict[str, str]], n: int, concurrency: int) -> tuple[list[float], int]:
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    counter = iter(range(n))

    def run() -> None:
        nonlocal errors
        with httpx.Client(base_url=url, timeout=120) as client:
            while (k := _next(counter, lock)) is not None:
                start = time.perf_counter()
                try:
                    ok = client.post("/v1/check", json=bodies[k % len(bodies)]).status_code == 200
                except httpx.HTTPError:
                    ok = False
                with lock:
                    latencies.append(time.perf_counter() - start)
                    errors += not ok

    threads = [threading.Thread(target=run) for _ in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies, errors


def _next(counter: object, lock: threading.Lock) -> int | None:
    with lock:
        return next(counter, None)  # type: ignore[call-overload]


def percentile(sorted_ms: list[float], q: float) -> float:
    return sorted_ms[max(0, int(q * len(sorted_ms)) - 1)]


def probe_health(port: int, stop: threading.Event, latencies: list[float], failures: list[str]) -> None:
    """GET /v1/health on a fresh connection every 50 ms until ``stop``."""
    while not stop.is_set():
        start = time.perf_counter()
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", "/v1/health")
            status = conn.getresponse().status
            conn.close()
            if status != 200:
                failures.append(str(status))
        except OSError as exc:
            failures.append(type(exc).__name__)
        latencies.append(time.perf_counter() - start)
        stop.wait(0.05)


def start_attack(port: int, half_open: int, slowloris: int) -> subprocess.Popen[str]:
    cmd = [sys.executable, str(HOSTILE), "--port", str(port)]
    cmd += ["--half-open", str(half_open), "--slowloris", str(slowloris)]
    attacker = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert attacker.stdout is not None
    attacker.stdout.readline()  # "ready": every connection is open
    return attacker


def stop_attack(attacker: subprocess.Popen[str]) -> dict[str, object]:
    attacker.send_signal(signal.SIGTERM)
    out, _ = attacker.communicate(timeout=60)
    lines = out.strip().splitlines()
    return json.loads(lines[-1]) if lines else {}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--half-open", type=int, default=0, help="half-open sockets held during the run")
    parser.add_argument("--slowloris", type=int, default=0, help="slowloris clients held during the run")
    parser.add_argument("--read-timeout", type=float, default=None, help="the server's --read-timeout")
    parser.add_argument("--item-timeout", type=float, default=None, help="the server's --item-timeout")
    parser.add_argument(
        "--heavy", type=int, default=0, metavar="N", help="measure N checks of heavy_type6(), one at a time"
    )
    args = parser.parse_args(argv)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, "-m", "cotaudit", "serve", "--port", str(port), "--workers", str(args.workers)]
    if args.read_timeout is not None:
        cmd += ["--read-timeout", str(args.read_timeout)]
    if args.item_timeout is not None:
        cmd += ["--item-timeout", str(args.item_timeout)]
    env = {k: v for k, v in os.environ.items() if k != "COTAUDIT_API_TOKEN"}
    proc = subprocess.Popen(cmd, env=env, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                if httpx.get(url + "/v1/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                print("the server did not start")
                return 1
            time.sleep(0.1)
        bodies = corpus()
        hammer(url, bodies, 200, args.concurrency)
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        print(f"machine: {os.cpu_count()} cores, load average {load}; server: {args.workers} workers")
        print(f"before: {server_stats(proc.pid)}")
        attacker = None
        if args.half_open or args.slowloris:
            attacker = start_attack(port, args.half_open, args.slowloris)
            print(f"attack: {args.half_open} half-open, {args.slowloris} slowloris: {server_stats(proc.pid)}")
        stop = threading.Event()
        health: list[float] = []
        failures: list[str] = []
        prober = threading.Thread(target=probe_health, args=(port, stop, health, failures))
        prober.start()
        start = time.perf_counter()
        if args.heavy:
            args.requests, args.concurrency = args.heavy, 1
            latencies, errors = hammer(url, [heavy_type6()], args.heavy, 1)
        else:
            latencies, errors = hammer(url, bodies, args.requests, args.concurrency)
        wall = time.perf_counter() - start
        stop.set()
        prober.join()
        attack = stop_attack(attacker) if attacker is not None else None
        ms = sorted(x * 1000 for x in latencies)
        hms = sorted(x * 1000 for x in health)
        print(f"after:  {server_stats(proc.pid)}")
        print(
            f"{args.requests} requests, {args.concurrency} concurrent: {wall:.1f} s, "
            f"{args.requests / wall:.1f} req/s, errors {errors}"
        )
        print(
            f"latency ms: p50 {statistics.median(ms):.1f}  p90 {percentile(ms, 0.9):.1f}  "
            f"p99 {percentile(ms, 0.99):.1f}  max {ms[-1]:.1f}"
        )
        print(
            f"health ms ({len(hms)} probes, {len(failures)} failed): p50 {statistics.median(hms):.1f}  "
            f"p99 {percentile(hms, 0.99):.1f}  max {hms[-1]:.1f}"
        )
        if attack is not None:
            print(f"attacker: {json.dumps(attack)}")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
