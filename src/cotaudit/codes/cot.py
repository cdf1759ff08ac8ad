"""Stable codes of the cot engine (raw chains of thought; docs/cot.md).

Errors make the verdict ``fail`` (a claim the engine recomputed is false, or the final answer
contradicts gold); warnings say what could not be checked (the verdict is then ``abstain``
unless something else decided it); info findings carry coverage and accepted roundings.
"""

from cotaudit.codes.model import Code


def _c(code: str, name: str, layer: str, summary: str) -> Code:
    severity = {"E": "error", "W": "warning", "I": "info"}[code[4]]
    return Code(code, "cot", name, severity, layer, summary)  # type: ignore[arg-type]


COT: tuple[Code, ...] = (
    _c(
        "COT_E001",
        "arithmetic-mismatch",
        "claim",
        "An arithmetic claim in a step is false: its stated result is not the exact value of its expression.",
    ),
    _c(
        "COT_E002",
        "replay-mismatch",
        "replay",
        "A task replayer found a claimed state, placement, ordering or symbol that the task's rules "
        "contradict.",
    ),
    _c("COT_E003", "answer-mismatch", "answer", "The final answer contradicts the gold answer."),
    _c(
        "COT_E004",
        "bad-input",
        "input",
        "The input is not a chain of thought the engine can read (malformed record, no steps, binary data).",
    ),
    _c(
        "COT_W001",
        "input-limit",
        "input",
        "The input or a step is over a size limit; the part beyond the limit was not checked.",
    ),
    _c(
        "COT_W002",
        "claim-not-evaluated",
        "claim",
        "An arithmetic claim could not be evaluated exactly within the limits; it is left unchecked.",
    ),
    _c(
        "COT_W003",
        "no-final-answer",
        "answer",
        "A gold answer was given but no final answer could be extracted, so the answer was not compared.",
    ),
    _c(
        "COT_W004",
        "answer-not-compared",
        "answer",
        "The final answer and the gold answer could not be compared (neither parses, or math-verify "
        "is missing).",
    ),
    _c(
        "COT_I001",
        "coverage",
        "trace",
        "How many steps carry a mechanically checked claim (coverage = checked steps / steps).",
    ),
    _c("COT_I002", "answer-matches", "answer", "The final answer matches the gold answer."),
    _c(
        "COT_I003",
        "rounding-accepted",
        "claim",
        "A stated result differs from the exact value only within its declared or displayed rounding.",
    ),
    _c(
        "COT_I004",
        "claim-doubtful",
        "claim",
        "A stated result is near its exact value but outside plain rounding (truncation, a unit "
        "conversion, a running total); it is left unchecked rather than called wrong.",
    ),
)
