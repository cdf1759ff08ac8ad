"""What counts as hedging for TE_E012: a self-correction, not the bare word (issue 19).

The spec's rule (TE_E012) fires on any whole word ``maybe``, ``actually``, ``wait`` or
``hmm`` outside STRING values. Two of those words have an ordinary sense that a solution
written in prose uses all the time — "wait for 21 more days", "after the final wait", "she
actually walks" — and flagging them is a false alarm on correct reasoning. **Decision beyond
the spec** (docs/te.md): such *contextual* words (:data:`CONTEXTUAL`) are hedges only where
they are used as a discourse marker, i.e. where they interrupt the reasoning to correct it:

* the word **opens a clause** — it starts the line's free text, or follows clause punctuation
  (``. ! ? ; : , ( — – …``, a quote or a spaced dash), or follows an interjection that itself
  opens the clause (``oh wait``, ``but wait``, ``hmm, actually``; :data:`INTERJECTIONS`), and
* it is **set off or followed by a correction**: punctuation or the end of the text follows it
  (``wait,``, ``actually:``, ``…, actually.``), or a word that continues a correction
  (``wait no``, ``actually I``, ``wait a minute``, ``actually that's``; :data:`CUES`).

Every other configured token (``maybe``, ``hmm``, ``hmmm``, …) has no sense in a record of a
computation except doubt, and stays a hedge wherever it stands, as in the spec. On lines whose
body is an expression (declarations, EQ, CHECK, ANS, RESOLVE, a GOAL that only names its
target) a contextual word is a *name* (``wait := 4 [min]``), never a hedge.

Every check looks at a bounded window around one match, so the rule stays linear in the line.
"""

from __future__ import annotations

import re

CONTEXTUAL: frozenset[str] = frozenset({"wait", "actually"})
"""Hedge words with an ordinary, non-hedging sense in prose."""

INTERJECTIONS: frozenset[str] = frozenset(
    {"oh", "ah", "uh", "um", "er", "but", "and", "so", "no", "ok", "okay", "well", "oops"}
)
"""Words that may stand before a discourse marker that still opens its clause."""

CUES = (
    r"no|nope|oops|sorry|scratch|hold on|i|i'm|i've|i'll|i'd|let|let's|that|that's|thats|"
    r"maybe|actually|wait|hm{2,}|a (?:minute|moment|second|sec)"
)
"""Words that continue a correction right after ``wait`` or ``actually`` (no comma needed)."""

_WINDOW = 64
# What may follow a marker: clause punctuation, a spaced dash, an ellipsis, the end of the free
# text, a STEP's trailing ``(from …)`` clause, or a correction cue.
_FOLLOW = re.compile(
    r"[ \t]*(?:[,;!?…—–]|:(?!=)|\.(?![\w.])|\.\.\.|-[ \t]|-$|$|\(\s*from\b)"
    r"|[ \t]+(?:" + CUES + r")(?![\w'])",
    re.IGNORECASE,
)
_OPENERS = frozenset(".!?;:,(—–…\"'“”‘’")


def is_contextual(token: str) -> bool:
    return token.lower() in CONTEXTUAL


def is_marker(text: str, start: int, end: int, body_start: int = 0) -> bool:
    """Is the contextual word ``text[start:end]`` a discourse marker (a self-correction)?

    ``body_start`` is where the line's free text begins (after the tag), which opens a clause.
    """
    return _opens_clause(text, start, body_start) and _FOLLOW.match(text[end : end + _WINDOW]) is not None


def _opens_clause(text: str, start: int, body_start: int) -> bool:
    low = max(body_start, start - _WINDOW)
    pos = start
    while True:
        end = pos
        while end > low and text[end - 1] in " \t":
            end -= 1
        if end == low:
            # the start of the free text, or a blank run longer than the window
            return end == body_start or pos - end >= _WINDOW or low == body_start
        last = text[end - 1]
        if last in _OPENERS or (last == "-" and end - 1 > low and text[end - 2] in " \t"):
            return True
        begin = end
        while begin > low and _word_char(text[begin - 1]):
            begin -= 1
        word = text[begin:end].lower()
        if begin == end or (word not in INTERJECTIONS and not _hedge_word(word)):
            return False
        if begin == low and low > body_start:
            return False  # a run of interjections longer than the window: not a marker
        pos = begin


def _word_char(char: str) -> bool:
    return (char.isascii() and char.isalpha()) or char == "'"


_HEDGE_WORD = re.compile(r"(?i)(?:maybe|actually|wait|hm{2,})")


def _hedge_word(word: str) -> bool:
    return _HEDGE_WORD.fullmatch(word) is not None


def hedges_in_prose(text: str, pattern: re.Pattern[str]) -> list[str]:
    """The hedges of free text (a STEP body), as TE_E012 reads them, in order."""
    return [
        m.group()
        for m in pattern.finditer(text)
        if not is_contextual(m.group()) or is_marker(text, m.start(), m.end())
    ]
