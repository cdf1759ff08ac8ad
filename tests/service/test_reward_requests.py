"""``POST /v1/reward``'s new fields at the edges: every bad value is a 4xx that says what is
wrong (never a 500), a completion the worker could not score is "could not check" (null,
never 0 or 1), the token guards the route as before, and the event loop stays free while
completions are scored. The unit half checks the worker task and the read-back without HTTP."""

from __future__ import annotations

import concurrent.futures
import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.batch.slow_engine import slow_check
from tests.rewards.completions import GOOD, WRONG_QUANTITY

from cotaudit import api
from cotaudit.batch.jobs import TASK, Payload, execute, lost_report, timeout_report
from cotaudit.report.encoded import encode_report
from cotaudit.rewards import Shaping, score_completion
from cotaudit.service import reward
from cotaudit.service.reward import MAX_GOLD_CHARS, BadRequest, RewardSpec

from .conftest import TOKEN, Server


@pytest.fixture(scope="module")
def client(server: Server) -> Iterator[httpx.Client]:
    with server.client() as c:
        yield c


def _raw(client: httpx.Client, data: str | bytes, **kw: Any) -> httpx.Response:
    body = data.encode("ascii") if isinstance(data, str) else data
    return client.post("/v1/reward", content=body, headers={"content-type": "application/json"}, **kw)


def _error(response: httpx.Response, status: int, code: str, *needles: str) -> None:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code, error
    for needle in needles:
        assert needle in error["message"], error["message"]


# --------------------------------------------------------------------------- over HTTP


@pytest.mark.parametrize(
    ("body", "code", "needle"),
    [
        ('{"completions": ["x"], "gold": "18"}', "bad_gold", "gold must be a list"),
        ('{"completions": ["x"], "gold": {"0": "18"}}', "bad_gold", "a JSON object"),
        (
            '{"completions": ["x", "y", "z"], "gold": ["1", "2"]}',
            "bad_gold",
            "2 answer(s) for 3 completion(s)",
        ),
        ('{"completions": ["x"], "gold": []}', "bad_gold", "0 answer(s) for 1 completion(s)"),
        (
            '{"completions": ["x"], "gold": [true]}',
            "bad_gold",
            "gold[0] must be a string, a finite number or null",
        ),
        ('{"completions": ["x"], "gold": [["18"]]}', "bad_gold", "gold[0]"),
        ('{"completions": ["x", "y"], "gold": [null, NaN]}', "bad_gold", "gold[1] must be"),
        ('{"completions": ["x"], "gold": [Infinity]}', "bad_gold", "finite number"),
        ('{"completions": ["x"], "gold": ["\\ud800"]}', "bad_gold", "lone surrogate (U+D800)"),
        ('{"completions": ["x"], "gold": ["a\\udfff"]}', "bad_gold", "U+DFFF) at character 1"),
        ('{"completions": ["x"], "mode": "bogus"}', "bad_mode", "process, answer, process*answer"),
        ('{"completions": ["x"], "mode": 1}', "bad_mode", "got 1"),
        ('{"completions": ["x"], "mode": null}', "bad_mode", "got null"),
        ('{"completions": ["x"], "steps": "yes"}', "bad_steps", "true or false"),
        ('{"completions": ["x"], "steps": 1}', "bad_steps", "got 1"),
        ('{"completions": ["x"], "time_limit": 0}', "bad_time_limit", "above 0 and at most 2"),
        ('{"completions": ["x"], "time_limit": -1}', "bad_time_limit", "got -1"),
        ('{"completions": ["x"], "time_limit": 2.5}', "bad_time_limit", "item time limit"),
        ('{"completions": ["x"], "time_limit": true}', "bad_time_limit", "got true"),
        ('{"completions": ["x"], "time_limit": "1"}', "bad_time_limit", "got '1'"),
        ('{"completions": ["x"], "time_limit": NaN}', "bad_time_limit", "got NaN"),
        ('{"completions": ["x"], "shaping": {"pass_reward": "high"}}', "bad_shaping", "pass_reward"),
    ],
)
def test_bad_fields_are_422_with_a_clear_message(
    client: httpx.Client, body: str, code: str, needle: str
) -> None:
    _error(_raw(client, body), 422, code, needle)


