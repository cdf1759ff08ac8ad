"""The wrapper: cache modes, retries with backoff, re-asks, concurrency bound, call log (mock only).

Every backend here is the scripted mock, whose answers are hand-written.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from pydantic import BaseModel

from cotaudit.llm import LLMClient, NotConfigured, ReplayMiss, ScriptedBackend
from cotaudit.llm.types import BackendError, LLMError, Message, Request, TransientBackendError

REQ = Request((Message("user", "What is 2+2?"),), prompt="demo@v1", tag="item-1")


class Answer(BaseModel):
    value: int


def client(
    backend: ScriptedBackend | None, mode: str = "readwrite", tmp: Path | None = None, **kw: object
) -> LLMClient:
    sleeps: list[float] = []
    c = LLMClient(
        backend,
        model="mock-model",
        mode=mode,  # type: ignore[arg-type]
        cache_dir=tmp,
        sleep=sleeps.append,
        **kw,  # type: ignore[arg-type]
    )
    c.sleeps = sleeps  # type: ignore[attr-defined]
    return c


# --------------------------------------------------------------------------- cache modes


def test_readwrite_calls_once_then_hits(tmp_path: Path) -> None:
    backend = ScriptedBackend(["4"])
    c = client(backend, "readwrite", tmp_path)
    assert c.complete(REQ).text == "4"
    assert c.complete(REQ).text == "4"
    assert backend.calls == 1
    assert [r.cache for r in c.log.records()] == ["miss", "hit"]


def test_record_always_calls_and_overwrites(tmp_path: Path) -> None:
    backend = ScriptedBackend(["4", "5"])
    c = client(backend, "record", tmp_path)
    assert c.complete(REQ).text == "4"
    assert c.complete(REQ).text == "5"
    assert backend.calls == 2
    assert client(None, "replay", tmp_path).complete(REQ).text == "5"


def test_replay_reads_and_a_miss_names_the_request_without_any_call(tmp_path: Path) -> None:
    client(ScriptedBackend(["4"]), "record", tmp_path).complete(REQ)
    replay = client(None, "replay", tmp_path)
    assert replay.complete(REQ).text == "4"
    other = Request((Message("user", "What is 3+3?"),), prompt="demo@v1", sample=2)
    with pytest.raises(ReplayMiss) as err:
        replay.complete(other)
    assert "demo@v1" in str(err.value) and "sample 2" in str(err.value) and "3+3" in str(err.value)
    # A replay client given a backend still never calls it.
    backend = ScriptedBackend(["x"])
    with pytest.raises(ReplayMiss):
        client(backend, "replay", tmp_path).complete(other)
    assert backend.calls == 0


def test_off_neither_reads_nor_writes(tmp_path: Path) -> None:
    backend = ScriptedBackend(["4", "4"])
    c = client(backend, "off", tmp_path)
    c.complete(REQ)
    c.complete(REQ)
    assert backend.calls == 2 and list(tmp_path.iterdir()) == []


def test_modes_that_need_things_say_so(tmp_path: Path) -> None:
    with pytest.raises(NotConfigured):
        LLMClient(None, model="m", mode="readwrite", cache_dir=tmp_path)
    with pytest.raises(NotConfigured):
        LLMClient(None, model="m", mode="replay")
    with pytest.raises(NotConfigured):
        LLMClient(None, mode="replay", cache_dir=tmp_path)


# --------------------------------------------------------------------------- retries


def test_transient_errors_are_retried_with_exponential_backoff() -> None:
    backend = ScriptedBackend([TransientBackendError("HTTP 500"), TransientBackendError("timeout"), "4"])
    c = client(backend, "off", retries=3, backoff_s=0.5, max_backoff_s=8.0)
    assert c.complete(REQ).text == "4"
    assert backend.calls == 3
    assert c.sleeps == [0.5, 1.0]  # type: ignore[attr-defined]
    assert c.log.records()[0].attempts == 3


def test_retries_are_bounded_and_the_error_says_why() -> None:
    backend = ScriptedBackend(lambda r: TransientBackendError("HTTP 503: busy"))
    c = client(backend, "off", retries=2, backoff_s=1.0, max_backoff_s=1.5)
    with pytest.raises(TransientBackendError, match="gave up after 3 attempts: HTTP 503"):
        c.complete(REQ)
    assert backend.calls == 3
    assert c.sleeps == [1.0, 1.5]  # type: ignore[attr-defined]
    assert c.log.summary()["errors"] == 1


def test_permanent_errors_are_not_retried() -> None:
    backend = ScriptedBackend([BackendError("HTTP 400: bad request"), "4"])
    c = client(backend, "off")
    with pytest.raises(BackendError, match="400"):
        c.complete(REQ)
    assert backend.calls == 1


def test_a_backend_bug_is_contained_as_a_transient_error() -> None:
    backend = ScriptedBackend([ValueError("garbled"), "4"])
    assert client(backend, "off").complete(REQ).text == "4"


# --------------------------------------------------------------------------- structured answers


def test_valid_answer_first_time() -> None:
    c = client(ScriptedBackend(['{"value": 4}']), "off")
    result = c.structured(REQ, Answer)
    assert result.ok and result.value == Answer(value=4) and result.reasks == 0


def test_schema_is_sent_with_the_request() -> None:
    backend = ScriptedBackend(['{"value": 4}'])
    client(backend, "off").structured(REQ, Answer)
    sent = backend.requests[0]
    assert sent.schema is not None and sent.schema["properties"]["value"]["type"] == "integer"
    assert sent.schema_name == "Answer"


@pytest.mark.parametrize(
    ("bad", "said"),
    [
        ("", "the answer was empty"),
        ("I think it is four.", "no JSON object"),
        ('{"value": 4', "not valid JSON"),
        ('{"value": "four"}', "schema violation: value"),
        ('{"other": 1}', "schema violation: value: Field required"),
    ],
)
def test_a_bad_answer_is_reasked_with_the_error(bad: str, said: str) -> None:
    backend = ScriptedBackend([bad, '```json\n{"value": 4}\n```'])
    result = client(backend, "off").structured(REQ, Answer)
    assert result.ok and result.value == Answer(value=4) and result.reasks == 1
    reask = backend.requests[1].messages
    assert reask[-2] == Message("assistant", bad)
    assert said in reask[-1].content


def test_two_reasks_then_invalid_with_the_last_reason() -> None:
    backend = ScriptedBackend(["nope", "still no", '{"value": "x"}', '{"value": 4}'])
    c = client(backend, "off")
    result = c.structured(REQ, Answer)
    assert result.status == "invalid" and result.value is None and result.reasks == 2
    assert result.reason is not None and "schema violation" in result.reason
    assert backend.calls == 3  # one question and two re-asks, never more
    assert c.log.summary()["reasks"] == 2 and c.log.summary()["invalid_answers"] == 1


def test_a_semantic_check_can_reject_a_well_formed_answer() -> None:
    backend = ScriptedBackend(['{"value": 99}', '{"value": 4}'])
    result = client(backend, "off").structured(
        REQ, Answer, check=lambda a: None if a.value < 10 else "value must be below 10"
    )
    assert result.ok and result.reasks == 1
    assert "value must be below 10" in backend.requests[1].messages[-1].content


def test_a_failing_server_abstains_instead_of_raising() -> None:
    backend = ScriptedBackend(lambda r: TransientBackendError("HTTP 500"))
    result = client(backend, "off", retries=1).structured(REQ, Answer)
    assert result.status == "abstain" and result.reason is not None and "HTTP 500" in result.reason


def test_replay_miss_still_raises_from_structured(tmp_path: Path) -> None:
    with pytest.raises(ReplayMiss):
        client(None, "replay", tmp_path).structured(REQ, Answer)


def test_reasks_are_cached_like_any_request(tmp_path: Path) -> None:
    client(ScriptedBackend(["bad", '{"value": 4}']), "record", tmp_path).structured(REQ, Answer)
    replayed = client(None, "replay", tmp_path).structured(REQ, Answer)
    assert replayed.ok and replayed.reasks == 1
    assert len(list(tmp_path.glob("*.json"))) == 2


# --------------------------------------------------------------------------- concurrency, log


def test_concurrency_is_bounded_whoever_makes_the_calls() -> None:
    backend = ScriptedBackend(lambda r: "ok", delay_s=0.02)
    c = client(backend, "off", concurrency=2)
    requests = [Request((Message("user", f"q{i}"),)) for i in range(12)]
    assert c.map(lambda r: c.complete(r).text, requests) == ["ok"] * 12
    assert backend.max_in_flight == 2
    # Threads of the caller's own are bounded too: the semaphore lives in the wrapper.
    threads = [threading.Thread(target=c.complete, args=(r,)) for r in requests]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert backend.max_in_flight == 2


def test_map_keeps_input_order() -> None:
    c = client(ScriptedBackend(lambda r: r.messages[0].content, delay_s=0.001), "off", concurrency=4)
    requests = [Request((Message("user", str(i)),)) for i in range(20)]
    assert c.map(lambda r: c.complete(r).text, requests) == [str(i) for i in range(20)]


def test_call_log_counts_tokens_hits_and_holds_no_text(tmp_path: Path) -> None:
    c = client(ScriptedBackend(["four"]), "readwrite", tmp_path)
    c.complete(REQ)
    c.complete(REQ)
    summary = c.log.summary()
    assert summary["calls"] == 2 and summary["cache_hits"] == 1 and summary["backend_calls"] == 1
    assert summary["completion_tokens"] == 2 and summary["prompt_tokens"] > 0
    record = json.dumps([r.to_dict() for r in c.log.records()])
    assert "What is 2+2" not in record and "item-1" in record


def test_secrets_are_redacted_from_errors_and_the_log() -> None:
    secret = "sk-test-abcdef123456"
    backend = ScriptedBackend(lambda r: TransientBackendError(f"HTTP 500: key {secret} rejected"))
    c = LLMClient(backend, mode="off", retries=0, secrets=(secret,), sleep=lambda s: None)
    with pytest.raises(LLMError) as err:
        c.complete(REQ)
    assert secret not in str(err.value) and "***" in str(err.value)
    assert secret not in json.dumps([r.to_dict() for r in c.log.records()])
