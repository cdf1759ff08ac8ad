"""What each code means, a failing example and its near miss, and how to fix it.

One :class:`Explanation` per stable code, kept beside the code table (one module per engine:
``explain_te.py`` ...) and joined here; ``cotaudit explain CODE``, ``cotaudit codes`` and the
per-code sections of ``docs/codes.md`` are all generated from it, and a test fails if a code in
the table has none. When ``example`` and ``near_miss`` are inputs of the engine (``is_input``),
a test runs both: the example must produce the code, the near miss must not.
"""

from __future__ import annotations

from cotaudit.codes.explain_model import Explanation
from cotaudit.codes.model import Code

__all__ = ["Explanation", "explanations", "render_explanation"]


def render_explanation(code: Code, explanation: Explanation) -> str:
    """The text ``cotaudit explain CODE`` prints (plain; Markdown-friendly)."""
    lines = [
        f"{code.code} ({code.name}) -- {code.engine}, {code.severity}, {code.layer}",
        "",
        code.summary,
        "",
        explanation.meaning,
        "",
        "Example (produces the code):",
        "",
        *("    " + line for line in explanation.example.rstrip("\n").split("\n")),
        "",
        "Near miss (does not):",
        "",
        *("    " + line for line in explanation.near_miss.rstrip("\n").split("\n")),
        "",
        "How to fix it:",
        "",
        explanation.fix,
    ]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def explanations() -> dict[str, Explanation]:
    """Every explanation, by code (imported on first use: ``cotaudit check`` never needs them)."""
    from cotaudit.codes.explain_certify import CERTIFY_EXPLAIN
    from cotaudit.codes.explain_others import CORE_EXPLAIN, COT_EXPLAIN, VERICOT_EXPLAIN
    from cotaudit.codes.explain_te import TE_EXPLAIN
    from cotaudit.codes.explain_type6 import TYPE6_EXPLAIN

    every = CORE_EXPLAIN + TE_EXPLAIN + TYPE6_EXPLAIN + VERICOT_EXPLAIN + CERTIFY_EXPLAIN + COT_EXPLAIN
    return {e.code: e for e in every}
