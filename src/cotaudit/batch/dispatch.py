"""What the local pool and the Ray backend share: the job queue their dispatcher thread drains.

:class:`Dispatcher` owns the queue of :class:`Job`\\ s, the count of running items, the
closing/broken flags and the futures' resolution; :class:`~cotaudit.batch.pool.LocalPool`
(worker processes over pipes) and :class:`~cotaudit.batch.ray_backend.RayPool` (Ray actors)
add how a worker is started, fed, watched and replaced. Every future resolves to an encoded
report, never to an exception.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Mapping
from concurrent.futures import Future
from typing import Any, ClassVar, Self

from cotaudit.batch.jobs import Payload, pool_report
from cotaudit.report import Report
from cotaudit.report.encoded import EncodedReport, encode_report


class Job:
    """One queued item: its payload, the engine options and the future its report goes to."""

    __slots__ = ("future", "options", "payload")

    def __init__(self, payload: Payload, options: Mapping[str, Any] | None) -> None:
        self.payload = payload
        self.options = dict(options or {})
        self.future: Future[EncodedReport] = Future()


class Dispatcher(ABC):
    """The queue side of a pool. Subclasses start ``self._thread`` (the dispatcher) and define
    :meth:`_wake`; :meth:`close` waits :attr:`JOIN_TIMEOUT` seconds for the thread."""

    JOIN_TIMEOUT: ClassVar[float] = 30.0
    CLOSED: ClassVar[str] = "the pool is closed"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queue: deque[Job] = deque()
        self._busy = 0
        self._closing = False
        self._broken: str | None = None
        self._thread: threading.Thread

    # ------------------------------------------------------------------ public side

    def submit(self, payload: Payload, options: Mapping[str, Any] | None = None) -> Future[EncodedReport]:
        """Queue one item; the future resolves to its report (never to an exception)."""
        job = Job(payload, options)
        with self._lock:
            refused = self._refuse(payload)
            if refused is not None:
                job.future.set_result(refused)
                return job.future
            self._queue.append(job)
        self._wake()
        return job.future

    def _refuse(self, payload: Payload) -> EncodedReport | None:
        """Under the lock: the report for an item a broken pool cannot run (``None``: queue it);
        raises ``RuntimeError`` once the pool is closed. A broken pool reports before it raises."""
        if self._broken is not None:  # the dispatcher failed: report, do not raise
            return pool_report(payload, self._broken)
        if self._closing:
            raise RuntimeError(self.CLOSED)
        return None

    @property
    def backlog(self) -> int:
        """Items queued or running."""
        with self._lock:
            return len(self._queue) + self._busy

    def close(self) -> None:
        """Stop the dispatcher; queued items are cancelled, running ones get an ``invalid`` report."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
        self._wake()
        self._thread.join(timeout=self.JOIN_TIMEOUT)
        self._closed()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ hooks

    @abstractmethod
    def _wake(self) -> None:
        """Wake the dispatcher thread (a submission, or close)."""

    def _closed(self) -> None:  # noqa: B027 (an optional hook: nothing to do by default)
        """After the dispatcher thread ended on close."""

    # ------------------------------------------------------------------ dispatcher thread

    def _take(self) -> Job | None:
        """The next job to run (counted as busy); cancelled ones are skipped. A job put back in
        line after its worker was replaced is running already and is taken as it is."""
        with self._lock:
            while self._queue:
                job = self._queue.popleft()
                if job.future.running() or job.future.set_running_or_notify_cancel():
                    self._busy += 1
                    return job
        return None

    def _finish(self, job: Job, report: Report | EncodedReport) -> None:
        with self._lock:
            self._busy -= 1
        job.future.set_result(report if isinstance(report, EncodedReport) else encode_report(report))

    def _resolve_queued(self, why: str) -> None:
        """Queued items on shutdown: cancelled on close; reported ``invalid`` (with ``why``) if
        the pool broke, or if they were running already (put back after a replacement)."""
        with self._lock:
            queued = list(self._queue)
            self._queue.clear()
        for job in queued:
            if self._broken is None and job.future.cancel():
                continue
            if job.future.running() or job.future.set_running_or_notify_cancel():
                job.future.set_result(pool_report(job.payload, why))
