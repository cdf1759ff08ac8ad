"""``POST /v1/certify/query`` with query-scoped facts (C-41, C-77, C-78): ``"facts": [{"unit",
"evidence"?}]`` checked like the admit body, bounded, and answered exactly as ``cotaudit certify
query --facts`` answers the same facts; over loopback and in process."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from cotaudit import cli
from cotaudit.certify.kb.facts import MAX_QUERY_FACTS
from cotaudit.certify.proof.recheck import recheck
from cotaudit.certify.state.machine import CertState
from cotaudit.service.certify_routes import CERTIFY_DB_ENV, query
from cotaudit.service.config import ServiceConfig, run_handler
from cotaudit.service.core import ServiceError

from .conftest import TOKEN, Server, make_certify_state, start_server, stop_server

GOAL = "may_claim_preliminary_breach_liability(p1, x1)"
FACTS = [
    {"unit": u, "evidence": {"record": "story", "quote": q}}
    for u, q in [
        ("agrees_future_conclusion(x1).", "the parties agree to conclude the formal service contract"),
        ("determinable_parties_and_subject(x1).", "the parties and the subject are determinable"),
        (
            "refuses_to_conclude_main_contract(p1, x1).",
            "Chen refuses without cause to conclude the main contract",
        ),
        ("subscription_order_or_booking_form(x1).", "sign a subscription form (ren'gou shu)"),
    ]
]
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def facts_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path]]:
    """A locked server on a legal_prelim state, and a twin state for the command line."""
    tmp = tmp_path_factory.mktemp("facts")
    state = make_certify_state(tmp / "http.sqlite")
    twin = make_certify_state(tmp / "cli.sqlite")
    srv = start_server(tmp, "--workers", "1", "--certify-db", str(state), token=TOKEN)
    yield srv, twin
    stop_server(srv)


def _error(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["error"]["code"] == code
    return str(body["error"]["message"])


def _cli(
    db: Path, facts: list[dict[str, Any]], tmp: Path, capsys: pytest.CaptureFixture[str], *extra: str
) -> Any:
    path = tmp / "facts.jsonl"
    path.write_text("".join(json.dumps(f) + "\n" for f in facts), encoding="utf-8")
    code = cli.main(["certify", "query", "--db", str(db), GOAL, "--json", "--facts", str(path), *extra])
    out = json.loads(capsys.readouterr().out)
    assert code == (0 if out["abstain_reason"] is None else 1)
    return out


def test_the_same_facts_get_the_same_answer_over_http_and_on_the_command_line(
    facts_server: tuple[Server, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server, twin = facts_server
    with server.client() as c:
        _error(c.post("/v1/certify/query", json={"goal": GOAL, "facts": FACTS}), 401, "unauthorized")

        def ask(body: dict[str, Any]) -> httpx.Response:
            response: httpx.Response = c.post("/v1/certify/query", json={"goal": GOAL, **body}, headers=AUTH)
            return response

        # 1. all four facts: a certified yes whose leaves are the query's facts
        answer = ask({"facts": FACTS})
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body == _cli(twin, FACTS, tmp_path, capsys)  # the command line, on a twin state
        assert (body["status"], body["answer"], body["answer_kind"]) == ("CERTIFIED", "yes", "DERIVED")
        assert [f["outcome"] for f in body["facts"]] == ["SOURCE_ADMIT"] * 4
        leaves = [n["leaf"] for n in body["certificate"]["nodes"] if "leaf" in n]
        assert len(leaves) == 4 and {leaf["scope"] for leaf in leaves} == {"query"}
        state = CertState.open(str(twin))
        try:
            overlay = {leaf["unit_id"]: state.units[leaf["unit_id"]].unit for leaf in leaves}
            view = state.kernel_view(body["certificate"]["kernel_version"])
            assert recheck(body["certificate"], view, overlay=overlay).ok
            assert not recheck(body["certificate"], view).ok  # the facts are not in the kernel
            assert {state.units[u].status for u in overlay} == {"expired"}
        finally:
            state.close()
        # 2. near miss: without the refusal, a certified "no"; and the facts of 1. have expired
        three = FACTS[:2] + FACTS[3:]
        body = ask({"facts": three}).json()
        assert body == _cli(twin, three, tmp_path, capsys)
        assert (body["status"], body["answer"]) == ("CERTIFIED", "no")
        kernel_only = ask({}).json()
        assert (kernel_only["answer"], kernel_only["facts"]) == ("no", [])
        assert cli.main(["certify", "query", "--db", str(twin), GOAL, "--json"]) == 0
        assert json.loads(capsys.readouterr().out) == kernel_only  # the twin keeps in step
        # 3. a fact outside the whitelist abstains, unless dropped; a bad quote abstains either way
        derived = {"unit": "is_preliminary_contract(x1).", "evidence": {"record": "story", "quote": "sign"}}
        body = ask({"facts": [derived, *FACTS]}).json()
        assert body == _cli(twin, [derived, *FACTS], tmp_path, capsys)
        assert (body["status"], body["abstain_reason"]) == ("ABSTAINED", "ADMISSION_REJECTED")
        assert body["facts"][0]["reason"] == "PREDICATE_NOT_IN_WHITELIST" and not body["facts"][0]["dropped"]
        body = ask({"facts": [derived, *FACTS], "on_reject": "drop"}).json()
        assert body == _cli(twin, [derived, *FACTS], tmp_path, capsys, "--on-reject", "drop")
        assert (body["answer"], body["flags"], body["facts"][0]["dropped"]) == ("yes", ["barrier_drop"], True)
        wrong = [*FACTS[:3], {"unit": FACTS[3]["unit"], "evidence": {"record": "story", "quote": "a lease"}}]
        for extra in ({}, {"on_reject": "drop"}):
            body = ask({"facts": wrong, **extra}).json()
            assert (body["status"], body["abstain_reason"]) == ("ABSTAINED", "SOURCE_CHECK_FAILED")
        # 4. the writer reaches the gate, and bad facts are refused with their own codes
        assert ask({"facts": FACTS, "writer": "operator"}).json()["answer"] == "yes"
        bad = ask({"facts": [{"unit": "p.", "evidnce": {}}]})
        assert "unknown key 'evidnce'" in _error(bad, 422, "bad_facts")
        unknown = ask({"facts": [{"unit": "p.", "evidence": {"record": "nosuch"}}]})
        assert "nosuch" in _error(unknown, 422, "unknown_record")
        many = ask({"facts": [{"unit": "p."}] * (MAX_QUERY_FACTS + 1)})
        assert f"the limit is {MAX_QUERY_FACTS}" in _error(many, 413, "too_many_items")
        _error(ask({"facts": FACTS, "writer": "nobody"}), 400, "bad_request")


@pytest.mark.parametrize(
    "facts",
    [
        "p(a).",
        {"unit": "p(a)."},
        ["p(a)."],
        [{}],
        [{"unit": ""}],
        [{"unit": 3}],
        [{"unit": "p(\ud800)."}],
        [{"unit": "p(a).", "extra": 1}],
        [{"unit": "p(a).", "evidence": "story"}],
        [{"unit": "p(a).", "evidence": {"quote": "x"}}],
        [{"unit": "p(a).", "evidence": {"record": "story", "quote": 3}}],
        [{"unit": "p(a).", "evidence": {"record": "story", "quote": "\udfff"}}],
        [{"unit": "p(a).", "evidence": {"record": "story", "spans": [[1]]}}],
        [{"unit": "p(a).", "evidence": {"record": "story", "spans": [[True, 2]]}}],
        [{"unit": "p(a).", "evidence": {"record": "story", "spans": [[-1, 2]]}}],
        [{"unit": "p(a).", "evidence": {"record": "story", "span": [[1, 2]]}}],
    ],
)
def test_bad_facts_are_422_before_the_state_is_opened(facts: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CERTIFY_DB_ENV, raising=False)  # not 503: the body is refused first
    with pytest.raises(ServiceError) as info:
        query({"goal": GOAL, "facts": facts})
    assert (info.value.status, info.value.code) == (422, "bad_facts")


@pytest.mark.parametrize("body", [{"writer": "nobody"}, {"writer": 3}, {"on_reject": "ignore"}])
def test_bad_fact_options_are_value_errors(body: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        query({"goal": GOAL, "facts": FACTS, **body})


def test_the_limit_is_the_serving_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert ServiceConfig().max_query_facts == MAX_QUERY_FACTS
    monkeypatch.setenv(CERTIFY_DB_ENV, str(make_certify_state(tmp_path / "s.sqlite")))
    small = ServiceConfig(max_query_facts=3)
    with pytest.raises(ServiceError) as info:
        run_handler(query, {"goal": GOAL, "facts": FACTS}, small)
    assert (info.value.status, info.value.code) == (413, "too_many_items")
    answer = run_handler(query, {"goal": GOAL, "facts": FACTS[:3]}, small)  # near miss: at the limit
    assert answer["status"] == "CERTIFIED" and answer["answer"] == "no"
    assert query({"goal": GOAL, "facts": FACTS})["answer"] == "yes"  # outside a service: the default
    with pytest.raises(ServiceError) as info:
        query({"goal": GOAL, "facts": [{"unit": "p.", "evidence": {"record": "nosuch"}}]})
    assert (info.value.status, info.value.code) == (422, "unknown_record")


def test_the_examples_in_docs_service_md_are_real(facts_server: tuple[Server, Path]) -> None:
    server, _ = facts_server
    text = (Path(__file__).resolve().parents[2] / "docs" / "service.md").read_text(encoding="utf-8")
    block = text[text.index("$ curl -s localhost:8000/v1/certify/query") :]
    block = block[: block.index("```")]
    sessions = block.split("$ curl")[1:]
    bodies = [
        json.loads(s[s.index("-d '") + 4 : s.index("}'") + 1].replace("'\"'\"'", "'")) for s in sessions
    ]
    with server.client() as c:
        answer = c.post("/v1/certify/query", json=bodies[0], headers=AUTH).json()
        assert (answer["status"], answer["answer"], answer["answer_kind"]) == ("CERTIFIED", "yes", "DERIVED")
        shown = sessions[0][sessions[0].index('"facts": [{') :]
        assert json.dumps(answer["facts"][0])[:-1] in shown.replace("\n ", " ")
        error = c.post("/v1/certify/query", json=bodies[1], headers=AUTH)
        assert error.text == sessions[1].strip().splitlines()[-1]
