"""The per-input budget (cotaudit.limits) and its abstain reports from api.check."""

from __future__ import annotations

import threading
import time

import pytest

import cotaudit
from cotaudit import api, limits
from cotaudit.limits import BudgetExceeded, Limits
from cotaudit.report import Report


def _spin_engine(text: str, *, path: str | None = None, item_id: str | None = None) -> Report:
    """Loops, calling checkpoint(), until the budget stops it (or 5 s pass: the test fails)."""
    end = time.monotonic() + 5.0
    while time.monotonic() < end:
        limits.checkpoint()
    return api.invalid_report(engine="spin", path=path, item_id=item_id, sha256="", error="not stopped")


def _hog_engine(text: str, *, path: str | None = None, item_id: str | None = None) -> Report:
    """Grows memory 8 MiB at a time, calling checkpoint(), until the budget stops it (max 1 GiB)."""
    hoard = []
    for _ in range(128):
        hoard.append(bytearray(8 * 1024 * 1024))
        limits.checkpoint()
        time.sleep(0.002)
    return api.invalid_report(engine="hog", path=path, item_id=item_id, sha256="", error="not stopped")


def _memory_error_engine(text: str, *, path: str | None = None, item_id: str | None = None) -> Report:
    raise MemoryError


@pytest.fixture
def engines():
    api.register_engine("spin", _spin_engine)
    api.register_engine("hog", _hog_engine)
    api.register_engine("memerr", _memory_error_engine)
    yield
    for name in ("spin", "hog", "memerr"):
        api.unregister_engine(name)


def test_time_budget_gives_abstain_w001(engines) -> None:
    start = time.monotonic()
    report = cotaudit.check("x", engine="spin", limits=Limits(wall_s=0.2, memory_mb=None))
    assert time.monotonic() - start < 2.0
    assert report.verdict == "abstain"
    assert [f.code for f in report.findings] == ["COTAUDIT_W001"]
    assert report.details["reason"] == "time_budget"


def test_memory_budget_gives_abstain_w002(engines) -> None:
    if limits.rss_bytes() is None:
        pytest.skip("no /proc/self/statm on this platform: the RSS bound cannot be read")
    report = cotaudit.check("x", engine="hog", limits=Limits(wall_s=None, memory_mb=64))
    assert report.verdict == "abstain"
    assert [f.code for f in report.findings] == ["COTAUDIT_W002"]


def test_memory_error_gives_abstain_w002(engines) -> None:
    report = cotaudit.check("x", engine="memerr")
    assert report.verdict == "abstain"
    assert [f.code for f in report.findings] == ["COTAUDIT_W002"]


def test_budget_reports_are_deterministic(engines) -> None:
    a = cotaudit.check("x", engine="spin", limits=Limits(wall_s=0.05, memory_mb=None))
    b = cotaudit.check("x", engine="spin", limits=Limits(wall_s=0.1, memory_mb=None))
    assert a.to_dict(timing=False)["findings"][0]["code"] == "COTAUDIT_W001"
    assert a.findings[0].evidence == {"limit": "0.05 s", "kind": "time"}
    assert b.to_dict(timing=False)["details"] == a.to_dict(timing=False)["details"]


def test_near_miss_fast_engine_is_untouched() -> None:
    report = cotaudit.check(
        "GIVEN:\n  a := 1\nGOAL: a\nEQ[e1]: b = a + 1 = 2\nANS: b\n",
        engine="te",
        limits=Limits(wall_s=30, memory_mb=512),
    )
    assert report.verdict == "pass"


def test_checkpoint_without_budget_is_a_no_op() -> None:
    assert limits.current() is None
    limits.checkpoint()
    assert limits.remaining() is None
    assert limits.remaining(3.0) == 3.0


def test_nested_budget_keeps_the_outer_deadline() -> None:
    with limits.budget(Limits(wall_s=0.5, memory_mb=None)) as outer:
        assert outer is not None
        with limits.budget(Limits(wall_s=100, memory_mb=None)) as inner:
            assert inner is not None
            assert inner.deadline == outer.deadline
            left = limits.remaining()
            assert left is not None and left <= 0.5
        assert limits.current() is outer
    assert limits.current() is None


def test_budget_is_per_thread() -> None:
    seen: list[object] = []
    with limits.budget(Limits(wall_s=0.01, memory_mb=None)):
        t = threading.Thread(target=lambda: seen.append(limits.current()))
        t.start()
        t.join()
        time.sleep(0.02)
        with pytest.raises(BudgetExceeded) as info:
            limits.checkpoint()
        assert info.value.kind == "time"
    assert seen == [None]


@pytest.mark.parametrize("bad", [{"wall_s": 0}, {"wall_s": -1.0}, {"memory_mb": 0}])
def test_limits_reject_non_positive(bad: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        Limits(**bad)
