"""Every stable diagnostic code of every engine, in one table.

Codes are stable forever: never renumbered, never reused. ``tests/test_codes.py`` freezes
this table, and ``docs/codes.md`` is generated from it (``python -m cotaudit.codes``).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True, slots=True)
class Code:
    """One stable diagnostic code."""

    code: str
    engine: str
    name: str
    severity: Severity
    layer: str
    summary: str


_TE: tuple[Code, ...] = (
    Code(
        "TE_E001",
        "te",
        "header-order",
        "error",
        "structural",
        "GIVEN, GOAL and ANS are missing, duplicated or out of order, or a line sits outside its section.",
    ),
    Code(
        "TE_E002",
        "te",
        "duplicate-id",
        "error",
        "structural",
        "A STEP/EQ/CHECK/OPEN ID is defined twice, or an OPEN is resolved twice.",
    ),
    Code(
        "TE_E003",
        "te",
        "unresolved-reference",
        "error",
        "structural",
        "A `from` name, RESOLVE target or `ID.value`/`ID.unit` points nowhere, forward, or at a wrong kind.",
    ),
    Code(
        "TE_E004",
        "te",
        "undeclared-symbol",
        "error",
        "semantic",
        "A symbol is used before it is declared or bound.",
    ),
    Code(
        "TE_E005",
        "te",
        "unit-mismatch",
        "error",
        "semantic",
        "A declared unit is incompatible with the computed unit.",
    ),
    Code(
        "TE_E006",
        "te",
        "numeric-mismatch",
        "error",
        "semantic",
        "An equation's parts disagree, a binding is contradicted, or a constraint is violated.",
    ),
    Code(
        "TE_E007",
        "te",
        "check-disagrees",
        "error",
        "semantic",
        "A CHECK claim is false when recomputed from the trace's own values.",
    ),
    Code("TE_E008", "te", "unresolved-open", "error", "structural", "An OPEN case block is never resolved."),
    Code(
        "TE_E009",
        "te",
        "dimension-error",
        "error",
        "semantic",
        "An expression combines incompatible units (adds metres to seconds, takes log of metres, ...).",
    ),
    Code(
        "TE_E010",
        "te",
        "untagged-line",
        "error",
        "structural",
        "A non-blank line carries no TE tag (prose, comments, fences).",
    ),
    Code(
        "TE_E011",
        "te",
        "answer-not-derived",
        "error",
        "semantic",
        "The ANS value is not produced by any EQ line.",
    ),
    Code(
        "TE_E012",
        "te",
        "hedging-token",
        "error",
        "structural",
        "A tagged line contains a hedging word (maybe, actually, wait, hmm).",
    ),
    Code(
        "TE_E013",
        "te",
        "malformed-line",
        "error",
        "structural",
        "A line or expression does not fit the grammar or uses a forbidden construct.",
    ),
    Code(
        "TE_E014",
        "te",
        "limit-exceeded",
        "error",
        "semantic",
        "A size, time or magnitude bound was exceeded; the check fails closed.",
    ),
    Code(
        "TE_W001",
        "te",
        "undecidable-claim",
        "warning",
        "semantic",
        "A CHECK over free parameters or unknown units cannot be decided.",
    ),
    Code(
        "TE_X001",
        "te",
        "internal-error",
        "error",
        "internal",
        "An unexpected internal error while processing a line (a bug; please report it).",
    ),
)

CODES: dict[str, Code] = {c.code: c for c in _TE}


def lookup(code: str) -> Code:
    """The table entry for ``code``; ``KeyError`` if the code does not exist."""
    return CODES[code]


def render_markdown() -> str:
    """The generated ``docs/codes.md``."""
    out = [
        "# Diagnostic codes",
        "",
        "Generated from `src/cotaudit/codes.py` by `python -m cotaudit.codes > docs/codes.md`;",
        "do not edit by hand. Codes are stable: never renumbered, never reused.",
        "",
    ]
    engines = sorted({c.engine for c in CODES.values()})
    for engine in engines:
        out += [f"## {engine}", "", "| code | name | severity | layer | meaning |", "|---|---|---|---|---|"]
        for c in sorted((c for c in CODES.values() if c.engine == engine), key=lambda c: c.code):
            out.append(f"| `{c.code}` | {c.name} | {c.severity} | {c.layer} | {c.summary} |")
        out.append("")
    return "\n".join(out)


if __name__ == "__main__":  # pragma: no cover - exercised through the docs test
    sys.stdout.write(render_markdown())
