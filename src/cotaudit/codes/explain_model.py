"""The record of one code's explanation (the data modules ``explain_*.py`` fill it in)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Explanation:
    """How one code reads to a person."""

    code: str
    meaning: str  # what the finding says, beyond the one-line summary
    example: str  # a failing input (is_input) or a description of one
    near_miss: str  # the smallest change that no longer produces the code
    fix: str  # what to change in the input
    is_input: bool = False  # example and near_miss are real inputs of the engine


def x(
    code: str, meaning: str, example: str, near_miss: str, fix: str, *, is_input: bool = False
) -> Explanation:
    """Shorthand for the data modules."""
    return Explanation(code, meaning, example, near_miss, fix, is_input)
