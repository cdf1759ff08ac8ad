"""The ``.t6`` line format (Y-1..Y-7, Y-13): ParseLine and ``parse_t6``.

Parsing never raises, never hangs and never looks inside the surface text: every problem is a
:class:`~cotaudit.type6.model.Diagnostic` on the returned trace, and all of them are reported,
not just the first (Y-14). Work is linear in the input and capped by the Y-13 limits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cotaudit.limits as budget
from cotaudit.type6.model import (
    ANNOTATION_ALIASES,
    ANNOTATIONS,
    OPERATORS,
    Diagnostic,
    Statement,
    Trace,
    is_symbol,
)

MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """Y-13 input limits (configurable through :class:`~cotaudit.type6.config.Config`)."""

    max_input_bytes: int = 32 * MIB
    max_statements: int = 100_000
    max_ops: int = 32
    max_line_chars: int = 100_000


def _short(token: str) -> str:
    """A token quoted for a message, cut to 40 characters (messages never echo long input)."""
    return repr(token if len(token) <= 40 else token[:37] + "...")


def parse_line(line: str, lineno: int | None, limits: Limits) -> Statement | Diagnostic:
    """ParseLine (Y-7 steps 1-4): the written statement, or the first error on the line.

    Steps 5-6 (classifying and folding the operator tokens) belong to the logic and live in
    :mod:`cotaudit.type6.fold`; this function keeps the tokens as written, ``?`` suffix moved
    into ``ops`` (Y-10).
    """
    colon = line.find(":")
    if colon < 0:
        return Diagnostic("T6_E02", lineno, "statement has no ':' before its surface text")
    tokens = line[:colon].split()
    text = line[colon + 1 :].strip()
    if not tokens:
        return Diagnostic("T6_E01", lineno, "statement has no annotation (expected T, F, Uc or Uk)")
    alpha = ANNOTATION_ALIASES.get(tokens[0], tokens[0])
    if alpha not in ANNOTATIONS:
        return Diagnostic("T6_E01", lineno, f"bad annotation {_short(tokens[0])} (expected T, F, Uc or Uk)")
    rest = tokens[1:]
    doubt_suffix = False
    if rest:
        last = rest[-1]
        if last.endswith("?") and last not in OPERATORS:
            stripped = last.rstrip("?")
            if stripped:
                rest[-1] = stripped
                doubt_suffix = True
            else:
                rest[-1] = "?"
    prop: str | None = None
    if rest and rest[-1] not in OPERATORS:
        prop = rest.pop()
        if not is_symbol(prop):
            return Diagnostic("T6_E03", lineno, f"bad proposition symbol {_short(prop)}")
    if doubt_suffix:
        rest.append("?")
    if len(rest) > limits.max_ops:
        return Diagnostic("T6_E05", lineno, f"{len(rest)} operator tokens (limit {limits.max_ops})")
    return Statement(alpha, tuple(rest), prop, text, lineno)


def split_lines(text: str) -> list[str]:
    """Physical lines: split on ``\\n`` only, a trailing ``\\r`` dropped, a leading BOM ignored."""
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def parse_t6(text: str, trace_id: str | None = None, limits: Limits | None = None) -> Trace:
    """Parse a ``.t6`` text (Y-1..Y-7, Y-13). Never raises on any ``str``.

    ``trace_id`` names the trace unless a ``#@ id:`` line does (Y-5); default ``"trace"``.
    """
    limits = limits or Limits()
    if not isinstance(text, str):  # the API promises str; never raise on anything else
        text = str(text)
    if (
        len(text) > limits.max_input_bytes
        or len(text.encode("utf-8", "surrogatepass")) > limits.max_input_bytes
    ):
        return Trace(
            trace_id or "trace",
            {},
            (),
            (Diagnostic("T6_E05", None, f"input larger than {limits.max_input_bytes} bytes"),),
        )
    name = trace_id or "trace"
    meta: dict[str, str] = {}
    statements: list[Statement] = []
    errors: list[Diagnostic] = []
    seen_statement = False
    for lineno, line in enumerate(split_lines(text), start=1):
        if not lineno & 63:
            budget.checkpoint()  # the caller's wall-time budget (cotaudit.limits), every 64 lines
        if len(line) > limits.max_line_chars:
            errors.append(
                Diagnostic("T6_E05", lineno, f"line longer than {limits.max_line_chars} characters")
            )
            seen_statement = True
            continue
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            if stripped.startswith("#@") and not seen_statement:
                key, sep, value = stripped[2:].partition(":")
                key = key.strip()
                if sep and key:
                    if key == "id":
                        name = value.strip() or name
                    else:
                        meta[key] = value.strip()
            continue
        seen_statement = True
        if len(statements) + len(errors) >= limits.max_statements:
            errors.append(Diagnostic("T6_E05", lineno, f"more than {limits.max_statements} statements"))
            break
        parsed = parse_line(stripped, lineno, limits)
        if isinstance(parsed, Diagnostic):
            errors.append(parsed)
        else:
            statements.append(parsed)
    return finish_trace(name, meta, statements, errors)


def finish_trace(
    name: str, meta: dict[str, str], statements: list[Statement], errors: list[Diagnostic]
) -> Trace:
    """The trace, with ``T6_E04`` added when it has no statement or no resolvable sink (Y-14, Y-69)."""
    if not statements and not errors:
        errors.append(Diagnostic("T6_E04", None, "the trace has no statement"))
    elif not errors and resolve_sink(statements) is None:
        errors.append(Diagnostic("T6_E04", None, "no sink: no 'a' and no proposition other than 'q'"))
    errors.sort(key=lambda d: (d.line is None, d.line or 0))
    return Trace(name, meta, tuple(statements), tuple(errors))


def resolve_sink(statements: Sequence[Statement]) -> str | None:
    """Y-69: ``a`` if some statement has it, else the last proposition other than ``q``."""
    last: str | None = None
    for s in statements:
        if s.prop == "a":
            return "a"
        if s.prop is not None and s.prop != "q":
            last = s.prop
    return last
