"""What the cot engine reads: raw text, or one record that carries its own steps.

Raw text (``.txt``, ``.md``, stdin, a JSONL item's ``text``) is split by
:func:`cotaudit.cot.segment.split_steps`. A record is one JSON object (a ``.cot.json`` file, or
a JSONL line without a ``text`` field) in the shapes the benchmarks publish, read as they are:

| field | meaning |
|---|---|
| ``steps`` | list of step strings (ProcessBench, BIG-Bench Mistake) |
| ``text`` / ``chain`` / ``completion`` | the chain as one string, split like raw text |
| ``answer`` | the model's final answer (BIG-Bench Mistake); the chain itself when there are no |
|   | ``steps`` (Natural Program files) |
| ``problem`` / ``input`` / ``question`` | the task statement (task replayers read it) |
| ``gold`` / ``target`` / ``final_answer`` | the gold answer, when known |
| ``task`` | a replayer name (``dyck_languages`` …) to use instead of recognition |

Labels (``label``, ``mistake_index``, ``flag``) are never read: they are what the engine is
measured against.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from cotaudit.cot.segment import Step, record_steps, split_steps
from cotaudit.errors import CotauditError

MAX_INPUT_CHARS = 4_000_000
MAX_STEPS = 5_000
MAX_STEP_CHARS = 20_000


class BadInput(CotauditError):
    """The input is not a chain of thought (COT_E004); the message says why."""


@dataclass(slots=True)
class Chain:
    """A chain ready to audit."""

    steps: list[Step]
    source: str  # "text" or "record"
    rule: str  # the segmentation rule, or "record"
    problem: str | None = None
    answer: str | None = None
    gold: str | None = None
    task: str | None = None
    limits_hit: list[str] = field(default_factory=list)


def _text_field(obj: dict[str, Any], *names: str) -> str | None:
    for name in names:
        value = obj.get(name)
        if isinstance(value, str):
            return value
        if isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)
    return None


def looks_like_record(text: str) -> bool:
    return text.lstrip()[:1] in ("{", "[")


def read_chain(text: str, *, record: bool | None = None) -> Chain:
    """The chain in ``text`` (``record`` None: a JSON object is read as a record)."""
    hit: list[str] = []
    if "\x00" in text:
        raise BadInput("binary data (NUL bytes), not text")
    if len(text) > MAX_INPUT_CHARS:
        hit.append(f"input over {MAX_INPUT_CHARS:,} characters: the rest was not read")
        text = text[:MAX_INPUT_CHARS]
    if record is None:
        record = looks_like_record(text)
    chain = _from_record(text) if record else _from_text(text)
    chain.limits_hit[:0] = hit
    if len(chain.steps) > MAX_STEPS:
        chain.limits_hit.append(f"over {MAX_STEPS} steps: steps past {MAX_STEPS} were not checked")
        chain.steps = chain.steps[:MAX_STEPS]
    return chain


def _from_text(text: str) -> Chain:
    steps, rule = split_steps(text)
    if not steps:
        raise BadInput("empty chain: no steps")
    return Chain(steps, "text", rule)


def _from_record(text: str) -> Chain:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInput(f"not a JSON record (line {exc.lineno}, col {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise BadInput("JSON nested too deeply") from None
    if isinstance(obj, list):
        raise BadInput(
            f"a JSON list of {len(obj)} items: give one record per line (.jsonl) or use 'cotaudit eval cot'"
        )
    if not isinstance(obj, dict):
        raise BadInput("a record must be a JSON object")
    problem = _text_field(obj, "problem", "input", "question")
    gold = _text_field(obj, "gold", "target", "final_answer")
    task = obj.get("task") if isinstance(obj.get("task"), str) else None
    raw_steps = obj.get("steps")
    answer = _text_field(obj, "answer")
    if raw_steps is not None:
        if not isinstance(raw_steps, list) or not all(isinstance(s, str) for s in raw_steps):
            raise BadInput("'steps' must be a list of strings")
        if not raw_steps:
            raise BadInput("'steps' is empty")
        return Chain(record_steps(raw_steps), "record", "record", problem, answer, gold, task)
    whole = _text_field(obj, "text", "chain", "completion") or answer
    if whole is None:
        raise BadInput("a record needs 'steps' (a list of strings) or the chain as 'text'")
    steps, rule = split_steps(whole)
    if not steps:
        raise BadInput("empty chain: no steps")
    # The chain came from 'answer' itself (Natural Program files): it has no separate answer.
    return Chain(steps, "record", rule, problem, None if whole is answer else answer, gold, task)
