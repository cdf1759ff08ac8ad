"""The Ray backend: the one module of cotaudit that imports ``ray``.

The same batch command scales from a laptop to a cluster: without ``--ray-address`` a local Ray
instance starts with ``workers`` CPUs; with one (``auto``, ``ray://host:10001``) the work goes to
that cluster. Each of ``workers`` Ray actors (one CPU each, placed by Ray anywhere in the
cluster) loads the engines once and checks one item at a time through actor tasks, which are
never retried (a retry could report an item twice). An item's clock starts when its actor
takes it — not while a replacement actor boots — so the per-item limit means the same as on
the local pool: past it the actor is killed (``ray.kill``), the item reported ``abstain``, and a
fresh actor takes the slot; an actor that dies under an item gives it an ``invalid`` report.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from typing import Any

from cotaudit.batch.jobs import (
    Payload,
    RegisteredEngine,
    ensure_registered,
    execute,
    lost_report,
    pool_report,
    preload,
    registry_snapshot,
    timeout_report,
)
from cotaudit.errors import MissingDependency
from cotaudit.report import Report
from cotaudit.report.encoded import EncodedReport, encode_report

START_TIMEOUT = 300.0  # a new actor on a busy cluster
# Items queued on each actor: the next one starts while the driver collects the last, which
# hides Ray's round trip (about 2 ms here) behind the work.
DEPTH = 2


# Read by Ray when it is imported: off, a Ray instance started here binds 127.0.0.1 instead of
# the machine's network address (a local run needs no network; Linux only counts as "cluster").
LOOPBACK_ONLY_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


def _ray(*, local: bool = False) -> Any:
    if local and "ray" not in sys.modules:
        os.environ.setdefault(LOOPBACK_ONLY_ENV, "0")
    try:
        import ray
    except ModuleNotFoundError as exc:
        raise MissingDependency.from_import_error(exc) from None
    return ray


class CheckActor:
    """One Ray worker: engines loaded once, then one item per ``run`` call."""

    def __init__(self, snapshot: tuple[RegisteredEngine, ...], engines: tuple[str, ...]) -> None:
        ensure_registered(snapshot)
        preload(engines)

    def ready(self) -> int:
        return os.getpid()

    def run(self, payload: Payload, options: dict[str, Any]) -> EncodedReport:
        return execute(payload, options)


class _Job:
    __slots__ = ("future", "options", "payload")

    def __init__(self, payload: Payload, options: Mapping[str, Any] | None) -> None:
        self.payload = payload
        self.options = dict(options or {})
        self.future: Future[EncodedReport] = Future()


class _Slot:
    """One actor and what it holds: the ``ready()`` call while it starts, then up to ``DEPTH``
    items (run in order by the actor; the clock runs for the head only)."""

    __slots__ = ("actor", "deadline", "inflight", "starting")

    def __init__(self, actor: Any) -> None:
        self.actor = actor
        self.starting: Any = actor.ready.remote()
        self.inflight: deque[tuple[Any, _Job]] = deque()
        self.deadline = time.monotonic() + START_TIMEOUT

    @property
    def head(self) -> Any:
        """The call to wait for: ``ready()``, the oldest item, or ``None`` when idle."""
        if self.starting is not None:
            return self.starting
        return self.inflight[0][0] if self.inflight else None


class RayPool:
    """``workers`` Ray actors checking items; :meth:`submit` returns a future R-1 report."""

    def __init__(
        self,
        workers: int,
        *,
        address: str | None = None,
        timeout: float | None = None,
        preload: Sequence[str] = (),
    ) -> None:
        ray = _ray(local=address is None)
        self._ray = ray
        self.workers = workers
        self.timeout = timeout
        self._owns_ray = not ray.is_initialized()
        if self._owns_ray:
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
            kwargs["logging_level"] = logging.ERROR
            if address is None:
                kwargs["num_cpus"] = workers
            else:
                kwargs["address"] = address
            ray.init(**kwargs)
        # Callables travel by reference or as their file (jobs.ShippedCallable); one a Ray worker
        # cannot load (a lambda, a file on another machine) is reported per item, not unknown.
        self._snapshot = registry_snapshot()
        self._engines = tuple(preload)
        self._actor_class = ray.remote(num_cpus=1, max_restarts=0, max_task_retries=0)(CheckActor)
        self._lock = threading.Lock()
        self._queue: deque[_Job] = deque()
        self._busy = 0
        self._closing = False
        self._broken: str | None = None
        self._wake = threading.Event()
        self._slots: list[_Slot] = []
        self._thread = threading.Thread(target=self._run, name="cotaudit-ray", daemon=True)
        self._thread.start()

    def submit(self, payload: Payload, options: Mapping[str, Any] | None = None) -> Future[EncodedReport]:
        """Queue one item; the future resolves to its report (never to an exception)."""
        job = _Job(payload, options)
        with self._lock:
            if self._closing:
                raise RuntimeError("the Ray backend is closed")
            if self._broken is not None:
                job.future.set_result(pool_report(payload, self._broken))
                return job.future
            self._queue.append(job)
        self._wake.set()
        return job.future

    @property
    def backlog(self) -> int:
        with self._lock:
            return len(self._queue) + self._busy

    def close(self) -> None:
        """Cancel what is queued, stop the actors, shut down the Ray instance this pool started."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
        self._wake.set()
        self._thread.join(timeout=60)
        if self._owns_ray:
            self._ray.shutdown()

    def __enter__(self) -> RayPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ dispatcher thread

    def _new_slot(self) -> _Slot:
        return _Slot(self._actor_class.remote(self._snapshot, self._engines))

    def _run(self) -> None:
        try:
            self._slots = [self._new_slot() for _ in range(self.workers)]
            while not self._closing:
                self._assign()
                heads = [s.head for s in self._slots if s.head is not None]
                if not heads:
                    self._wake.wait(0.5)
                    self._wake.clear()
                    continue
                # Room on an actor: poll briefly so a new submission is picked up at once.
                room = any(s.starting is None and len(s.inflight) < DEPTH for s in self._slots)
                until = min(s.deadline for s in self._slots if s.head is not None) - time.monotonic()
                wait_for = 0.005 if room else min(0.05, max(0.0, until))
                ready, _ = self._ray.wait(heads, num_returns=1, timeout=wait_for)
                for ref in ready:
                    self._receive(next(s for s in self._slots if s.head is ref))
                self._expire()
        except Exception as exc:  # every future still resolves: items are reported, never lost
            with self._lock:
                self._broken = f"the Ray backend failed: {type(exc).__name__}: {exc}"
        finally:
            self._shutdown()

    def _take(self) -> _Job | None:
        with self._lock:
            while self._queue:
                job = self._queue.popleft()
                # a job put back by _replace is running already; a fresh one may be cancelled
                if job.future.running() or job.future.set_running_or_notify_cancel():
                    self._busy += 1
                    return job
        return None

    def _assign(self) -> None:
        for slot in self._slots:
            while slot.starting is None and len(slot.inflight) < DEPTH:
                job = self._take()
                if job is None:
                    return
                slot.inflight.append((slot.actor.run.remote(job.payload, job.options), job))
                if len(slot.inflight) == 1:
                    slot.deadline = self._item_deadline()

    def _item_deadline(self) -> float:
        return time.monotonic() + self.timeout if self.timeout is not None else float("inf")

    def _receive(self, slot: _Slot) -> None:
        if slot.starting is not None:
            ref, slot.starting = slot.starting, None
            try:
                self._ray.get(ref)
            except Exception as exc:  # the actor could not start: the run cannot go on
                message = " ".join(str(exc).split())[:300]
                raise RuntimeError(f"a Ray worker failed to start: {type(exc).__name__}: {message}") from None
            return
        ref, job = slot.inflight.popleft()
        slot.deadline = self._item_deadline()  # the next item starts now
        try:
            result = self._ray.get(ref)
        except Exception as exc:  # RayActorError, ActorDiedError, RayTaskError ...
            message = " ".join(str(exc).split())[:300]
            self._replace(slot)
            self._finish(job, lost_report(job.payload, f"{type(exc).__name__}: {message}"))
            return
        self._finish(job, result)

    def _expire(self) -> None:
        now = time.monotonic()
        for slot in self._slots:
            if slot.head is None or slot.deadline > now:
                continue
            if slot.starting is not None:
                raise RuntimeError(f"a Ray worker did not start within {START_TIMEOUT:g} s")
            _, job = slot.inflight.popleft()
            self._replace(slot)
            self._finish(job, timeout_report(job.payload, self.timeout or 0.0))

    def _replace(self, slot: _Slot) -> None:
        """Kill the slot's actor and start another; items queued behind the head go back in line."""
        with contextlib.suppress(Exception):
            self._ray.kill(slot.actor, no_restart=True)
        with self._lock:
            for _, job in reversed(slot.inflight):  # never started: they run again, once
                self._queue.appendleft(job)
                self._busy -= 1
        slot.inflight.clear()
        fresh = self._new_slot()
        slot.actor, slot.starting, slot.deadline = fresh.actor, fresh.starting, fresh.deadline

    def _finish(self, job: _Job, report: Report | EncodedReport) -> None:
        with self._lock:
            self._busy -= 1
        job.future.set_result(report if isinstance(report, EncodedReport) else encode_report(report))

    def _shutdown(self) -> None:
        with self._lock:
            queued = list(self._queue)
            self._queue.clear()
        why = self._broken or "the Ray backend was closed"
        for job in queued:  # cancelled on close; reported if put back or if the backend broke
            if self._broken is None and job.future.cancel():
                continue
            if job.future.running() or job.future.set_running_or_notify_cancel():
                job.future.set_result(pool_report(job.payload, why))
        for slot in self._slots:
            for _, job in slot.inflight:
                self._finish(job, pool_report(job.payload, why))
            slot.inflight.clear()
            with contextlib.suppress(Exception):
                self._ray.kill(slot.actor, no_restart=True)
