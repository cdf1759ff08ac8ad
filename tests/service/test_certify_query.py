"""``POST /v1/certify/query`` (issue 17): a certified answer or an explicit abstention, with the
certificate, behind the token like the other certify routes; over loopback and in process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from cotaudit.certify.proof.recheck import recheck
from cotaudit.certify.state.machine import CertState
from cotaudit.service.certify_routes import CERTIFY_DB_ENV, query

from .conftest import TOKEN, Server, make_certify_state

GOAL = "may_claim_preliminary_breach_liability(p1, x1)"


def _error(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["error"]["code"] == code
    return str(body["error"]["message"])


def test_query_over_loopback(locked_server: Server) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with locked_server.client() as c:
        _error(c.post("/v1/certify/query", json={"goal": GOAL}), 401, "unauthorized")
        answer = c.post("/v1/certify/query", json={"goal": GOAL}, headers=auth)
        assert answer.status_code == 200, answer.text
        body = answer.json()
        # the kernel holds only the rules: a certified "no", backed by a closure certificate
        assert (body["status"], body["answer"], body["answer_kind"]) == ("CERTIFIED", "no", "NOT_DERIVED")
        assert body["certificate"]["kind"] == "closure" and len(body["certificate"]["sha256"]) == 64
        abstained = c.post(
            "/v1/certify/query", json={"goal": "is_preliminary_contract(X)", "space": "numeric"}, headers=auth
        ).json()
        assert abstained["status"] == "ABSTAINED" and abstained["certificate"] is None
        assert abstained["abstain_reason"] == "MISSING_ATTRIBUTE"
        bad = c.post("/v1/certify/query", json={"goal": GOAL, "space": "maybe"}, headers=auth)
        assert "space" in _error(bad, 400, "bad_request")
        _error(c.post("/v1/certify/query", json={"goal": "nonsense("}, headers=auth), 400, "bad_request")
        listed = c.get("/openapi.json", headers=auth).json()["paths"]
        assert "/v1/certify/query" in listed


def test_query_refused_without_a_token_configured(server: Server) -> None:
    with server.client() as c:
        _error(c.post("/v1/certify/query", json={"goal": GOAL}), 403, "writes_disabled")


@pytest.mark.parametrize(
    "body", [{}, {"goal": ""}, {"goal": 3}, {"goal": GOAL, "delta": -1}, {"goal": GOAL, "delta": True}]
)
def test_bad_query_bodies_are_value_errors(body: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        query(body)


def test_query_handler_on_a_real_state_and_its_certificate_rechecks(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    db = make_certify_state(tmp_path / "s.sqlite")
    monkeypatch.setenv(CERTIFY_DB_ENV, str(db))
    first = query({"goal": GOAL})
    state = CertState.open(str(db))
    try:
        assert recheck(first["certificate"], state.kernel_view()).ok
    finally:
        state.close()
    # every served query is counted, and a tick in another process turns the counts into a
    # frequency (the counts outlive the request that made them)
    query({"goal": GOAL})
    tick = subprocess.run(
        [sys.executable, "-m", "cotaudit", "certify", "tick", "--db", str(db)],
        capture_output=True, timeout=120, check=False,
    )  # fmt: skip
    assert tick.returncode == 0, tick.stderr
    assert tick.stdout.decode().startswith("tick 1: 1 frequencies updated")
