"""Type-6 logic: verify annotated reasoning traces (shared/spec/type6.md).

A trace says what it commits to — knowledge (``K``), belief (``B``), doubt (``?``), loopbacks
(``R``), pivots (``N``), implications (``IF``/``THEN``/``AND``/``OR``) — one annotated statement
per line::

    >>> from cotaudit import type6
    >>> r = type6.verify("T q : Is 10 prime?\\nT p1 : 10 is even.\\nF THEN a : So 10 is prime.\\n")
    >>> r.hard_fail, r.at()
    (True, ['T6_H02@3/a'])

``verify`` returns a :class:`Type6Result` (sequential, per-path and coherence reports);
``check`` returns the shared R-1 :class:`~cotaudit.report.Report`. ``to_dot``, ``to_svg``,
``to_html`` and ``to_networkx`` draw or export the reasoning graph.
"""

from __future__ import annotations

from typing import Any

from cotaudit.type6.config import Config
from cotaudit.type6.jsonform import parse_any, parse_json, parse_jsonl
from cotaudit.type6.model import Diagnostic, Statement, Trace
from cotaudit.type6.parse import Limits, parse_t6
from cotaudit.type6.pipeline import verify
from cotaudit.type6.r1 import ENGINE_VERSION, check
from cotaudit.type6.result import Type6Result


def to_networkx(result: Type6Result) -> Any:
    """The reasoning graph as a ``networkx.MultiDiGraph`` with the Y-89 attributes."""
    from cotaudit.type6.render import to_networkx as impl

    return impl(result)


def to_dot(result: Type6Result) -> str:
    """Graphviz DOT text of the reasoning graph (Y-63), deterministic."""
    from cotaudit.type6.render import to_dot as impl

    return impl(result)


def to_svg(result: Type6Result, **options: Any) -> str:
    """An SVG picture laid out in pure Python (no Graphviz needed)."""
    from cotaudit.type6.svg import to_svg as impl

    return impl(result, **options)


def to_html(result: Type6Result) -> str:
    """A self-contained HTML page: the picture, events, statements, constraints and paths."""
    from cotaudit.type6.html import to_html as impl

    return impl(result)


__all__ = [
    "ENGINE_VERSION",
    "Config",
    "Diagnostic",
    "Limits",
    "Statement",
    "Trace",
    "Type6Result",
    "check",
    "parse_any",
    "parse_json",
    "parse_jsonl",
    "parse_t6",
    "to_dot",
    "to_html",
    "to_networkx",
    "to_svg",
    "verify",
]
