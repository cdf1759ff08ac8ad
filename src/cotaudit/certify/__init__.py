"""certify — CPUNeSy certified predicate units (shared/spec/certify.md, part 1).

A model may *propose* facts and rules; only the certificate gate decides what enters the
symbolic state, and every answer carries a derivation anyone can recheck.

What a certificate means: *the answer follows, by verified rule applications within depth δ,
from premises that passed the configured source checker.* It does not prove that the premises
say what the natural-language source says; that depends on the source checker, whose identity
and version every evidence record names.

    >>> from cotaudit import certify
    >>> certify.check(open("examples/certify/legal_prelim.kb").read()).verdict  # doctest: +SKIP
    'pass'

Entry points: :func:`check` (R-1 report for a ``.kb`` or ``.cert.json`` text), the executor
:func:`evaluate`, the independent checker :func:`recheck` and the state machine
:class:`CertState`. The layers, each importing only those before it (docs/architecture.md):
:mod:`.core` (errors, canonical JSON, version) → :mod:`.lang` (syntax, normal form, grammar,
JSON form, calculators, strata) → :mod:`.interface` → :mod:`.sources` (records, checkers) →
:mod:`.proof` (certificate format, kernel views, recheck; never imports the executor) →
:mod:`.engine` (the executor and its closure) → :mod:`.kernel` (the kernel scan) →
:mod:`.gate` (source and derived mode) → :mod:`.state` (the :class:`CertState` facade and its
services) → :mod:`.serve` (votes, agreement, serving) → :mod:`.kb` (the ``.kb`` and
``.cert.json`` formats and their reports) → :mod:`.adapters` (data sets).
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from cotaudit.certify.core.version import ENGINE_VERSION
from cotaudit.certify.engine.evaluation import evaluate
from cotaudit.certify.kb.bundle import check_bundle
from cotaudit.certify.kb.check import check_kb
from cotaudit.certify.proof.recheck import recheck
from cotaudit.certify.state.machine import CertState
from cotaudit.errors import UsageError
from cotaudit.report import Report

__all__ = ["ENGINE_VERSION", "CertState", "check", "evaluate", "recheck"]


def check(text: str, *, path: str | None = None, item_id: str | None = None, **options: Any) -> Report:
    """The R-1 report for a ``.kb`` knowledge base or a ``.cert.json`` certificate bundle.

    The kind comes from ``path`` (``*.cert.json``) or, without a path, from the text (a JSON
    object is a bundle). ``options``: ``checkers`` — a
    :class:`~cotaudit.certify.sources.checkers.CheckerRegistry` with extra source checkers (e.g.
    ``llm_recheck/1`` wired to a model).
    """
    unknown = sorted(set(options) - {"checkers"})
    if unknown:
        raise UsageError(f"engine 'certify': unexpected option(s): {', '.join(unknown)}")
    start = time.perf_counter()
    is_bundle = path.endswith(".cert.json") if path else text.lstrip().startswith("{")
    if is_bundle:
        report = check_bundle(text, path=path, item_id=item_id)
    else:
        report = check_kb(text, path=path, item_id=item_id, checkers=options.get("checkers"))
    return replace(report, timing_ms=round((time.perf_counter() - start) * 1000.0, 3))
