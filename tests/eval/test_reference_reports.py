"""The committed reference reports (docs/eval/te-*.{md,json}) say what the generator says today
about a method that cannot run: they once claimed the LLM layer did not exist (issue 19, 6 (a))."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cotaudit.eval.baselines import LLMMethod
from cotaudit.llm.config import LLMSettings

DOCS = Path(__file__).resolve().parents[2] / "docs" / "eval"
REPORTS = sorted(DOCS.glob("te-*.json"))


def _no_model_reason() -> str:
    """What ``eval te`` writes for M3/M4 when nothing configures a model."""
    reason = LLMSettings.from_env({}).unconfigured_reason()
    assert reason is not None
    text = LLMMethod("M3", "", None, reason).unavailable()
    assert text is not None
    return text


def test_there_are_reference_reports() -> None:
    assert {p.name for p in REPORTS} >= {"te-large.json", "te-paper266.json"}


@pytest.mark.parametrize("path", REPORTS, ids=lambda p: p.name)
def test_not_run_methods_carry_the_generators_reason(path: Path) -> None:
    methods = json.loads(path.read_text(encoding="utf-8"))["methods"]
    expected = _no_model_reason()
    markdown = path.with_suffix(".md").read_text(encoding="utf-8")
    for name, m in methods.items():
        if m.get("available", True):
            continue
        assert m["reason"] == expected, (path.name, name, m["reason"])
        assert f"| {name} | {expected} |" in markdown, (path.name, name)


def test_a_stale_reason_would_be_caught() -> None:
    """Near miss: the old wording is not what the generator says."""
    stale = "not configured: needs the LLM layer (cotaudit.llm) and a model, which this version does not have"
    assert _no_model_reason() != stale and "no model configured" in _no_model_reason()
