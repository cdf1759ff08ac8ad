"""Input models of the vericot engine (shared/spec/vericot.md §1, V-1 … V-5).

Pydantic v2 models with ``extra="forbid"``; :func:`load_trace` turns JSON text into a
:class:`TraceInput` or a :class:`TraceError` that names the field, the limit or the pydantic
location — never a traceback.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

import cotaudit.boundedjson as boundedjson


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Document(_Model):
    id: str
    title: str | None = None
    text: str


class Turn(_Model):
    role: Literal["system", "user", "assistant"]
    content: str


class Context(_Model):
    question: str
    documents: list[Document] = []
    history: list[Turn] = []


class StepIn(_Model):
    id: str
    text: str


class PremiseIn(_Model):
    id: str
    text: str
    source: Literal["context", "commonsense"]
    smt: str
    use: Literal["given", "pool"] = "pool"
    evidence: str | None = None


class StepFormalization(_Model):
    step_id: str
    decls: str = ""
    smt: str | None = None
    negation_smt: str | None = None
    premises: list[PremiseIn] = []
    error: str | None = None


class Formalization(_Model):
    semantics: Literal["classical", "proofwriter"] = "classical"
    vocabulary: str = ""
    premises: list[PremiseIn] = []
    steps: list[StepFormalization] = []


class TraceInput(_Model):
    schema_version: Literal["vericot.trace/1"] = "vericot.trace/1"
    id: str
    context: Context
    steps: list[StepIn] | None = None
    cot: str | None = None
    answer: str | None = None
    gold_answer: str | None = None
    answer_options: list[str] | None = None
    formalization: Formalization | None = None
    meta: dict[str, str | int | float | bool] = {}

    @model_validator(mode="after")
    def _exactly_one_of_steps_cot(self) -> TraceInput:
        if (self.steps is None) == (self.cot is None):
            raise ValueError("exactly one of 'steps' and 'cot' must be given")
        return self

    def step_list(self) -> list[StepIn]:
        """The steps, splitting ``cot`` when it is given (V-2)."""
        if self.steps is not None:
            return list(self.steps)
        return [StepIn(id=f"s{i}", text=t) for i, t in enumerate(split_steps(self.cot or ""), start=1)]


# --------------------------------------------------------------------------- V-2 splitting

_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"(])")
_ENUMERATOR = re.compile(r"^\s*(?:(?:step\s*\d+\s*[:.)]?)|(?:\d+\s*[.)])|[-*•])\s*", re.IGNORECASE)


def _strip_enumerator(text: str) -> str:
    return _ENUMERATOR.sub("", text, count=1).strip()


def split_steps(text: str) -> list[str]:
    """Split a chain of thought into steps: its non-empty lines if several, else sentences."""
    lines = [line for line in text.splitlines() if line.strip()]
    parts = lines if len(lines) > 1 else [p for p in _SENTENCE_BREAK.split(text.strip()) if p.strip()]
    steps = [_strip_enumerator(p) for p in parts]
    return [s for s in steps if s]


# --------------------------------------------------------------------------- V-4 limits


@dataclass(frozen=True, slots=True)
class Limits:
    """Input limits (V-4); all configurable."""

    max_steps: int = 500
    max_step_chars: int = 20_000
    max_smt_bytes: int = 16 * 1024
    max_declarations: int = 2_000
    max_premises: int = 500
    max_line_bytes: int = 8 * 1024 * 1024
    max_json_depth: int = boundedjson.MAX_DEPTH  # [ours] a trace nests 6 levels deep
    max_number_chars: int = boundedjson.MAX_NUMBER_CHARS  # [ours] JSON numbers (only ``meta`` has any)


@dataclass(frozen=True, slots=True)
class TraceError:
    """Why a trace could not be read: a message naming the field, limit or location."""

    message: str
    location: str | None = None


def _smt_fields(trace: TraceInput) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    f = trace.formalization
    if f is None:
        return out
    out.append(("formalization.vocabulary", f.vocabulary))
    for i, p in enumerate(f.premises):
        out.append((f"formalization.premises.{i}.smt", p.smt))
    for i, s in enumerate(f.steps):
        for name in ("decls", "smt", "negation_smt"):
            value = getattr(s, name)
            if value is not None:
                out.append((f"formalization.steps.{i}.{name}", value))
        for j, p in enumerate(s.premises):
            out.append((f"formalization.steps.{i}.premises.{j}.smt", p.smt))
    return out


def check_limits(trace: TraceInput, limits: Limits) -> TraceError | None:
    """The first breached limit, or ``None``."""
    steps = trace.step_list()
    if len(steps) > limits.max_steps:
        return TraceError(f"too many steps: {len(steps)} > {limits.max_steps}", "steps")
    for i, s in enumerate(steps):
        if len(s.text) > limits.max_step_chars:
            return TraceError(f"step text longer than {limits.max_step_chars} characters", f"steps.{i}.text")
    ids = [s.id for s in steps]
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        return TraceError(f"duplicate step id {dup!r}", "steps")
    for name, value in _smt_fields(trace):
        if utf8_size(value) > limits.max_smt_bytes:
            return TraceError(f"SMT-LIB field longer than {limits.max_smt_bytes} bytes", name)
    f = trace.formalization
    if f is not None:
        n_premises = len(f.premises) + sum(len(s.premises) for s in f.steps)
        if n_premises > limits.max_premises:
            return TraceError(
                f"too many premises: {n_premises} > {limits.max_premises}", "formalization.premises"
            )
        n_decls = sum(v.count("(declare-") for k, v in _smt_fields(trace))
        if n_decls > limits.max_declarations:
            return TraceError(
                f"too many declarations: {n_decls} > {limits.max_declarations}", "formalization"
            )
        pids = [p.id for p in f.premises] + [p.id for s in f.steps for p in s.premises]
        if len(set(pids)) != len(pids):
            dup = next(i for i in pids if pids.count(i) > 1)
            return TraceError(f"duplicate premise id {dup!r}", "formalization.premises")
        clash = sorted(set(pids) & set(ids))
        if clash:
            return TraceError(f"premise id {clash[0]!r} is also a step id", "formalization.premises")
        seen: set[str] = set()
        for i, sf in enumerate(f.steps):
            if sf.step_id not in ids:
                return TraceError(
                    f"formalization for unknown step {sf.step_id!r}", f"formalization.steps.{i}"
                )
            if sf.step_id in seen:
                return TraceError(f"two formalizations for step {sf.step_id!r}", f"formalization.steps.{i}")
            seen.add(sf.step_id)
    return None


def utf8_size(text: str) -> int:
    """Bytes of ``text`` in UTF-8; lone surrogates (valid in a JSON escape) count as 3, never raise."""
    return len(text.encode("utf-8", "surrogatepass"))


def load_trace(text: str, limits: Limits | None = None) -> TraceInput | TraceError:
    """Parse and validate one trace (JSON text): bounded in size, nesting and numbers."""
    limits = limits or Limits()
    if len(text) > limits.max_line_bytes or utf8_size(text) > limits.max_line_bytes:
        return TraceError(f"input longer than {limits.max_line_bytes} bytes")
    try:
        data = boundedjson.decode(
            text, max_depth=limits.max_json_depth, max_number_chars=limits.max_number_chars
        )
    except boundedjson.JSONRejected as exc:
        return TraceError(exc.message)
    return validate_trace(data, limits)


def _loc_part(part: object) -> str:
    text = str(part)  # keys come from the input: keep a long one from swamping the message
    return text if len(text) <= 80 else text[:77] + "..."


def validate_trace(data: object, limits: Limits | None = None) -> TraceInput | TraceError:
    """Validate a decoded JSON value as a trace."""
    limits = limits or Limits()
    if not isinstance(data, dict):
        return TraceError("a trace must be a JSON object")
    try:
        trace = TraceInput.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(_loc_part(p) for p in err["loc"]) or None
        return TraceError(f"{loc or 'trace'}: {err['msg']}", loc)
    return check_limits(trace, limits) or trace


# --------------------------------------------------------------------------- V-5 answers

_LETTER = re.compile(r"^\(?([a-z])\)?[.)]?\s*")


def normalize_answer(answer: str, options: list[str] | None = None) -> str:
    """Casefold, strip, drop a leading ``A)``/``(A)``/``A.``, map a bare letter via the options."""
    a = " ".join(answer.casefold().split())
    bare = re.fullmatch(r"\(?([a-z])\)?\.?", a)
    if bare and options:
        for opt in options:
            m = _LETTER.match(opt.casefold().strip())
            if m and m.group(1) == bare.group(1):
                return normalize_answer(opt[m.end() :] if m.end() < len(opt) else opt, None)
    m = re.match(r"^\(?[a-z]\)\s*|^[a-z]\.\s+|^\([a-z]\)\s*", a)
    if m and m.end() < len(a):
        a = a[m.end() :]
    return a.strip()


def answers_equal(answer: str | None, gold: str | None, options: list[str] | None) -> bool | None:
    """V-5 correctness; ``None`` when either answer is missing."""
    if answer is None or gold is None:
        return None
    return normalize_answer(answer, options) == normalize_answer(gold, options)
