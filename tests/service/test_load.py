"""Bounded load tests on loopback: p50/p99, no error, no leak.

- 2,000 requests, 8 at a time: the real server (two workers) is warmed with 200 requests, then
  measured: every answer must be a 200 carrying the expected verdict, and after the run the
  server's memory, open files and worker processes must be where they were after the warm-up
  (small slack for allocator noise). Figures in ``tests/service/artifacts/load.json``.
- the same under attack: 600 half-open sockets and 20 slowloris clients (``hostile.py``, in
  its own process) held open while 1,000 real requests run and ``/v1/health`` is probed on
  fresh connections; every request and probe must succeed, health's p99 stay under 1 s, and
  the server must have closed every attacker at its read deadline. Figures in
  ``tests/service/artifacts/attack.json``.
"""

from __future__ import annotations

import http.client
import json
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from .conftest import Server, start_server, stop_server
from .hostile import raise_fd_limit

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
REQUESTS = 2000
CONCURRENCY = 8


def _corpus() -> list[tuple[dict[str, str], str]]:
    """(request body, expected verdict) for every te and type6 example."""
    from cotaudit import api

    corpus = []
    for path in sorted((ROOT / "examples").rglob("*")):
        engine = {".te": "te", ".t6": "type6"}.get(path.suffix)
        if engine and path.name != "O_parametric.te":  # the one trace that needs seconds of SymPy
            text = path.read_text(encoding="utf-8")
            corpus.append(
                ({"engine": engine, "text": text, "id": path.stem}, api.check(text, engine).verdict)
            )
    return corpus


def _stats(pid: int) -> dict[str, int]:
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    fields = dict(line.split(":", 1) for line in status if ":" in line)
    children = 0
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                stat = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children += stat[1] == str(pid) and stat[0] != "Z"
    return {
        "rss_kb": int(fields["VmRSS"].split()[0]),
        "threads": int(fields["Threads"].strip()),
        "fds": len(list(Path(f"/proc/{pid}/fd").iterdir())),
        "children": children,
    }


def _hammer(
    server: Server, corpus: list[tuple[dict[str, str], str]], n: int, concurrency: int = CONCURRENCY
) -> tuple[list[float], list[str]]:
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    counter = iter(range(n))

    def run() -> None:
        with server.client() as client:
            while True:
                with lock:
                    k = next(counter, None)
                if k is None:
                    return
                body, verdict = corpus[k % len(corpus)]
                start = time.perf_counter()
                try:
                    response = client.post("/v1/check", json=body)
                    ok = response.status_code == 200 and response.json()["verdict"] == verdict
                    problem = None if ok else f"{response.status_code} {response.text[:200]}"
                except httpx.HTTPError as exc:
                    problem = f"{type(exc).__name__}: {exc}"
                elapsed = time.perf_counter() - start
                with lock:
                    latencies.append(elapsed)
                    if problem:
                        errors.append(problem)

    threads = [threading.Thread(target=run) for _ in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    return latencies, errors


def test_load_2000_requests_8_concurrent(tmp_path: Path) -> None:
    corpus = _corpus()
    server = start_server(tmp_path, "--workers", "2", "--item-timeout", "30")
    try:
        pid = server.process.pid
        _, warm_errors = _hammer(server, corpus, 200)
        assert warm_errors == []
        before = _stats(pid)
        start = time.perf_counter()
        latencies, errors = _hammer(server, corpus, REQUESTS)
        wall = time.perf_counter() - start
        after = _stats(pid)
    finally:
        stop_server(server)
    assert errors == [] and len(latencies) == REQUESTS
    ms = sorted(x * 1000 for x in latencies)
    figures = {
        "requests": REQUESTS,
        "concurrency": CONCURRENCY,
        "workers": 2,
        "wall_s": round(wall, 2),
        "requests_per_s": round(REQUESTS / wall, 1),
        "p50_ms": round(statistics.median(ms), 2),
        "p90_ms": round(ms[int(0.90 * len(ms)) - 1], 2),
        "p99_ms": round(ms[int(0.99 * len(ms)) - 1], 2),
        "max_ms": round(ms[-1], 2),
        "server_before": before,
        "server_after": after,
    }
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "load.json").write_text(json.dumps(figures, indent=2) + "\n")
    print("\nload test:", json.dumps(figures))
    assert after["children"] == before["children"] == 2
    assert after["fds"] <= before["fds"] + 8
    assert after["threads"] <= before["threads"] + 4
    assert after["rss_kb"] - before["rss_kb"] < 64 * 1024


# --------------------------------------------------------------------------- under attack

