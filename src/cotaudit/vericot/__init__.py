"""VeriCoT: step-wise first-order validation of chains of thought with Z3 (shared/spec/vericot.md).

Each step of a chain of thought is formalised as SMT-LIB and checked against what is already
established: ``entailed``, ``contradicted``, ``ungrounded`` (it needs premises nobody stated),
``untranslatable`` or ``unknown`` (the solver could not decide)::

    >>> from cotaudit import vericot
    >>> report = vericot.check_trace({"id": "t", "context": {"question": "q"}, "steps": []})
    >>> report.verdict
    'abstain'

Names follow the other engines: ``check(text)`` (the entry point ``cotaudit check`` uses) and
``check_trace(trace)`` (a dict or :class:`TraceInput`) return the R-1
:class:`~cotaudit.report.Report`; ``Verifier(config).run(trace)`` returns the engine's own
:class:`TraceResult` for a :class:`TraceInput`, a dict or JSON text (:class:`NotATrace`
otherwise), as ``type6.verify`` returns a ``Type6Result``. ``verify`` is kept as an
alias of ``check_trace`` (it returns the R-1 report, unlike ``type6.verify``).
"""

from __future__ import annotations

import json
from typing import Any

from cotaudit.report import Report
from cotaudit.vericot.config import ConfigError, VerifierConfig, load_config
from cotaudit.vericot.pipeline import NotATrace, TraceResult, Verifier
from cotaudit.vericot.r1 import ENGINE_VERSION, check
from cotaudit.vericot.schema import TraceInput, split_steps


def check_trace(
    trace: dict[str, Any] | TraceInput, config: VerifierConfig | None = None, **options: Any
) -> Report:
    """The R-1 report for a trace given as a dict (or a :class:`TraceInput`)."""
    data = trace.model_dump(mode="json") if isinstance(trace, TraceInput) else trace
    text = json.dumps(data, sort_keys=True, ensure_ascii=False)
    return check(text, config=config, **options)


verify = check_trace
"""The older name of :func:`check_trace`, kept for compatibility: it returns the R-1 report."""


__all__ = [
    "ENGINE_VERSION",
    "ConfigError",
    "NotATrace",
    "TraceInput",
    "TraceResult",
    "Verifier",
    "VerifierConfig",
    "check",
    "check_trace",
    "load_config",
    "split_steps",
    "verify",
]
