"""The answer-aware half of a reward: the trace's final answer against a gold answer.

**Gold** comes from the first of ``gold``, ``ground_truth``, ``answer``, ``solution`` that a
sample has (TRL dataset columns, verl's ``ground_truth``; ``gold_column=`` picks another), and
is normalised the way datasets write it: a verl ``reward_model`` dict gives its
``ground_truth``, a GSM8K solution gives what follows its last ``####``, a MATH solution the
content of its last ``\\boxed{…}``.

**The trace's final answer** is the one the engine read, when it reads one — te: the value of
the ``ANS`` line as the trace states it (``details.answer.value``), cot: its extracted answer,
vericot: its predicted label — and otherwise, for te and cot only, what
:func:`cotaudit.cot.answer.extract` finds in the trace (``\\boxed{…}``, ``####``, "the answer
is", the last line). The other engines' traces are structured (JSON, ``.t6``, ``.kb``): where
the engine reads no answer, none is stated (a JSON trace's last line is ``}``).

**Comparison** is :func:`cotaudit.cot.answer.compare`: exact rational arithmetic for numeric
gold (``$18``, ``1,260``, ``3/4``, ``25%``), option letters, ``math-verify`` (through
:mod:`cotaudit.cot.mathverify`, time-bounded) for LaTeX or symbolic gold, and normalised strings
otherwise. One rule is stricter here than in the cot engine: an answer that states several
different numbers matches nothing — it is ``unknown`` — so listing candidates earns no reward.

Outcomes: ``pass`` (matches), ``fail`` (contradicts gold, or states no final answer at all),
``unknown`` (no gold, or the two could not be compared).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from cotaudit.cot import answer as answers
from cotaudit.report import Report
from cotaudit.rewards.shaping import Status
from cotaudit.te.grammar import split_lines

GOLD_COLUMNS: tuple[str, ...] = ("gold", "ground_truth", "answer", "solution")
_HASHES = re.compile(r"####")
#: Engines whose traces are text that may state an answer in prose; the others (JSON, ``.t6``,
#: ``.kb``) state one only where the engine reads it.
_TEXT_ANSWER_ENGINES = frozenset({"te", "cot"})


class AnswerOutcome(NamedTuple):
    """The answer check of one completion: its status and the comparison behind it."""

    status: Status
    check: answers.AnswerCheck
    reason: str = ""


def normalise_gold(value: Any) -> str | None:
    """A gold answer as text (see the module docstring), or ``None`` when there is none."""
    if isinstance(value, Mapping):
        value = value.get("ground_truth", value.get("answer"))
    if isinstance(value, Sequence) and not isinstance(value, str):
        value = value[0] if len(value) == 1 else None
    if isinstance(value, bool) or value is None:
        return None if value is None else str(value)
    if isinstance(value, int | float):
        return str(value)
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    hashes = list(_HASHES.finditer(text))
    if hashes:
        tail = text[hashes[-1].end() :].strip()
        return tail.split("\n")[0].strip() or None
    if "\\boxed" in text or "\\fbox" in text:
        boxed = answers.last_boxed(text)
        if boxed:
            return boxed
    return text


def gold_from(columns: Mapping[str, Any], index: int | None, gold_column: str | None = None) -> str | None:
    """Sample ``index``'s gold answer from dataset columns (lists, one value per sample) or from
    one sample's values (``index`` None)."""
    names = (gold_column,) if gold_column else GOLD_COLUMNS
    for name in names:
        if name not in columns:
            continue
        value = columns[name]
        if index is not None:
            if not isinstance(value, Sequence) or isinstance(value, str) or index >= len(value):
                continue
            value = value[index]
        gold = normalise_gold(value)
        if gold is not None:
            return gold
    return None


def stated_answer(report: Report | None, trace: str) -> tuple[str | None, str | None]:
    """The trace's final answer and where it came from (see the module docstring)."""
    details = report.details if report is not None else {}
    found = details.get("answer")
    if isinstance(found, Mapping):
        for key, source in (("value", "ans-line"), ("extracted", "engine"), ("predicted", "engine")):
            value = found.get(key)
            if isinstance(value, str | int | float) and not isinstance(value, bool) and str(value).strip():
                return str(value).strip(), source
            if isinstance(value, bool):
                return str(value), source
    if report is not None and report.engine not in _TEXT_ANSWER_ENGINES:
        return None, None  # a structured trace: its last line is syntax ("}"), not an answer
    lines = [ln for ln in split_lines(trace) if ln.strip()]
    return answers.extract(lines)


def check_answer(report: Report | None, trace: str, gold: str | None) -> AnswerOutcome:
    """Compare the trace's final answer with ``gold`` (see the module docstring)."""
    answer, source = stated_answer(report, trace)
    if gold is None:
        return AnswerOutcome("unknown", answers.compare(answer, source, None), "no gold answer")
    check = answers.compare(answer, source, gold)
    if answer is None:
        return AnswerOutcome("fail", check, "no final answer found")
    if check.kind == "number" and check.match is True and _states_others(answer, gold):
        return AnswerOutcome("unknown", check, "the answer states several different numbers")
    if check.match is None:
        return AnswerOutcome("unknown", check, check.reason or "the answers could not be compared")
    return AnswerOutcome("pass" if check.match else "fail", check, check.reason)


def _states_others(answer: str, gold: str) -> bool:
    """Whether a plain (non-LaTeX) answer also states a number other than gold's (percent forms
    of gold's value count as gold's)."""
    if "\\" in answer:
        return False
    wanted = set(answers.numbers_in(gold))
    wanted |= {v * 100 for v in wanted} | {v / 100 for v in wanted}
    return bool(set(answers.numbers_in(answer)) - wanted)
