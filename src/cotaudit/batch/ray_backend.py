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
from collections.abc import Sequence
from typing import Any

from cotaudit.batch import jobs, procstat
from cotaudit.batch.dispatch import Dispatcher, Job
from cotaudit.batch.jobs import (
    Checker,
    Payload,
    RegisteredEngine,
    lost_report,
    pool_report,
    registry_snapshot,
    timeout_report,
)
from cotaudit.errors import MissingDependency
from cotaudit.limits import DEFAULT_MEMORY_MB
from cotaudit.report.encoded import EncodedReport

START_TIMEOUT = 300.0  # last resort: an actor Ray cannot place, on a busy cluster
START_STALL = 10.0  # a starting actor whose start thread sleeps this long without CPU is stuck
SAMPLE_EVERY = 0.5  # seconds between two questions to a starting actor
MAX_START_FAILURES = 3  # failed starts in a row before a slot is given up
PROBE_GROUP = "probe"  # the actor's concurrency group for progress(), beside the default one
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
    """One Ray worker: :meth:`start` loads the engines and caps the memory, then one item per
    :meth:`run`; :meth:`progress` (in :data:`PROBE_GROUP`) answers while :meth:`start` runs."""

    def __init__(self) -> None:
        self._checker: Checker | None = None
        self._starter: int | None = None  # the native id of the thread running start()

    def start(
        self,
        snapshot: tuple[RegisteredEngine, ...],
        engines: tuple[str, ...],
        memory_mb: int | None,
        headroom_mb: int,
    ) -> int:
        self._starter = threading.get_native_id()
        try:
            # A Ray worker maps the shared object store when it connects (VMS about 8 GiB here,
            # for a 6.7 GiB store), before this: the cap is set above it and leaves it usable.
            self._checker = Checker(snapshot, engines, memory_mb, headroom_mb)
        finally:
            self._starter = None
        return os.getpid()

    def progress(self) -> procstat.Sample | None:
        """The CPU clock and state of the thread running :meth:`start` (``None``: not starting,
        or no /proc to tell)."""
        starter = self._starter
        return procstat.sample_thread(starter) if starter is not None else None

    def run(self, payload: Payload, options: dict[str, Any]) -> tuple[EncodedReport, bool]:
        """The item's encoded report, and whether this actor should retire now."""
        if self._checker is None:
            raise RuntimeError("the actor was not started")
        return self._checker.check(payload, options)


class _Slot:
    """One actor and what it holds: the ``start()`` call while it starts, then up to ``DEPTH``
    items (run in order by the actor; the clock runs for the head only)."""

    __slots__ = (
        "actor",
        "deadline",
        "failures",
        "inflight",
        "probe",
        "progress_at",
        "sampled_at",
        "starting",
        "ticks",
    )

    def __init__(self, actor: Any, starting: Any) -> None:
        self.failures = 0  # failed starts in a row
        self.inflight: deque[tuple[Any, Job]] = deque()
        self.restart(actor, starting)

    def restart(self, actor: Any, starting: Any) -> None:
        self.actor = actor
        self.starting: Any = starting
        now = time.monotonic()
        self.deadline = now + START_TIMEOUT
        self.probe: Any = None  # an unanswered progress() call
        self.sampled_at = now
        self.ticks = -1  # CPU clock ticks of the start thread when last seen to change
        self.progress_at = now

    @property
    def head(self) -> Any:
        """The call to wait for: ``start()``, the oldest item, or ``None`` when idle."""
        if self.starting is not None:
            return self.starting
        return self.inflight[0][0] if self.inflight else None


