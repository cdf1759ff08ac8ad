"""``.cert.json``: a certificate bundled with the kernel it is checked against.

``{"format": "cotaudit.certify.bundle/1", "certificate": {…}, "kernel": {kernel export},
"overlay": [{"unit_id": -1, "fact": "…"}], "delta": 6}`` — ``kernel`` is what
``cotaudit certify export`` writes (program text + manifest, C-73); ``overlay`` lists the
query-scoped facts a certificate's ``query`` leaves point at; ``delta`` (optional) overrides the
certificate's budget. ``check`` rechecks it: ``pass`` when every check holds, ``fail`` with one
finding per failed check, ``abstain`` (``CERTIFY_W002``) when no check failed but one could not
be decided within the checker's bounds — could not check is never a failure — and ``invalid``
when the file is not such a bundle.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from cotaudit.certify.core.errors import ComputationCap, KbError, ProgramError
from cotaudit.certify.core.version import ENGINE, ENGINE_VERSION
from cotaudit.certify.kb.check import invalid
from cotaudit.certify.kb.codemap import reason_code
from cotaudit.certify.lang.parse import parse_literal
from cotaudit.certify.lang.syntax import Fact, Unit
from cotaudit.certify.proof.kernelview import KernelView
from cotaudit.certify.proof.recheck import recheck
from cotaudit.certify.proof.report import RecheckReport
from cotaudit.report import Finding, Location, Report, make_report

BUNDLE_FORMAT = "cotaudit.certify.bundle/1"


def make_bundle(
    cert: Mapping[str, Any], kernel: KernelView, overlay: Mapping[int, Unit] | None = None
) -> dict[str, Any]:
    return {
        "format": BUNDLE_FORMAT,
        "certificate": dict(cert),
        "kernel": kernel.export_bundle(),
        "overlay": [{"unit_id": uid, "fact": u.head.text()} for uid, u in sorted((overlay or {}).items())],
    }


def load_bundle(text: str) -> tuple[dict[str, Any], KernelView, dict[int, Unit], int | None]:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise KbError(f"not JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != BUNDLE_FORMAT:
        raise KbError(f"'format' must be {BUNDLE_FORMAT!r} (a certificate bundled with its kernel)")
    cert = data.get("certificate")
    if not isinstance(cert, dict):
        raise KbError("'certificate' must be an object")
    kernel = KernelView.from_bundle(data.get("kernel") or {})
    rows = data.get("overlay")
    if rows is not None and not isinstance(rows, list):
        raise KbError('\'overlay\' must be a list of {"unit_id": integer, "fact": text}')
    overlay: dict[int, Unit] = {}
    for i, row in enumerate(rows or []):
        uid = row.get("unit_id") if isinstance(row, dict) else None
        fact = row.get("fact") if isinstance(row, dict) else None
        if not isinstance(uid, int) or isinstance(uid, bool) or not isinstance(fact, str):
            raise KbError(f"overlay row {i}: needs an integer 'unit_id' and a 'fact' text")
        try:
            overlay[uid] = Fact(f"q{uid}", parse_literal(fact, skolem=True))
        except ProgramError as exc:
            raise KbError(f"overlay row {i}: {exc}") from None
    delta = data.get("delta")
    if delta is not None and (not isinstance(delta, int) or isinstance(delta, bool)):
        raise KbError("'delta' must be an integer")
    return cert, kernel, overlay, delta


def report_of(check: RecheckReport) -> list[Finding]:
    out = []
    for f in check.failures:
        code = reason_code(f.code)
        where = Location(statement=None if f.node is None else f"node {f.node}")
        out.append(Finding(code.code, code.severity, where, f.message, {"reason": f.code, "node": f.node}))
    return out


def check_bundle(text: str, *, path: str | None = None, item_id: str | None = None) -> Report:
    try:
        cert, kernel, overlay, delta = load_bundle(text)
    except KbError as exc:
        code = reason_code("INPUT_MALFORMED")
        f = Finding(code.code, code.severity, Location(), exc.bare, {"reason": "INPUT_MALFORMED"})
        return invalid(text, path, item_id, [f], str(exc))
    try:
        result = recheck(cert, kernel, delta=delta, overlay=overlay)
    except ComputationCap as exc:  # a time or memory bound (ResourceCap): not checked
        result = RecheckReport(False, cert.get("kind"), None, None, (), exc.what)
    findings = report_of(result)
    if result.undecided is not None and not result.failures:
        code = reason_code("COMPUTATION_CAP")
        message = f"the certificate could not be rechecked: {result.undecided}"
        findings.append(Finding(code.code, code.severity, Location(), message, {"reason": "COMPUTATION_CAP"}))
    if result.ok:
        code = reason_code("RECHECKED")
        findings.append(
            Finding(
                code.code,
                code.severity,
                Location(),
                f"{result.kind} certificate of {result.conclusion} rechecks",
                {"reason": "RECHECKED"},
            )
        )
    undecided = not result.ok and not result.failures
    details = {
        "verdict": "CERTIFIED" if result.ok else "ABSTAIN" if undecided else "REJECT",
        "kind": result.kind,
        "conclusion": result.conclusion,
        "depth": result.depth,
        "kernel_version": kernel.version,
        "certificate_sha256": cert.get("sha256"),
        "codes": result.codes(),
    }
    return make_report(
        ENGINE,
        ENGINE_VERSION,
        "pass" if result.ok else "abstain" if undecided else "fail",
        text=text,
        path=path,
        item_id=item_id,
        findings=findings,
        details=details,
    )
