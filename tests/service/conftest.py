"""The real server on loopback: ``cotaudit serve`` in a fresh process on a free port.

The process runs the CLI through the slow test engine's launcher (so items can sleep, hang or
kill their worker, and a write endpoint exists), binds 127.0.0.1, and is stopped with SIGTERM
at the end; the fixture checks it stopped cleanly and left no process behind: every process
below the server in the process tree (the fork server, its workers, what they started) is
noted before the stop and must be gone after it. (Matching command lines would miss the
workers: a fork server's children carry its command line, not the server's.)

Every test server also fails any request that turns a report into objects or objects into a
report's JSON on the event loop or on the worker pool's dispatcher thread
(:data:`OFF_LOOP_GUARD` wraps ``Report.to_dict`` and ``Report.from_dict``): a 40 MB report takes
seconds to convert, and ``/v1/health`` must not wait for it. Reports arrive encoded from the
workers and are only ever cut and copied as bytes there; a front-end report of a few hundred
bytes (engine version ``cotaudit/...``: a timeout, a dead worker) may be made anywhere.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from batch.slow_engine import LAUNCHER, alive, descendants

httpx = pytest.importorskip("httpx", reason="the 'dev' extra is not installed")
pytest.importorskip("fastapi", reason="the 'service' extra is not installed")

TOKEN = "s3cret-token-for-tests"

OFF_LOOP_GUARD = (
    "import asyncio, threading\n"
    "from cotaudit.report.model import Report as _Report\n"
    "def _busy_thread():\n"
    "    if threading.current_thread().name == 'cotaudit-pool':\n"
    "        return 'the pool dispatcher thread'\n"
    "    try:\n"
    "        asyncio.get_running_loop()\n"
    "    except RuntimeError:\n"
    "        return None\n"
    "    return 'the event loop'\n"
    "_to_dict, _from_dict = _Report.to_dict, _Report.from_dict.__func__\n"
    "def _guarded_to_dict(self, *, timing=True):\n"
    "    where = _busy_thread()\n"
    "    if where is not None and not self.engine_version.startswith('cotaudit/'):\n"
    "        raise RuntimeError('a report was serialised on ' + where)\n"
    "    return _to_dict(self, timing=timing)\n"
    "def _guarded_from_dict(cls, d):\n"
    "    where = _busy_thread()\n"
    "    if where is not None:\n"
    "        raise RuntimeError('a report was rebuilt on ' + where)\n"
    "    return _from_dict(cls, d)\n"
    "_Report.to_dict = _guarded_to_dict\n"
    "_Report.from_dict = classmethod(_guarded_from_dict)\n"
)
SERVER_LAUNCHER = LAUNCHER.replace(
    "from cotaudit.cli import main\n", OFF_LOOP_GUARD + "from cotaudit.cli import main\n"
)
assert SERVER_LAUNCHER != LAUNCHER


@dataclass
class Server:
    url: str
    process: subprocess.Popen[bytes]
    token: str | None

    def client(self, **kw: object) -> httpx.Client:
        return httpx.Client(base_url=self.url, **{"timeout": 60.0, **kw})  # type: ignore[arg-type]

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(tmp: Path, *args: str, token: str | None = None) -> Server:
    env = {k: v for k, v in os.environ.items() if k not in ("COTAUDIT_API_TOKEN", "COTAUDIT_DEBUG")}
    if token is not None:
        env["COTAUDIT_API_TOKEN"] = token
    for _ in range(3):
        port = free_port()
        log = (tmp / f"server-{port}.log").open("wb")
        cmd = [sys.executable, "-c", SERVER_LAUNCHER, "serve", "--port", str(port), *args]
        proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=tmp)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if httpx.get(url + "/v1/health", timeout=2).status_code == 200:
                    return Server(url, proc, token)
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        stop_server(Server(url, proc, token), check=False)
    raise RuntimeError(f"the server did not start; see {tmp}")


def stop_server(server: Server, *, check: bool = True, grace: float = 15.0) -> None:
    """SIGTERM, then (``check``) exit code 0 and, within ``grace`` seconds, nothing left of what
    was below it in the process tree."""
    below = descendants(server.process.pid)  # noted while they still have the server above them
    if server.process.poll() is None:
        server.process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 60
    while server.process.poll() is None and time.monotonic() < deadline:
        below |= descendants(server.process.pid)  # anything started while it shuts down, too
        time.sleep(0.05)
    if server.process.poll() is None:
        server.process.kill()
    code = server.process.wait(timeout=10)
    if check:
        assert code == 0, f"the server exited with {code}"
        deadline = time.monotonic() + grace
        while alive(below):
            assert time.monotonic() < deadline, f"left behind: {sorted(alive(below))}"
            time.sleep(0.1)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """An open server (no token) with two workers and a 2 s item limit."""
    srv = start_server(tmp_path_factory.mktemp("srv"), "--workers", "2", "--item-timeout", "2")
    yield srv
    stop_server(srv)


def make_certify_state(path: Path) -> Path:
    """A certify state holding the kernel of examples/certify/legal_prelim.kb (units 1-3)."""
    kb = Path(__file__).resolve().parents[2] / "examples" / "certify" / "legal_prelim.kb"
    env = {k: v for k, v in os.environ.items() if k != "COTAUDIT_DEBUG"}
    done = subprocess.run(
        [sys.executable, "-m", "cotaudit", "certify", "admit", "--db", str(path), str(kb)],
        env=env, capture_output=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    return path


@pytest.fixture(scope="module")
def locked_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server with COTAUDIT_API_TOKEN set, one worker, small limits, a certify state."""
    tmp = tmp_path_factory.mktemp("locked")
    state = make_certify_state(tmp / "certify.sqlite")
    srv = start_server(
        tmp,
        "--workers", "1", "--max-body", "4096", "--max-batch", "3", "--certify-db", str(state),
        token=TOKEN,
    )  # fmt: skip
    yield srv
    stop_server(srv)
