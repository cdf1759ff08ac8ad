"""V-47 … V-51: metrics with Wilson intervals and the anchor table, reflection with the
OracleReflector, SFT and DPO export."""

from __future__ import annotations

from typing import Any

import pytest

from cotaudit import vericot
from cotaudit.vericot.config import VerifierConfig
from cotaudit.vericot.export import export_dpo, export_sft
from cotaudit.vericot.metrics import ANCHORS, PAPER_PRECISION, compute, render_table, wilson
from cotaudit.vericot.reflect import EchoReflector, OracleReflector, reflect
from cotaudit.vericot.schema import TraceInput

from .helpers import needs_data


def _rep(verdict: str, correct: bool | None) -> dict[str, Any]:
    return {
        "engine": "vericot",
        "details": {"verdict": verdict, "answer": {"correct": correct}, "steps": [], "first_failure": None},
    }


def test_metrics() -> None:
    reports = [_rep("valid", True), _rep("valid", False), _rep("invalid", True), _rep("unknown", None)]
    m = compute(reports)
    assert m["pass_rate"]["value"] == 50.0 and m["pass_rate"]["count"] == 2
    assert m["precision"]["value"] == 50.0 and m["precision"]["n"] == 2
    assert m["vcar"]["value"] == 25.0
    assert m["task_accuracy"]["value"] == 50.0
    assert m["correct_null"] == 1
    assert m["by_verdict"] == {"invalid": 1, "unknown": 1, "valid": 2}
    assert "Pass Rate" in render_table(m)
    assert compute([_rep("invalid", True)])["precision"]["value"] is None


def test_wilson() -> None:
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(40.4, abs=0.1) and hi == pytest.approx(59.6, abs=0.1)
    assert wilson(0, 0) == (0.0, 0.0)


def test_anchor_precision_is_vcar_over_pass_rate() -> None:
    pw = ANCHORS["ProofWriter"]
    assert round(100 * pw["VCAR"]["VeriCoT"] / pw["Pass Rate"]["VeriCoT"], 1) == pytest.approx(
        PAPER_PRECISION["ProofWriter"], abs=0.15
    )
    assert (
        round(100 * ANCHORS["BioASQ"]["VCAR"]["VeriCoT"] / ANCHORS["BioASQ"]["Pass Rate"]["VeriCoT"], 1)
        == 84.2
    )
    assert (
        round(100 * ANCHORS["SARA"]["VCAR"]["VeriCoT"] / ANCHORS["SARA"]["Pass Rate"]["VeriCoT"], 1) == 86.8
    )


def _trace(tid: str, steps: list[str], answer: str, group: str = "g") -> TraceInput:
    return TraceInput.model_validate(
        {
            "id": tid,
            "context": {"question": "Q?"},
            "steps": [{"id": f"s{i}", "text": t} for i, t in enumerate(steps, 1)],
            "answer": answer,
            "meta": {"group": group},
        }
    )


def test_export_sft() -> None:
    traces = [
        _trace("a", ["x", "y"], "A"),
        _trace("a", ["x", "y"], "A"),
        _trace("b", ["z"], "B"),
        _trace("c", ["w"], "A"),
    ]
    reports = [_rep("valid", True), _rep("valid", True), _rep("invalid", True), _rep("valid", False)]
    rows = export_sft(reports, traces)
    assert [r["id"] for r in rows] == ["a", "c"]
    assert rows[0]["messages"][1]["content"] == "x\ny\nAnswer: A"
    assert rows[0]["messages"][0]["role"] == "user" and "Question: Q?" in rows[0]["messages"][0]["content"]
    assert rows[0]["meta"] == {"verdict": "valid", "n_steps": 2, "premises": []}
    assert [r["id"] for r in export_sft(reports, traces, require_correct=True)] == ["a"]


def test_export_dpo_round_robin() -> None:
    traces = [
        _trace("c0", ["a"], "A"),
        _trace("r0", ["b"], "A"),
        _trace("c1", ["c"], "A"),
        _trace("r1", ["d"], "A"),
        _trace("u", ["e"], "A"),
    ]
    reports = [
        _rep("valid", True),
        _rep("invalid", True),
        _rep("valid", True),
        _rep("invalid", True),
        _rep("unknown", None),
    ]
    rows = export_dpo(reports, traces, max_pairs_per_group=3)
    assert [(r["meta"]["chosen_id"], r["meta"]["rejected_id"]) for r in rows] == [
        ("c0", "r0"),
        ("c1", "r1"),
        ("c0", "r1"),
    ]
    assert all(r["meta"]["group"] == "g" for r in rows)


@needs_data("prontoqa")
def test_reflection_oracle_fixes_perturbations_in_one_round() -> None:
    from cotaudit.vericot.datasets import load_items
    from cotaudit.vericot.formalizers import formalize_item, prontoqa
    from cotaudit.vericot.inject import unseen_predicate_text

    cfg = VerifierConfig(formalizer="prontoqa", premise_providers=("pool",))

    def verify(t: TraceInput) -> Any:
        return vericot.verify(t, config=cfg)

    for item in load_items("prontoqa", "dev")[:3]:
        gold = list(item["explanation"])
        for k in (0, 2, 5):
            for bad in (prontoqa.negate_text(gold[k]), unseen_predicate_text(gold[k])):
                steps = list(gold)
                steps[k] = bad or gold[k]
                t = formalize_item(item, dataset="prontoqa", mode="chain", steps=steps)
                r0 = verify(t)
                assert r0.details["first_failure"]["index"] == k
                _, final, rounds = reflect(t, r0, OracleReflector(gold), verify)
                assert final.details["verdict"] == "valid" and len(rounds) == 2
                _, final, rounds = reflect(t, r0, EchoReflector(), verify)
                assert len(rounds) == 1 and final.details["verdict"] == "invalid"
