"""Where the trace is in a model completion: the one extraction behind the RL rewards,
``cotaudit te extract``, the inspect_ai scorer and the verifiers rubric.

A completion is a string (TRL's standard format, verl's ``solution_str``, inspect's
``output.completion``), a list of chat messages (``[{"role": ..., "content": ...}]``: TRL's
conversational format, OpenAI and verifiers), or one message. :func:`find_trace` finds the
trace in it in three steps:

1. **Messages** → the text of the last ``assistant`` message (the last message when none has
   that role); ``content`` is a string or a list of parts whose ``"text"`` parts are joined
   (``"thinking"`` and image parts are not the answer).
2. **Reasoning blocks** → the text after the last ``</think>`` (also ``</thinking>``,
   ``</reasoning>``), where R1-style models put their answer; when nothing there is a trace,
   the whole text is searched, so a trace written inside the reasoning still counts.
3. **The engine's own shape** (:data:`LOCATORS`, one line per engine):

   - ``te``: from the first ``GIVEN:`` line to the last ``ANS:`` line, fence lines blanked
     (:func:`cotaudit.te.grammar.extract_trace`), so prose around it and a ```` ``` ````
     fence are left out; no ``GIVEN:`` line means no trace;
   - ``vericot``: the first fenced block holding a JSON object, else the JSON object that
     starts at the first ``{``;
   - ``cot``: the whole text with the reasoning tags blanked (the reasoning *is* the chain);
   - any other engine (``type6``, ``certify``): the first fenced block, else the text.

Line numbers survive every step: line ``n`` of :attr:`Located.text` is line
``n + line_offset`` of the completion's text, so findings point into what the model wrote.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from cotaudit.te.grammar import extract_trace, split_lines

# The closing tag of a reasoning block; R1-style chat templates often emit only the closer.
_THINK_CLOSE = re.compile(r"</(?:think|thinking|reasoning)>", re.IGNORECASE)
_THINK_TAG = re.compile(r"</?(?:think|thinking|reasoning)>", re.IGNORECASE)
_FENCE = re.compile(r"\s*(```|~~~)")


class Located(NamedTuple):
    """The trace found in a completion (``found`` False: there is none; ``text`` is then the
    searched text, handed on so an engine can still say why it is not a trace)."""

    text: str
    line_offset: int
    found: bool
    how: str  # span, fence, json, after-think, whole, none


def _field(obj: Any, key: str) -> Any:
    """``obj[key]`` of a dict, ``obj.key`` of a message object (verifiers, inspect, OpenAI types)."""
    return obj.get(key) if isinstance(obj, Mapping) else getattr(obj, key, None)


def _is_message(obj: Any) -> bool:
    return isinstance(obj, Mapping) or (hasattr(obj, "content") and hasattr(obj, "role"))


def completion_text(completion: Any) -> str:
    """The text of a completion: a string as is; for messages, the last assistant message's text.

    Messages are dicts or message objects with ``role`` and ``content`` attributes (the types of
    verifiers, inspect_ai and the OpenAI client)."""
    if isinstance(completion, str):
        return completion
    message: Any = completion
    if isinstance(completion, Sequence) and completion:
        said = [m for m in completion if _is_message(m) and _field(m, "role") == "assistant"]
        message = said[-1] if said else completion[-1]
    if _is_message(message):
        content = _field(message, "content")
        if isinstance(content, str):
            return content
        if isinstance(content, Sequence):  # parts: [{"type": "text", "text": ...}, ...]
            parts = [_field(p, "text") for p in content if _field(p, "type") == "text"]
            return "".join(str(p) for p in parts if p is not None)
        return ""
    return "" if completion is None else str(completion)


def parse_messages(raw: str) -> Any:
    """``raw`` as chat messages when it is a JSON list of ``{"role", "content"}`` objects (or an
    object with such a ``"messages"`` list, or one message); otherwise ``raw`` itself."""
    head = raw.lstrip()[:1]
    if head not in ("[", "{"):
        return raw
    try:
        value = json.loads(raw)
    except ValueError:
        return raw
    if isinstance(value, Mapping) and isinstance(value.get("messages"), list):
        value = value["messages"]
    if isinstance(value, Mapping):
        value = [value]
    if isinstance(value, list) and value and all(isinstance(m, Mapping) and "content" in m for m in value):
        return value
    return raw


def after_reasoning(text: str) -> tuple[str, int] | None:
    """The text after the last reasoning-block closer and its line offset, or ``None``."""
    closers = list(_THINK_CLOSE.finditer(text))
    if not closers:
        return None
    end = closers[-1].end()
    return text[end:], text.count("\n", 0, end)


def _te(text: str) -> Located:
    extracted = extract_trace(text)
    if not extracted.found:
        return Located(text, 0, False, "none")
    return Located(extracted.trace, extracted.line_offset, True, "span")


def _fenced(lines: list[str]) -> list[tuple[int, int]]:
    """(first, last) content line indexes of every closed ```` ``` ```` / ``~~~`` block."""
    blocks: list[tuple[int, int]] = []
    start: int | None = None
    marker = ""
    for i, line in enumerate(lines):
        m = _FENCE.match(line)
        if m is None:
            continue
        if start is None:
            start, marker = i + 1, m.group(1)
        elif m.group(1) == marker and not line.strip()[3:].strip():
            blocks.append((start, i - 1))
            start = None
    return blocks


def _block(lines: list[str], first: int, last: int, how: str) -> Located:
    return Located("\n".join(lines[first : last + 1]) + "\n", first, True, how)


def _json_object(text: str) -> Located:
    lines = split_lines(text)
    for first, last in _fenced(lines):
        body = "\n".join(lines[first : last + 1])
        if body.lstrip().startswith("{"):
            return _block(lines, first, last, "fence")
    at = text.find("{")
    if at < 0:
        return Located(text, 0, False, "none")
    try:
        _obj, end = json.JSONDecoder().raw_decode(text, at)
    except ValueError:
        end = text.rfind("}") + 1 if text.rfind("}") > at else len(text)
    offset = text.count("\n", 0, at)
    line_start = text.rfind("\n", 0, at) + 1
    # Blank the prose before the brace on its line, so columns stay where they were.
    body = " " * (at - line_start) + text[at:end]
    return Located(body + "\n", offset, True, "json")


def _chain(text: str) -> Located:
    if not text.strip():
        return Located(text, 0, False, "none")
    blanked = _THINK_TAG.sub(lambda m: " " * len(m.group()), text)
    return Located(blanked, 0, True, "whole")


def _fence_or_text(text: str) -> Located:
    lines = split_lines(text)
    blocks = _fenced(lines)
    if blocks:
        return _block(lines, *blocks[0], "fence")
    if not text.strip():
        return Located(text, 0, False, "none")
    return Located(text, 0, True, "whole")


Locator = Callable[[str], Located]
#: How each engine's trace is found in a completion's text (the default: :func:`_fence_or_text`).
LOCATORS: dict[str, Locator] = {"te": _te, "vericot": _json_object, "cot": _chain}
# Engines whose trace is the reasoning itself: the reasoning block is never cut off.
WHOLE_TEXT_ENGINES = frozenset({"cot"})


def find_trace(completion: Any, engine: str = "te") -> Located:
    """The trace for ``engine`` in ``completion`` (see the module docstring for the rules)."""
    text = completion_text(completion)
    locate = LOCATORS.get(engine, _fence_or_text)
    if engine not in WHOLE_TEXT_ENGINES:
        tail = after_reasoning(text)
        if tail is not None:
            rest, offset = tail
            found = locate(rest)
            if found.found:
                return found._replace(line_offset=found.line_offset + offset)
    return locate(text)
