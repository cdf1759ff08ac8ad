"""certify from the command line (issue 17): state that outlives a process (query counts and
cache hits reach the next tick), the gate's derived mode (``certify derive``) and certified
serving with the generic LLM grounder (``certify ask``, a scripted model)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cotaudit import cli
from cotaudit.certify.state.machine import CertState
from cotaudit.cli import llm as cli_llm
from cotaudit.llm import LLMClient, Request, ScriptedBackend

ROOT = Path(__file__).resolve().parents[2]
KB = ROOT / "examples" / "certify" / "legal_prelim.kb"
GOAL = "may_claim_preliminary_breach_liability(p1, x1)"
STORY = (
    "Chen and Zhou sign a subscription form (ren'gou shu) for a formal service contract.\n"
    "In the form the parties agree to conclude the formal service contract within thirty days.\n"
    "The form names both parties and the services, so the parties and the subject are determinable.\n"
    "At the deadline, holding the subscription form (ren'gou shu), Chen refuses without cause to "
    "conclude the main contract.\n"
)
FACTS = {
    "agrees_future_conclusion(x1)": "the parties agree to conclude the formal service contract within thirty days",
    "determinable_parties_and_subject(x1)": "the parties and the subject are determinable",
    "refuses_to_conclude_main_contract(p1, x1)": "Chen refuses without cause to conclude the main contract",
    "subscription_order_or_booking_form(x1)": "sign a subscription form (ren'gou shu)",
}
FULL = (
    "1. is_preliminary_contract(x1) <- [ji_art6] subscription_order_or_booking_form(x1), agrees_future_conclusion(x1), determinable_parties_and_subject(x1)\n"
    "2. fails_conclusion_duty(p1, x1) <- [ji_art7] #1, refuses_to_conclude_main_contract(p1, x1)\n"
    "3. may_claim_preliminary_breach_liability(p1, x1) <- [art495] #1, #2\n"
)
SKIP = (
    "1. is_preliminary_contract(x1) <- [ji_art6] subscription_order_or_booking_form(x1), agrees_future_conclusion(x1), determinable_parties_and_subject(x1)\n"
    "2. may_claim_preliminary_breach_liability(p1, x1) <- [art495] #1, refuses_to_conclude_main_contract(p1, x1)\n"
)


def _state(tmp_path: Path, capsys: pytest.CaptureFixture[str], *, facts: bool = False) -> Path:
    db = tmp_path / "s.sqlite"
    assert cli.main(["certify", "admit", "--db", str(db), str(KB)]) == 0
    for fact, quote in FACTS.items() if facts else ():
        unit = fact + "."
        assert (
            cli.main(
                ["certify", "admit", "--db", str(db), "--unit", unit, "--record", "story", "--quote", quote]
            )
            == 0
        )
    capsys.readouterr()
    return db


def _cotaudit(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cotaudit", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_query_counts_reach_a_tick_in_another_process(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _state(tmp_path, capsys, facts=True)
    for _ in range(3):  # three processes, each one query
        done = _cotaudit("certify", "query", "--db", str(db), GOAL, cwd=tmp_path)
        assert done.returncode == 0 and done.stdout.startswith("CERTIFIED"), done.stderr
    tick = _cotaudit("certify", "tick", "--db", str(db), cwd=tmp_path)
    assert tick.returncode == 0 and tick.stdout.startswith("tick 1: 1 frequencies updated"), tick.stdout
    state = CertState.open(str(db))
    try:
        assert state.freq[f"f:{GOAL.replace(' ', '')}"] > 0
        assert state.verify_log().ok and state.verify_state() == []  # the log still certifies the tables
    finally:
        state.close()
    # near miss: with nothing asked since, the next tick finds nothing new to count
    again = _cotaudit("certify", "tick", "--db", str(db), cwd=tmp_path)
    assert again.stdout.startswith("tick 2: 1 frequencies updated, 0 cache hits flushed")
    log = _cotaudit("certify", "verify-log", "--db", str(db), cwd=tmp_path)
    assert log.returncode == 0 and log.stdout.startswith("ok:"), log.stdout


def test_derive_certifies_a_stated_derivation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = _state(tmp_path, capsys, facts=True)
    (tmp_path / "full.txt").write_text(FULL)
    cert = tmp_path / "cert.json"
    assert (
        cli.main(
            [
                "certify",
                "derive",
                "--db",
                str(db),
                GOAL,
                str(tmp_path / "full.txt"),
                "--certificate",
                str(cert),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert out.startswith("CERTIFY may_claim_preliminary_breach_liability(p1,x1): derivation of depth 3")
    # the certificate goes through the independent checker, against an exported kernel
    kernel = tmp_path / "kernel.json"
    assert cli.main(["certify", "export", "--db", str(db), "-o", str(kernel)]) == 0
    assert cli.main(["certify", "recheck", str(cert), "--kernel", str(kernel)]) == 0
    capsys.readouterr()
    # near misses: a skipped step, a line that does not parse, a candidate as JSON
    (tmp_path / "skip.txt").write_text(SKIP)
    assert cli.main(["certify", "derive", "--db", str(db), GOAL, str(tmp_path / "skip.txt")]) == 1
    assert (
        "REJECT" in (line := capsys.readouterr().out) and "UNVERIFIABLE_EDGE (BODY_MISMATCH): line 2" in line
    )
    (tmp_path / "bad.txt").write_text("1. oops\n")
    assert cli.main(["certify", "derive", "--db", str(db), GOAL, str(tmp_path / "bad.txt"), "--json"]) == 1
    decision = json.loads(capsys.readouterr().out)
    assert (decision["outcome"], decision["reason"], decision["detail"]["line"]) == (
        "REJECT",
        "MALFORMED_DERIVATION",
        1,
    )
    assert cli.main(["certify", "derive", "--db", str(db), GOAL, str(cert), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["outcome"] == "CERTIFY"
    # the gate decides, it never writes
    state = CertState.open(str(db))
    try:
        assert state.cache == {} and state.verify_log().ok
    finally:
        state.close()


def _scripted(answer: str) -> Any:
    def build(args: Any, environ: Any = None) -> LLMClient:
        def reply(request: Request) -> str:
            assert "Source story:" in request.messages[0].content  # the generic grounder's prompt
            return answer

        return LLMClient(ScriptedBackend(reply), mode="off", retries=0, concurrency=1, sleep=lambda s: None)

    return build


def test_ask_serves_with_the_generic_llm_grounder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = _state(tmp_path, capsys)
    story = tmp_path / "story.txt"
    story.write_text(STORY)
    lines = [
        json.dumps({"fact": f, "quote": q, "start": STORY.find(q), "end": STORY.find(q) + len(q)})
        for f, q in FACTS.items()
    ]
    ask = [
        "certify",
        "ask",
        "--db",
        str(db),
        GOAL,
        "--question",
        "May Zhou claim liability?",
        "--record",
        f"story={story}",
    ]
    monkeypatch.setattr(cli_llm, "llm_client", _scripted("\n".join(lines)))
    assert cli.main([*ask, "--query-id", "q1"]) == 0
    assert capsys.readouterr().out.startswith(f"CERTIFIED {GOAL}: answer yes (DERIVED); certificate ")
    # near miss: the model leaves out the refusal, so the rules do not fire: a certified "no"
    monkeypatch.setattr(cli_llm, "llm_client", _scripted("\n".join(lines[:2] + lines[3:])))
    assert cli.main([*ask, "--query-id", "q2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["status"], result["answer"], result["certificate"]["kind"]) == (
        "CERTIFIED",
        "no",
        "closure",
    )
    # a quote the source does not hold fails the source check: an abstention, exit 1
    monkeypatch.setattr(
        cli_llm,
        "llm_client",
        _scripted(
            json.dumps({"fact": "agrees_future_conclusion(x1)", "quote": "never said", "start": 0, "end": 10})
        ),
    )
    assert cli.main([*ask, "--query-id", "q3"]) == 1
    assert "abstained" in capsys.readouterr().out
    assert cli.main([*ask, "--query-id", "q1"]) == 2  # a query id is used once
    assert "already served" in capsys.readouterr().err


def test_ask_without_a_model_or_record_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = _state(tmp_path, capsys)
    for name in ("COTAUDIT_LLM_BASE_URL", "COTAUDIT_LLM_MODEL", "COTAUDIT_LLM_MODE", "COTAUDIT_LLM_CACHE"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "story.txt").write_text(STORY)
    code = cli.main(
        [
            "certify",
            "ask",
            "--db",
            str(db),
            GOAL,
            "--question",
            "?",
            "--record",
            f"story={tmp_path / 'story.txt'}",
        ]
    )
    assert code == 2 and "Traceback" not in capsys.readouterr().err
    assert cli.main(["certify", "ask", "--db", str(db), GOAL, "--question", "?"]) == 2
    assert "--record" in capsys.readouterr().err
    assert (
        cli.main(
            ["certify", "ask", "--db", str(db), GOAL, "--question", "?", "--record", "x=y", "--policy", "raw"]
        )
        == 2
    )
