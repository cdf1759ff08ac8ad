"""Kill a real ``cotaudit batch`` process mid-run, resume it: every item exactly once.

The batch runs in a fresh interpreter (the slow test engine registered by its launcher) with two
worker processes. It is killed with SIGKILL once part of the log is written — no handler runs,
the way an out-of-memory kill or a lost machine ends a run — and then resumed. The resumed log
must hold every id exactly once and be byte-identical to an uninterrupted run, and no worker
of the killed run may outlive it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from batch.slow_engine import LAUNCHER, alive, descendants, processes_mentioning, write_items

N = 200


def _batch(tmp: Path, *args: str) -> list[str]:
    return [
        sys.executable,
        "-c",
        LAUNCHER,
        "batch",
        str(tmp / "in.jsonl"),
        "--workers",
        "2",
        "--no-timing",
        *args,
    ]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("COTAUDIT_DEBUG", None)
    return env


def _ids(path: Path) -> list[str]:
    ids = []
    for raw in path.read_bytes().split(b"\n"):
        if raw.strip():
            obj = json.loads(raw)
            if obj.get("kind") != "header":
                ids.append(obj["input"]["id"])
    return ids


def test_kill_mid_run_then_resume_reports_every_item_exactly_once(tmp_path: Path) -> None:
    texts = [("BAD " if n % 9 == 0 else "") + "SLEEP 0.02" for n in range(N)]
    ids = write_items(tmp_path / "in.jsonl", texts)
    out = tmp_path / "out.jsonl"
    proc = subprocess.Popen(
        _batch(tmp_path, "-o", str(out)), env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 120
    while not out.exists() or out.read_bytes().count(b"\n") < 40:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else b""
        assert time.monotonic() < deadline, "the batch wrote too little in two minutes"
        time.sleep(0.02)
    below = descendants(proc.pid)  # its workers and the fork server they come from
    assert len(below) >= 3, below
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    if proc.stderr:
        proc.stderr.close()

    done_before = _ids(out)
    assert 0 < len(done_before) < N, "the kill came too late to test resuming"
    assert done_before == ids[: len(done_before)]  # reports are written in input order

    deadline = time.monotonic() + 15  # the killed run's workers die with it
    while alive(below) or processes_mentioning(str(tmp_path)):
        assert time.monotonic() < deadline, (alive(below), processes_mentioning(str(tmp_path)))
        time.sleep(0.1)

    resumed = subprocess.run(
        _batch(tmp_path, "-o", str(out), "--resume"),
        env=_env(),
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert resumed.returncode == 1, resumed.stderr  # some items fail: exit 1, as for check
    assert f"{len(done_before):,} already done".encode() in resumed.stderr

    got = _ids(out)
    assert sorted(got) == sorted(ids) and len(got) == len(set(got)) == N

    fresh = tmp_path / "fresh.jsonl"
    whole = subprocess.run(
        _batch(tmp_path, "-o", str(fresh)), env=_env(), capture_output=True, timeout=300, check=False
    )
    assert whole.returncode == 1, whole.stderr
    assert out.read_bytes() == fresh.read_bytes()

    again = subprocess.run(
        _batch(tmp_path, "-o", str(out), "--resume"),
        env=_env(),
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert again.returncode == 1 and b"batch: 0 items checked" in again.stderr
    assert out.read_bytes() == fresh.read_bytes()
