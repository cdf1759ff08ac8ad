"""certify's write handlers in process: what they refuse before touching a state."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cotaudit.service.certify_routes import CERTIFY_DB_ENV, admit, erase
from cotaudit.service.core import ServiceError

from .conftest import make_certify_state

RULE = "[art495] may_claim_preliminary_breach_liability(P, X) :- is_preliminary_contract(X), fails_conclusion_duty(P, X)."


def test_no_state_configured_is_503(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(CERTIFY_DB_ENV, raising=False)
    with pytest.raises(ServiceError) as info:
        admit({"unit": RULE})
    assert (info.value.status, info.value.code) == (503, "not_configured")
    monkeypatch.setenv(CERTIFY_DB_ENV, str(tmp_path / "missing.sqlite"))
    with pytest.raises(ServiceError, match="does not exist") as info:
        erase({"unit_id": 1})
    assert info.value.status == 503
    assert not (tmp_path / "missing.sqlite").exists()  # refused, not created


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"unit": ""},
        {"unit": 5},
        {"unit": RULE, "writer": 1},
        {"unit": RULE, "writer": "nobody"},
        {"unit": RULE, "evidence": "rules"},
        {"unit": RULE, "evidence": {"quote": "x"}},
        {"unit": RULE, "evidence": {"record": "rules", "spans": [[1]]}},
        {"unit": RULE, "evidence": {"record": "rules", "spans": [[True, 2]]}},
        {"unit": RULE, "evidence": {"record": "rules", "quote": 3}},
    ],
)
def test_bad_admit_bodies_are_value_errors(body: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        admit(body)


@pytest.mark.parametrize("body", [{}, {"unit_id": "1"}, {"unit_id": True}, {"unit_id": 1, "reason": 2}])
def test_bad_erase_bodies_are_value_errors(body: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        erase(body)


def test_admit_with_evidence_on_a_real_state(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(CERTIFY_DB_ENV, str(make_certify_state(tmp_path / "s.sqlite")))
    spans = admit({"unit": RULE, "evidence": {"record": "rules", "spans": [[0, 5]]}})
    assert spans["outcome"] == "REDUNDANT"  # already unit 3 of the kernel
    assert erase({"unit_id": 2})["kernel"]["removed"] == [2]
    with pytest.raises(ServiceError) as info:
        erase({"unit_id": 2})
    assert (info.value.status, info.value.code) == (404, "not_found")


def test_erase_that_runs_out_of_its_bound_is_an_abstention_not_a_crash(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from cotaudit.certify.core.errors import ResourceCap
    from cotaudit.certify.state.machine import CertState

    monkeypatch.setenv(CERTIFY_DB_ENV, str(make_certify_state(tmp_path / "s.sqlite")))

    def out_of_time(self: CertState, unit_id: int, reason: str = "") -> dict[str, Any]:
        raise ResourceCap("evaluation exceeded its time bound", {}, bound="time")

    monkeypatch.setattr(CertState, "erase", out_of_time)
    with pytest.raises(ServiceError) as info:
        erase({"unit_id": 2})
    assert (info.value.status, info.value.code) == (503, "undecided")
    assert "rolled back" in info.value.message
