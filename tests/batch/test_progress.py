"""The progress line: counts, rate, ETA, verdicts; drawn only when live."""

from __future__ import annotations

import io

import pytest

from cotaudit.batch.progress import Progress, format_duration


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0:00:00"),
        (7.4, "0:00:07"),
        (3723, "1:02:03"),
        (float("nan"), "--:--:--"),
        (float("inf"), "--:--:--"),
    ],
)
def test_format_duration(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text


def test_line_rate_eta_and_summary() -> None:
    clock = Clock()
    progress = Progress(100, resumed=20, clock=clock)
    assert progress.rate == 0.0 and format_duration(progress.eta) == "--:--:--"
    for verdict in ["pass"] * 30 + ["fail"] * 8 + ["abstain"] * 2:
        progress.advance(verdict)
    clock.now += 10.0
    assert progress.rate == pytest.approx(4.0)
    assert progress.eta == pytest.approx(10.0)
    assert progress.line() == (
        "[############........]  60/100  60%  4.0 items/s  ETA 0:00:10  fail 8  abstain 2  invalid 0"
    )
    assert progress.summary() == (
        "batch: 40 items checked, 20 already done in 10.0 s (4.0 items/s)  "
        "pass: 30  fail: 8  abstain: 2  invalid: 0"
    )


def test_live_drawing_is_throttled_and_closed_with_a_newline() -> None:
    clock = Clock()
    out = io.StringIO()
    progress = Progress(3, stream=out, live=True, clock=clock, interval=1.0)
    progress.advance("pass")
    progress.advance("pass")  # same instant: not redrawn
    clock.now += 2.0
    progress.advance("fail")
    progress.close()
    text = out.getvalue()
    assert text.count("\r") == 3  # two throttled draws and the final one
    assert text.endswith(
        "\nbatch: 3 items checked in 2.0 s (1.5 items/s)  pass: 2  fail: 1  abstain: 0  invalid: 0\n"
    )


def test_not_live_prints_only_the_summary() -> None:
    out = io.StringIO()
    progress = Progress(1, stream=out, live=False)
    progress.advance("pass")
    progress.close()
    assert "\r" not in out.getvalue() and out.getvalue().startswith("batch: 1 item checked")


def test_close_without_stream_is_silent() -> None:
    Progress(0).close()


def test_a_resumed_run_also_sums_up_the_whole_log() -> None:
    from collections import Counter

    clock = Clock()
    progress = Progress(5, resumed=3, earlier=Counter({"pass": 2, "fail": 1}), clock=clock)
    progress.advance("fail")
    progress.advance("pass")
    clock.now += 1.0
    assert progress.summary() == (
        "batch: 2 items checked, 3 already done in 1.0 s (2.0 items/s)  "
        "pass: 1  fail: 1  abstain: 0  invalid: 0  (whole log: pass: 3  fail: 2  abstain: 0  invalid: 0)"
    )
    # near miss: a fresh run has no whole-log part
    fresh = Progress(2, clock=clock)
    fresh.advance("pass")
    assert "whole log" not in fresh.summary()
