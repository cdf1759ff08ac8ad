"""V-32 … V-36: the committed JSON Schemas match the contract models; contract invariants."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from cotaudit.vericot.contracts import MODELS, SCHEMA_DIR, FormalizeResponse, ProposedPremise, schema_text


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_committed_schema_in_sync(model: type) -> None:
    path = SCHEMA_DIR / f"{model.__name__}.json"
    assert path.exists(), f"run python -m cotaudit.vericot.contracts to write {path}"
    assert path.read_text(encoding="utf-8") == schema_text(model)


def test_formalize_response_invariants() -> None:
    FormalizeResponse(outcome="formula", smt="(assert a)")
    FormalizeResponse(outcome="needs_vocabulary", missing=["x"])
    FormalizeResponse(outcome="untranslatable", reason="r")
    for bad in (
        {"outcome": "formula"},
        {"outcome": "needs_vocabulary"},
        {"outcome": "untranslatable"},
        {"outcome": "formula", "smt": "(assert a)", "missing": ["x"]},
    ):
        with pytest.raises(ValidationError):
            FormalizeResponse.model_validate(bad)


def test_context_premise_needs_evidence() -> None:
    with pytest.raises(ValidationError):
        ProposedPremise(text="t", source="context")
    with pytest.raises(ValidationError):
        ProposedPremise(text="t", source="commonsense", evidence="e")
    ProposedPremise(text="t", source="commonsense")
