"""The stop check of every test server sees the processes below it, fork-server workers included."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

import pytest

from batch.slow_engine import alive, descendants

from .conftest import start_server, stop_server


def test_the_stop_check_sees_the_workers_and_what_they_leave_behind(tmp_path: Path) -> None:
    server = start_server(tmp_path, "--workers", "2")
    orphan = None
    try:
        deadline = time.monotonic() + 60
        while len(below := descendants(server.process.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)  # health answers while the workers still start
        assert len(below) >= 3  # the fork server and both workers, whatever their command lines
        with server.client() as client:
            answer = client.post("/v1/check", json={"engine": "slow", "text": "ORPHAN", "id": "o"})
        assert answer.status_code == 200
        orphan = answer.json()["details"]["orphan"]
        assert orphan in descendants(server.process.pid)
        # the workers stop with the server; the one process that outlives it is named, alone
        with pytest.raises(AssertionError, match=rf"^left behind: \[{orphan}\]\n"):
            stop_server(server, grace=3.0)
        assert alive(below) == set()  # near miss: the workers themselves are gone
    finally:
        if server.process.poll() is None:
            stop_server(server, check=False)
        if orphan is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(orphan, signal.SIGKILL)
