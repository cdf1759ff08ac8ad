"""Issue 14, class 3: an ``unknown`` check reports a stable category, not Z3's own words.

Cancelled at its timer, the same Z3 search says ``canceled`` in one run and ``(incomplete
quantifiers)`` in the next, so reports that quoted it differed between runs with
``--no-timing``. The category is a function of what happened (time used, limits set), and Z3's
text appears only with timings on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cotaudit import vericot
from cotaudit.vericot import smt
from cotaudit.vericot.smt import UNKNOWN_REASONS, unknown_category

from .sara_example import P4R, VOCAB

SRC = Path(smt.__file__).resolve().parents[2]  # the tree under test


@pytest.mark.parametrize(
    "z3_reason,ms,rlimit,category",
    [
        ("canceled", 201.0, None, "timeout"),
        ("(incomplete quantifiers)", 200.4, None, "timeout"),  # cancelled at the timer, other words
        ("(incomplete quantifiers)", 0.3, None, "incomplete"),  # near miss: gave up on its own
        (
            "smt tactic failed to show goal to be sat/unsat (incomplete (theory arithmetic))",
            5.0,
            None,
            "incomplete",
        ),
        ("canceled", 20.0, 100_000, "resource_limit"),  # the rlimit cancels early
        ("max. resource limit exceeded", 20.0, None, "resource_limit"),
        ("canceled", 20.0, None, "timeout"),
        ("something new", 3.0, None, "other"),
        (None, 3.0, None, "other"),
    ],
)
def test_unknown_category(z3_reason: str | None, ms: float, rlimit: int | None, category: str) -> None:
    assert unknown_category(z3_reason, ms, 200, rlimit) == category
    assert category in UNKNOWN_REASONS


def _timeouts_trace(n: int) -> dict[str, Any]:
    """``n`` steps, each undecidable in time against the §13.5 range axiom as a given premise."""
    return {
        "id": "timeouts",
        "context": {"question": "q"},
        "steps": [{"id": f"s{i}", "text": f"step {i}"} for i in range(1, n + 1)],
        "formalization": {
            "vocabulary": VOCAB,
            "premises": [
                {"id": "p4r", "text": "range axiom", "source": "commonsense", "smt": P4R, "use": "given"}
            ],
            "steps": [
                {"step_id": f"s{i}", "smt": f"(assert (<= (age charlie {2000 + i}) {i}))"}
                for i in range(1, n + 1)
            ],
        },
    }


def test_timed_out_checks_report_the_category_and_z3_words_only_with_timings() -> None:
    t = _timeouts_trace(1)
    r = vericot.verify(t, timeout_ms=50)
    unknown = [c for s in r.details["steps"] for c in s["checks"] if c["result"] == "unknown"]
    assert unknown and {c["reason_unknown"] for c in unknown} == {"timeout"}
    assert all("z3_reason" not in c for c in unknown)
    assert "canceled" not in json.dumps(r.to_dict(timing=False))
    timed = vericot.verify(t, timeout_ms=50, include_timings=True)
    raw = [c for s in timed.details["steps"] for c in s["checks"] if c["result"] == "unknown"]
    assert raw and all(c["z3_reason"] for c in raw)  # near miss: the words are kept for debugging


_RUN = """
import json, sys
from cotaudit import api
from cotaudit.report.jsonout import render_json
text = open(sys.argv[1], encoding="utf-8").read()
report = api.check(text, "vericot", timeout_ms=int(sys.argv[2]))
sys.stdout.write(render_json([report], single=True, timing=False))
"""


def _run(path: Path, seed: str, timeout_ms: int) -> str:
    env = {**os.environ, "PYTHONPATH": str(SRC), "PYTHONHASHSEED": seed}
    proc = subprocess.run(
        [sys.executable, "-c", _RUN, str(path), str(timeout_ms)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_timeouts_give_byte_identical_reports_across_processes(tmp_path: Path) -> None:
    # 21 checks end at the 50 ms timer; each used to quote one of two Z3 strings at random
    path = tmp_path / "timeouts.vcot.json"
    path.write_text(json.dumps(_timeouts_trace(10)), encoding="utf-8")
    first = _run(path, "1", 50)
    second = _run(path, "2", 50)
    assert json.loads(first)["verdict"] == "abstain"
    assert first == second


@pytest.mark.slow
def test_cli_no_timing_output_is_byte_identical_near_a_timeout(tmp_path: Path) -> None:
    """The same through ``cotaudit check --no-timing`` at the default 2 s solver timeout."""
    path = tmp_path / "timeouts.vcot.json"
    path.write_text(json.dumps(_timeouts_trace(1)), encoding="utf-8")
    outs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONPATH": str(SRC), "PYTHONHASHSEED": seed}
        proc = subprocess.run(
            [sys.executable, "-m", "cotaudit", "check", "--format", "json", "--no-timing", str(path)],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            check=False,
        )
        assert proc.returncode == 1, proc.stderr[-2000:]  # abstain
        outs.append(proc.stdout)
    assert json.loads(outs[0])["details"]["kb"]["consistent"] is None
    assert outs[0] == outs[1]
