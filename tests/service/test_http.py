"""The service over real HTTP on 127.0.0.1: endpoints, limits, auth, structured errors."""

from __future__ import annotations

import concurrent.futures
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from cotaudit import codes
from cotaudit.report import Report, json_schema

from .conftest import TOKEN, Server

ROOT = Path(__file__).resolve().parents[2]
SLIP = (ROOT / "examples" / "te" / "C_arithmetic_slip.te").read_text(encoding="utf-8")
JANET = (ROOT / "examples" / "te" / "A_janet.te").read_text(encoding="utf-8")
MEMORIES = (ROOT / "examples" / "type6" / "memories.t6").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def client(server: Server) -> Iterator[httpx.Client]:
    with server.client() as c:
        yield c


def _error(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and body["error"]["status"] == status and body["error"]["code"] == code
    message: str = body["error"]["message"]
    return message


def test_health_and_codes(client: httpx.Client) -> None:
    health = client.get("/v1/health").json()
    assert health["status"] == "ok" and health["workers"] == 2
    assert health["engines"]["te"] is True and health["engines"]["slow"] is True
    assert health["engines"]["planned"] is False
    listed = client.get("/v1/codes").json()["codes"]
    assert [c["code"] for c in listed] == sorted(codes.CODES)
    assert {"code", "engine", "name", "severity", "layer", "summary"} == set(listed[0])


def test_check_returns_the_r1_report(client: httpx.Client) -> None:
    response = client.post("/v1/check", json={"engine": "te", "text": SLIP, "id": "slip"})
    assert response.status_code == 200
    report = Report.from_dict(response.json())
    assert report.verdict == "fail" and report.input.id == "slip"
    assert [(f.code, f.location.line) for f in report.findings] == [("TE_E006", 5)]
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(response.json(), json_schema())
    type6 = client.post("/v1/check", json={"engine": "type6", "text": MEMORIES}).json()
    assert type6["engine"] == "type6" and type6["input"]["id"] == "item-0" and type6["score"] is not None


def test_check_errors_are_structured(client: httpx.Client) -> None:
    assert "unknown engine 'nope'" in _error(
        client.post("/v1/check", json={"engine": "nope", "text": "x"}), 400, "unknown_engine"
    )
    _error(client.post("/v1/check", json={"engine": "planned", "text": "x"}), 400, "engine_unavailable")
    assert (
        _error(client.post("/v1/check", json={"text": "x"}), 422, "invalid_request")
        == "body.engine: Field required"
    )
    _error(
        client.post("/v1/check", content=b"{not json", headers={"content-type": "application/json"}),
        422,
        "invalid_request",
    )
    _error(client.get("/v1/check"), 405, "method_not_allowed")
    _error(client.get("/v1/nowhere"), 404, "not_found")


def test_batch_keeps_order_and_reports_bad_items(client: httpx.Client) -> None:
    items = [
        {"engine": "te", "text": JANET, "id": "janet"},
        {"engine": "nope", "text": "x", "id": "bad-engine"},
        {"engine": "slow", "text": "BAD", "id": 7},
        {"engine": "te", "text": SLIP},
    ]
    reports = client.post("/v1/batch", json={"items": items}).json()["reports"]
    assert [r["input"]["id"] for r in reports] == ["janet", "bad-engine", "7", "item-3"]
    assert [r["verdict"] for r in reports] == ["pass", "invalid", "fail", "fail"]
    assert "unknown engine" in reports[1]["details"]["error"]
    _error(client.post("/v1/batch", json={"items": []}), 422, "empty")


def test_reward_shapes_verdicts(client: httpx.Client) -> None:
    good = SLIP.replace("= 8\n", "= 9\n").replace("== 8", "== 9").replace("= 16 [USD]", "= 18 [USD]")
    body: dict[str, Any] = {"completions": [SLIP, [{"role": "assistant", "content": good}], "garbage"]}
    answer = client.post("/v1/reward", json=body).json()
    # "garbage" holds no trace: invalid (invalid_reward), as in-process rewards say (issue 17)
    assert answer == {"rewards": [0.0, 1.0, 0.0], "verdicts": ["fail", "pass", "invalid"]}
    graded = client.post("/v1/reward", json={"completions": [MEMORIES], "engine": "type6"}).json()
    assert 0.0 <= graded["rewards"][0] <= 1.0
    abstain = client.post(
        "/v1/reward", json={"completions": ["HANG"], "engine": "slow", "shaping": {"abstain_reward": None}}
    ).json()
    assert abstain == {"rewards": [None], "verdicts": ["abstain"]}
    _error(
        client.post("/v1/reward", json={"completions": ["x"], "shaping": {"bogus": 1}}), 422, "bad_shaping"
    )
    wrong_type = {"completions": ["x"], "shaping": {"pass_reward": "high"}}
    assert "pass_reward" in _error(client.post("/v1/reward", json=wrong_type), 422, "bad_shaping")
    _error(client.post("/v1/reward", json={"completions": ["x"], "engine": "nope"}), 400, "unknown_engine")


def test_a_hanging_item_is_stopped_and_the_service_stays_responsive(server: Server) -> None:
    with server.client() as c, concurrent.futures.ThreadPoolExecutor(4) as pool:
        start = time.monotonic()
        hangs = [
            pool.submit(c.post, "/v1/check", json={"engine": "slow", "text": t}) for t in ("HANG", "SPIN")
        ]
        time.sleep(0.3)
        assert c.get("/v1/health").status_code == 200  # answered while both workers are stuck
        reports = [h.result().json() for h in hangs]
        assert [r["verdict"] for r in reports] == ["abstain", "abstain"]
        assert reports[0]["details"] == {
            "error": "timed out after 2 s (the worker was stopped)",
            "reason": "timeout",
        }
        assert time.monotonic() - start < 20
        died = c.post("/v1/check", json={"engine": "slow", "text": "EXIT"}).json()
        assert died["verdict"] == "invalid" and died["details"]["reason"] == "worker_died"
        crashed = c.post("/v1/check", json={"engine": "slow", "text": "CRASH"}).json()
        assert crashed["verdict"] == "invalid" and "RuntimeError" in crashed["details"]["error"]
        assert c.post("/v1/check", json={"engine": "te", "text": JANET}).json()["verdict"] == "pass"


def test_openapi_schema_carries_the_report_schema(client: httpx.Client) -> None:
    schema = client.get("/openapi.json").json()
    assert {"/v1/check", "/v1/batch", "/v1/reward", "/v1/health", "/v1/codes", "/v1/certify/admit"} <= set(
        schema["paths"]
    )
    check_200 = schema["paths"]["/v1/check"]["post"]["responses"]["200"]["content"]["application/json"][
        "schema"
    ]
    assert check_200 == {"$ref": "#/components/schemas/Report"}
    components = schema["components"]["schemas"]
    assert components["Report"]["required"] == json_schema()["required"]
    refs = {v for v in json.dumps(schema).split('"') if v.startswith("#/")}
    assert all(r.split("/")[-1] in components for r in refs if r.startswith("#/components/schemas/"))
    assert not any(r.startswith("#/$defs") for r in refs)
    assert schema["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"


def test_write_endpoints_refuse_without_a_configured_token(client: httpx.Client) -> None:
    _error(client.post("/v1/slow/echo", json={"a": 1}), 403, "writes_disabled")
    _error(client.post("/v1/certify/admit", json={}), 403, "writes_disabled")
    _error(
        client.post("/v1/certify/erase", json={}, headers={"Authorization": "Bearer x"}),
        403,
        "writes_disabled",
    )


# --------------------------------------------------------------------------- with a token


def test_token_guards_every_endpoint_but_health(locked_server: Server) -> None:
    with locked_server.client() as c:
        assert c.get("/v1/health").status_code == 200
        response = c.post("/v1/check", json={"engine": "te", "text": JANET})
        assert _error(response, 401, "unauthorized") == "missing or wrong bearer token"
        assert response.headers["www-authenticate"] == "Bearer"
        _error(c.get("/v1/codes", headers={"Authorization": "Bearer wrong"}), 401, "unauthorized")
        _error(c.get("/v1/codes", headers={"Authorization": f"Basic {TOKEN}"}), 401, "unauthorized")
        ok = c.post(
            "/v1/check", json={"engine": "te", "text": JANET}, headers={"Authorization": f"Bearer {TOKEN}"}
        )
        assert ok.status_code == 200 and ok.json()["verdict"] == "pass"


def test_write_endpoints_with_the_token(locked_server: Server) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with locked_server.client() as c:
        _error(c.post("/v1/slow/echo", json={"a": 1}), 401, "unauthorized")
        assert c.post("/v1/slow/echo", json={"a": 1}, headers=auth).json() == {"echo": {"a": 1}}
        assert (
            _error(c.post("/v1/slow/echo", json={"bad": 1}, headers=auth), 400, "bad_request") == "bad body"
        )
        _error(c.post("/v1/certify/admit", json={}), 401, "unauthorized")


def test_certify_admit_and_erase_change_the_served_state(locked_server: Server) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    rule = (
        "[art495] may_claim_preliminary_breach_liability(P, X) :- "
        "is_preliminary_contract(X), fails_conclusion_duty(P, X)."
    )
    admit = {"unit": rule, "evidence": {"record": "rules"}}
    with locked_server.client() as c:
        _error(c.post("/v1/certify/erase", json={"unit_id": 3}), 401, "unauthorized")
        same = c.post("/v1/certify/admit", json=admit, headers=auth).json()
        assert same["outcome"] == "REDUNDANT" and same["detail"]["duplicate_of"] == 3
        erased = c.post("/v1/certify/erase", json={"unit_id": 3, "reason": "test"}, headers=auth).json()
        assert erased["unit_id"] == 3 and erased["kernel"]["removed"] == [3]
        again = _error(c.post("/v1/certify/erase", json={"unit_id": 3}, headers=auth), 404, "not_found")
        assert "not an active kernel unit" in again
        back = c.post("/v1/certify/admit", json=admit, headers=auth).json()
        assert back["outcome"] == "SOURCE_ADMIT" and back["kernel_version"] > erased["kernel"]["version"]
        unsupported = c.post("/v1/certify/admit", json={"unit": rule}, headers=auth).json()
        assert unsupported["outcome"] == "REJECT" and unsupported["reason"] == "UNSUPPORTED_BY_SOURCE"
        bad = {"unit": rule, "writer": "someone"}
        assert "writer" in _error(c.post("/v1/certify/admit", json=bad, headers=auth), 400, "bad_request")
        _error(c.post("/v1/certify/erase", json={"unit_id": "3"}, headers=auth), 400, "bad_request")


def test_size_limits(locked_server: Server) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with locked_server.client(headers=auth) as c:
        big = {"engine": "te", "text": "x" * 5000}
        assert "larger than 4096 bytes" in _error(c.post("/v1/check", json=big), 413, "payload_too_large")

        def chunks() -> Iterator[bytes]:  # no Content-Length: the limit applies while reading
            yield b'{"engine": "te", "text": "'
            for _ in range(10):
                yield b"y" * 1000
            yield b'"}'

        streamed = c.post("/v1/check", content=chunks(), headers={"content-type": "application/json"})
        _error(streamed, 413, "payload_too_large")
        four = {"items": [{"engine": "te", "text": "x"}] * 4}
        assert (
            _error(c.post("/v1/batch", json=four), 413, "too_many_items") == "4 items given; the limit is 3"
        )
        assert c.get("/v1/health").status_code == 200
