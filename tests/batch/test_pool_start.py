"""Workers start reliably: never forked under another thread's lock, stuck ones found fast, and
every engine of the parent (registered at run time too) reaches them or says why it cannot."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from batch.slow_engine import register
from cotaudit import api
from cotaudit.batch import pool as pool_module
from cotaudit.batch.jobs import Payload
from cotaudit.batch.pool import LocalPool

# A module whose import, in the test process only, waits at a gate: while a thread imports it,
# that thread holds the module's import lock.
GATED_MODULE = """\
import sys

from batch.slow_engine import slow_check as check

_gate = getattr(sys, "_cotaudit_test_gate", None)
if _gate is not None:
    sys._cotaudit_test_entered.set()
    _gate.wait(120)
"""

# A module whose import, in a worker, never ends and never uses the CPU (a lock never granted).
STUCK_MODULE = """\
import os, threading

from batch.slow_engine import slow_check as check

if os.getpid() != int(os.environ["COTAUDIT_TEST_PARENT"]):
    threading.Event().wait()
"""

# A module whose import, in a worker, keeps the CPU busy for a while (a slow, live start).
BUSY_MODULE = """\
import os, time

from batch.slow_engine import slow_check as check

if os.getpid() != int(os.environ["COTAUDIT_TEST_PARENT"]):
    _until = time.monotonic() + float(os.environ["COTAUDIT_TEST_BUSY"])
    while time.monotonic() < _until:
        pass
"""


@pytest.fixture(autouse=True)
def slow_engine() -> Iterator[None]:
    register()
    yield


def _module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str, engine: str) -> str:
    name = f"cotaudit_test_{engine}_{os.getpid()}_{time.monotonic_ns()}"
    (tmp_path / f"{name}.py").write_text(source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    api.register_engine(engine, f"{name}:check", (f".{engine}",))
    return name


def test_workers_start_while_another_thread_holds_an_import_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stall of issue 14: a worker forked while the main thread was importing an engine
    inherited that module's import lock, held forever, and hung until the 120 s start timeout."""
    name = _module(tmp_path, monkeypatch, GATED_MODULE, "gated")
    gate, entered = threading.Event(), threading.Event()
    monkeypatch.setattr(sys, "_cotaudit_test_gate", gate, raising=False)
    monkeypatch.setattr(sys, "_cotaudit_test_entered", entered, raising=False)
    importer = threading.Thread(target=importlib.import_module, args=(name,), daemon=True)
    importer.start()
    try:
        assert entered.wait(30), "the importing thread never got into the module"
        start = time.monotonic()
        with LocalPool(1, preload=("gated",)) as pool:
            report = pool.submit(Payload("gated", "ok", None, "x")).result(timeout=60).report()
        elapsed = time.monotonic() - start
    finally:
        gate.set()
        importer.join(30)
    assert report.verdict == "pass" and report.engine == "slow"
    assert elapsed < 60  # the stall was 120 s; a start takes well under a second


def test_a_worker_stuck_while_starting_is_found_in_seconds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _module(tmp_path, monkeypatch, STUCK_MODULE, "stuck")
    monkeypatch.setenv("COTAUDIT_TEST_PARENT", str(os.getpid()))
    monkeypatch.setattr(pool_module, "START_STALL", 1.0, raising=False)
    start = time.monotonic()
    with LocalPool(1, preload=("stuck",)) as pool:
        report = pool.submit(Payload("slow", "ok", None, "x")).result(timeout=90).report()
    assert time.monotonic() - start < 90  # 3 stuck starts; the start timeout alone: 3 x 120 s
    assert report.verdict == "invalid" and report.details["reason"] == "pool"
    assert "no worker could start: a worker was stuck while starting" in report.details["error"]


