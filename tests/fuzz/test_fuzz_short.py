"""CI's short fuzz run (docs/fuzz.md): a fixed, seeded set of inputs per target, zero failures.

The set is the same on every machine and every run (``--inputs`` mode, not ``--minutes``), so a
failure here reproduces with ``python -m tests.fuzz --inputs 80 --seed 14``; each failing input
is saved under ``tests/fuzz/crashes/`` with its replay command. About a minute on two cores.
"""

from __future__ import annotations

import pytest

from .runner import RunConfig, run

SHORT_SEED = 14
SHORT_INPUTS = 80  # per target; the first ones are the target's seeds unchanged


@pytest.mark.slow
def test_short_seeded_fuzz_run_finds_no_failure() -> None:
    result = run(RunConfig(seed=SHORT_SEED, inputs=SHORT_INPUTS, jobs=1))
    summary = result.summary
    assert all(s.inputs == SHORT_INPUTS for s in summary.stats.values())
    if not summary.ok:
        pytest.fail("\n" + summary.render(), pytrace=False)
