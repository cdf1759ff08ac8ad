"""What a worker runs for one item, and the reports the front end writes when it cannot.

Workers (local processes or Ray tasks) call :func:`execute`: it never raises, so a broken
item becomes an ``invalid`` report with the reason in ``details.error``. The dispatcher side
uses :func:`timeout_report` (the item ran past its time limit: ``abstain``, since nothing was
decided) and :func:`lost_report` (the worker process died under the item: ``invalid``).

Items travel as :class:`Payload` tuples and reports come back already encoded
(:class:`~cotaudit.report.encoded.EncodedReport`: the canonical JSON bytes and a few offsets), so
the same data crosses a pipe, a Ray object store or a thread boundary unchanged, and the process
that receives a 40 MB report gets a few objects, not millions to unpickle and garbage-collect.
:func:`worker_main` is the loop of a local worker process (:mod:`cotaudit.batch.pool`).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import pickle
import signal
import stat
import sys
from collections.abc import Iterable, Mapping
from dataclasses import replace
from multiprocessing.connection import Connection
from typing import Any, NamedTuple

from cotaudit import api, limits
from cotaudit.errors import CotauditError
from cotaudit.report import Report, sha256_text
from cotaudit.report.encoded import EncodedReport, encode_report
from cotaudit.selection import Selection, apply_selection


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
    """A registry entry as it travels to a worker process that did not inherit the registry.

    ``entry_point`` is a ``"module:function"`` string, ``None`` (known, not implemented), or a
    :class:`ShippedCallable` for an engine registered with a callable at run time. ``problem``
    says why a callable could not be shipped; the worker then reports its items ``invalid``
    with that reason instead of calling them unknown.
    """

    name: str
    entry_point: Any
    extensions: tuple[str, ...]
    problem: str | None = None


class ShippedCallable(NamedTuple):
    """A callable entry point in transit: pickled by reference, plus the file it was defined in
    (so a function from a module that is not importable by name can still be loaded there)."""

    pickled: bytes | None
    module: str
    qualname: str
    file: str | None


def registry_snapshot() -> tuple[RegisteredEngine, ...]:
    """Every engine of this process, to re-register in a fresh worker process (callables as
    :class:`ShippedCallable` entries)."""
    entries = []
    for spec in api.engines():
        entry: Any = spec.entry_point
        problem = None
        if callable(entry):
            entry, problem = _ship_callable(spec.name, entry)
        entries.append(RegisteredEngine(spec.name, entry, spec.extensions, problem))
    return tuple(entries)


def _ship_callable(name: str, fn: Any) -> tuple[ShippedCallable | None, str | None]:
    module = str(getattr(fn, "__module__", None) or "")
    qualname = str(getattr(fn, "__qualname__", None) or type(fn).__qualname__)
    code = getattr(fn, "__code__", None)
    file = code.co_filename if code is not None and os.path.isfile(code.co_filename) else None
    try:
        pickled: bytes | None = pickle.dumps(fn)
    except Exception:  # PicklingError, AttributeError, TypeError: try the file instead
        pickled = None
    if pickled is None and (file is None or "<" in qualname):
        return None, (
            f"engine '{name}' is registered with {module}.{qualname}, which cannot be sent to a "
            "worker process (define it at the top level of an importable module, or register it "
            "as 'module:function')"
        )
    return ShippedCallable(pickled, module, qualname, file), None


_UNLOADABLE: dict[str, str] = {}  # engine -> why this worker process cannot run it


def ensure_registered(snapshot: Iterable[RegisteredEngine]) -> None:
    """Make this process's registry match ``snapshot`` (a fresh worker process).

    An engine this process has with the same entry point and extensions is left alone. A
    callable that cannot be loaded here is remembered, and :func:`execute` reports its items
    ``invalid`` with the reason.
    """
    known = {s.name: s for s in api.engines()}
    for entry in snapshot:
        if entry.problem is not None:
            _UNLOADABLE[entry.name] = entry.problem
            continue
        target = entry.entry_point
        if isinstance(target, ShippedCallable):
            target, problem = _load_callable(entry.name, target)
            if problem is not None:
                _UNLOADABLE[entry.name] = problem
                continue
        have = known.get(entry.name)
        if have is not None and have.entry_point == target and have.extensions == entry.extensions:
            continue
        try:
            api.register_engine(entry.name, target, entry.extensions)
        except CotauditError as exc:  # an extension clash
            _UNLOADABLE[entry.name] = f"engine '{entry.name}' cannot be registered in a worker: {exc}"


def _load_callable(name: str, shipped: ShippedCallable) -> tuple[Any, str | None]:
    """The callable ``shipped`` names, imported by name or else loaded from its file."""
    why = "not picklable"
    if shipped.pickled is not None:
        try:
            fn = pickle.loads(shipped.pickled)
        except BaseException as exc:  # a module import may raise anything, SystemExit too
            why = f"{type(exc).__name__}: {exc}"
        else:
            code = getattr(fn, "__code__", None)
            # the same name may be another module here (two ``conftest`` modules on sys.path)
            if shipped.file is None or code is None or code.co_filename == shipped.file:
                return fn, None
            why = f"{shipped.module} is another file in this process"
    if shipped.file is not None:
        try:
            return _from_file(shipped), None
        except BaseException as exc:  # as above
            why = f"{type(exc).__name__}: {exc}"
    return None, (
        f"engine '{name}' is registered with {shipped.module}.{shipped.qualname}, which a worker "
        f"process cannot load ({' '.join(why.split())[:200]})"
    )


def _from_file(shipped: ShippedCallable) -> Any:
    assert shipped.file is not None
    alias = "cotaudit_shipped_" + sha256_text(shipped.file)[:16]
    module = sys.modules.get(alias)
    if module is None:
        spec = importlib.util.spec_from_file_location(alias, shipped.file)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {shipped.file}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[alias] = module  # dataclasses and typing look their module up here
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[alias]
            raise
    target: Any = module
    for part in shipped.qualname.split("."):
        target = getattr(target, part)
    return target


def preload(engines: Iterable[str]) -> None:
    """Import the named engines now (a warm worker answers its first item at full speed)."""
    for name in engines:
        try:
            api.get_engine(name)
        except CotauditError:
            continue  # reported per item when an item needs it


# An options key whose value, a module-level function ``task(payload, options) -> Report``, the
# worker calls for the item instead of the engine (with the other options). It travels pickled
# by reference, so it is set by code, never from a client's JSON. The service's ``/v1/reward``
# uses it to score a completion (audit, answer, steps) where the item's time limit kills it.
TASK = "cotaudit.task"
# An options key whose value, a :class:`~cotaudit.selection.Selection`, the worker applies to the
# report before encoding it (``cotaudit batch --select/--ignore``): the report that travels back
# is already the one written, and the parent never rebuilds it. Reports made outside an engine
# (timeouts, lost workers, unreadable lines) have no findings, so selection leaves them as they are.
SELECTION = "cotaudit.selection"


def execute(payload: Payload, options: Mapping[str, Any] | None = None) -> EncodedReport:
    """The encoded R-1 report for one item; never raises (front-end errors become ``invalid``)."""
    item = payload.to_item()
    unloadable = _UNLOADABLE.get(payload.engine) if payload.error is None else None
    if unloadable is not None:
        return encode_report(front_end_report(payload, "invalid", unloadable, reason="engine_not_loadable"))
    rest = dict(options or {})
    task = rest.pop(TASK, None)
    selection: Selection | None = rest.pop(SELECTION, None)
    try:
        if task is not None and item.error is None:
            report = task(payload, rest)
        else:
            report = api.run_item(item, **rest)
        return encode_report(apply_selection(report, selection) if selection is not None else report)
    except CotauditError as exc:  # unknown engine, missing dependency, bad option: per item
        report = front_end_report(payload, "invalid", str(exc), reason=type(exc).__name__)
    except Exception as exc:  # a bug outside the engine (or a report JSON cannot hold): still one
        message = " ".join(str(exc).split()) or "(no message)"  # report, never a dead run
        report = front_end_report(payload, "invalid", f"internal error: {type(exc).__name__}: {message}")
    return encode_report(report)


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


def pool_report(payload: Payload, why: str) -> EncodedReport:
    """``invalid``, encoded: the pool could not run this item (it was closed or broke)."""
    return encode_report(front_end_report(payload, "invalid", why, reason="pool"))


def exit_description(exitcode: int | None) -> str:
    """``exit code 3`` / ``killed by signal 9`` / ``exit status unknown``."""
    if exitcode is None:
        return "exit status unknown"
    if exitcode < 0:
        return f"killed by signal {-exitcode}"
    return f"exit code {exitcode}"


# --------------------------------------------------------------------------- local worker processes

# A worker's address space is capped (RLIMIT_AS) at what it maps once its engines are loaded,
# plus the per-item memory budget, plus this headroom for what normal items map without using
# it: thread stacks and glibc's per-thread malloc arenas (64 MiB each), Z3 and SymPy state. A
# worker that has grown past the headroom (an engine that leaks) retires after its item, so
# every item starts with its whole budget below the cap. Measured: engines loaded 71 MiB, then
# up to ~300 MiB of reservations over every bundled example (docs/batch.md).
WORKER_HEADROOM_MB = 1024


class WorkerSetup(NamedTuple):
    """What a local worker process needs before its first item."""

    pool_pid: int
    registry: tuple[RegisteredEngine, ...]
    engines: tuple[str, ...]
    inherited: tuple[int, ...] = ()  # a forked child closes the parent's ends of other pipes
    environ: dict[str, str] | None = None  # the parent's environment now (a fork server's is older)
    memory_mb: int | None = None  # the per-item memory budget: the address-space cap's base
    headroom_mb: int = WORKER_HEADROOM_MB


def detach(pool_pid: int) -> None:
    """Own process group (the pool kills the worker with its children); die with the parent.

    The parent is the pool's process (fork, spawn) or the fork server it started, which exits
    when the pool's process does; either way the worker is killed when it goes.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if not _alive(pool_pid) or os.getppid() == 1:  # the pool died before prctl took effect
        os._exit(0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


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


def mapped_bytes() -> int | None:
    """This process's virtual memory size (what ``RLIMIT_AS`` bounds), or ``None`` without /proc."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def code_origin() -> str:
    """Where this process's cotaudit comes from (the real path of :mod:`cotaudit.api`)."""
    return os.path.realpath(api.__file__)


class Checker:
    """What every worker process does, local or a Ray actor: its engines registered and loaded,
    its address space capped (``memory_mb`` plus ``headroom_mb`` above what it maps once
    loaded), then one item at a time.

    :meth:`check` also says whether the worker should retire after the item: it has grown more
    than the headroom since it started, so the cap would soon land on a normal item.
    """

    def __init__(
        self,
        registry: Iterable[RegisteredEngine],
        engines: Iterable[str],
        memory_mb: int | None,
        headroom_mb: int = WORKER_HEADROOM_MB,
    ) -> None:
        ensure_registered(registry)
        preload(engines)
        self.headroom_mb = headroom_mb
        self.base = mapped_bytes()
        if memory_mb is not None:
            limits.limit_process_memory(memory_mb + headroom_mb)

    def check(self, payload: Payload, options: Mapping[str, Any] | None) -> tuple[EncodedReport, bool]:
        """The item's encoded report, and whether this worker should now retire."""
        report = execute(payload, options)
        now = mapped_bytes()
        retiring = self.base is not None and now is not None and now - self.base > self.headroom_mb << 20
        return report, retiring


def worker_main(conn: Connection, setup: WorkerSetup) -> None:
    """The child's loop: ``(payload, options)`` in, ``("report", EncodedReport, retiring)`` out,
    ``None`` stops.

    The first message is ``("ready", pid, where)``, once the engines are loaded; ``where`` is
    the file this worker's :mod:`cotaudit.api` came from, so the pool can tell a worker running
    another copy of cotaudit than its own (a fork server that found another one on its path).
    """
    detach(setup.pool_pid)
    for fd in setup.inherited:
        with contextlib.suppress(OSError):
            os.close(fd)
    close_inherited_sockets(keep=conn.fileno())
    if setup.environ is not None:
        os.environ.clear()
        os.environ.update(setup.environ)
    checker = Checker(setup.registry, setup.engines, setup.memory_mb, setup.headroom_mb)
    conn.send(("ready", os.getpid(), code_origin()))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        payload, options = message
        report, retiring = checker.check(payload, options)
        conn.send(("report", report, retiring))
        if retiring:
            return
