"""Issue 14: vericot's memory is bounded under sustained load.

A ``z3.Context`` costs ~16 MB. Nothing may keep one alive once its trace is done: not the
watchdog, not the records in a :class:`TraceResult`, not a cache.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import z3  # type: ignore[import-untyped]

from cotaudit.vericot import smt
from cotaudit.vericot.pipeline import Verifier
from cotaudit.vericot.schema import TraceInput, load_trace

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples" / "vericot").glob("*.vcot.json"))
SMALL_EXAMPLE = ROOT / "examples" / "vericot" / "A_sara_valid.vcot.json"  # the ~2 KB one


def _live_contexts() -> int:
    return sum(isinstance(o, z3.Context) for o in gc.get_objects())


@pytest.fixture
def no_gc() -> Iterator[None]:
    """Refcounting only: a context must be freed when the check ends, not at some later GC."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _load(path: Path) -> TraceInput:
    t = load_trace(path.read_text(encoding="utf-8"))
    assert isinstance(t, TraceInput)
    return t


def test_a_finished_trace_keeps_no_context_alive(no_gc: None) -> None:
    base = _live_contexts()
    results = [Verifier().run(_load(p)) for p in EXAMPLES]  # results kept on purpose
    assert [r.verdict for r in results]  # they are real results
    assert _live_contexts() == base
    assert smt._WATCHDOG.armed() == 0


def test_a_running_trace_holds_exactly_its_own_context(no_gc: None) -> None:
    """Near miss: the session in use must keep its context (the watchdog's weak reference must
    not be the only one, or the interrupt would have nothing to interrupt)."""
    base = _live_contexts()
    run = Verifier().start(_load(SMALL_EXAMPLE))
    assert _live_contexts() == base + 1
    del run
    assert _live_contexts() == base


def test_a_timed_out_check_leaves_nothing_armed(no_gc: None) -> None:
    from .sara_example import P4R, VOCAB

    base = _live_contexts()
    t = {
        "id": "q",
        "context": {"question": "q"},
        "steps": [{"id": "s1", "text": "x"}],
        "formalization": {
            "vocabulary": VOCAB,
            "premises": [{"id": "p4r", "text": "r", "source": "commonsense", "smt": P4R, "use": "given"}],
            "steps": [{"step_id": "s1", "smt": "(assert (<= (age charlie 2023) 18))"}],
        },
    }
    from cotaudit.vericot.config import VerifierConfig
    from cotaudit.vericot.schema import validate_trace

    trace = validate_trace(t)
    assert isinstance(trace, TraceInput)
    result = Verifier(VerifierConfig(timeout_ms=100)).run(trace)
    assert result.kb["consistent"] is None  # the SAT check on load did time out
    assert _live_contexts() == base
    assert smt._WATCHDOG.armed() == 0


_LOAD_SCRIPT = """
import json, sys
from pathlib import Path
from cotaudit import api
text = Path(sys.argv[1]).read_text(encoding="utf-8")
verdicts = set()
for _ in range(int(sys.argv[2])):
    verdicts.add(api.check(text, "vericot").verdict)
status = Path("/proc/self/status").read_text()
peak_kb = int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:")))
print(json.dumps({"peak_mb": peak_kb / 1024, "verdicts": sorted(verdicts)}))
"""


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc to read the peak RSS")
def test_rss_stays_bounded_over_1000_checks(tmp_path: Path) -> None:
    script = tmp_path / "load.py"
    script.write_text(_LOAD_SCRIPT, encoding="utf-8")
    src = Path(smt.__file__).resolve().parents[2]  # the tree under test, whatever PYTHONPATH says
    env = {**os.environ, "PYTHONPATH": str(src)}
    proc = subprocess.run(
        [sys.executable, str(script), str(SMALL_EXAMPLE), "1000"],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["verdicts"] == ["pass"]
    assert out["peak_mb"] < 400, out
