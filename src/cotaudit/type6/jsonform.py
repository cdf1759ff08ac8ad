"""The JSON and JSONL forms of a trace (Y-11) and input-format detection.

The JSON form says what the ``.t6`` form says, no more: statements the line format could not
write back (an op token with a space or ``:``, a trailing non-operator token without a
proposition, multi-line metadata) are schema errors ``T6_E06``, so ``to_t6`` and ``to_json``
round-trip (Y-12). Wrong annotations and proposition symbols keep their own codes
(``T6_E01``, ``T6_E03``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import cotaudit.limits as budget
from cotaudit.type6.model import (
    ANNOTATION_ALIASES,
    ANNOTATIONS,
    OPERATORS,
    Diagnostic,
    Statement,
    Trace,
    is_op_token,
    is_symbol,
)
from cotaudit.type6.parse import Limits, finish_trace, parse_line, parse_t6

_TRACE_KEYS = frozenset({"id", "meta", "statements"})
_STATEMENT_KEYS = frozenset({"alpha", "ops", "prop", "text", "line"})


def _one_line(value: str) -> str:
    """Surface text and metadata are single-line in ``.t6``: line breaks become spaces."""
    return value.replace("\r", " ").replace("\n", " ").strip()


def _statement(item: Any, where: str, line: int | None, limits: Limits) -> Statement | Diagnostic:
    if isinstance(item, str):
        if "\n" in item or "\r" in item:
            return Diagnostic("T6_E06", line, f"{where}: a statement string must be one line")
        return parse_line(item.strip(), line, limits)
    if not isinstance(item, Mapping):
        return Diagnostic("T6_E06", line, f"{where}: a statement must be an object or a .t6 line string")
    unknown = sorted(str(k) for k in item if k not in _STATEMENT_KEYS)
    if unknown:
        return Diagnostic("T6_E06", line, f"{where}: unknown key(s) {', '.join(unknown[:5])}")
    raw_line = item.get("line")
    if raw_line is not None:
        if not isinstance(raw_line, int) or isinstance(raw_line, bool):
            return Diagnostic("T6_E06", line, f"{where}: 'line' must be an integer")
        line = raw_line
    alpha = item.get("alpha")
    if not isinstance(alpha, str):
        return Diagnostic("T6_E06", line, f"{where}: 'alpha' is required and must be a string")
    alpha = ANNOTATION_ALIASES.get(alpha, alpha)
    if alpha not in ANNOTATIONS:
        return Diagnostic("T6_E01", line, f"{where}: bad annotation (expected T, F, Uc or Uk)")
    ops = item.get("ops", [])
    if not isinstance(ops, list) or not all(isinstance(t, str) and is_op_token(t) for t in ops):
        return Diagnostic("T6_E06", line, f"{where}: 'ops' must be a list of tokens without spaces or ':'")
    if len(ops) > limits.max_ops:
        return Diagnostic("T6_E05", line, f"{where}: {len(ops)} operator tokens (limit {limits.max_ops})")
    prop = item.get("prop")
    if prop is not None and (not isinstance(prop, str) or not is_symbol(prop)):
        return Diagnostic("T6_E03", line, f"{where}: bad proposition symbol")
    if prop is None and ops and ops[-1] not in OPERATORS:
        return Diagnostic(
            "T6_E06",
            line,
            f"{where}: without 'prop', the last op must be an operator (.t6 would read a proposition)",
        )
    text = item.get("text", "")
    if not isinstance(text, str):
        return Diagnostic("T6_E06", line, f"{where}: 'text' must be a string")
    return Statement(alpha, tuple(ops), prop, _one_line(text), line)


def trace_from_obj(obj: Any, trace_id: str | None, line: int | None, limits: Limits) -> Trace:
    """A trace from one decoded JSON value (the ``{"id", "meta", "statements"}`` object)."""
    name = trace_id or "trace"
    if not isinstance(obj, Mapping):
        return Trace(name, {}, (), (Diagnostic("T6_E06", line, "a trace must be a JSON object"),))
    errors: list[Diagnostic] = []
    unknown = sorted(str(k) for k in obj if k not in _TRACE_KEYS)
    if unknown:
        errors.append(Diagnostic("T6_E06", line, f"unknown trace key(s) {', '.join(unknown[:5])}"))
    raw_id = obj.get("id")
    if isinstance(raw_id, str) and _one_line(raw_id):
        name = _one_line(raw_id)
    elif raw_id is not None:
        errors.append(Diagnostic("T6_E06", line, "'id' must be a non-empty string"))
    meta: dict[str, str] = {}
    raw_meta = obj.get("meta", {})
    if not isinstance(raw_meta, Mapping):
        errors.append(Diagnostic("T6_E06", line, "'meta' must be an object"))
    else:
        for key, value in raw_meta.items():
            if not (isinstance(key, str) and is_op_token(key) and key != "id" and isinstance(value, str)):
                errors.append(Diagnostic("T6_E06", line, "'meta' maps simple keys (not 'id') to strings"))
                break
            meta[key] = _one_line(value)
    items = obj.get("statements")
    statements: list[Statement] = []
    if not isinstance(items, list):
        errors.append(Diagnostic("T6_E06", line, "'statements' is required and must be a list"))
        items = []
    if len(items) > limits.max_statements:
        errors.append(Diagnostic("T6_E05", line, f"more than {limits.max_statements} statements"))
        items = []
    for k, item in enumerate(items):
        if not k & 63:
            budget.checkpoint()  # the caller's wall-time budget (cotaudit.limits), every 64 statements
        parsed = _statement(item, f"statements[{k}]", line, limits)
        if isinstance(parsed, Diagnostic):
            errors.append(parsed)
        else:
            statements.append(parsed)
    return finish_trace(name, meta, statements, errors)


def parse_json(
    source: str | Mapping[str, Any], trace_id: str | None = None, limits: Limits | None = None
) -> Trace:
    """A trace from its JSON form: a JSON text or an already decoded object. Never raises."""
    limits = limits or Limits()
    if isinstance(source, Mapping):
        return trace_from_obj(source, trace_id, None, limits)
    if len(source) > limits.max_input_bytes:
        return Trace(trace_id or "trace", {}, (), (Diagnostic("T6_E05", None, "input too large"),))
    try:
        obj = json.loads(source)
    except (json.JSONDecodeError, RecursionError) as exc:
        lineno = getattr(exc, "lineno", None)
        return Trace(trace_id or "trace", {}, (), (Diagnostic("T6_E06", lineno, f"not JSON ({_msg(exc)})"),))
    return trace_from_obj(obj, trace_id, None, limits)


def parse_jsonl(text: str, trace_id: str | None = None, limits: Limits | None = None) -> list[Trace]:
    """One trace per non-blank line; a bad line gives a trace carrying its ``T6_E06``."""
    limits = limits or Limits()
    traces: list[Trace] = []
    for lineno, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        name = f"{trace_id or 'trace'}-{lineno}"
        try:
            obj = json.loads(raw)
        except (json.JSONDecodeError, RecursionError) as exc:
            traces.append(Trace(name, {}, (), (Diagnostic("T6_E06", lineno, f"not JSON ({_msg(exc)})"),)))
            continue
        traces.append(trace_from_obj(obj, name, lineno, limits))
    return traces


def _msg(exc: Exception) -> str:
    return exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"


def parse_any(text: str, trace_id: str | None = None, limits: Limits | None = None) -> Trace:
    """Detect the form: a text starting with ``{`` or ``[`` is JSON (or single-trace JSONL),
    anything else ``.t6``. A JSONL text with several traces is invalid here (one trace per item)."""
    limits = limits or Limits()
    head = text.lstrip("\ufeff \t\r\n")[:1]
    if head not in ("{", "["):
        return parse_t6(text, trace_id, limits)
    body = text.lstrip("\ufeff")
    whole = parse_json(body, trace_id, limits)
    if not (whole.diagnostics and whole.diagnostics[0].message.startswith("not JSON (Extra data")):
        return whole
    traces = parse_jsonl(body, trace_id, limits)
    if len(traces) == 1:
        only = traces[0]
        return only if only.id != f"{trace_id or 'trace'}-{_first_line(body)}" else _renamed(only, trace_id)
    return Trace(
        trace_id or "trace",
        {},
        (),
        (Diagnostic("T6_E06", None, f"JSONL with {len(traces)} traces: check one trace per item"),),
    )


def _first_line(body: str) -> int:
    for lineno, raw in enumerate(body.split("\n"), start=1):
        if raw.strip():
            return lineno
    return 1


def _renamed(trace: Trace, trace_id: str | None) -> Trace:
    """A single JSONL trace without its own id takes the caller's id, not ``<id>-<line>``."""
    return Trace(trace_id or "trace", trace.meta, trace.statements, trace.diagnostics)
