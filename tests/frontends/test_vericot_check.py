"""vericot through ``cotaudit check`` / ``audit`` (issue 19): a raw chain of thought needs a
formaliser. With no model configured its steps are ``unknown`` and the verdict ``abstain``, with
one warning naming what to configure; with a model (here: replayed recordings of a real one,
tests/fixtures/llm/vericot) the same path runs the LLM formaliser.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from cotaudit import api, cli, vericot
from cotaudit.frontends import vericot_llm
from cotaudit.llm.client import LLMClient
from cotaudit.llm.config import LLMSettings
from llm.fixture_sets import FIXTURES, JSON_MODE, MODEL, vericot_inputs

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "vericot"

RAW = {
    "id": "raw-heron",
    "context": {"question": "Every heron is a bird. Birds lay eggs. Does Hal, a heron, lay eggs?"},
    "cot": "Hal is a heron. Every heron is a bird, so Hal is a bird. Birds lay eggs, so Hal lays eggs.",
}
REPLAY_ENV = {
    "COTAUDIT_LLM_MODE": "replay",
    "COTAUDIT_LLM_CACHE": str(FIXTURES / "vericot"),
    "COTAUDIT_LLM_MODEL": MODEL,
    "COTAUDIT_LLM_JSON": JSON_MODE,
}


@pytest.fixture(autouse=True)
def _no_model(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No COTAUDIT_LLM_* from the caller's environment; a fresh client cache per test."""
    import os

    for name in list(os.environ):
        if name.startswith("COTAUDIT_LLM_"):
            monkeypatch.delenv(name)
    vericot_llm._client.cache_clear()
    yield
    vericot_llm._client.cache_clear()


def _replay(monkeypatch: pytest.MonkeyPatch) -> None:
    for k, v in REPLAY_ENV.items():
        monkeypatch.setenv(k, v)


def test_raw_cot_without_a_model_abstains_with_one_warning() -> None:
    r = api.check(json.dumps(RAW), "vericot")
    assert r.verdict == "abstain"
    steps = r.details["steps"]
    assert len(steps) == 3
    assert {(s["status"], s["reason"]) for s in steps} == {("unknown", "llm_unavailable")}
    assert all("no_formalizer" in s["flags"] for s in steps)
    assert [(f.code, f.severity, f.location.step) for f in r.findings] == [("VC_W003", "warning", "s1")]
    message = r.findings[0].message
    assert (
        "3 of 3 steps" in message and "COTAUDIT_LLM_MODEL" in message and "COTAUDIT_LLM_BASE_URL" in message
    )
    assert r.findings[0].evidence["steps"] == ["s1", "s2", "s3"]


def test_raw_cot_through_audit_and_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "raw.vcot.json"
    path.write_text(json.dumps(RAW), encoding="utf-8")
    result = api.audit([tmp_path])
    assert [r.verdict for r in result.reports] == ["abstain"]
    code = cli.main(["check", "--no-timing", str(path)])
    out = capsys.readouterr().out
    assert code == 1 and "abstain (0 errors, 1 warning)" in out and "VC_E003" not in out


def test_a_model_setting_that_is_half_there_is_named() -> None:
    env = {"COTAUDIT_LLM_MODEL": "some-model"}  # no server, not replaying
    trace = vericot.TraceInput.model_validate(RAW)
    cfg = vericot_llm.formalizer_config(vericot.VerifierConfig(), trace, env)
    assert cfg.formalizer == "none" and cfg.llm is None
    assert cfg.formalizer_hint is not None and "COTAUDIT_LLM_BASE_URL" in cfg.formalizer_hint


def test_formalised_traces_never_call_a_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """Near miss: every step has its formula, so a configured model changes nothing."""
    _replay(monkeypatch)
    text = (EXAMPLES / "A_sara_valid.vcot.json").read_text(encoding="utf-8")
    r = api.check(text, "vericot")
    assert r.verdict == "pass" and r.details["config"]["formalizer"] == "none"
    assert vericot_llm._client.cache_info().currsize == 0  # no client was even built
    assert r.to_dict() == vericot.check(text).to_dict() | {"timing_ms": r.timing_ms}


def test_configured_model_runs_the_llm_formaliser(monkeypatch: pytest.MonkeyPatch) -> None:
    """The recorded SARA case without step formulas, through api.check: the LLM formaliser
    runs on exactly the recorded requests and ends as it did at record time."""
    _replay(monkeypatch)
    trace = vericot_inputs(False)["formalize_sara"]
    r = api.check(json.dumps(trace), "vericot")
    assert r.details["config"]["formalizer"] == "llm"
    assert [(s["status"], s["reason"]) for s in r.details["steps"]] == [
        ("untranslatable", "rounds_exhausted")
    ] * 2
    assert vericot_llm._client.cache_info().currsize == 1
    calls = _only_client().log.summary()
    assert calls["calls"] > 0 and calls["backend_calls"] == 0 and calls["cache_hits"] == calls["calls"]


def _only_client() -> LLMClient:
    """The client the environment's settings built (the cached one)."""
    return vericot_llm._client(LLMSettings.from_env(), None)


def test_a_replay_miss_is_unknown_never_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nobody recorded answers for this raw chain: the formaliser is asked, the replay misses,
    and every step is unknown (VC_W003), so the verdict is abstain."""
    _replay(monkeypatch)
    r = api.check(json.dumps(RAW), "vericot")
    assert r.verdict == "abstain" and r.details["config"]["formalizer"] == "llm"
    assert {(s["status"], s["reason"]) for s in r.details["steps"]} == {("unknown", "llm_unavailable")}
    assert all("no_formalizer" not in s["flags"] for s in r.details["steps"])
    assert {f.code for f in r.findings} == {"VC_W003"}


def test_proofwriter_semantics_never_gets_the_llm_formaliser(monkeypatch: pytest.MonkeyPatch) -> None:
    _replay(monkeypatch)
    raw = {**RAW, "formalization": {"semantics": "proofwriter"}}
    r = api.check(json.dumps(raw), "vericot")
    assert r.verdict == "abstain"
    assert "proofwriter" in r.findings[0].message and r.findings[0].code == "VC_W003"
