"""LLM stage contracts (V-32 … V-36) as pydantic models.

Their JSON Schemas are committed in ``schemas/`` (one file per response model and request
model); ``tests/vericot/test_contracts.py`` keeps them in sync (regenerate with
``python -m cotaudit.vericot.contracts``). The engine defines the contracts; the stages that
call a model live in ``cotaudit.frontends.vericot_llm``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from cotaudit.vericot.schema import Context


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


class KnownEntry(_M):
    id: str
    kind: Literal["premise", "step"]
    source: str
    text: str
    smt: str


class StageContext(_M):
    context: Context
    vocabulary: list[str]
    known: list[KnownEntry] = Field(default_factory=list, max_length=60)


class FormalizeRequest(StageContext):
    kind: Literal["step", "premise"]
    text: str
    round: int
    feedback: str | None = None


class FormalizeResponse(_M):
    outcome: Literal["formula", "needs_vocabulary", "untranslatable"]
    smt: str | None = None
    missing: list[str] = []
    reason: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> FormalizeResponse:
        if (self.outcome == "formula") != (self.smt is not None):
            raise ValueError("smt is required iff outcome is 'formula'")
        if (self.outcome == "needs_vocabulary") != bool(self.missing):
            raise ValueError("missing must be non-empty iff outcome is 'needs_vocabulary'")
        if self.outcome == "untranslatable" and not self.reason:
            raise ValueError("reason is required when outcome is 'untranslatable'")
        return self


class VocabularyRequest(StageContext):
    text: str
    missing: list[str]


class VocabularyResponse(_M):
    declarations: list[str]
    notes: str | None = None


class PremiseRequest(StageContext):
    step_text: str
    step_smt: str
    max_premises: int = 6


class ProposedPremise(_M):
    text: str
    source: Literal["context", "commonsense"]
    evidence: str | None = None
    smt: str | None = None

    @model_validator(mode="after")
    def _evidence(self) -> ProposedPremise:
        if (self.source == "context") != (self.evidence is not None):
            raise ValueError("evidence is required iff source is 'context'")
        return self


class PremiseResponse(_M):
    premises: list[ProposedPremise]


class JudgedPremise(_M):
    id: str
    text: str
    source: str
    evidence: str | None
    smt: str


class JudgeRequest(_M):
    context: Context
    step_text: str
    premises: list[JudgedPremise]


class PremiseVerdict(_M):
    premise_id: str
    accept: bool
    criterion: Literal["grounded_in_context", "acceptable_commonsense"]
    reason: str = Field(max_length=500)


class JudgeResponse(_M):
    verdicts: list[PremiseVerdict]


class CoTRequest(_M):
    context: Context
    answer_options: list[str] | None = None


class CoTResponse(_M):
    steps: list[str]
    answer: str


class StepFeedback(_M):
    index: int
    status: str
    reason: str | None
    message: str


class ReflectRequest(_M):
    context: Context
    steps: list[str]
    answer: str | None
    round: int
    first_failure: int
    feedback: list[StepFeedback]


class ReflectResponse(_M):
    revised_steps: list[str]
    answer: str


MODELS: tuple[type[BaseModel], ...] = (
    FormalizeRequest,
    FormalizeResponse,
    VocabularyRequest,
    VocabularyResponse,
    PremiseRequest,
    PremiseResponse,
    JudgeRequest,
    JudgeResponse,
    CoTRequest,
    CoTResponse,
    ReflectRequest,
    ReflectResponse,
)
SCHEMA_DIR = Path(__file__).parent / "schemas"


def schema_text(model: type[BaseModel]) -> str:
    return json.dumps(model.model_json_schema(), indent=1, sort_keys=True) + "\n"


def write_schemas(directory: Path = SCHEMA_DIR) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for model in MODELS:
        (directory / f"{model.__name__}.json").write_text(schema_text(model), encoding="utf-8")


if __name__ == "__main__":
    write_schemas()
