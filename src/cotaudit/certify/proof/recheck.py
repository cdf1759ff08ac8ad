"""Independent recheck of certificates (C-32 … C-35): ``recheck(cert, kernel)``.

This module verifies certificates in the format of :mod:`cotaudit.certify.proof.format` without importing the
executor (a test walks the imports): it needs only the syntax layer, the kernel view, the
calculators, the stratifier and the reference evaluator. Every check runs and every failure is
reported with its node id and stable code — not only the first. The cost is linear in the
certificate size (look-ups are O(1)), except NAF checks (lower strata are recomputed) and
closure certificates (C-35).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from cotaudit.certify.lang.syntax import Unit
from cotaudit.certify.proof.derivation import DerivationCheck
from cotaudit.certify.proof.format import FORMAT
from cotaudit.certify.proof.kernelview import KernelView
from cotaudit.certify.proof.recheck_closure import recheck_closure
from cotaudit.certify.proof.report import RECHECK_OBSERVERS, Overlay, RecheckFailure, RecheckReport


def _overlay(overlay: Overlay | None) -> dict[int, Unit]:
    if overlay is None:
        return {}
    return dict(overlay.items()) if isinstance(overlay, Mapping) else dict(overlay)


def _load(cert: Any) -> tuple[dict[str, Any] | None, list[RecheckFailure]]:
    if isinstance(cert, str | bytes):
        try:
            cert = json.loads(cert)
        except (ValueError, RecursionError) as exc:
            return None, [RecheckFailure("MALFORMED_DERIVATION", None, f"not JSON: {exc}")]
    if not isinstance(cert, dict):
        return None, [RecheckFailure("MALFORMED_DERIVATION", None, "a certificate is a JSON object")]
    if cert.get("format") != FORMAT:
        return None, [RecheckFailure("MALFORMED_DERIVATION", None, f"'format' must be {FORMAT!r}")]
    return cert, []


def recheck(
    cert: Any,
    kernel: KernelView,
    *,
    delta: int | None = None,
    overlay: Overlay | None = None,
) -> RecheckReport:
    """Verify ``cert`` (dict or JSON text) against ``kernel`` (and query-scoped ``overlay`` facts)."""
    body, failures = _load(cert)
    if body is None:
        return RecheckReport(False, None, None, None, tuple(failures))
    over = _overlay(overlay)
    if body.get("kind") == "closure":
        for observer in RECHECK_OBSERVERS:
            observer(body)
        fails, undecided = recheck_closure(body, kernel, over)
        target = body.get("target") if isinstance(body.get("target"), str) else None
        return RecheckReport(
            not fails and undecided is None, "closure", target, None, tuple(fails), undecided
        )
    if body.get("kind") != "derivation":
        return RecheckReport(
            False, None, None, None, (RecheckFailure("MALFORMED_DERIVATION", None, "unknown kind"),)
        )
    checker = DerivationCheck(body, kernel, over)
    checker.run_all(delta)
    undecided = checker.edges.undecided
    return RecheckReport(
        not checker.failures and undecided is None,
        "derivation",
        checker.conclusion,
        checker.root_depth,
        tuple(checker.failures),
        undecided,
    )