class RayPool(Dispatcher):
    """``workers`` Ray actors checking items; :meth:`submit` returns a future encoded R-1 report.

    ``memory_mb`` is the per-item memory budget; it also caps each actor's address space, as
    on :class:`~cotaudit.batch.pool.LocalPool` (``None``: no cap).
    """

    def __init__(
        self,
        workers: int,
        *,
        address: str | None = None,
        timeout: float | None = None,
        preload: Sequence[str] = (),
        memory_mb: int | None = DEFAULT_MEMORY_MB,
    ) -> None:
        super().__init__()
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
        self._engines = tuple(preload)
        self._memory_mb = memory_mb
        self._actor_class = ray.remote(
            num_cpus=1, max_restarts=0, max_task_retries=0, concurrency_groups={PROBE_GROUP: 1}
        )(CheckActor)
        self._wake_event = threading.Event()
        self._slots: list[_Slot] = []
        self._thread = threading.Thread(target=self._run, name="cotaudit-ray", daemon=True)
        self._thread.start()

    JOIN_TIMEOUT = 60.0
    CLOSED = "the Ray backend is closed"

    def _refuse(self, payload: Payload) -> EncodedReport | None:
        """A closed backend raises even when it also broke (the local pool reports then)."""
        if self._closing:
            raise RuntimeError(self.CLOSED)
        return super()._refuse(payload)

    def _wake(self) -> None:
        self._wake_event.set()

    def _closed(self) -> None:
        """Shut down the Ray instance this pool started."""
        if self._owns_ray:
            self._ray.shutdown()

    # ------------------------------------------------------------------ dispatcher thread

    def _start_actor(self) -> tuple[Any, Any]:
        """A new actor and its ``start()`` call (the registry and headroom as of now).

        Callables travel by reference or as their file (jobs.ShippedCallable); one a Ray worker
        cannot load (a lambda, a file on another machine) is reported per item, not unknown.
        """
        actor = self._actor_class.remote()
        args = (registry_snapshot(), self._engines, self._memory_mb, jobs.WORKER_HEADROOM_MB)
        return actor, actor.start.remote(*args)

    def _run(self) -> None:
        try:
            self._slots = [_Slot(*self._start_actor()) for _ in range(self.workers)]
            while not self._closing and self._broken is None:
                self._assign()
                heads = [s.head for s in self._slots if s.head is not None]
                if not heads:
                    self._wake_event.wait(0.5)
                    self._wake_event.clear()
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
            except Exception as exc:  # the actor could not start: another one takes the slot
                message = " ".join(str(exc).split())[:300]
                self._start_failed(slot, f"a Ray worker failed to start: {type(exc).__name__}: {message}")
                return
            slot.failures = 0
            return
        ref, job = slot.inflight.popleft()
        slot.deadline = self._item_deadline()  # the next item starts now
        try:
            report, retiring = self._ray.get(ref)
        except Exception as exc:  # RayActorError, ActorDiedError, RayTaskError ...
            message = " ".join(str(exc).split())[:300]
            self._replace(slot)
            self._finish(job, lost_report(job.payload, f"{type(exc).__name__}: {message}"))
            return
        self._finish(job, report)
        if retiring:  # grown past its headroom (jobs.WORKER_HEADROOM_MB): a fresh actor goes on
            self._replace(slot)

    def _expire(self) -> None:
        now = time.monotonic()
        for slot in list(self._slots):
            if slot.starting is not None:
                why = self._start_problem(slot, now)
                if why is not None:
                    self._start_failed(slot, why)
                continue
            if slot.head is None or slot.deadline > now:
                continue
            _, job = slot.inflight.popleft()
            self._replace(slot)
            self._finish(job, timeout_report(job.payload, self.timeout or 0.0))

    def _start_problem(self, slot: _Slot, now: float) -> str | None:
        """Why a starting actor will not become ready, or ``None`` while it gets somewhere."""
        if now >= slot.deadline:
            return f"a Ray worker did not start within {START_TIMEOUT:g} s"
        if slot.probe is None:
            if now - slot.sampled_at >= SAMPLE_EVERY:
                slot.probe = slot.actor.progress.options(concurrency_group=PROBE_GROUP).remote()
                slot.sampled_at = now
            return None
        answered, _ = self._ray.wait([slot.probe], num_returns=1, timeout=0)
        if not answered:  # not placed or not up yet: only the start timeout can tell
            return None
        probe, slot.probe = slot.probe, None
        try:
            seen = self._ray.get(probe)
        except Exception:  # the actor died: its start() call says how
            return None
        if seen is None or seen.ticks != slot.ticks or not seen.asleep:
            slot.ticks = seen.ticks if seen is not None else -1
            slot.progress_at = now
            return None
        if now - slot.progress_at >= START_STALL:
            return f"a Ray worker was stuck while starting (asleep without CPU time for {START_STALL:g} s)"
        return None

    def _start_failed(self, slot: _Slot, why: str) -> None:
        """Replace a slot's actor that did not start; give the slot up after too many in a row,
        and the run's remaining items once no slot is left."""
        slot.failures += 1
        slot.starting = None
        with contextlib.suppress(Exception):
            self._ray.kill(slot.actor, no_restart=True)
        if slot.failures < MAX_START_FAILURES:
            slot.restart(*self._start_actor())
            return
        self._slots.remove(slot)
        if not self._slots:
            with self._lock:
                self._broken = f"no Ray worker could start: {why}"

    def _replace(self, slot: _Slot) -> None:
        """Kill the slot's actor and start another; items queued behind the head go back in line."""
        with contextlib.suppress(Exception):
            self._ray.kill(slot.actor, no_restart=True)
        with self._lock:
            for _, job in reversed(slot.inflight):  # run again, once: only this run's report counts
                self._queue.appendleft(job)
                self._busy -= 1
        slot.inflight.clear()
        slot.restart(*self._start_actor())

    def _shutdown(self) -> None:
        why = self._broken or "the Ray backend was closed"
        self._resolve_queued(why)  # cancelled on close; reported if put back or if the backend broke
        for slot in self._slots:
            for _, job in slot.inflight:
                self._finish(job, pool_report(job.payload, why))
            slot.inflight.clear()
            with contextlib.suppress(Exception):
                self._ray.kill(slot.actor, no_restart=True)
