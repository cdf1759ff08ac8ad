"""A bounded load test on loopback: 2,000 requests, 8 at a time; p50/p99, no error, no leak.

The real server (two workers) is warmed with 200 requests, then measured: every answer must be
a 200 carrying the expected verdict, and after the run the server's memory, open files and
worker processes must be where they were after the warm-up (small slack for allocator noise).
The latency figures are printed and kept in ``tests/service/artifacts/load.json``.
"""

from __future__ import annotations

import json
import statistics
import threading
import time
from pathlib import Path

import httpx
import pytest

from .conftest import Server, start_server, stop_server

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
    server: Server, corpus: list[tuple[dict[str, str], str]], n: int
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

    threads = [threading.Thread(target=run) for _ in range(CONCURRENCY)]
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