def test_huge_gold_and_huge_numbers_are_refused_not_crashed(client: httpx.Client) -> None:
    long = json.dumps({"completions": ["x"], "gold": ["9" * (MAX_GOLD_CHARS + 1)]})
    _error(_raw(client, long), 422, "bad_gold", f"{MAX_GOLD_CHARS + 1} characters long", str(MAX_GOLD_CHARS))
    just_fits = json.dumps({"completions": [GOOD], "gold": ["a" * MAX_GOLD_CHARS], "mode": "answer"})
    assert _raw(client, just_fits).json()["outcomes"][0]["answer"] == "fail"
    # an integer past Python's 4,300-digit limit cannot even be parsed: a 400, never a 500
    digits = '{"completions": ["x"], "gold": [' + "7" * 5000 + "]}"
    response = _raw(client, digits)
    assert 400 <= response.status_code < 500 and "error" in response.json()
    # a gold list larger than the body limit never reaches the check
    assert (
        400 <= _raw(client, '{"completions": ["x"], "gold": ["' + "x" * (2 << 20) + '"]}').status_code < 500
    )


def test_lone_surrogates_in_completions_are_scored(client: httpx.Client) -> None:
    body = {"completions": ["\ud800\n" + WRONG_QUANTITY, "\udfff"], "gold": ["9", "1"], "mode": "answer"}
    answer = _raw(client, json.dumps(body)).json()
    assert answer["rewards"] == [1.0, 0.0] and answer["verdicts"] == ["pass", "invalid"]
    pairs = zip(body["completions"], body["gold"], strict=True)
    expected = [score_completion(c, gold=g, mode="answer").to_dict() for c, g in pairs]
    assert answer["outcomes"] == expected


def test_what_the_worker_could_not_score_is_could_not_check(client: httpx.Client) -> None:
    hang = {"completions": ["HANG"], "engine": "slow", "mode": "process*answer", "gold": ["1"], "steps": True}
    answer = client.post("/v1/reward", json=hang).json()
    assert answer == {
        "rewards": [None],
        "verdicts": ["abstain"],
        "outcomes": [
            {
                "score": None,
                "status": "unknown",
                "reason": "could not check: timed out after 2 s (the worker was stopped)",
                "process": "unknown",
            }
        ],
        "step_rewards": [None],
    }
    shaped = client.post("/v1/reward", json={**hang, "shaping": {"abstain_reward": 0.25}}).json()
    assert shaped["rewards"] == [0.25]
    died = client.post("/v1/reward", json={"completions": ["EXIT"], "engine": "slow"}).json()
    assert died == {"rewards": [None], "verdicts": ["invalid"]}  # a dead worker decided nothing
    # near miss: a quick item of the same engine is judged
    fine = client.post("/v1/reward", json={"completions": ["fine", "BAD"], "engine": "slow"}).json()
    assert fine == {"rewards": [1.0, 0.0], "verdicts": ["pass", "fail"]}


def test_time_limit_bounds_each_completion_as_in_process(client: httpx.Client) -> None:
    api.register_engine("slow", slow_check)  # as tests/rewards does: the same engine in process
    expected = score_completion("WORK 5", "slow", mode="answer", gold="1", time_limit=0.3)
    body = {"completions": ["WORK 5"], "engine": "slow", "mode": "answer", "gold": ["1"], "time_limit": 0.3}
    start = time.monotonic()
    answer = client.post("/v1/reward", json=body).json()
    assert time.monotonic() - start < 1.8  # stopped by the budget, well before the 2 s kill
    assert answer["rewards"] == [expected.reward] == [None]
    assert answer["outcomes"] == [expected.to_dict()]


def test_the_event_loop_answers_while_completions_are_scored(server: Server) -> None:
    body = {"completions": ["HANG", "SPIN"], "engine": "slow", "mode": "answer", "gold": ["1", "2"]}
    with server.client() as c, concurrent.futures.ThreadPoolExecutor(1) as pool:
        busy = pool.submit(c.post, "/v1/reward", json=body)
        time.sleep(0.3)
        start = time.monotonic()
        assert c.get("/v1/health").status_code == 200
        assert time.monotonic() - start < 1.0
        assert busy.result().json()["rewards"] == [None, None]


