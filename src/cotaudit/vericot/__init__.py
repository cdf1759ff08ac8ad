"""VeriCoT: step-wise first-order validation of chains of thought with Z3 (shared/spec/vericot.md).

Each step of a chain of thought is formalised as SMT-LIB and checked against what is already
established: ``entailed``, ``contradicted``, ``ungrounded`` (it needs premises nobody stated),
``untranslatable`` or ``unknown`` (the solver could not decide)::

    >>> from cotaudit import vericot
    >>> report = vericot.verify({"id": "t", "context": {"question": "q"}, "steps": []})
    >>> report.verdict
    'abstain'

``check(text)`` is the engine entry point used by ``cotaudit check``; ``Verifier(config).run(trace)``
gives the :class:`TraceResult` directly, for a :class:`TraceInput`, a dict or JSON text
(:class:`NotATrace` otherwise).
"""

from __future__ import annotations

import json
from typing import Any

from cotaudit.report import Report
from cotaudit.vericot.config import ConfigError, VerifierConfig, load_config
from cotaudit.vericot.pipeline import NotATrace, TraceResult, Verifier
from cotaudit.vericot.r1 import ENGINE_VERSION, check
from cotaudit.vericot.schema import TraceInput, split_steps


def verify(
    trace: dict[str, Any] | TraceInput, config: VerifierConfig | None = None, **options: Any
) -> Report:
    """The R-1 report for a trace given as a dict (or a :class:`TraceInput`)."""
    data = trace.model_dump(mode="json") if isinstance(trace, TraceInput) else trace
    text = json.dumps(data, sort_keys=True, ensure_ascii=False)
    return check(text, config=config, **options)


__all__ = [
    "ENGINE_VERSION",
    "ConfigError",
    "NotATrace",
    "TraceInput",
    "TraceResult",
    "Verifier",
    "VerifierConfig",
    "check",
    "load_config",
    "split_steps",
    "verify",
]
