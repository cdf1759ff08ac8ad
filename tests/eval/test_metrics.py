"""Metrics against hand-computed values on a small, hand-built result set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cotaudit.eval import metrics
from cotaudit.eval.model import EvalItem, Outcome, Results
from cotaudit.eval.runner import run_methods

pytest.importorskip("scipy", reason="SciPy is not installed (pip install -e '.[eval]')")

ITEMS = [
    EvalItem("a1", "te", "", True, "slip", 5, ("TE_E006",)),
    EvalItem("a2", "te", "", True, "slip", 8, ("TE_E006",)),
    EvalItem("a3", "te", "", True, "lost", 4, ("TE_E004",)),
    EvalItem("a4", "te", "", True, "lost", 10, ("TE_E004",)),
    EvalItem("c1", "te", "", False),
    EvalItem("c2", "te", "", False),
    EvalItem("c3", "te", "", False),
]


def _results() -> Results:
    r = Results()
    # method X: catches a1 (at the gold line), a2 (4 lines off), a3 (wrong code), misses a4; flags c1.
    for run in range(2):
        r.add(Outcome("X", "a1", run, True, ((5, "TE_E006"),)))
        r.add(Outcome("X", "a2", run, True, ((12, "TE_E006"), (8, "TE_E007"))))
        r.add(Outcome("X", "a3", run, True, ((4, "TE_E013"),)))
        r.add(Outcome("X", "a4", run, False))
        r.add(Outcome("X", "c1", run, True, ((1, "TE_E010"),), 0.002))
        r.add(Outcome("X", "c2", run, run == 1))  # one flip across runs
        r.add(Outcome("X", "c3", run, False))
    # method Y: catches everything adversarial, no false positives
    for item in ITEMS:
        r.add(
            Outcome(
                "Y", item.id, 0, item.adversarial, ((item.gold_line, "TE_E006"),) if item.adversarial else ()
            )
        )
    return r


def test_rates_and_localisation() -> None:
    m = metrics.method_metrics(_results(), "X", ITEMS)
    assert (m.tpr.k, m.tpr.n) == (3, 4)
    assert (m.fpr.k, m.fpr.n) == (1, 3)
    assert m.code_tpr.k == 2  # a1, a2 (E006); a3 fired E013, not E004
    # earliest error: a1 at 5 (gold 5), a2 at 8 (gold 8), a3 at 4 (gold 4) -> 3 of 3 detections
    assert (m.loc3.k, m.loc3.n) == (3, 3)
    assert m.per_category["slip"].value == 1.0 and m.per_category["lost"].value == 0.5
    assert m.flips == 1
    assert m.kappa_min is not None and m.kappa_min < 1.0
    assert m.seconds == pytest.approx(0.002)


def test_localisation_window() -> None:
    far = Outcome("X", "a", 0, True, ((12, "TE_E006"), (20, "TE_E001")))
    assert not metrics.localised(far, 8)
    assert metrics.localised(far, 9)  # 12 is within 9 ± 3
    assert metrics.localised(far, 17, any_line=True) and not metrics.localised(far, 17)


def test_comparison_and_holm() -> None:
    c = metrics.compare(_results(), "Y", "X", ITEMS, iterations=1000, seed=3)
    assert c.delta_tpr == pytest.approx(1.0 - 0.75)
    assert c.delta_fpr == pytest.approx(0.0 - 1 / 3)
    # correctness: Y right on all 7; X wrong on a4 and c1 -> b = 2, c = 0
    assert (c.mcnemar.b, c.mcnemar.c) == (2, 0)
    (held,) = metrics.with_holm([c])
    assert held.p_holm == pytest.approx(c.mcnemar.p)


def test_ablation_and_overlap() -> None:
    r = _results()
    for item in ITEMS:  # Y without E006 catches only the lost-variable items
        flagged = item.category == "lost"
        r.add(Outcome("Y-E006", item.id, 0, flagged, ((item.gold_line, "TE_E004"),) if flagged else ()))
    table = metrics.ablation(r, "Y", {"TE_E006": "Y-E006"}, ITEMS)
    assert table["TE_E006"]["delta_tpr"] == -0.5
    assert table["TE_E006"]["uniquely_detected"] == 2
    ov = metrics.overlap(r, "X", ITEMS, "TE_E006", "TE_E007")
    assert (ov["either"], ov["both"]) == (2, 1)


def test_latency_percentiles() -> None:
    r = Results()
    for k in range(100):
        r.add(Outcome("Z", f"i{k}", 0, False, (), (k + 1) / 1000))
    items = [EvalItem(f"i{k}", "te", "", False) for k in range(100)]
    lat = metrics.latency(r, "Z", items)
    assert lat["median_ms"] == pytest.approx(50.5) and lat["max_ms"] == pytest.approx(100.0)
    assert lat["p95_ms"] == pytest.approx(95.05)


class _Counting:
    name = "C"
    description = "counts"
    deterministic = True

    def __init__(self) -> None:
        self.calls = 0

    def unavailable(self) -> None:
        return None

    def run(self, item: EvalItem, run: int) -> Outcome:
        self.calls += 1
        return Outcome("C", item.id, run, item.adversarial)


def test_runner_resumes_from_its_log(tmp_path: Path) -> None:
    log = tmp_path / "run.jsonl"
    first = _Counting()
    run_methods(ITEMS[:3], [first], runs=2, log=log, progress=None)
    assert first.calls == 6
    with log.open("a") as fh:
        fh.write('{"kind": "outcome", "method": "C", "ite')  # a torn last line
    again = _Counting()
    results = run_methods(ITEMS, [again], runs=2, log=log, progress=None)
    assert again.calls == 8  # only the 4 new items, twice
    assert len(results.outcomes) == 14
    header = json.loads(log.read_text().splitlines()[0])
    assert header["kind"] == "header"
    resumed = _Counting()
    run_methods(ITEMS, [resumed], runs=2, log=log, progress=None)
    assert resumed.calls == 0  # every record after the torn line was readable
