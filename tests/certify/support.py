"""Small builders shared by the certify tests."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cotaudit.certify.interface.model import Interface, simple_interface
from cotaudit.certify.lang.parse import parse_program
from cotaudit.certify.lang.syntax import Unit
from cotaudit.certify.proof.recheck import recheck
from cotaudit.certify.proof.report import RecheckReport
from cotaudit.certify.sources.records import Evidence, SourceRecord
from cotaudit.certify.state.config import CertifyConfig
from cotaudit.certify.state.machine import CertState

CLOCK_TS = "2026-01-01T00:00:00Z"


def clock() -> str:
    return CLOCK_TS


def iface(preds: Mapping[str, int], omega: Sequence[str], negation: str = "none") -> Interface:
    return simple_interface(dict(preds), list(omega), negation=negation)


def new_state(
    interface: Interface,
    program: str = "",
    config: CertifyConfig | None = None,
    *,
    path: str = ":memory:",
    fault: Any = None,
    record: str = "src",
    corpus: str | None = None,
) -> CertState:
    """A state whose units are admitted one by one (writer deploy) against a rules record
    holding ``corpus`` (default: the program itself; later admissions cite it too)."""
    state = CertState.open(path, interface, config or CertifyConfig(), clock=clock, fault=fault)
    if program or corpus:
        state.add_record(SourceRecord(record, "rules", corpus or program))
        for unit in parse_program(program):
            decision = state.admit(unit, Evidence(record))
            assert decision.reason is None, (unit.text(), decision.reason, decision.detail)
    return state


def admit_text(state: CertState, text: str, record: str = "src", **kwargs: Any) -> Any:
    """Admit ``text`` (one unit) with evidence from ``record`` (whose body must contain it)."""
    return state.admit(text, Evidence(record), **kwargs)


def assert_rechecks(
    cert: Mapping[str, Any], state: CertState, overlay: Mapping[int, Unit] | None = None
) -> RecheckReport:
    report = recheck(cert, state.kernel_view(int(cert.get("kernel_version", state.version))), overlay=overlay)
    assert report.ok, report.failures
    return report


def units(text: str) -> list[Unit]:
    return parse_program(text)
