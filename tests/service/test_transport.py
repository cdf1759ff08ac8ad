"""The transport's pieces that need no attack to check: the waiting list, the open-file limit."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from batch.slow_engine import LAUNCHER
from cotaudit.service.transport import FD_RESERVE, Waiting, fit_to_fd_limit

from .conftest import free_port


class FakeConnection:
    def __init__(self, name: str) -> None:
        self.name = name
        self.dropped = False

    def drop(self) -> None:
        self.dropped = True


def test_the_waiting_list_closes_the_oldest_beyond_its_cap() -> None:
    waiting = Waiting(2)
    a, b, c, d = (FakeConnection(n) for n in "abcd")
    waiting.add(a)  # type: ignore[arg-type]
    waiting.add(b)  # type: ignore[arg-type]
    assert len(waiting) == 2 and not a.dropped  # near miss: at the cap, nobody is closed
    waiting.add(a)  # type: ignore[arg-type]  # idle again after a request: now the newest
    waiting.add(c)  # type: ignore[arg-type]
    assert b.dropped and not a.dropped and not c.dropped
    waiting.discard(a)  # type: ignore[arg-type]  # its next request arrived: it is at work
    waiting.add(d)  # type: ignore[arg-type]
    assert not a.dropped and not c.dropped and len(waiting) == 2


def test_waiting_connections_are_fitted_to_the_open_file_limit() -> None:
    assert fit_to_fd_limit(1024, 512, 20000) == 1024
    assert fit_to_fd_limit(1024, 512, 1024) == 1024 - 512 - FD_RESERVE
    assert fit_to_fd_limit(1024, 512, 100) == 1  # never zero: the service still takes clients


def _low_fd_limit(soft: int, hard: int) -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_serve_raises_its_soft_open_file_limit(tmp_path: Path) -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard == resource.RLIM_INFINITY or hard < 2048:
        pytest.skip("needs a finite hard limit on open files of at least 2048")
    code = "from cotaudit.service.transport import raise_fd_limit; print(raise_fd_limit())"
    done = subprocess.run(
        [sys.executable, "-c", code],
        preexec_fn=lambda: _low_fd_limit(256, hard),
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert int(done.stdout) == hard


def test_serve_warns_and_shrinks_the_waiting_cap_under_a_low_hard_limit(tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "COTAUDIT_API_TOKEN"}
    log = tmp_path / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-c", LAUNCHER, "serve", "--port", str(port), "--workers", "1"],
            preexec_fn=lambda: _low_fd_limit(600, 600),
            env=env, stdout=out, stderr=subprocess.STDOUT, cwd=tmp_path,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        else:
            pytest.fail(f"the server did not start: {log.read_text()}")
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    warning = [line for line in log.read_text().splitlines() if "waiting connections" in line]
    assert warning == [
        f"cotaudit: warning: 600 open files allowed (ulimit -n): at most {600 - 512 - FD_RESERVE} "
        "waiting connections instead of 1024"
    ]
