"""A local process pool that stops an item at its time limit and survives a worker's death.

``concurrent.futures.ProcessPoolExecutor`` can neither cancel a running task nor outlive a
worker killed by the kernel, so cotaudit keeps its own: ``workers`` child processes, one pipe
each, one item at a time per child, and one dispatcher thread that hands out items, collects
reports and watches the clock. An item past its limit gets its worker killed (with the worker's
own children, e.g. te's SymPy process) and an ``abstain`` report; a worker that dies under an
item gives it an ``invalid`` report; either way a fresh worker takes the slot. Children are
forked where possible (they inherit engines registered at run time), else spawned with the
registry shipped to them. A child dies with the thread that started it (``PR_SET_PDEATHSIG``)
and exits when its pipe closes, so killing the parent never leaves workers behind.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from multiprocessing.connection import Connection, wait
from typing import Any

from cotaudit.batch.jobs import (
    Payload,
    exit_description,
    front_end_report,
    lost_report,
    registry_snapshot,
    timeout_report,
    worker_main,
)
from cotaudit.report import Report

START_TIMEOUT = 120.0  # importing an engine on a cold, loaded machine
MAX_START_FAILURES = 3


class _Job:
    __slots__ = ("future", "options", "payload")

    def __init__(self, payload: Payload, options: Mapping[str, Any] | None) -> None:
        self.payload = payload
        self.options = dict(options or {})
        self.future: Future[Report] = Future()


class _Worker:
    __slots__ = ("conn", "deadline", "job", "process", "ready")

    def __init__(self, process: Any, conn: Connection) -> None:
        self.process = process
        self.conn = conn
        self.ready = False
        self.job: _Job | None = None
        self.deadline = time.monotonic() + START_TIMEOUT


class LocalPool:
    """``workers`` processes checking items; :meth:`submit` returns a future R-1 report.

    ``timeout`` is the per-item limit in seconds (``None``: no limit). ``preload`` names
    engines each worker imports before it takes its first item. Thread-safe.
    """

    def __init__(
        self,
        workers: int,
        *,
        timeout: float | None = None,
        preload: Sequence[str] = (),
        start_method: str | None = None,
    ) -> None:
        if workers < 1:
            raise ValueError("workers must be at least 1")
        method = start_method or ("fork" if "fork" in mp.get_all_start_methods() else "spawn")
        self._ctx: Any = mp.get_context(method)  # fork and spawn contexts differ in type only
        self._forks = method == "fork"
        self.workers = workers
        self.timeout = timeout
        self._preload = tuple(preload)
        self._snapshot = registry_snapshot()
        self._lock = threading.Lock()
        self._pending: deque[_Job] = deque()
        self._busy = 0
        self._closing = False
        self._broken: str | None = None
        self._start_failures = 0
        self._slots: list[_Worker] = []
        # A non-blocking self-pipe wakes the dispatcher; a full pipe never blocks a submitter.
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        # Workers are started by the dispatcher thread: PR_SET_PDEATHSIG follows that thread.
        self._thread = threading.Thread(target=self._run, name="cotaudit-pool", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ public side

    def submit(self, payload: Payload, options: Mapping[str, Any] | None = None) -> Future[Report]:
        """Queue one item; the future resolves to its report (never to an exception)."""
        job = _Job(payload, options)
        with self._lock:
            if self._broken is not None:  # the dispatcher failed: report, do not raise
                job.future.set_result(front_end_report(payload, "invalid", self._broken, reason="pool"))
                return job.future
            if self._closing:
                raise RuntimeError("the pool is closed")
            self._pending.append(job)
        self._wake()
        return job.future

    @property
    def backlog(self) -> int:
        """Items queued or running."""
        with self._lock:
            return len(self._pending) + self._busy

    def close(self) -> None:
        """Stop the workers; queued items are cancelled, running ones get an ``invalid`` report."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
        self._wake()
        self._thread.join(timeout=30)

    def __enter__(self) -> LocalPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _wake(self) -> None:
        with contextlib.suppress(OSError):  # BlockingIOError: a wake-up is pending anyway
            os.write(self._wake_w, b"w")

    # ------------------------------------------------------------------ dispatcher thread

    def _run(self) -> None:
        try:
            for _ in range(self.workers):
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
        args = (child, os.getpid(), self._snapshot, self._preload, inherited)
        process = self._ctx.Process(target=worker_main, args=args, daemon=True, name="cotaudit-worker")
        process.start()
        child.close()
        return _Worker(process, parent)

    def _wait_time(self) -> float:
        now = time.monotonic()
        deadlines = [w.deadline for w in self._slots if w.job is not None or not w.ready]
        return min(1.0, max(0.0, min(deadlines) - now)) if deadlines else 1.0

    def _next_job(self) -> _Job | None:
        with self._lock:
            while self._pending:
                job = self._pending.popleft()
                if job.future.set_running_or_notify_cancel():
                    self._busy += 1
                    return job
        return None

    def _assign(self) -> None:
        for w in self._slots:
            if not w.ready or w.job is not None:
                continue
            job = self._next_job()
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
            if not w.ready:
                self._start_failed(f"a worker failed to start ({why})")
            self._replace(w, lost_report(w.job.payload, why) if w.job is not None else None)
            return
        if isinstance(message, tuple):  # ("ready", pid)
            w.ready = True
            self._start_failures = 0
            return
        job, w.job = w.job, None
        if job is not None:
            self._finish(job, Report.from_dict(message))

    def _expire(self) -> None:
        now = time.monotonic()
        for w in list(self._slots):
            if w.deadline > now:
                continue
            if w.job is not None and self.timeout is not None:
                self._replace(w, timeout_report(w.job.payload, self.timeout))
            elif w.job is None and not w.ready:
                self._start_failed(f"a worker did not start within {START_TIMEOUT:g} s")
                self._replace(w, None)

    def _start_failed(self, why: str) -> None:
        self._start_failures += 1
        if self._start_failures >= MAX_START_FAILURES:
            with self._lock:
                self._broken = f"no worker could start: {why}"
            self._resolve_queued()

    def _resolve_queued(self) -> None:
        """Queued items: cancelled on close; reported ``invalid`` if the pool broke under them."""
        with self._lock:
            queued = list(self._pending)
            self._pending.clear()
        for job in queued:
            if self._broken is None:
                job.future.cancel()
            elif job.future.set_running_or_notify_cancel():
                job.future.set_result(front_end_report(job.payload, "invalid", self._broken, reason="pool"))

    def _replace(self, w: _Worker, report: Report | None) -> None:
        """Kill ``w`` (and its process group), resolve its item with ``report``, start a new one."""
        self._kill(w)
        job, w.job = w.job, None
        if job is not None and report is not None:
            self._finish(job, report)
        index = self._slots.index(w)
        self._slots[index] = self._spawn() if self._broken is None and not self._closing else w

    def _finish(self, job: _Job, report: Report) -> None:
        with self._lock:
            self._busy -= 1
        job.future.set_result(report)

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
        self._resolve_queued()
        why = self._broken or "the pool was closed"
        for w in self._slots:
            if w.job is not None:
                self._finish(w.job, front_end_report(w.job.payload, "invalid", why, reason="pool"))
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
