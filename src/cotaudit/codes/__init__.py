"""Every stable diagnostic code of every engine, in one table.

Codes are stable forever: never renumbered, never reused. Each engine lists its codes in its
own module here (``codes/te.py``, ``codes/type6.py`` ...); this package joins them into
:data:`CODES`. ``tests/test_codes.py`` freezes the table, and ``docs/codes.md`` is generated
from it (``python -m cotaudit.codes > docs/codes.md``).
"""

from __future__ import annotations

from cotaudit.codes.certify import CERTIFY
from cotaudit.codes.core import CORE
from cotaudit.codes.cot import COT
from cotaudit.codes.model import Code, Severity
from cotaudit.codes.te import TE
from cotaudit.codes.type6 import TYPE6
from cotaudit.codes.vericot import VERICOT

ALL: tuple[Code, ...] = CORE + TE + TYPE6 + VERICOT + CERTIFY + COT
CODES: dict[str, Code] = {c.code: c for c in ALL}

__all__ = ["ALL", "CODES", "Code", "Severity", "lookup", "render_markdown"]


def lookup(code: str) -> Code:
    """The table entry for ``code``; ``KeyError`` if the code does not exist."""
    return CODES[code]


def render_markdown() -> str:
    """The generated ``docs/codes.md``."""
    out = [
        "# Diagnostic codes",
        "",
        "Generated from `src/cotaudit/codes/` by `python -m cotaudit.codes > docs/codes.md`;",
        "do not edit by hand. Codes are stable: never renumbered, never reused.",
        "",
    ]
    engines = sorted({c.engine for c in CODES.values()})
    for engine in engines:
        out += [f"## {engine}", "", "| code | name | severity | layer | meaning |", "|---|---|---|---|---|"]
        for c in sorted((c for c in CODES.values() if c.engine == engine), key=lambda c: c.code):
            out.append(f"| `{c.code}` | {c.name} | {c.severity} | {c.layer} | {c.summary} |")
        out.append("")
    out += _explanations_markdown()
    return "\n".join(out)


def _explanations_markdown() -> list[str]:
    """Every code explained, as ``cotaudit explain CODE`` prints it."""
    from cotaudit.codes.explain import explanations, render_explanation

    every = explanations()
    out = [
        "# Every code explained",
        "",
        "What `cotaudit explain CODE` prints: the meaning, an input that produces the code, its near",
        "miss (the smallest change that does not) and the fix.",
        "",
    ]
    for c in sorted(CODES.values(), key=lambda c: (c.engine, c.code)):
        out += [
            f"### {c.code}",
            "",
            "```text",
            *render_explanation(c, every[c.code]).rstrip("\n").split("\n"),
            "```",
            "",
        ]
    return out
