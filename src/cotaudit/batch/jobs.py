"""What a worker runs for one item, and the reports the front end writes when it cannot.

Workers (local processes or Ray tasks) call :func:`execute`: it never raises, so a broken
item becomes an ``invalid`` report with the reason in ``details.error``. The dispatcher side
uses :func:`timeout_report` (the item ran past its time limit: ``abstain``, since nothing was
decided) and :func:`lost_report` (the worker process died under the item: ``invalid``).

Items travel as :class:`Payload` tuples and reports come back as canonical R-1 dicts, so the
same data crosses a pipe, a Ray object store or a thread boundary unchanged. :func:`worker_main`
is the loop of a local worker process (:mod:`cotaudit.batch.pool`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
from collections.abc import Iterable, Mapping
from dataclasses import replace
from multiprocessing.connection import Connection
from typing import Any, NamedTuple

from cotaudit import api
from cotaudit.errors import CotauditError
from cotaudit.report import Report, report_dict, sha256_text


class Payload(NamedTuple):
    """One item as it travels to a worker (``api.InputItem`` fields, plus engine options)."""

    engine: str
    text: str
    path: str | None
    item_id: str | None
    error: str | None = None

    @classmethod
    def of(cls, item: api.InputItem) -> Payload:
        return cls(item.engine, item.text, item.path, item.item_id, item.error)

    def to_item(self) -> api.InputItem:
        return api.InputItem(self.engine, self.text, self.path, self.item_id, self.error)


class RegisteredEngine(NamedTuple):
    """A registry entry shipped to workers that did not inherit the parent's registry."""

    name: str
    entry_point: Any
    extensions: tuple[str, ...]


def registry_snapshot() -> tuple[RegisteredEngine, ...]:
    """Every implemented engine of this process, to re-register in a fresh worker process."""
    return tuple(
        RegisteredEngine(s.name, s.entry_point, s.extensions) for s in api.engines() if s.implemented
    )


def ensure_registered(snapshot: Iterable[RegisteredEngine]) -> None:
    """Register the engines of ``snapshot`` this process does not know yet (spawned workers)."""
    known = {s.name for s in api.engines() if s.implemented}
    for entry in snapshot:
        if entry.name not in known:
            try:
                api.register_engine(entry.name, entry.entry_point, entry.extensions)
            except CotauditError:
                continue  # an extension clash: the item will report the engine as unavailable


def preload(engines: Iterable[str]) -> None:
    """Import the named engines now (a warm worker answers its first item at full speed)."""
    for name in engines:
        try:
            api.get_engine(name)
        except CotauditError:
            continue  # reported per item when an item needs it


def execute(payload: Payload, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The canonical R-1 dict for one item; never raises (front-end errors become ``invalid``)."""
    item = payload.to_item()
    try:
        report = api.run_item(item, **dict(options or {}))
    except CotauditError as exc:  # unknown engine, missing dependency, bad option: per item
        report = front_end_report(payload, "invalid", str(exc), reason=type(exc).__name__)
    except Exception as exc:  # a bug outside the engine: still one report, never a dead run
        message = " ".join(str(exc).split()) or "(no message)"
        report = front_end_report(payload, "invalid", f"internal error: {type(exc).__name__}: {message}")
    return report_dict(report)


def front_end_report(payload: Payload, verdict: str, error: str, *, reason: str | None = None) -> Report:
    """A report made by the batch runner or the service, not by an engine."""
    report = api.invalid_report(
        engine=payload.engine,
        path=payload.path,
        item_id=payload.item_id,
        sha256=sha256_text(payload.text),
        error=error,
        extra={"reason": reason} if reason else None,
    )
    if verdict == "abstain":
        report = replace(report, verdict="abstain")
    return report


def timeout_report(payload: Payload, seconds: float) -> Report:
    """``abstain``: the item ran past its time limit, so nothing was decided about it."""
    return front_end_report(
        payload, "abstain", f"timed out after {seconds:g} s (the worker was stopped)", reason="timeout"
    )


def lost_report(payload: Payload, why: str) -> Report:
    """``invalid``: the worker process died while checking this item."""
    return front_end_report(payload, "invalid", f"worker process died: {why}", reason="worker_died")


def exit_description(exitcode: int | None) -> str:
    """``exit code 3`` / ``killed by signal 9`` / ``exit status unknown``."""
    if exitcode is None:
        return "exit status unknown"
    if exitcode < 0:
        return f"killed by signal {-exitcode}"
    return f"exit code {exitcode}"


# --------------------------------------------------------------------------- local worker processes


def detach(parent_pid: int) -> None:
    """Own process group (the parent kills the worker with its children); die with the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(0)


def close_inherited_sockets(keep: int) -> None:
    """Close every socket but ``keep`` that a forked worker got from its parent (a server's
    listening socket, its clients' connections): a client must see its connection close when
    the server closes it, not when some worker exits."""
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:  # no /proc: nothing to sweep
        return
    for fd in fds:
        if fd <= 2 or fd == keep:
            continue
        with contextlib.suppress(OSError):
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                os.close(fd)


def worker_main(
    conn: Connection,
    parent_pid: int,
    snapshot: tuple[RegisteredEngine, ...],
    engines: tuple[str, ...],
    inherited: tuple[int, ...],
) -> None:
    """The child's loop: ``(payload, options)`` in, canonical report dict out, ``None`` stops."""
    detach(parent_pid)
    for fd in inherited:  # a forked child holds the parent's ends of its siblings' pipes
        with contextlib.suppress(OSError):
            os.close(fd)
    close_inherited_sockets(keep=conn.fileno())
    ensure_registered(snapshot)
    preload(engines)
    conn.send(("ready", os.getpid()))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        payload, options = message
        conn.send(execute(payload, options))
