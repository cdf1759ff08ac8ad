"""Split a raw chain of thought into steps, deterministically, each with its line and column.

The splitter tries, in this order, and takes the first rule that finds at least two steps:

1. ``markers`` — explicit step markers at the start of a line: ``Step 3:`` / ``Step 3.``,
   Natural-Program labels ``#3.``, and numbered lists ``3.`` / ``3)``. Text before the first
   marker is a step of its own when it is not blank.
2. ``paragraphs`` — blocks separated by blank lines.
3. ``lines`` — every non-blank line.
4. ``sentences`` — a single line split after ``.``, ``!`` or ``?`` followed by a space and a
   capital letter (so ``3.5`` and ``e.g. the`` stay whole).

A text that yields one step under every rule is one step. Every regex here is linear-time.
Offsets are Python string indices (code points), lines and columns are 1-based.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

# ``Step 3:`` (any case), ``#3.``, ``3.`` or ``3)`` at the start of a line, after indentation.
_STEP_MARK = re.compile(
    r"^[ \t]{0,8}(?:\*\*)?[Ss]tep[ \t]{1,4}[0-9]{1,4}(?:\*\*)?[ \t]{0,4}[:.)]", re.MULTILINE
)
_NP_MARK = re.compile(r"^[ \t]{0,8}#[0-9]{1,4}\.", re.MULTILINE)
_LIST_MARK = re.compile(r"^[ \t]{0,8}[0-9]{1,4}[.)][ \t]", re.MULTILINE)
_BLANK_LINES = re.compile(r"\n[ \t\r]*\n")
_SENTENCE_END = re.compile(r"[.!?][ \t]{1,8}(?=[A-Z])")


@dataclass(frozen=True, slots=True)
class Step:
    """One step: its index, text, offset in the source, and the line/column where it starts."""

    index: int
    text: str
    start: int
    line: int | None
    column: int | None


class LineIndex:
    """Offset → (line, column), both 1-based, by binary search over the line starts."""

    __slots__ = ("_starts",)

    def __init__(self, text: str) -> None:
        self._starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def locate(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1] + 1


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    """``(start, end)`` without surrounding whitespace (``start == end`` when blank)."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _spans_at(text: str, cuts: Sequence[int]) -> list[tuple[int, int]]:
    bounds = [0, *cuts, len(text)]
    spans = []
    for a, b in itertools.pairwise(bounds):
        s, e = _trimmed(text, a, b)
        if s < e:
            spans.append((s, e))
    return spans


def _marker_spans(text: str) -> list[tuple[int, int]] | None:
    for pattern in (_NP_MARK, _STEP_MARK, _LIST_MARK):
        cuts = [m.start() for m in pattern.finditer(text)]
        if len(cuts) >= 2:
            return _spans_at(text, cuts)
    return None


def _paragraph_spans(text: str) -> list[tuple[int, int]]:
    return _spans_at(text, [m.end() for m in _BLANK_LINES.finditer(text)])


def _line_spans(text: str) -> list[tuple[int, int]]:
    return _spans_at(text, [m.end() for m in re.finditer("\n", text)])


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    return _spans_at(text, [m.end() for m in _SENTENCE_END.finditer(text)])


def split_steps(text: str) -> tuple[list[Step], str]:
    """The steps of ``text`` and the name of the rule that made them (see the module doc)."""
    index = LineIndex(text)
    spans: list[tuple[int, int]] = []
    rule = "single"
    for name, finder in (
        ("markers", _marker_spans),
        ("paragraphs", _paragraph_spans),
        ("lines", _line_spans),
        ("sentences", _sentence_spans),
    ):
        found = finder(text)
        if found is not None and len(found) >= 2:
            spans, rule = found, name
            break
    if not spans:
        s, e = _trimmed(text, 0, len(text))
        spans = [(s, e)] if s < e else []
    steps = []
    for n, (s, e) in enumerate(spans):
        line, column = index.locate(s)
        steps.append(Step(n, text[s:e], s, line, column))
    return steps, rule


def record_steps(texts: Sequence[str]) -> list[Step]:
    """Steps given by a record (``"steps": [...]``): no source lines, offsets within each step."""
    return [Step(n, t, 0, None, None) for n, t in enumerate(texts)]