def test_near_miss_a_busy_slow_start_is_not_stuck(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _module(tmp_path, monkeypatch, BUSY_MODULE, "busy")
    monkeypatch.setenv("COTAUDIT_TEST_PARENT", str(os.getpid()))
    monkeypatch.setenv("COTAUDIT_TEST_BUSY", "3")
    monkeypatch.setattr(pool_module, "START_STALL", 1.0, raising=False)
    with LocalPool(1, preload=("busy",)) as pool:
        report = pool.submit(Payload("slow", "PID", None, "x")).result(timeout=120).report()
        again = pool.submit(Payload("slow", "PID", None, "y")).result(timeout=120).report()
    assert report.verdict == "pass"
    assert again.details["pid"] == report.details["pid"]  # the first worker, never replaced


def _double(text: str, *, path: str | None = None, item_id: str | None = None):  # type: ignore[no-untyped-def]
    from batch.slow_engine import slow_check

    return slow_check(text + "\nBAD", path=path, item_id=item_id)


def test_engines_registered_after_the_pool_started_reach_new_workers() -> None:
    with LocalPool(1) as pool:
        assert pool.submit(Payload("slow", "ok", None, "a")).result(timeout=60).report().verdict == "pass"
        api.register_engine("late", _double, (".late",))
        pool.submit(Payload("slow", "EXIT", None, "b")).result(timeout=60).report()  # a fresh worker next
        report = pool.submit(Payload("late", "ok", None, "c")).result(timeout=60).report()
    assert report.verdict == "fail" and report.engine == "slow"


def test_a_callable_that_cannot_travel_is_reported_not_unknown() -> None:
    api.register_engine("closure", lambda text, **kw: _double(text, **kw), (".closure",))
    with LocalPool(1) as pool:
        report = pool.submit(Payload("closure", "ok", None, "a")).result(timeout=60).report()
        fine = pool.submit(Payload("slow", "ok", None, "b")).result(timeout=60).report()
    assert report.verdict == "invalid" and report.details["reason"] == "engine_not_loadable"
    assert "cannot be sent to a worker process" in report.details["error"]
    assert "'module:function'" in report.details["error"]
    assert fine.verdict == "pass"  # one engine that cannot travel costs only its own items


def test_a_function_from_a_module_not_importable_by_name_is_loaded_from_its_file(tmp_path: Path) -> None:
    import importlib.util

    source = tmp_path / "private_engine.py"
    source.write_text(
        "from batch.slow_engine import slow_check\n\n"
        "def check(text, *, path=None, item_id=None):\n"
        "    return slow_check(text + '\\nPID', path=path, item_id=item_id)\n",
        encoding="utf-8",
    )
    spec = importlib.util.spec_from_file_location("cotaudit_test_not_on_the_path", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)  # not in sys.modules: pickle cannot name it
    spec.loader.exec_module(module)
    api.register_engine("private", module.check, (".private",))
    with LocalPool(1) as pool:
        report = pool.submit(Payload("private", "ok", None, "a")).result(timeout=60).report()
    assert report.verdict == "pass" and report.details["pid"] != os.getpid()


def test_workers_see_the_environment_of_now(monkeypatch: pytest.MonkeyPatch) -> None:
    with LocalPool(1) as pool:  # the fork server (if new) starts with the environment before
        pool.submit(Payload("slow", "ok", None, "a")).result(timeout=60).report()
    monkeypatch.setenv("COTAUDIT_TEST_LATE_VAR", "set-later")
    with LocalPool(1) as pool:
        report = (
            pool.submit(Payload("slow", "ENV COTAUDIT_TEST_LATE_VAR", None, "b")).result(timeout=60).report()
        )
    assert report.details["env"] == "set-later"


def test_the_environment_is_copied_while_another_thread_changes_it() -> None:
    """Each worker start copies os.environ in the dispatcher thread; a plain dict(os.environ)
    fails now and then (RuntimeError, KeyError) while the main thread sets variables."""
    stop = threading.Event()

    def churn() -> None:
        n = 0
        while not stop.is_set():
            os.environ[f"COTAUDIT_TEST_CHURN_{n % 64}"] = "x"
            os.environ.pop(f"COTAUDIT_TEST_CHURN_{(n + 32) % 64}", None)
            n += 1

    thread = threading.Thread(target=churn, daemon=True)
    thread.start()
    try:
        copies = [pool_module._environ() for _ in range(5000)]
    finally:
        stop.set()
        thread.join(10)
        for n in range(64):
            os.environ.pop(f"COTAUDIT_TEST_CHURN_{n}", None)
    assert all("PATH" in env for env in copies)


def test_a_fork_server_with_another_cotaudit_is_left_for_spawn(tmp_path: Path) -> None:
    """A relative PYTHONPATH, then a chdir: the fork server finds another ``cotaudit`` package
    (here an empty one) and its workers cannot run; the pool spawns them instead."""
    src = Path(api.__file__).resolve().parents[1]
    tests = Path(__file__).resolve().parents[1]
    work = tmp_path / "work"
    (work / "other" / "cotaudit").mkdir(parents=True)
    (work / "other" / "cotaudit" / "__init__.py").write_text("", encoding="utf-8")
    script = (
        "import os, sys\n"
        f"sys.path[:0] = [{str(src)!r}, {str(tests)!r}]\n"
        "from cotaudit.batch.pool import LocalPool\n"
        "from cotaudit.batch.jobs import Payload\n"
        "from batch.slow_engine import register\n"
        "register()\n"
        f"os.chdir({str(work)!r})\n"
        "with LocalPool(1) as pool:\n"
        "    r = pool.submit(Payload('slow', 'PID', None, 'x')).result(timeout=120).report()\n"
        "    method = pool._method\n"
        "print(r.verdict, r.details.get('pid') not in (None, os.getpid()), method)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "COTAUDIT_DEBUG"}
    env["PYTHONPATH"] = "other"  # relative: resolved in the fork server's working directory
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().split() == ["pass", "True", "spawn"]
