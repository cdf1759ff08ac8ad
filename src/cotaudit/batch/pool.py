"""A local process pool that stops an item at its time limit and survives a worker's death.

``concurrent.futures.ProcessPoolExecutor`` can neither cancel a running task nor outlive a
worker killed by the kernel, so cotaudit keeps its own: ``workers`` child processes, one pipe
each, one item at a time per child, and one dispatcher thread that hands out items, collects
reports and watches the clock. An item past its limit gets its worker killed (with the worker's
own children, e.g. te's SymPy process) and an ``abstain`` report; a worker that dies under an
item gives it an ``invalid`` report; either way a fresh worker takes the slot.

Workers come from a fork server (``forkserver``; ``spawn`` where there is none), never from a
fork of this process: the dispatcher is a thread, and a process forked while another thread
holds a lock — an import lock, say, while the main thread imports an engine — starts with that
lock held forever. The fork server is a fresh single-threaded interpreter that loads the engines
once (:mod:`cotaudit.batch.warm`) and forks each worker from there in milliseconds. The registry
(engines registered at run time too), the environment and the per-item memory budget are
shipped to each worker (:class:`~cotaudit.batch.jobs.WorkerSetup`). A starting worker whose CPU
clock stops while it sleeps is stuck and replaced after :data:`START_STALL` seconds, not after
the :data:`START_TIMEOUT` of last resort. A worker dies with its parent (``PR_SET_PDEATHSIG``;
the fork server exits with this process) and exits when its pipe closes, so killing the pool's
process never leaves workers behind.

Reports come back encoded (:class:`~cotaudit.report.encoded.EncodedReport`), and the futures
resolve to them as they arrived: the dispatcher thread never rebuilds a report's objects (a
40 MB report as dicts took it half a second of GIL and left the collector pausing the whole
process for seconds), and its own reports (timeouts, lost workers) are a few hundred bytes.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from multiprocessing.connection import Connection, wait
from typing import Any

from cotaudit.batch import jobs, procstat
from cotaudit.batch.dispatch import Dispatcher, Job
from cotaudit.batch.jobs import (
    WorkerSetup,
    code_origin,
    exit_description,
    lost_report,
    pool_report,
    registry_snapshot,
    timeout_report,
    worker_main,
)
from cotaudit.limits import DEFAULT_MEMORY_MB
from cotaudit.report import Report
from cotaudit.report.encoded import encode_report

START_TIMEOUT = 120.0  # last resort: a worker that keeps busy starting but never gets ready
START_STALL = 10.0  # a starting worker asleep this long without using any CPU is stuck
SAMPLE_EVERY = 0.5  # seconds between two looks at a starting worker's CPU clock
MAX_START_FAILURES = 3
FORKSERVER_PRELOAD = ["cotaudit.batch.warm"]


def _environ() -> dict[str, str]:
    """A copy of ``os.environ``. Copying iterates in Python, so another thread that sets or
    removes a variable meanwhile makes it fail (``RuntimeError``, ``KeyError``): try again."""
    for _ in range(100):
        with contextlib.suppress(RuntimeError, KeyError):
            return dict(os.environ)
    return dict(os.environ)


def main_module_problem() -> str | None:
    """Why a spawned or fork-server worker cannot start in this process, or ``None``.

    Such a worker first re-imports the parent's main script (``__main__``), as multiprocessing
    always does; a script read from stdin (``python - < script.py``) has no file to import.
    """
    main = sys.modules.get("__main__")
    if main is None or getattr(getattr(main, "__spec__", None), "name", None) is not None:
        return None  # python -m: nothing to re-import by path
    file = getattr(main, "__file__", None)
    if file is None or os.path.isfile(file):
        return None
    return (
        f"worker processes cannot start: they re-import the main script, and {file!r} is not a "
        "file (run the script from a file, or with python -c or -m)"
    )


def default_start_method() -> str:
    """``forkserver`` where the platform has it, else ``spawn`` (never ``fork``: see above)."""
    return "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"


class _Worker:
    __slots__ = ("conn", "deadline", "job", "process", "progress_at", "ready", "sampled_at", "ticks")

    def __init__(self, process: Any, conn: Connection) -> None:
        self.process = process
        self.conn = conn
        self.ready = False
        self.job: Job | None = None
        now = time.monotonic()
        self.deadline = now + START_TIMEOUT
        self.ticks = -1  # CPU clock ticks of the starting worker's group when last seen to change
        self.progress_at = now
        self.sampled_at = float("-inf")


class LocalPool(Dispatcher):
    """``workers`` processes checking items; :meth:`submit` returns a future encoded R-1 report.

    ``timeout`` is the per-item limit in seconds (``None``: no limit). ``preload`` names
    engines each worker imports before it takes its first item. ``memory_mb`` is the per-item
    memory budget: each worker's address space is capped (``RLIMIT_AS``) at its size once
    started plus ``memory_mb`` plus :data:`~cotaudit.batch.jobs.WORKER_HEADROOM_MB`, so an
    allocation past it is a ``MemoryError`` (``abstain``, COTAUDIT_W002) in that worker, not a
    machine out of memory (``None``: no cap). ``start_method`` defaults to
    :func:`default_start_method`; ``"fork"`` is still accepted, with the hazard described in
    the module docstring. Thread-safe.
    """

    def __init__(
        self,
        workers: int,
        *,
        timeout: float | None = None,
        preload: Sequence[str] = (),
        start_method: str | None = None,
        memory_mb: int | None = DEFAULT_MEMORY_MB,
    ) -> None:
        if workers < 1:
            raise ValueError("workers must be at least 1")
        super().__init__()
        method = start_method or default_start_method()
        self._ctx: Any = mp.get_context(method)  # the contexts differ in type only
        if method == "forkserver":
            # Read when the (process-wide) server starts; a running server keeps what it has.
            self._ctx.set_forkserver_preload(FORKSERVER_PRELOAD)
        self._method = method
        self._forks = method == "fork"
        self._origin = code_origin()
        self.workers = workers
        self.timeout = timeout
        self._preload = tuple(preload)
        self._memory_mb = memory_mb
        self._broken = None if self._forks else main_module_problem()
        self._start_failures = 0
        self._slots: list[_Worker] = []
        # A non-blocking self-pipe wakes the dispatcher; a full pipe never blocks a submitter.
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        # Workers are started by the dispatcher thread: a forked one's PR_SET_PDEATHSIG follows it.
        self._thread = threading.Thread(target=self._run, name="cotaudit-pool", daemon=True)
        self._thread.start()

    def _wake(self) -> None:
        with contextlib.suppress(OSError):  # BlockingIOError: a wake-up is pending anyway
            os.write(self._wake_w, b"w")

    # ------------------------------------------------------------------ dispatcher thread

    def _run(self) -> None:
        try:
            while self._broken is None and len(self._slots) < self.workers:
                self._slots.append(self._spawn())
            while not self._closing and self._broken is None:
                self._assign()
                conns: list[Any] = [w.conn for w in self._slots if w.job is not None or not w.ready]
                for obj in wait([*conns, self._wake_r], timeout=self._wait_time()):
                    if obj == self._wake_r:
                        with contextlib.suppress(BlockingIOError):
                            while os.read(self._wake_r, 4096):
                                pass
                    else:
                        self._receive(next(w for w in self._slots if w.conn is obj))
                self._expire()
        except Exception as exc:  # a bug here must still resolve every future, never hang a caller
            with self._lock:
                self._broken = f"internal error in the worker pool: {type(exc).__name__}: {exc}"
        finally:
            self._shutdown()

    def _spawn(self) -> _Worker:
        parent, child = self._ctx.Pipe()
        inherited: tuple[int, ...] = ()
        if self._forks:
            open_conns = [w.conn for w in self._slots if not w.conn.closed]
            inherited = (
                parent.fileno(),
                self._wake_r,
                self._wake_w,
                *(c.fileno() for c in open_conns),
            )
        setup = WorkerSetup(
            pool_pid=os.getpid(),
            registry=registry_snapshot(),  # as of now: engines registered since the pool started too
            engines=self._preload,
            inherited=inherited,
            environ=None if self._forks else _environ(),
            memory_mb=self._memory_mb,
            headroom_mb=jobs.WORKER_HEADROOM_MB,
        )
        process = self._ctx.Process(
            target=worker_main, args=(child, setup), daemon=True, name="cotaudit-worker"
        )
        process.start()
        child.close()
        return _Worker(process, parent)

    def _wait_time(self) -> float:
        now = time.monotonic()
        deadlines = [w.deadline for w in self._slots if w.job is not None or not w.ready]
        return min(1.0, max(0.0, min(deadlines) - now)) if deadlines else 1.0

    def _assign(self) -> None:
        for w in self._slots:
            if not w.ready or w.job is not None:
                continue
            job = self._take()
            if job is None:
                return
            w.job = job
            w.deadline = time.monotonic() + (self.timeout if self.timeout is not None else 1e9)
            try:
                w.conn.send((job.payload, job.options))
            except OSError:
                self._replace(w, lost_report(job.payload, "its pipe closed before the item was sent"))

    def _receive(self, w: _Worker) -> None:
        try:
            message = w.conn.recv()
        except (EOFError, OSError):
            w.process.join(timeout=5)
            why = exit_description(w.process.exitcode)
            if not w.ready and not self._leave_fork_server():
                self._start_failed(f"a worker failed to start ({why})")
            self._replace(w, lost_report(w.job.payload, why) if w.job is not None else None)
            return
        if message[0] == "ready":  # ("ready", pid, where its cotaudit comes from)
            if message[2] != self._origin and self._leave_fork_server():
                self._replace(w, None)  # another copy of cotaudit: never let it check an item
                return
            w.ready = True
            self._start_failures = 0
            return
        _, report, retiring = message  # ("report", EncodedReport, retiring): passed on as it is
        job, w.job = w.job, None
        if job is not None:
            self._finish(job, report)
        if retiring:  # it grew past its headroom (jobs.WORKER_HEADROOM_MB) and has exited
            self._replace(w, None)

    def _expire(self) -> None:
        now = time.monotonic()
        for w in list(self._slots):
            if w.job is None and not w.ready:
                why = self._start_problem(w, now)
                if why is not None:
                    self._start_failed(why)
                    self._replace(w, None)
            elif w.job is not None and self.timeout is not None and w.deadline <= now:
                self._replace(w, timeout_report(w.job.payload, self.timeout))

    @staticmethod
    def _start_problem(w: _Worker, now: float) -> str | None:
        """Why a starting worker will not become ready, or ``None`` while it gets somewhere."""
        if now >= w.deadline:
            return f"a worker did not start within {START_TIMEOUT:g} s"
        if now - w.sampled_at < SAMPLE_EVERY:  # every submission wakes the loop: read /proc less
            return None
        w.sampled_at = now
        seen = procstat.sample(w.process.pid)
        if seen is None:  # no /proc: the start timeout alone decides
            return None
        if seen.ticks != w.ticks or not seen.asleep:
            w.ticks, w.progress_at = seen.ticks, now
            return None
        if now - w.progress_at >= START_STALL:
            return f"a worker was stuck while starting (asleep without CPU time for {START_STALL:g} s)"
        return None

    def _leave_fork_server(self) -> bool:
        """Spawn workers from now on, if they came from the fork server; whether that changed.

        The server is a fresh interpreter started with this process's environment, not its
        ``sys.path`` (Python 3.11 ignores what it is given): with a relative ``PYTHONPATH``
        and another working directory, or a path changed at run time, it may load another
        copy of cotaudit. Its workers then fail to start or report that other copy; a spawned
        worker applies this process's ``sys.path`` before it imports anything.
        """
        if self._method != "forkserver":
            return False
        self._method = "spawn"
        self._ctx = mp.get_context("spawn")
        return True

    def _start_failed(self, why: str) -> None:
        self._start_failures += 1
        if self._start_failures >= MAX_START_FAILURES:
            with self._lock:
                self._broken = broken = f"no worker could start: {why}"
            self._resolve_queued(broken)

    def _replace(self, w: _Worker, report: Report | None) -> None:
        """Kill ``w`` (and its process group), resolve its item with ``report``, start a new one."""
        self._kill(w)
        job, w.job = w.job, None
        if job is not None and report is not None:
            self._finish(job, encode_report(report))
        index = self._slots.index(w)
        self._slots[index] = self._spawn() if self._broken is None and not self._closing else w

    @staticmethod
    def _kill(w: _Worker) -> None:
        pid = w.process.pid
        if pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
        if w.process.is_alive():
            w.process.kill()
        w.process.join(timeout=5)
        w.conn.close()

    def _shutdown(self) -> None:
        with self._lock:
            self._closing = True
        why = self._broken or "the pool was closed"
        self._resolve_queued(why)
        for w in self._slots:
            if w.job is not None:
                self._finish(w.job, pool_report(w.job.payload, why))
                w.job = None
            with contextlib.suppress(OSError):
                w.conn.send(None)
        for w in self._slots:
            w.process.join(timeout=2)
            if w.process.is_alive():
                self._kill(w)
            else:
                w.conn.close()
        os.close(self._wake_r)
        os.close(self._wake_w)
