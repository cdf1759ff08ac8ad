"""The local pool: reports for every item, time limits, dead workers replaced, nothing leaked."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest

from batch.slow_engine import register
from cotaudit.batch.jobs import Payload, execute, lost_report, timeout_report
from cotaudit.batch.pool import LocalPool
from cotaudit.report import Report


@pytest.fixture(autouse=True)
def slow_engine() -> Iterator[None]:
    register()
    yield


def _workers() -> set[int]:
    """Live processes below this one that lead their own process group: the pool's workers
    (they call setpgid; the fork server they come from and te's SymPy process do not)."""
    table: dict[int, tuple[int, int]] = {}
    for proc in os.listdir("/proc"):
        if proc.isdigit():
            try:
                with open(f"/proc/{proc}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                table[int(proc)] = (int(fields[1]), int(fields[2]))  # ppid, pgrp
    below, frontier = set(), {os.getpid()}
    while frontier:
        frontier = {pid for pid, (ppid, _) in table.items() if ppid in frontier} - below
        below |= frontier
    return {pid for pid in below if table[pid][1] == pid}


def _p(text: str, item_id: str, engine: str = "slow") -> Payload:
    return Payload(engine, text, None, item_id)


def test_every_item_gets_its_report() -> None:
    with LocalPool(2) as pool:
        futures = [pool.submit(_p("BAD" if n % 3 == 0 else "ok", f"i{n}")) for n in range(30)]
        reports = [f.result(timeout=60).report() for f in futures]
    assert [r.input.id for r in reports] == [f"i{n}" for n in range(30)]
    assert [r.verdict for r in reports] == ["fail" if n % 3 == 0 else "pass" for n in range(30)]


def test_time_limit_kills_the_worker_and_the_pool_goes_on() -> None:
    with LocalPool(1, timeout=1.0) as pool:
        start = time.monotonic()
        hang = pool.submit(_p("HANG", "hang"))
        spin = pool.submit(_p("SPIN", "spin"))
        after = pool.submit(_p("ok", "after"))
        reports = [f.result(timeout=60).report() for f in (hang, spin, after)]
        elapsed = time.monotonic() - start
    assert [r.verdict for r in reports] == ["abstain", "abstain", "pass"]
    assert reports[0].details == {
        "error": "timed out after 1 s (the worker was stopped)",
        "reason": "timeout",
    }
    assert elapsed < 30


def test_a_dying_worker_gives_invalid_and_is_replaced() -> None:
    with LocalPool(1) as pool:
        died = pool.submit(_p("EXIT", "exit")).result(timeout=60).report()
        crashed = pool.submit(_p("CRASH", "crash")).result(timeout=60).report()
        fine = pool.submit(_p("ok", "fine")).result(timeout=60).report()
    assert died.verdict == "invalid"
    assert died.details == {"error": "worker process died: exit code 3", "reason": "worker_died"}
    assert crashed.verdict == "invalid" and "RuntimeError: slow engine crashed" in crashed.details["error"]
    assert fine.verdict == "pass"


def test_unknown_engine_is_an_invalid_report_not_an_error() -> None:
    with LocalPool(1) as pool:
        report = pool.submit(_p("x", "n", engine="nope")).result(timeout=60).report()
    assert report.verdict == "invalid" and report.details["reason"] == "UnknownEngine"


def test_two_workers_run_side_by_side() -> None:
    with LocalPool(2) as pool:
        for f in [pool.submit(_p("ok", f"w{n}")) for n in range(4)]:  # both workers up and warm
            f.result(timeout=60).report()
        start = time.monotonic()
        futures = [pool.submit(_p("SLEEP 0.5", f"s{n}")) for n in range(4)]
        assert all(f.result(timeout=60).report().verdict == "pass" for f in futures)
        assert time.monotonic() - start < 1.9  # four half-second items on two workers


def test_close_cancels_queued_items_and_stops_every_worker() -> None:
    before = _workers()
    pool = LocalPool(2, timeout=30)
    running = [pool.submit(_p("HANG", f"h{n}")) for n in range(2)]
    queued = pool.submit(_p("ok", "queued"))
    deadline = time.monotonic() + 30
    while pool.backlog != 3 or not all(f.running() for f in running):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert len(_workers() - before) >= 2
    pool.close()
    assert queued.cancelled()
    assert all(f.result(timeout=5).report().details["error"] == "the pool was closed" for f in running)
    deadline = time.monotonic() + 10
    while _workers() - before:
        assert time.monotonic() < deadline, _workers() - before
        time.sleep(0.05)
    with pytest.raises(RuntimeError):
        pool.submit(_p("ok", "late"))


def test_spawned_workers_get_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    with LocalPool(1, start_method="spawn", preload=("te",)) as pool:
        report = (
            pool.submit(Payload("te", "GIVEN:\n  a := 1\nGOAL: a\nANS: a\n", None, "t"))
            .result(timeout=120)
            .report()
        )
    assert report.engine == "te" and report.verdict in ("pass", "fail")


def test_front_end_reports_keep_the_item() -> None:
    payload = _p("text", "id1")
    for report in (timeout_report(payload, 2.5), lost_report(payload, "killed by signal 9")):
        assert isinstance(report, Report)
        assert report.input.id == "id1" and report.engine == "slow"
        assert report.engine_version.startswith("cotaudit/")
    assert timeout_report(payload, 2.5).verdict == "abstain"
    assert lost_report(payload, "x").verdict == "invalid"
    assert execute(_p("BAD", "e")).verdict == "fail"


def test_workers_do_not_keep_the_parents_sockets() -> None:
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    inode = os.fstat(listener.fileno()).st_ino
    before = _workers()
    try:
        with LocalPool(1) as pool:
            assert pool.submit(_p("ok", "x")).result(timeout=60).report().verdict == "pass"
            (worker,) = _workers() - before
            held = set()
            for fd in os.listdir(f"/proc/{worker}/fd"):
                try:
                    held.add(os.stat(f"/proc/{worker}/fd/{fd}").st_ino)
                except OSError:
                    continue
            assert inode not in held
    finally:
        listener.close()
