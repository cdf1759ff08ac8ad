"""Labelled quantities continued on a later line: ``\\text{Total} = 52 + 24`` … ``\\text{Total} = 178``.

Solutions often write one equation per display line and repeat the quantity's label instead of
chaining with ``=``::

    \\[ \\text{Total fruits} = 52 + 24 + 44 + 48 \\]
    \\[ \\text{Total fruits} = 178 \\]

Each line alone holds no claim (a label is not a number); together they claim
``52 + 24 + 44 + 48 = 178``. This module joins them: when a label is given an expression that
the same line does not evaluate, its next occurrence (later in the step, or in the next step)
must have the same value. The pair is judged by :func:`cotaudit.cot.claims.find_claims` (same
exact evaluation, same rounding tolerance); a label given anything else in between, or not met
again by the end of the next step, is dropped.

A label is the text of ``\\text{…}`` / ``\\mathrm{…}`` right before ``=``, or two to six words
starting with a capital at the start of a line, a formula or a sentence. A single letter is a
variable, not a label: algebra reuses names on purpose. Every pattern here is linear-time.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from cotaudit.cot.claims import Claim, Verdict, find_claims

_TEXT_LABEL = re.compile(r"\\(?:text|mathrm|textbf|textrm)\s*\{([^{}=\n]{2,80})\}\s*=")
_WORD_LABEL = re.compile(
    r"(?:^|\n|\\\[|\\\(|\$|[.:;]\s)[ \t]*([A-Z][A-Za-z']{1,20}(?:[ \t]+[A-Za-z']{1,20}){1,5})[ \t]*="
)
# where a right side ends; "$" before a digit is a currency sign, not the end of a formula
_STOP = re.compile(r"=|\\\]|\\\)|\$(?!\s?[0-9])|\n|\.\s|,\s|;|\bso\b|\bwhich\b")
_OPERATOR = re.compile(r"[-+*/^\u00d7\u00f7]|\\times|\\cdot|\\div|\\frac")
MAX_LABELS_PER_STEP = 200


@dataclass(frozen=True, slots=True)
class _Use:
    label: str
    step: int
    start: int  # where the right side starts in the step text
    end: int
    rhs: str
    chained: bool  # the same line goes on with "= …" (evaluated there)


def _norm(label: str) -> str:
    return " ".join(label.lower().split())


def _uses(step: int, text: str) -> list[_Use]:
    text = text.replace("\\ ", "  ")  # "Total\ Cost": a LaTeX space, same length
    found: list[tuple[int, int, str]] = [(m.start(), m.end(), m.group(1)) for m in _TEXT_LABEL.finditer(text)]
    found += [(m.start(1), m.end(), m.group(1)) for m in _WORD_LABEL.finditer(text)]
    found.sort()
    out = []
    for _, end, label in found[:MAX_LABELS_PER_STEP]:
        stop = _STOP.search(text, end)
        rhs_end = stop.start() if stop is not None else len(text)
        chained = stop is not None and stop.group() == "="
        rhs = text[end:rhs_end]
        if rhs.strip():
            start = end + len(rhs) - len(rhs.lstrip())
            out.append(_Use(_norm(label), step, start, rhs_end, rhs, chained))
    return out


def labelled_claims(
    texts: Sequence[str], skip: frozenset[int] = frozenset(), modular: bool = False, blank_boxes: bool = False
) -> list[tuple[int, Claim]]:
    """(step, claim) for each labelled expression and the next value given to its label."""
    pending: dict[str, _Use] = {}
    out: list[tuple[int, Claim]] = []
    for i, text in enumerate(texts):
        if i in skip:
            pending.clear()
            continue
        for label in [k for k, u in pending.items() if u.step < i - 1]:
            del pending[label]
        for use in _uses(i, text):
            earlier = pending.pop(use.label, None)
            if earlier is not None and not use.chained:
                claim = _judge(earlier, use, modular, blank_boxes)
                if claim is not None:
                    out.append((i, claim))
            if _OPERATOR.search(use.rhs.strip().lstrip("-")) and not use.chained:
                pending[use.label] = use
    return out


def _judge(earlier: _Use, later: _Use, modular: bool, blank_boxes: bool) -> Claim | None:
    """``earlier.rhs = later.rhs`` judged as one claim, placed at the later right side."""
    joined = f"{earlier.rhs.strip()} = {later.rhs.strip()}"
    found = find_claims(joined, modular=modular, blank_boxes=blank_boxes)
    claims = [c for c in found if c.verdict != Verdict.UNEVALUATED]
    if len(claims) != 1 or claims[0].offset != 0:
        return None  # the two sides are not one clean claim (units, words, a second "=")
    c = claims[0]
    reason = c.reason or f"the label {earlier.label!r} is {earlier.rhs.strip()[:60]} in step {earlier.step}"
    return replace(c, offset=later.start, end=later.end, source="label", reason=reason)
