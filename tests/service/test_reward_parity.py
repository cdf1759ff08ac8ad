"""``POST /v1/reward`` gives what ``cotaudit.rewards.score_completion`` gives in process: the same
rewards, outcomes and per-step rewards for the same engine, mode, gold and shaping, over real
completions (tests/rewards/completions.py, the cot and vericot examples) and real gold answers
(plain, numbers, GSM8K ``####`` and MATH ``\\boxed`` solutions, LaTeX that math-verify compares).

A server of its own, with a 30 s item limit: a worker's first comparison imports math-verify,
which a 2 s limit could cut short (the in-process call would not be cut, and the two would
then differ for a reason that has nothing to do with the route).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.rewards.completions import FENCED, FIVE, GOOD, PROSE, THINK, WRONG, WRONG_QUANTITY, chat

from cotaudit.rewards import MODES, STEP_ENGINES, Shaping, normalise_gold, score_completion

from .conftest import Server, start_server, stop_server

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
# te's "not analysed" (TE_E014) is its only error: could not check, never 0
HUGE = "GIVEN:\n  a := 10\nGOAL: b\nEQ[e1]: b = a ** a ** a ** a = 1\nANS: b\n"
SURROGATE = "Let me think \ud800 about it.\n\n```\n" + GOOD + "```\n"

TE_COMPLETIONS: list[Any] = [*FIVE, WRONG_QUANTITY, chat(GOOD), HUGE, SURROGATE]
TE_GOLD: list[Any] = [
    "18",
    18,
    "She makes 9 * 2 = 18 dollars.\n#### 18",
    "So the answer is $\\boxed{18}$.",
    None,
    "$18",
    18.0,
    "1",
    "18",
]
SLIP = (EXAMPLES / "cot" / "bakery_slip.txt").read_text(encoding="utf-8")
BAKERY = (EXAMPLES / "cot" / "bakery.txt").read_text(encoding="utf-8")
HALF = "Step 1: Half of 3 is 3/2.\nStep 2: So the ratio is 3/2 divided by 3.\nThe answer is \\boxed{\\frac{1}{2}}"
# math-verify compares a power only where it can arm its deadline: a thread's main thread
POWER = "Step 1: Two to the tenth power is 1024.\nThe answer is \\boxed{1024}"
COT_COMPLETIONS: list[Any] = [
    SLIP,
    BAKERY,
    HALF,
    HALF,
    POWER,
    "<think>\n" + SLIP + "\n</think>\nThe answer is 70.",
    "no idea",
]
COT_GOLD: list[Any] = ["70", "#### 72", "\\frac{2}{4}", "\\sqrt{2}", "2^{10}", 70, "5"]
SHAPINGS: list[dict[str, Any] | None] = [
    None,
    {"abstain_reward": 0.25, "invalid_reward": -1, "fail_reward": -0.5},
]


@pytest.fixture(scope="module")
def parity_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = start_server(tmp_path_factory.mktemp("parity"), "--workers", "2", "--item-timeout", "30")
    yield srv
    stop_server(srv)


@pytest.fixture(scope="module")
def client(parity_server: Server) -> Iterator[httpx.Client]:
    with parity_server.client(timeout=120.0) as c:
        yield c


def _send(client: httpx.Client, body: dict[str, Any]) -> httpx.Response:
    """POST as JSON with ASCII escapes (httpx's ``json=`` cannot send a lone surrogate)."""
    data = json.dumps(body).encode("ascii")
    return client.post("/v1/reward", content=data, headers={"content-type": "application/json"})


def _post(client: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    response = _send(client, body)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def _in_process(body: dict[str, Any]) -> dict[str, Any]:
    """What the service should answer for ``body``, from score_completion in this process."""
    engine = body.get("engine", "te")
    mode = body.get("mode", "process")
    steps = body.get("steps", False)
    golds = body.get("gold") or [None] * len(body["completions"])
    shaping = Shaping.from_mapping(body.get("shaping"))
    outcomes = [
        score_completion(c, engine, gold=normalise_gold(g), mode=mode, shaping=shaping, steps=steps)
        for c, g in zip(body["completions"], golds, strict=True)
    ]
    out: dict[str, Any] = {
        "rewards": [o.reward for o in outcomes],
        "verdicts": [o.report.verdict if o.report is not None else "invalid" for o in outcomes],
    }
    if mode != "process" or steps:
        out["outcomes"] = [o.to_dict() for o in outcomes]
    if steps:
        out["step_rewards"] = [o.steps if engine in STEP_ENGINES else None for o in outcomes]
    return out


@pytest.mark.parametrize("shaping", SHAPINGS, ids=["default", "shaped"])
@pytest.mark.parametrize("mode", MODES)
def test_te_rewards_equal_the_in_process_ones(client: httpx.Client, mode: str, shaping: Any) -> None:
    body = {"completions": TE_COMPLETIONS, "gold": TE_GOLD, "mode": mode, "steps": True, "shaping": shaping}
    answer = _post(client, body)
    assert answer == _in_process(body)
    assert list(answer) == ["rewards", "verdicts", "outcomes", "step_rewards"]


@pytest.mark.parametrize("mode", MODES)
def test_cot_rewards_with_math_gold_equal_the_in_process_ones(client: httpx.Client, mode: str) -> None:
    body = {"completions": COT_COMPLETIONS, "engine": "cot", "gold": COT_GOLD, "mode": mode, "steps": True}
    assert _post(client, body) == _in_process(body)


def test_vericot_and_type6_steps(client: httpx.Client) -> None:
    vericot = [
        (EXAMPLES / "vericot" / n).read_text(encoding="utf-8")
        for n in ("A_sara_valid.vcot.json", "B_sara_contradicted.vcot.json")
    ]
    body = {"completions": vericot, "engine": "vericot", "mode": "process+answer", "steps": True}
    answer = _post(client, body)
    assert answer == _in_process(body)
    assert answer["step_rewards"][1] == [1.0, 1.0, 1.0, 1.0, 0.0]
    memories = (EXAMPLES / "type6" / "memories.t6").read_text(encoding="utf-8")
    graded = {"completions": [memories, "nothing"], "engine": "type6", "steps": True}
    answer = _post(client, graded)
    assert answer == _in_process(graded)
    assert answer["step_rewards"] == [None, None]  # type6 has no steps: null, not []


def test_the_cases_a_trainer_relies_on(client: httpx.Client) -> None:
    strict = _post(
        client,
        {"completions": [WRONG_QUANTITY, PROSE, HUGE], "gold": ["18", "18", "1"], "mode": "process*answer"},
    )
    # a clean trace that computes the wrong quantity: process pass, answer fail, product 0
    assert strict["rewards"][0] == 0.0
    assert {k: strict["outcomes"][0][k] for k in ("status", "process", "answer", "answer_extracted")} == {
        "status": "fail", "process": "pass", "answer": "fail", "answer_extracted": "9",
    }  # fmt: skip
    # no trace: invalid_reward, whatever the mode
    assert strict["rewards"][1] == 0.0 and strict["outcomes"][1]["status"] == "invalid"
    shaped = _post(client, {"completions": [PROSE], "shaping": {"invalid_reward": -1}})
    assert shaped == {"rewards": [-1.0], "verdicts": ["invalid"]}
    # could not check is null, never 0 or 1: te's "not analysed", and an answer without gold
    assert _post(client, {"completions": [HUGE]}) == {"rewards": [None], "verdicts": ["fail"]}
    no_gold = _post(client, {"completions": [GOOD], "mode": "answer"})
    assert no_gold["rewards"] == [None] and no_gold["outcomes"][0]["status"] == "unknown"
    assert no_gold["outcomes"][0]["reason"] == "no gold answer"
    cot_unknown = _post(client, {"completions": [HALF], "engine": "cot", "gold": ["0.5"], "mode": "min"})
    assert cot_unknown["rewards"] == [None]  # the steps could not be checked; the answer matches
    power = _post(client, {"completions": [POWER], "engine": "cot", "gold": ["2^{10}"], "mode": "answer"})
    assert power["rewards"] == [1.0]  # compared by math-verify in the worker, not given up on


def test_process_mode_answers_as_before_byte_for_byte(client: httpx.Client) -> None:
    plain = {"completions": [GOOD, WRONG, FENCED, THINK, PROSE]}
    expected = b'{"rewards":[1.0,0.0,1.0,1.0,0.0],"verdicts":["pass","fail","pass","pass","invalid"]}'
    assert client.post("/v1/reward", json=plain).content == expected
    # explicit defaults, and gold given for a mode that does not read it, answer the same
    same = {**plain, "mode": "process", "steps": False, "gold": ["18"] * 5, "engine": "te"}
    assert client.post("/v1/reward", json=same).content == expected


def test_the_same_request_gives_the_same_bytes(client: httpx.Client) -> None:
    body = {"completions": TE_COMPLETIONS, "gold": TE_GOLD, "mode": "process+answer", "steps": True}
    first = _send(client, body).content
    assert all(_send(client, body).content == first for _ in range(2))


def test_the_example_in_docs_service_md_is_the_real_answer(client: httpx.Client) -> None:
    text = (ROOT / "docs" / "service.md").read_text(encoding="utf-8")
    block = text[text.index("curl -s localhost:8000/v1/reward") :]
    block = block[: block.index("```")]
    body = json.loads(block[block.index("-d '") + 4 : block.index("}'") + 1])
    quoted = [ln.strip()[1:].strip() for ln in block.splitlines() if ln.strip().startswith("#")]
    assert _send(client, body).content == "".join(quoted).encode()