def test_the_token_guards_the_new_fields_as_before(locked_server: Server) -> None:
    body = {"completions": [WRONG_QUANTITY], "gold": ["18"], "mode": "process*answer", "steps": True}
    with locked_server.client() as c:
        _error(c.post("/v1/reward", json=body), 401, "unauthorized")
        _error(
            c.post("/v1/reward", json=body, headers={"Authorization": "Bearer wrong"}), 401, "unauthorized"
        )
        # a bad field behind a missing token is still a 401: nothing is read before the token
        _error(c.post("/v1/reward", json={"completions": ["x"], "gold": "18"}), 401, "unauthorized")
        ok = c.post("/v1/reward", json=body, headers={"Authorization": f"Bearer {TOKEN}"})
        assert ok.status_code == 200 and ok.json()["rewards"] == [0.0]
        assert ok.json()["outcomes"][0]["answer_extracted"] == "9"


# --------------------------------------------------------------------------- without HTTP


def test_parse_defaults_and_the_item_limit() -> None:
    spec, golds = reward.parse("te", None, count=2, max_time_limit=30.0)
    assert (
        spec == RewardSpec("te", Shaping(), "process", False, 10.0) and spec.plain and golds == [None, None]
    )
    short, _ = reward.parse("te", None, count=1, max_time_limit=2.0)
    assert short.time_limit == 2.0  # never past the worker kill
    spec, golds = reward.parse(
        "cot",
        {"abstain_reward": 0.5},
        count=1,
        gold=[18],
        mode="min",
        steps=True,
        time_limit=1,
        max_time_limit=2.0,
    )
    assert (spec.mode, spec.steps, spec.time_limit, golds) == ("min", True, 1.0, [18]) and not spec.plain
    with pytest.raises(BadRequest) as err:
        reward.parse("te", None, count=1, gold=["x" * (MAX_GOLD_CHARS + 1)], max_time_limit=2.0)
    assert err.value.code == "bad_gold"


def test_the_worker_task_is_score_completion() -> None:
    spec = RewardSpec("te", Shaping(fail_reward=-1.0), "process*answer", True, 10.0)
    payload = Payload("te", "", None, "completion-0")
    encoded = execute(payload, reward.options(spec, WRONG_QUANTITY, "#### 18"))
    assert encoded.finding_count == 0 and encoded.detail_count == 1  # small: never the findings
    verdict, outcome, steps = reward.read(encoded, spec)
    expected = score_completion(
        WRONG_QUANTITY, "te", gold="18", mode="process*answer", shaping=spec.shaping, steps=True
    )
    assert (verdict, outcome, steps) == ("pass", expected.to_dict(), expected.steps)
    assert outcome["score"] == -1.0
    # another task or none: the engine runs as before, with the other options
    assert execute(Payload("te", GOOD, None, "x")).verdict == "pass"


def test_a_task_that_raises_or_a_pool_report_is_could_not_check() -> None:
    def boom(payload: Payload, options: Any) -> Any:
        raise RuntimeError("no")

    spec = RewardSpec("te", Shaping(abstain_reward=0.5), "answer", True, 10.0)
    payload = Payload("te", "", None, "completion-0")
    crashed = execute(payload, {TASK: boom})
    assert crashed.verdict == "invalid"
    verdict, outcome, steps = reward.read(crashed, spec)
    assert verdict == "invalid" and outcome == {
        "score": 0.5,
        "status": "unknown",
        "reason": "could not check: internal error: RuntimeError: no",
        "process": "unknown",
    }
    assert steps is None
    for made in (timeout_report(payload, 2.0), lost_report(payload, "killed by signal 9")):
        _, outcome, _ = reward.read(encode_report(made), spec)
        assert outcome["status"] == "unknown" and outcome["score"] == 0.5


def test_the_plain_answer_has_two_keys() -> None:
    spec = RewardSpec("te", Shaping())
    encoded = execute(Payload("te", "", None, "c"), reward.options(spec, GOOD, None))
    assert reward.answer([encoded], spec) == {"rewards": [1.0], "verdicts": ["pass"]}
    assert list(reward.answer([encoded], RewardSpec("te", Shaping(), steps=True))) == [
        "rewards", "verdicts", "outcomes", "step_rewards",
    ]  # fmt: skip
