"""Reading a structured answer out of untrusted model text, and the result of trying.

Models wrap JSON in prose or code fences, cut it off at ``max_tokens``, or answer nothing at all.
:func:`parse_json_object` finds the object or says, in one line, why there is none; the wrapper
feeds that line back in a re-ask. :class:`Structured` is the outcome: ``ok`` with a value,
``invalid`` (the model answered, never validly) or ``abstain`` (no usable answer: the server
failed), always with the reason.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from cotaudit.errors import CotauditError

if TYPE_CHECKING:
    from pydantic import ValidationError

T = TypeVar("T")
Status = Literal["ok", "invalid", "abstain"]
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Structured(Generic[T]):
    """A validated answer, or why there is none."""

    status: Status
    value: T | None = None
    reason: str | None = None
    reasks: int = 0  # how many re-asks were sent
    raw: str = ""  # the last answer text

    @property
    def ok(self) -> bool:
        return self.status == "ok"


class AnswerError(CotauditError, ValueError):
    """The answer text holds no valid object; the message is what a re-ask tells the model."""


def parse_json_object(text: str) -> Any:
    """The JSON object in ``text``: the whole text, a fenced block, or the outermost ``{…}``."""
    stripped = text.strip()
    if not stripped:
        raise AnswerError("the answer was empty")
    candidates = [stripped]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(stripped)]
    start, end = stripped.find("{"), stripped.rfind("}")
    if 0 <= start < end:
        candidates.append(stripped[start : end + 1])
    error: json.JSONDecodeError | None = None
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except json.JSONDecodeError as exc:
            error = error or exc
    if start < 0:
        raise AnswerError("the answer contained no JSON object")
    assert error is not None
    raise AnswerError(f"the answer was not valid JSON ({error.msg} at line {error.lineno} col {error.colno})")


def describe_validation_error(exc: ValidationError, limit: int = 6) -> str:
    """pydantic's errors as one line: ``field.path: message; …`` (at most ``limit``)."""
    parts = []
    for err in exc.errors()[:limit]:
        where = ".".join(str(p) for p in err.get("loc", ())) or "(root)"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    more = len(exc.errors()) - limit
    if more > 0:
        parts.append(f"and {more} more")
    return "schema violation: " + "; ".join(parts)
