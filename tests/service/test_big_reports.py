"""/v1/health stays quick while reports of tens of megabytes come back from the workers.

Such a report used to arrive as a pickled dict: the pool's dispatcher thread unpickled it
holding the GIL, rebuilt it as a Report, and the garbage collector then paused the whole
server over its millions of objects, so /v1/health took up to two seconds. Reports now cross
from the workers as encoded bytes and are shortened to the response limit as bytes (and the
server of these tests fails any request that rebuilds a report on the event loop or the
dispatcher thread: conftest.OFF_LOOP_GUARD). Measured with benchmarks/service_load.py --heavy:
health max 2072 ms before, 90 ms after; the bound here is a generous 1 s for every probe.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from .conftest import start_server, stop_server
from .test_load import _probe_health

pytestmark = pytest.mark.slow

# 560 KB of type6: 40,000 contradictory K lines (a report of about 40 MB before the engine bounded
# its own report documents; still the largest type6 input a client sends here)
HEAVY_TYPE6 = "".join("T  K NOT p0 : f\n" if n % 2 else "T  K p0 : f\n" for n in range(40_000))
BIG_SLOW = "BIG 150000\nBAD"  # about 30 MB whatever the type6 engine's reports weigh


def test_health_answers_within_a_second_while_huge_reports_come_back(tmp_path: Path) -> None:
    server = start_server(tmp_path, "--workers", "1", "--item-timeout", "300")
    stop = threading.Event()
    health: list[float] = []
    errors: list[str] = []
    prober = threading.Thread(target=_probe_health, args=(server.port, stop, health, errors))
    answers = []
    try:
        with server.client(timeout=300) as client:
            client.post("/v1/check", json={"engine": "slow", "text": "ok"})  # the worker is up
            prober.start()
            for item in ({"engine": "slow", "text": BIG_SLOW}, {"engine": "type6", "text": HEAVY_TYPE6}):
                response = client.post("/v1/check", json={**item, "id": item["engine"]})
                answers.append((response.status_code, response.content))
    finally:
        stop.set()
        if prober.is_alive():
            prober.join(timeout=60)
        stop_server(server)
    assert [status for status, _ in answers] == [200, 200]
    big = json.loads(answers[0][1])
    assert big["verdict"] == "fail" and big["input"]["id"] == "slow"
    note = big["details"]["truncated"]  # 30 MB over the 16 MiB limit: shortened, and says so
    assert note["findings_total"] == 150_001 and 0 < note["findings_kept"] < 150_001
    assert big["findings"][0]["code"] == "SLOW_E001"  # the error sorts first and is kept
    assert json.loads(answers[1][1])["verdict"] == "fail"
    assert errors == [] and len(health) > 20
    worst = max(health)
    assert worst < 1.0, f"/v1/health took {worst * 1000:.0f} ms"
