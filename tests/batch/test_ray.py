"""The Ray backend: the same reports as the local pool, time limits, dead workers (slow: starts Ray)."""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cotaudit import api
from cotaudit.batch import jobs, ray_backend
from cotaudit.batch.jobs import Payload
from cotaudit.batch.pool import LocalPool
from cotaudit.batch.ray_backend import LOOPBACK_ONLY_ENV, RayPool
from cotaudit.batch.runner import Backend, BatchOptions, run_batch
from cotaudit.report import Report, read_run_log

pytestmark = [pytest.mark.slow, pytest.mark.ray]
# what RayPool sets when it is first to import ray: the local instance stays on 127.0.0.1
os.environ.setdefault(LOOPBACK_ONLY_ENV, "0")
ray = pytest.importorskip("ray", reason="the 'ray' extra is not installed")

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"


@pytest.fixture
def slow_engine_by_name(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The slow engine under an importable name, so Ray's fresh worker processes can load it."""
    monkeypatch.setenv("PYTHONPATH", f"{TESTS}:{ROOT / 'src'}")
    monkeypatch.syspath_prepend(str(TESTS))
    api.register_engine("slow", "batch.slow_engine:slow_check", (".slow",))
    yield


def _write(path: Path, rows: list[dict[str, str]]) -> list[str]:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return [r["id"] for r in rows]


def _run(tmp_path: Path, name: str, backend: Backend, tag: str) -> list[Report]:
    out = tmp_path / f"{name}.{tag}.jsonl"
    options = BatchOptions(input=str(tmp_path / f"{name}.jsonl"), output=str(out), timing=False)
    run_batch(options, backend=backend)
    return list(read_run_log(out).reports)


def test_ray_and_local_give_the_same_reports(tmp_path: Path, slow_engine_by_name: None) -> None:
    examples = (
        sorted((ROOT / "examples" / "te").glob("*.te"))
        + sorted((ROOT / "examples" / "type6").glob("*.t6"))[:6]
    )
    engines = {".te": "te", ".t6": "type6"}
    ids = _write(
        tmp_path / "traces.jsonl",
        [
            {"id": p.stem, "engine": engines[p.suffix], "text": p.read_text(encoding="utf-8")}
            for p in examples
        ],
    )
    bad_ids = _write(
        tmp_path / "bad.jsonl",
        [
            {"id": "hang", "engine": "slow", "text": "HANG"},
            {"id": "exit", "engine": "slow", "text": "EXIT"},
            {"id": "crash", "engine": "slow", "text": "CRASH"},
            {"id": "slow-ok", "engine": "slow", "text": "SLEEP 0.1"},
            {"id": "nope", "engine": "nope", "text": "x"},
            {"id": "closure", "engine": "closure", "text": "x"},
            {"id": "private", "engine": "private", "text": "BAD"},
        ],
    )
    # engines registered at run time with callables: one that cannot travel (a lambda), and one
    # from a module Ray's workers cannot import by name (loaded from its file there)
    api.register_engine("closure", lambda text, **kw: None, (".closure",))
    (tmp_path / "private_engine.py").write_text("from batch.slow_engine import slow_check as check\n")
    spec = importlib.util.spec_from_file_location("cotaudit_test_private_ray", tmp_path / "private_engine.py")
    assert spec is not None and spec.loader is not None
    private = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(private)
    api.register_engine("private", private.check, (".private",))
    ray_pool = RayPool(2, timeout=120.0)
    try:
        on_ray = _run(tmp_path, "traces", ray_pool, "ray")
        assert ray.util.get_node_ip_address() == "127.0.0.1"  # nothing but loopback
        ray_pool.timeout = 2.0
        bad = {r.input.id: r for r in _run(tmp_path, "bad", ray_pool, "ray")}
    finally:
        ray_pool.close()
    assert not ray.is_initialized()  # the backend shut down the Ray instance it started
    with LocalPool(2, timeout=120.0) as local_pool:
        local = _run(tmp_path, "traces", local_pool, "local")

    assert [r.input.id for r in on_ray] == ids
    assert [r.to_dict() for r in on_ray] == [r.to_dict() for r in local]
    assert list(bad) == bad_ids
    assert bad["hang"].verdict == "abstain" and bad["hang"].details["reason"] == "timeout"
    assert bad["exit"].verdict == "invalid" and bad["exit"].details["reason"] == "worker_died"
    assert bad["crash"].verdict == "invalid" and "RuntimeError" in bad["crash"].details["error"]
    assert bad["slow-ok"].verdict == "pass"
    assert bad["nope"].verdict == "invalid" and "unknown engine" in bad["nope"].details["error"]
    assert bad["closure"].verdict == "invalid" and bad["closure"].details["reason"] == "engine_not_loadable"
    assert bad["private"].verdict == "fail" and bad["private"].engine == "slow"


# ------------------------------------------------------------------ actor starts and memory

# An engine module for Ray's workers: its first import (counted in a file, across processes)
# does BEHAVIOUR, later ones load normally. ``exit`` ends the worker process (a failed start),
# ``hang`` waits for ever without using the CPU (a stuck start), ``busy`` burns the CPU for a
# few seconds (a slow start that gets somewhere).
START_MODULE = """\
import os, threading, time

from batch.slow_engine import slow_check as check

if os.getpid() != {parent}:
    with open({counter!r}, "a") as fh:
        fh.write("x")
    if os.path.getsize({counter!r}) == 1:
        if {behaviour!r} == "exit":
            os._exit(1)
        if {behaviour!r} == "hang":
            threading.Event().wait()
        if {behaviour!r} == "busy":
            until = time.monotonic() + 6.0
            while time.monotonic() < until:
                pass
"""


@pytest.fixture(scope="module")
def ray_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One local Ray instance for the tests below, its workers able to import the test engines
    (the slow engine, and modules written to the directory it yields)."""
    modules = tmp_path_factory.mktemp("ray_engines")
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = f"{modules}:{TESTS}:{ROOT / 'src'}"
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
    try:
        yield modules
    finally:
        ray.shutdown()
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved


def _start_engine(modules: Path, behaviour: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Register engine ``behaviour`` from a START_MODULE; returns its import counter file."""
    counter = modules / f"{behaviour}.count"
    name = f"cotaudit_test_ray_{behaviour}"
    source = START_MODULE.format(parent=os.getpid(), counter=str(counter), behaviour=behaviour)
    (modules / f"{name}.py").write_text(source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(TESTS))
    api.register_engine(behaviour, f"{name}:check", (f".{behaviour}",))
    return counter


def _check(pool: RayPool, engine: str, text: str, item_id: str = "x") -> Report:
    return pool.submit(Payload(engine, text, None, item_id)).result(timeout=300).report()


def test_a_failed_actor_start_is_replaced(ray_session: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counter = _start_engine(ray_session, "exit", monkeypatch)
    with RayPool(1, preload=("exit",), timeout=120.0) as pool:
        report = _check(pool, "exit", "ok")
    assert report.verdict == "pass" and report.engine == "slow"  # the second actor checked it
    assert counter.read_text() == "xx"


def test_a_stuck_actor_start_is_found_in_seconds(ray_session: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counter = _start_engine(ray_session, "hang", monkeypatch)
    monkeypatch.setattr(ray_backend, "START_STALL", 2.0)
    start = time.monotonic()
    with RayPool(1, preload=("hang",), timeout=120.0) as pool:
        report = _check(pool, "hang", "ok")
    assert report.verdict == "pass" and counter.read_text() == "xx"
    assert time.monotonic() - start < 120  # the start timeout alone: 300 s


def test_near_miss_a_busy_actor_start_is_not_stuck(
    ray_session: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counter = _start_engine(ray_session, "busy", monkeypatch)
    monkeypatch.setattr(ray_backend, "START_STALL", 2.0)  # the start burns the CPU for 6 s
    with RayPool(1, preload=("busy",), timeout=120.0) as pool:
        report = _check(pool, "busy", "ok")
    assert report.verdict == "pass" and counter.read_text() == "x"  # one start, never replaced


def test_slots_that_never_start_end_in_reports_not_a_hang(
    ray_session: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counter = _start_engine(ray_session, "exit", monkeypatch)
    counter.write_text("")
    monkeypatch.setattr(ray_backend, "MAX_START_FAILURES", 1)  # the first failure gives up
    with RayPool(1, preload=("exit",), timeout=120.0) as pool:
        report = _check(pool, "exit", "ok")
    assert report.verdict == "invalid" and report.details["reason"] == "pool"
    assert "no Ray worker could start: a Ray worker failed to start" in report.details["error"]


def test_ray_actors_cap_their_memory_and_retire_past_the_headroom(
    ray_session: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(TESTS))
    api.register_engine("slow", "batch.slow_engine:slow_check", (".slow",))
    monkeypatch.setattr(jobs, "WORKER_HEADROOM_MB", 64)
    with RayPool(1, preload=("slow",), timeout=120.0, memory_mb=256) as pool:
        # 2 GiB mapped at once: without the cap the kernel grants it (it is never touched)
        wild = _check(pool, "slow", "ALLOC 2048\nPID", "wild")
        normal = _check(pool, "slow", "ALLOC 32\nPID", "normal")
        big = _check(pool, "slow", "BIG 150000\nPID", "big")  # 30 MB back through the object store
        leaked = _check(pool, "slow", "LEAK 128\nPID", "leak")
        after = _check(pool, "slow", "PID", "after")
    assert wild.verdict == "abstain" and [f.code for f in wild.findings] == ["COTAUDIT_W002"]
    assert normal.verdict == "pass" and normal.details["allocated"] == 32
    assert big.verdict == "fail" and len(big.findings) == 150_000 and "error" not in big.details
    assert normal.details["pid"] == big.details["pid"] == leaked.details["pid"]
    assert after.details["pid"] != leaked.details["pid"]  # 128 MiB past 64: a fresh actor
    with RayPool(1, preload=("slow",), timeout=120.0, memory_mb=None) as pool:
        assert _check(pool, "slow", "ALLOC 2048", "uncapped").verdict == "pass"  # the near miss


def test_a_selection_is_applied_on_ray_as_on_the_local_pool(ray_session: Path, tmp_path: Path) -> None:
    from cotaudit.selection import Selection

    names = ["te/C_arithmetic_slip.te", "te/O_parametric.te", "certify/legal_injected.kb"]
    engines = {".te": "te", ".kb": "certify"}
    _write(
        tmp_path / "sel.jsonl",
        [
            {
                "id": Path(n).stem,
                "engine": engines[Path(n).suffix],
                "text": (ROOT / "examples" / n).read_text(),
            }
            for n in names
        ],
    )
    selection = Selection.of(None, (), ["TE_E006", "TE_W001", "CERTIFY_E009"])
    options = BatchOptions(input=str(tmp_path / "sel.jsonl"), output="", timing=False, selection=selection)
    logs = {}
    for tag, make in (
        ("ray", lambda: RayPool(1, timeout=120.0)),
        ("local", lambda: LocalPool(1, timeout=120.0)),
    ):
        out = tmp_path / f"sel.{tag}.jsonl"
        with make() as pool:
            run_batch(options._replace(output=str(out)), backend=pool)
        logs[tag] = out.read_bytes()
    assert logs["ray"] == logs["local"]
    reports = read_run_log(tmp_path / "sel.ray.jsonl").reports
    assert [r.verdict for r in reports] == ["pass", "pass", "abstain"]  # fail, pass (warned), fail before
    assert [r.details["selection"]["ignored"] for r in reports] == [
        {"TE_E006": 1},
        {"TE_W001": 1},
        {"CERTIFY_E009": 1},
    ]
