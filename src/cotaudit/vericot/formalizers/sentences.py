"""Sentences of a data set item, shared by the deterministic formalisers (V-37).

:func:`split_sentences` cuts a context after every period; :func:`question_statement` takes the
statement out of a question by the data set's own prefix (``QUESTION_PREFIX`` of
:mod:`.proofwriter` and :mod:`.prontoqa`), else the text after its last ``?``.
"""

from __future__ import annotations

import re


def split_sentences(context: str) -> list[str]:
    return [p for p in re.split(r"(?<=\.)\s+", context.strip()) if p]


def question_statement(question: str, prefix: str) -> str:
    q = question.strip()
    if q.lower().startswith(prefix):
        return q[len(prefix) :].strip()
    return q.rsplit("?", 1)[-1].strip()
