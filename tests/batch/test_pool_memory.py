"""Worker memory: an address-space cap turns a wild allocation into abstain COTAUDIT_W002, and a
worker that has grown past its headroom retires, so the cap never lands on a normal item."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from batch.slow_engine import register
from cotaudit.batch import jobs
from cotaudit.batch.jobs import Payload
from cotaudit.batch.pool import LocalPool


@pytest.fixture(autouse=True)
def slow_engine() -> Iterator[None]:
    register()
    yield


def _p(text: str, item_id: str) -> Payload:
    return Payload("slow", text, None, item_id)


def test_an_allocation_past_the_cap_is_abstain_and_the_worker_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(jobs, "WORKER_HEADROOM_MB", 64)
    with LocalPool(1, memory_mb=256) as pool:
        # 2 GiB mapped at once: without the cap the kernel grants it (it is never touched)
        wild = pool.submit(_p("ALLOC 2048\nPID", "wild")).result(timeout=60).report()
        normal = pool.submit(_p("ALLOC 32\nPID", "normal")).result(timeout=60).report()
    assert wild.verdict == "abstain"
    assert [f.code for f in wild.findings] == ["COTAUDIT_W002"]
    assert normal.verdict == "pass" and normal.details["allocated"] == 32  # the near miss


def test_near_miss_without_a_cap_the_same_allocation_is_granted() -> None:
    with LocalPool(1, memory_mb=None) as pool:
        report = pool.submit(_p("ALLOC 2048", "wild")).result(timeout=60).report()
    assert report.verdict == "pass" and report.details["allocated"] == 2048


def test_a_worker_past_its_headroom_retires_after_its_item(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jobs, "WORKER_HEADROOM_MB", 64)
    with LocalPool(1) as pool:
        first = pool.submit(_p("LEAK 8\nPID", "a")).result(timeout=60).report()
        small = pool.submit(_p("PID", "b")).result(timeout=60).report()
        leaked = pool.submit(_p("LEAK 128\nPID", "c")).result(timeout=60).report()
        after = pool.submit(_p("PID", "d")).result(timeout=60).report()
    assert [r.verdict for r in (first, small, leaked, after)] == ["pass"] * 4
    assert first.details["pid"] == small.details["pid"] == leaked.details["pid"]  # 8 MiB: stays
    assert after.details["pid"] != leaked.details["pid"]  # 128 MiB past 64: a fresh worker


def test_a_script_read_from_stdin_gets_a_clear_report(tmp_path: Path) -> None:
    script = (
        "from cotaudit.batch.pool import LocalPool\n"
        "from cotaudit.batch.jobs import Payload\n"
        "with LocalPool(1) as pool:\n"
        "    r = pool.submit(Payload('te', 'GIVEN:\\n', None, 'x')).result(timeout=60).report()\n"
        "print(r.verdict, r.details['reason'])\n"
        "print(r.details['error'])\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(jobs.__file__).resolve().parents[2])}
    done = subprocess.run(
        [sys.executable, "-"],
        input=script.encode(),
        cwd=tmp_path,
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )
    out = done.stdout.decode().splitlines()
    assert done.returncode == 0 and out[0] == "invalid pool", done.stderr.decode()
    assert "re-import the main script, and '<stdin>' is not a file" in out[1]
