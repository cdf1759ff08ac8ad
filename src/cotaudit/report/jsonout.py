"""Deterministic JSON for R-1 reports: one object for one input, a list for several.

The R-1 fields keep the schema's order. Engine-defined mappings (``details`` and each
finding's ``evidence``) are written with sorted keys, sets as sorted lists and values JSON
cannot hold (``Fraction``, ``inf``) as strings, so the bytes depend only on the report's
content, never on dict insertion order or ``PYTHONHASHSEED``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from cotaudit.report.encoding import compact_json, escape_surrogates
from cotaudit.report.model import Report


def canonical(value: Any) -> Any:
    """``value`` as plain JSON data with a deterministic shape (see the module docstring)."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, Mapping):
        items = sorted((str(k), v) for k, v in value.items())
        return {k: canonical(v) for k, v in items}
    if isinstance(value, list | tuple):
        return [canonical(v) for v in value]
    if isinstance(value, set | frozenset):
        elements = [canonical(v) for v in value]
        return sorted(elements, key=lambda v: json.dumps(v, sort_keys=True, ensure_ascii=False))
    return str(value)


def report_dict(report: Report, *, timing: bool = True) -> dict[str, Any]:
    """``Report.to_dict`` with engine-defined mappings made canonical."""
    d = report.to_dict(timing=timing)
    d["details"] = canonical(d["details"])
    for finding in d["findings"]:
        finding["evidence"] = canonical(finding["evidence"])
    if d["score"] is not None:
        d["score"] = canonical(d["score"])
    return d


def dumps(obj: Any) -> str:
    """Indented JSON (2 spaces, UTF-8 kept as is, lone surrogates as ``\\uXXXX``) with a trailing newline."""
    return escape_surrogates(json.dumps(obj, ensure_ascii=False, indent=2, allow_nan=False)) + "\n"


def dumps_compact(obj: Any) -> str:
    """One-line JSON without spaces and without a newline (for JSONL); surrogates as in :func:`dumps`."""
    return escape_surrogates(compact_json(obj))


def render_json(reports: Sequence[Report], *, single: bool = False, timing: bool = True) -> str:
    """One R-1 object when ``single`` (exactly one report required), else a list."""
    if single:
        if len(reports) != 1:
            raise ValueError(f"single=True needs exactly one report, got {len(reports)}")
        return dumps(report_dict(reports[0], timing=timing))
    return dumps([report_dict(r, timing=timing) for r in reports])
