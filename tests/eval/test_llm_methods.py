"""M3 / M4 in the te harness: "not configured" without a model, real outcomes with one (mock),
abstentions counted, and the CLI end to end (the replay run is in tests/frontends/test_replay.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cotaudit.cli import main
from cotaudit.eval import te as te_eval
from cotaudit.eval.baselines import LLM_ABSTAIN, LLMMethod
from cotaudit.eval.model import EvalItem
from cotaudit.llm import LLMClient, ScriptedBackend, TransientBackendError

pytest.importorskip("pydantic")

SLIP = EvalItem(
    "slip", "te", "GIVEN:\n  a := 2\nGOAL: b\nEQ[e1]: b = a * 3 = 7\nANS: b\n", True, "arithmetic_slip", 4
)
CLEAN = EvalItem("clean", "te", "GIVEN:\n  a := 2\nGOAL: b\nEQ[e1]: b = a * 3 = 6\nANS: b\n", False)


def flag_everything(request: object) -> str:
    return json.dumps({"verdict": "incorrect", "first_error_line": 4, "explanation": "3 * 2 is 6"})


def test_without_a_model_m3_m4_are_not_configured_and_report_no_numbers() -> None:
    report = te_eval.evaluate(
        [SLIP, CLEAN],
        ["M2", "M3", "M4"],
        runs=1,
        ablate=False,
        determinism=False,
        iterations=100,
        llm_reason="no model configured (pass --llm-model)",
    )
    for name in ("M3", "M4"):
        entry = report["methods"][name]
        assert entry["available"] is False and entry["reason"].startswith(
            "not configured: no model configured"
        )
        assert "tpr" not in entry
    assert "llm" not in report and "M2-M3" in report["comparisons_not_run"]


def test_with_a_model_m3_m4_run_three_votes_per_outcome() -> None:
    backend = ScriptedBackend(flag_everything)
    client = LLMClient(backend, mode="off")
    report = te_eval.evaluate(
        [SLIP, CLEAN],
        ["M1", "M2", "M3", "M4"],
        runs=3,
        ablate=False,
        determinism=False,
        iterations=100,
        llm=client,
    )
    m3 = report["methods"]["M3"]
    assert (
        m3["available"]
        and m3["tpr"] == 1.0
        and m3["fpr"] == 1.0
        and m3["loc3"] == 1.0
        and m3["kappa_mean"] == 1.0
    )
    assert backend.calls == 2 * 2 * 3 * 3  # methods x items x runs x votes
    assert report["llm"]["M3"]["abstained"] == 0 and report["llm"]["calls"]["calls"] == 36
    assert {c["pair"] for c in report["comparisons"]} == {"M2-M3", "M2-M4", "M1-M3", "M1-M4", "M2-M1"}


def test_a_dead_server_gives_counted_abstentions_not_clean_verdicts() -> None:
    client = LLMClient(
        ScriptedBackend(lambda r: TransientBackendError("HTTP 500")),
        mode="off",
        retries=1,
        sleep=lambda s: None,
    )
    method = LLMMethod("M4", "judge", client)
    outcome = method.run(SLIP, 0)
    assert not outcome.flagged and outcome.codes() == {LLM_ABSTAIN}
    assert "HTTP 500" in method.abstentions[("slip", 0)]


def test_missing_pydantic_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "pydantic" else real(name, *a)
    )
    method = LLMMethod("M3", "np", LLMClient(ScriptedBackend(["x"]), mode="off"))
    assert "pydantic" in (method.unavailable() or "")


def test_cli_eval_te_says_not_configured(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in ("COTAUDIT_LLM_MODEL", "COTAUDIT_LLM_BASE_URL", "COTAUDIT_LLM_MODE", "COTAUDIT_LLM_CACHE"):
        monkeypatch.delenv(var, raising=False)
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(
        json.dumps(
            {
                "id": "x",
                "part": "seed",
                "category": "arithmetic_slip",
                "gold_line": 4,
                "text": SLIP.text,
                "expected_codes": ["TE_E006"],
            }
        )
        + "\n"
        + json.dumps({"id": "y", "part": "clean", "text": CLEAN.text})
        + "\n"
    )
    code = main(
        [
            "eval",
            "te",
            "--corpus",
            str(corpus),
            "--methods",
            "M1,M2,M3,M4",
            "--runs",
            "1",
            "--no-ablation",
            "--no-determinism",
            "--iterations",
            "100",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "| M3 | not configured: no model configured (pass --llm-model" in out
    assert "| M4 | not configured" in out


def test_cli_te_emit_without_a_model_is_a_clear_usage_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COTAUDIT_LLM_MODEL", raising=False)
    code = main(
        [
            "eval",
            "te-emit",
            "--datasets",
            "gsm8k",
            "--limit",
            "1",
            "--data",
            str(Path(__file__).parents[2] / "tests" / "fixtures" / "llm" / "no-data"),
        ]
    )
    assert code == 2 and "not found" in capsys.readouterr().err
