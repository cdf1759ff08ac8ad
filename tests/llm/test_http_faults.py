"""The real ``openai`` client against a misbehaving loopback server: bounded retries, clear
abstentions, never a hang, and the API key nowhere in errors, logs or the cache."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

pytest.importorskip("openai")

from pydantic import BaseModel

from cotaudit.llm import LLMClient
from cotaudit.llm.openai_backend import OpenAIBackend
from cotaudit.llm.types import BackendError, Message, Request

from .fakeserver import FakeServer, fake_server

REQ = Request((Message("user", "What is 2+2?"),), prompt="demo@v1")
SECRET = "sk-live-0123456789abcdef"


class Answer(BaseModel):
    value: int


def make(
    server: FakeServer, tmp: Path | None = None, json_mode: str = "json_object", timeout: float = 5.0
) -> LLMClient:
    backend = OpenAIBackend(server.url, "fake-model", api_key=SECRET, json_mode=json_mode, timeout_s=timeout)  # type: ignore[arg-type]
    return LLMClient(
        backend,
        mode="readwrite" if tmp else "off",
        cache_dir=tmp,
        retries=2,
        backoff_s=0.01,
        secrets=(SECRET,),
    )


def test_a_good_server_answers_and_usage_is_logged(tmp_path: Path) -> None:
    with fake_server() as server:
        result = make(server, tmp_path).structured(REQ, Answer)
    assert result.ok and result.value == Answer(value=4)
    assert server.bodies[0]["model"] == "fake-model" and server.bodies[0]["temperature"] == 0.0


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("json_object", {"type": "json_object"}),
        ("json_schema", {"type": "json_schema"}),
        ("none", None),
    ],
)
def test_json_mode_decides_the_response_format(mode: str, expected: dict[str, str] | None) -> None:
    with fake_server() as server:
        make(server, json_mode=mode).structured(REQ, Answer)
    sent = server.bodies[0].get("response_format")
    if expected is None:
        assert sent is None
    else:
        assert sent["type"] == expected["type"]
        schema = sent["schema"] if mode == "json_object" else sent["json_schema"]["schema"]
        assert schema["properties"]["value"]["type"] == "integer"


@pytest.mark.parametrize("behaviour", ["500", "garbage", "empty"])
def test_a_broken_server_is_retried_a_bounded_number_of_times_then_abstains(behaviour: str) -> None:
    with fake_server() as server:
        server.behaviour = behaviour
        result = make(server).structured(REQ, Answer)
    assert result.status == "abstain" and result.reason
    assert server.hits == 3  # the first try and two retries


def test_a_server_that_recovers_is_used() -> None:
    with fake_server() as server:
        server.script = ["500", "garbage"]
        result = make(server).structured(REQ, Answer)
    assert result.ok and server.hits == 3


def test_a_server_that_hangs_times_out_and_abstains() -> None:
    with fake_server() as server:
        server.behaviour = "slow"
        server.delay_s = 3.0
        start = time.monotonic()
        result = make(server, timeout=0.3).structured(REQ, Answer)
        elapsed = time.monotonic() - start
    assert result.status == "abstain" and "did not answer in time" in (result.reason or "")
    assert elapsed < 3.0  # three timed-out attempts, never the server's full delay


def test_invalid_json_from_a_real_client_is_reasked() -> None:
    with fake_server() as server:
        server.reply = '{"value": '
        c = make(server)
        result = c.structured(REQ, Answer)
    assert result.status == "invalid" and "not valid JSON" in (result.reason or "")
    assert server.hits == 3 and c.log.summary()["reasks"] == 2
    assert server.bodies[1]["messages"][-1]["content"].startswith("Your previous answer could not be used")


def test_a_rejected_key_is_not_retried_and_never_leaks(tmp_path: Path) -> None:
    with fake_server() as server:
        server.behaviour = "401"
        c = make(server, tmp_path)
        with pytest.raises(BackendError) as err:
            c.complete(REQ)
    assert server.hits == 1
    assert SECRET not in str(err.value) and "401" in str(err.value)
    assert SECRET not in json.dumps([r.to_dict() for r in c.log.records()])


def test_the_key_never_reaches_the_cache(tmp_path: Path) -> None:
    with fake_server() as server:
        make(server, tmp_path).structured(REQ, Answer)
    stored = "".join(p.read_text() for p in tmp_path.iterdir())
    assert stored and SECRET not in stored and server.url not in stored
