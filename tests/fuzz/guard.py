"""The guard: persistent worker processes with a hard wall-time and memory limit per input.

Each :class:`Worker` is a ``python -m tests.fuzz.worker`` child in its own session, started
with a chosen ``PYTHONHASHSEED`` and an address-space cap (``RLIMIT_AS``, set by the worker
through :func:`cotaudit.limits.limit_process_memory`). The parent polls it: a job that is not
answered by its deadline, or whose worker's resident set grows past the cap, is killed
together with the worker's children (``killpg``), and the worker is started again. Nothing
here depends on the machine's speed except through these generous limits.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .targets import REPO
from .worker import recv, send

READY_TIMEOUT_S = 300.0  # importing SymPy and Z3 and warming every target, on a loaded 2-core machine
POLL_S = 0.05
_PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class GuardSettings:
    """``budget_s``/``memory_mb``: the per-input budget given to cotaudit (``Limits``).
    ``slack_s``: how far past ``budget_s`` a check may run before it is over budget (and killed).
    ``memory_slack_mb``: the resident-set growth past ``memory_mb`` at which the guard kills.
    ``address_space_mb``: ``RLIMIT_AS`` headroom of each worker above what it maps when warm."""

    budget_s: float = 5.0
    slack_s: float = 5.0
    memory_mb: int = 1024
    memory_slack_mb: int = 512
    address_space_mb: int = 3072

    @property
    def kill_after_s(self) -> float:
        return self.budget_s + self.slack_s

    @property
    def rss_cap_bytes(self) -> int:
        return (self.memory_mb + self.memory_slack_mb) * 1024 * 1024


def rss_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/statm", "rb") as fh:
            return int(fh.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


class WorkerStartError(RuntimeError):
    pass


@dataclass
class Event:
    """What happened to the job of a worker: a message, a kill (``time``/``memory``) or a death."""

    kind: str  # "checked" | "writing" | "done" | "killed" | "died"
    job: Any
    payload: Any = None
    phase: str = ""  # where the job was: "check", a writer's name or "diagnosis"


class Worker:
    """One guarded worker process (see the module docstring)."""

    def __init__(
        self,
        label: str,
        hash_seed: int,
        targets: list[str],
        settings: GuardSettings,
        log_dir: Path,
        plugins: tuple[str, ...] = (),
    ) -> None:
        self.label = label
        self.plugins = plugins
        self.hash_seed = hash_seed
        self.targets = targets
        self.settings = settings
        self.log_path = log_dir / f"worker-{label}.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.job: Any = None
        self.phase = ""  # "" idle, "check", "write"
        self.step = ""  # in the write phase: the writer running now
        self.deadline = 0.0
        self.rss_limit = 0
        self.started_phase = 0.0
        self.restarts = -1
        self.start()

    # ------------------------------------------------------------------ life cycle
    def start(self) -> None:
        self.close()
        env = dict(os.environ)
        env["PYTHONHASHSEED"] = str(self.hash_seed)
        env.pop("COTAUDIT_DEBUG", None)
        # the worker imports this package as tests.fuzz from the repository root
        env["PYTHONPATH"] = os.pathsep.join(
            [str(REPO), *(p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p)]
        )
        config = {
            "budget_s": self.settings.budget_s,
            "memory_mb": self.settings.memory_mb,
            "address_space_mb": self.settings.address_space_mb,
            "targets": self.targets,
            "plugins": list(self.plugins),
        }
        log = open(self.log_path, "ab")  # noqa: SIM115 - handed to the child
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "tests.fuzz.worker", json.dumps(config)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                bufsize=0,  # raw pipes: select() must see every byte that is not read yet
                cwd=REPO,
                env=env,
                start_new_session=True,
            )
        finally:
            log.close()
        self.restarts += 1
        message = self._wait_message(READY_TIMEOUT_S)
        if not (isinstance(message, tuple) and message[0] == "ready"):
            tail = self.log_tail()
            self.close()
            raise WorkerStartError(f"fuzz worker {self.label} did not start: {message!r}\n{tail}")
        self.baseline_rss = message[1]["rss"]
        self.phase = ""

    def close(self) -> None:
        """Kill the worker and everything it started; safe to call twice."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=30)
        for stream in (proc.stdin, proc.stdout):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
        self.phase = ""
        self.job = None

    def log_tail(self, n: int = 4000) -> str:
        try:
            data = self.log_path.read_bytes()
        except OSError:
            return ""
        return data[-n:].decode("utf-8", "replace")

    # ------------------------------------------------------------------ jobs
    @property
    def busy(self) -> bool:
        return self.phase != ""

    def submit(self, job: Any, text: str, target: str) -> None:
        """Send ``text`` for ``target``; ``job`` is the caller's token, returned with every event."""
        assert self.proc is not None and self.proc.stdin is not None and not self.busy
        self.job = job
        base = rss_of(self.proc.pid) or self.baseline_rss
        self.rss_limit = base + self.settings.rss_cap_bytes
        self._enter("check")
        with contextlib.suppress(OSError):  # a dead worker shows up on the next poll
            send(self.proc.stdin, {"target": target, "text": text})

    def _enter(self, phase: str) -> None:
        self.phase = phase
        self.step = phase
        self.started_phase = time.monotonic()
        self.deadline = self.started_phase + self.settings.kill_after_s

    def fileno(self) -> int:
        assert self.proc is not None and self.proc.stdout is not None
        return self.proc.stdout.fileno()

    def on_readable(self) -> Event:
        """Read the message that arrived (call when :meth:`fileno` is readable)."""
        assert self.proc is not None and self.proc.stdout is not None
        message = recv(self.proc.stdout)
        if message is None:
            return self._died()
        kind, payload = message
        event = Event(kind, self.job, payload, phase=self.phase)
        if kind == "checked":
            self._enter("write")  # the writers get a deadline of their own
        elif kind == "writing":
            self.step = payload
            self.deadline = time.monotonic() + self.settings.kill_after_s  # each writer its own
        elif kind == "done":
            self.phase = ""
            self.job = None
        return event

    def check_limits(self) -> Event | None:
        """Kill the worker if its job ran past the deadline or its RSS past the cap."""
        if not self.busy or self.proc is None:
            return None
        if self._readable():
            return None  # an answer is waiting (the parent may have been busy restarting another worker)
        if self.proc.poll() is not None:
            return self._died()
        phase, job = self.step, self.job
        if time.monotonic() > self.deadline:
            self._restart_after_kill()
            return Event("killed", job, {"kind": "time", "after_s": self.settings.kill_after_s}, phase)
        rss = rss_of(self.proc.pid)
        if rss is not None and rss > self.rss_limit:
            grown = (rss - (self.rss_limit - self.settings.rss_cap_bytes)) / 2**20
            self._restart_after_kill()
            return Event("killed", job, {"kind": "memory", "grown_mb": round(grown)}, phase)
        return None

    def _died(self) -> Event:
        phase, job = self.step, self.job
        code = None
        if self.proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = self.proc.wait(timeout=30)
        tail = self.log_tail()
        self._restart_after_kill()
        how = f"signal {signal.Signals(-code).name}" if code is not None and code < 0 else f"exit code {code}"
        return Event("died", job, {"how": how, "log": tail}, phase)

    def _restart_after_kill(self) -> None:
        self.close()
        self.start()

    def recycle_if_bloated(self, grown_mb: int = 1024) -> None:
        """Start afresh when the idle worker holds ``grown_mb`` more than when it was warm."""
        if self.busy or self.proc is None:
            return
        rss = rss_of(self.proc.pid)
        if rss is not None and rss - self.baseline_rss > grown_mb * 1024 * 1024:
            self._restart_after_kill()

    def _readable(self) -> bool:
        assert self.proc is not None and self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], 0)
        return bool(ready)

    def _wait_message(self, timeout: float) -> Any:
        assert self.proc is not None and self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            return "timeout"
        return recv(self.proc.stdout)


def wait_any(workers: list[Worker], timeout: float = POLL_S) -> list[Worker]:
    """The busy workers with something to read (after at most ``timeout`` seconds)."""
    busy = [w for w in workers if w.busy and w.proc is not None]
    if not busy:
        return []
    readable, _, _ = select.select(busy, [], [], timeout)
    return list(readable)
