"""The shapes a task input and a trace step come in, whatever the benchmark's file did to them.

BIG-Bench Mistake strips each task's instruction (a Dyck input is just ``[ ( < >``); the original
BIG-bench items keep it (``Complete the rest of the sequence, … Input: [ ( < >``, ``Sort the
following words alphabetically: List: plum apricot``), and a prompted model sees ``Q: …`` and
answers ``A: Let's think step by step. …``. Steps may be numbered or bulleted (``1: [ ; stack:
[``, ``2) The owl …``, ``- …``, ``**…**``). A replayer reads the task's own input with
:func:`payload` and a step with :func:`unmark`, so no wording of an instruction or a list style
is listed anywhere: the input is the last labelled segment that has the task's form.

Every scan here is linear-time (one anchored match per call, no nested quantifiers).
"""

from __future__ import annotations

import re
from collections.abc import Callable

# A list marker or emphasis at the start of a step: "1.", "1)", "(1)", "1:", "Step 1:", "#1.",
# "-", "*", "•", "**". A numbered marker is followed by a blank ("12.5" is a number, and a
# closing bracket "> ;" is a Dyck symbol, not a marker). Digits are bounded: constant-time.
_NUMBERED = (
    r"(?:(?:step|thought)[ \t]{0,3}\d{1,4}[ \t]{0,3}[.:)]?|#?\d{1,4}[ \t]{0,3}[.:)]|\(\d{1,4}\))(?=\s)"
)
_MARKER = re.compile(rf"[ \t]*(?:{_NUMBERED}|[-*\u2022][ \t]|\*\*|__)", re.I)


def unmark(step: str) -> str:
    """``step`` with leading list markers and emphasis marks blanked (offsets are kept)."""
    at = 0
    for _ in range(4):  # "1. **Step 1:** …": a few markers in a row at most
        m = _MARKER.match(step, at)
        if m is None or m.end() == at:
            break
        at = m.end()
    if at == 0:
        return step
    return " " * at + step[at:]


def payload(problem: str, accept: Callable[[str], bool]) -> str | None:
    """The task's own input inside ``problem``: the whole text if ``accept`` takes it, else the
    text after the last ``:`` of a line (an ``Input:`` / ``List:`` / ``Q:`` label, in any
    wording), the last such line first; ``None`` when no part has the task's form."""
    whole = problem.strip()
    if accept(whole):
        return whole
    for line in reversed(whole.splitlines()):
        tail = line.rpartition(":")[2].strip()
        if tail and accept(tail):
            return tail
    return None