HOSTILE = Path(__file__).resolve().parent / "hostile.py"
HALF_OPEN = 600
SLOWLORIS = 20
ATTACK_REQUESTS = 1000
ATTACK_READ_TIMEOUT = 10.0  # the default --read-timeout (so the old service can be run too)


def _probe_health(port: int, stop: threading.Event, latencies: list[float], errors: list[str]) -> None:
    """GET /v1/health on a fresh connection every 50 ms: a new client must get in, too."""
    while not stop.is_set():
        start = time.perf_counter()
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", "/v1/health")
            status = conn.getresponse().status
            conn.close()
            if status != 200:
                errors.append(f"health answered {status}")
        except OSError as exc:
            errors.append(f"health: {type(exc).__name__}: {exc}")
        latencies.append(time.perf_counter() - start)
        stop.wait(0.05)


def test_health_and_real_requests_survive_half_open_and_slowloris_clients(tmp_path: Path) -> None:
    """600 half-open sockets and 20 slowloris clients, re-opened as soon as the server closes
    them, while 1,000 real requests run 4 at a time: every real request succeeds, /v1/health
    answers every probe (p99 under 1 s), and the server closes the attackers at its deadline."""
    raise_fd_limit(4096)
    corpus = _corpus()
    server = start_server(tmp_path, "--workers", "2", "--item-timeout", "30")
    attacker = None
    try:
        pid = server.process.pid
        _, warm_errors = _hammer(server, corpus, 50)
        assert warm_errors == []
        before = _stats(pid)
        cmd = [sys.executable, str(HOSTILE), "--port", str(server.port)]
        cmd += ["--half-open", str(HALF_OPEN), "--slowloris", str(SLOWLORIS)]
        attacker = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert attacker.stdout is not None
        assert attacker.stdout.readline().strip() == "ready"
        under_attack = _stats(pid)
        for _ in range(100):  # the server may accept the last ones a moment later
            if under_attack["fds"] >= before["fds"] + HALF_OPEN:
                break
            time.sleep(0.1)
            under_attack = _stats(pid)
        stop = threading.Event()
        health: list[float] = []
        health_errors: list[str] = []
        prober = threading.Thread(target=_probe_health, args=(server.port, stop, health, health_errors))
        prober.start()
        start = time.perf_counter()
        latencies, errors = _hammer(server, corpus, ATTACK_REQUESTS, concurrency=4)
        while time.perf_counter() - start < ATTACK_READ_TIMEOUT + 3:  # every attacker cut off once
            time.sleep(0.1)
        wall = time.perf_counter() - start
        stop.set()
        prober.join(timeout=60)
        attacker.send_signal(signal.SIGTERM)
        out, _ = attacker.communicate(timeout=60)
        attack = json.loads(out.strip().splitlines()[-1])
        time.sleep(1.0)
        after = _stats(pid)
    finally:
        if attacker is not None and attacker.poll() is None:
            attacker.kill()
            attacker.wait(timeout=10)
        stop_server(server)
    assert errors == [] and len(latencies) == ATTACK_REQUESTS
    assert health_errors == [] and len(health) > 20
    ms = sorted(x * 1000 for x in health)
    real = sorted(x * 1000 for x in latencies)
    figures = {
        "half_open": HALF_OPEN,
        "slowloris": SLOWLORIS,
        "read_timeout_s": ATTACK_READ_TIMEOUT,
        "requests": ATTACK_REQUESTS,
        "wall_s": round(wall, 2),
        "health_probes": len(ms),
        "health_p50_ms": round(statistics.median(ms), 2),
        "health_p99_ms": round(ms[int(0.99 * len(ms)) - 1], 2),
        "health_max_ms": round(ms[-1], 2),
        "request_p50_ms": round(statistics.median(real), 2),
        "request_p99_ms": round(real[int(0.99 * len(real)) - 1], 2),
        "attack": attack,
        "server_before": before,
        "server_under_attack": under_attack,
        "server_after": after,
    }
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "attack.json").write_text(json.dumps(figures, indent=2) + "\n")
    print("\nunder attack:", json.dumps(figures))
    assert figures["health_p99_ms"] < 1000
    assert under_attack["fds"] >= before["fds"] + HALF_OPEN  # the attack really was held open
    for kind in ("half_open", "slowloris"):  # ... and the server closed it at its deadline
        assert attack[kind]["closed_by_server"] >= {"half_open": HALF_OPEN, "slowloris": SLOWLORIS}[kind]
        assert attack[kind]["lifetime_max_s"] < ATTACK_READ_TIMEOUT + 10
        assert attack[kind]["lifetime_median_s"] >= ATTACK_READ_TIMEOUT - 1
    assert after["fds"] <= before["fds"] + 16 and after["children"] == 2
