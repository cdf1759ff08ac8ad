"""The LLM stages (V-28 … V-36, §13.4(c)) on the shared layer, with the mock backend.

Every model answer in this file is HAND-WRITTEN (origin: handwritten) and served by
``cotaudit.llm.ScriptedBackend``; none of it is, or poses as, model output.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cotaudit import vericot
from cotaudit.frontends.vericot_llm import LLMReflector, VericotLLM
from cotaudit.llm import LLMClient, Request, ScriptedBackend
from cotaudit.vericot.config import VerifierConfig
from cotaudit.vericot.reflect import ReflectRequest, StepFeedback
from cotaudit.vericot.schema import TraceInput

from .sara_example import VOCAB, trace_13_1

ORIGIN = "handwritten"  # V-30: these answers are written by hand, never recorded from a model


def _stages(script: list[str] | Callable[[Request], str], **kw: Any) -> tuple[VericotLLM, ScriptedBackend]:
    backend = ScriptedBackend(script)
    return VericotLLM(LLMClient(backend, mode="off"), **kw), backend


def _trace(text: str) -> dict[str, Any]:
    t = trace_13_1()
    t["steps"].append({"id": "s5", "text": text})
    return t


def _cfg(stages: VericotLLM, **kw: Any) -> VerifierConfig:
    return VerifierConfig(formalizer="llm", llm=stages, **kw)


def test_13_4_c_rounds_exhausted() -> None:
    answers = [
        json.dumps({"outcome": "needs_vocabulary", "missing": ["prefers"]}),
        json.dumps({"declarations": ["(declare-fun prefers (Person Person Person) Bool)"]}),
        json.dumps({"outcome": "formula", "smt": "(assert (probably (prefers bob charlie bob)))"}),
        json.dumps({"outcome": "formula", "smt": "(assert (probably (prefers bob charlie bob)))"}),
    ]
    stages, backend = _stages(answers)
    r = vericot.verify(_trace("Bob would probably rather claim Charlie"), config=_cfg(stages))
    s5 = r.details["steps"][4]
    assert (s5["status"], s5["reason"]) == ("untranslatable", "rounds_exhausted")
    assert "unknown constant probably" in s5["detail"]
    assert backend.calls == 4  # ≤ 2 × max_rounds
    assert not any("prefers" in d for d in r.details["vocabulary"])  # nothing enters V
    assert "VC_E003" in [f.code for f in r.findings]


def test_formula_round_succeeds_and_declarations_enter_on_commit() -> None:
    answers = [
        json.dumps({"outcome": "needs_vocabulary", "missing": ["resident"]}),
        json.dumps({"declarations": ["(declare-fun resident (Person) Bool)"]}),
        json.dumps(
            {"outcome": "formula", "smt": "(assert (or (resident charlie) (not (resident charlie))))"}
        ),
        json.dumps({"outcome": "formula", "smt": "(assert (qualifies charlie bob 2023))"}),
    ]
    stages, _ = _stages(answers)
    r = vericot.verify(_trace("Charlie qualifies."), config=_cfg(stages, tautology="flag"))
    s5 = r.details["steps"][4]
    assert s5["formula"]["origin"] == "llm"
    # round 3 is a tautology (flagged) — it is still the first formula that parses
    assert s5["formula"]["smt"] == "(assert (or (resident charlie) (not (resident charlie))))"
    assert "(declare-fun resident (Person) Bool)" in r.details["vocabulary"]


def test_llm_declined() -> None:
    stages, _ = _stages([json.dumps({"outcome": "untranslatable", "reason": "modal statement"})])
    s5 = vericot.verify(_trace("Bob might."), config=_cfg(stages)).details["steps"][4]
    assert (s5["status"], s5["reason"], s5["detail"]) == ("untranslatable", "llm_declined", "modal statement")


def test_invalid_answers_fail_rounds_closed() -> None:
    stages, backend = _stages(["not json"] * 6)
    s5 = vericot.verify(_trace("x"), config=_cfg(stages)).details["steps"][4]
    assert (s5["status"], s5["reason"]) == ("untranslatable", "rounds_exhausted")
    assert backend.calls == 6  # 3 rounds × (1 call + 1 repair)


def test_replay_miss_is_unknown_llm_unavailable(tmp_path: Path) -> None:
    stages = VericotLLM(LLMClient(None, model="m", mode="replay", cache_dir=tmp_path))
    r = vericot.verify(_trace("x"), config=_cfg(stages))
    s5 = r.details["steps"][4]
    assert (s5["status"], s5["reason"]) == ("unknown", "llm_unavailable")
    assert "VC_W003" in [f.code for f in r.findings]


def test_call_budget() -> None:
    stages, _ = _stages(
        [json.dumps({"outcome": "needs_vocabulary", "missing": ["x"]})] * 10, max_calls_per_trace=1
    )
    r = vericot.verify(_trace("x"), config=_cfg(stages))
    s5 = r.details["steps"][4]
    assert (s5["status"], s5["reason"]) == ("unknown", "budget_exhausted")
    assert "VC_W003" in [f.code for f in r.findings]


def _premise_trace() -> dict[str, Any]:
    return {
        "id": "p",
        "context": {"question": "Charlie was born in 2005. Is Charlie at most 18 in 2023?"},
        "steps": [{"id": "s1", "text": "Charlie was born in 2005."}],
        "formalization": {
            "vocabulary": VOCAB,
            "steps": [{"step_id": "s1", "smt": "(assert (= (birthYear charlie) 2005))"}],
        },
    }


def _premise_script(judge_answer: str) -> Callable[[Request], str]:
    def script(request: Request) -> str:
        if request.prompt.startswith("vericot_premises"):
            return json.dumps(
                {
                    "premises": [
                        {
                            "text": "Charlie was born in 2005.",
                            "source": "context",
                            "evidence": "Charlie was born in 2005",
                            "smt": "(assert (= (birthYear charlie) 2005))",
                        }
                    ]
                }
            )
        if request.prompt.startswith("vericot_judge"):
            return judge_answer
        raise AssertionError(request.prompt)

    return script


def test_premise_generation_and_llm_judge_accept() -> None:
    accept = json.dumps(
        {
            "verdicts": [
                {
                    "premise_id": "s1_llm1",
                    "accept": True,
                    "criterion": "grounded_in_context",
                    "reason": "quoted",
                }
            ]
        }
    )
    stages, _ = _stages(_premise_script(accept))
    cfg = VerifierConfig(llm=stages, judge="llm", premise_providers=("llm",))
    s = vericot.verify(_premise_trace(), config=cfg).details["steps"][0]
    assert (s["status"], s["path"]) == ("entailed", "premises")
    assert s["premises"]["accepted"] == ["s1_llm1"]


def test_llm_judge_rejects_and_fails_closed() -> None:
    reject = json.dumps(
        {
            "verdicts": [
                {
                    "premise_id": "s1_llm1",
                    "accept": False,
                    "criterion": "grounded_in_context",
                    "reason": "not there",
                }
            ]
        }
    )
    for answer, reason in ((reject, "not there"), ("garbage", "no_verdict")):
        stages, _ = _stages(_premise_script(answer))
        cfg = VerifierConfig(llm=stages, judge="llm", premise_providers=("llm",))
        s = vericot.verify(_premise_trace(), config=cfg).details["steps"][0]
        assert (s["status"], s["reason"]) == ("ungrounded", "premise_rejected")
        assert s["premises"]["rejected"] == [{"id": "s1_llm1", "by": "judge", "reason": reason}]


def test_precheck_runs_before_the_llm_judge() -> None:
    """A context premise whose evidence is not in the context never reaches the judge."""

    def script(request: Request) -> str:
        if request.prompt.startswith("vericot_premises"):
            return json.dumps(
                {
                    "premises": [
                        {
                            "text": "Charlie was born in 2005.",
                            "source": "context",
                            "evidence": "invented quote",
                            "smt": "(assert (= (birthYear charlie) 2005))",
                        }
                    ]
                }
            )
        raise AssertionError("the judge must not be called")

    stages, _ = _stages(script)
    cfg = VerifierConfig(llm=stages, judge="llm", premise_providers=("llm",))
    s = vericot.verify(_premise_trace(), config=cfg).details["steps"][0]
    assert s["premises"]["rejected"] == [{"id": "s1_llm1", "by": "precheck", "reason": "evidence_not_found"}]


def test_premise_generation_invalid_yields_no_candidates() -> None:
    stages, _ = _stages(["nope", "nope"])
    cfg = VerifierConfig(llm=stages, premise_providers=("llm",))
    s = vericot.verify(_premise_trace(), config=cfg).details["steps"][0]
    assert (s["status"], s["reason"]) == ("ungrounded", "no_premises")


def test_llm_reflector() -> None:
    stages, _ = _stages([json.dumps({"revised_steps": ["b"], "answer": "A"}), "bad", "bad"])
    trace = TraceInput.model_validate(
        {"id": "r", "context": {"question": "q"}, "steps": [{"id": "s1", "text": "a"}]}
    )
    req = ReflectRequest(trace, ["a"], None, 1, 0, [StepFeedback(0, "ungrounded", "no_premises", "m")])
    assert LLMReflector(stages).revise(req) == (["b"], "A")
    assert LLMReflector(stages).revise(req) is None  # fail closed: reflection stops


def test_llm_reasoner_generates_a_chain() -> None:
    from cotaudit.frontends.vericot_llm import LLMReasoner
    from cotaudit.vericot.schema import Context

    stages, _ = _stages(
        [json.dumps({"steps": ["Max is a yumpus.", "So Max is a dumpus."], "answer": "A"}), "x", "x"]
    )
    assert LLMReasoner(stages).generate(Context(question="q"), ["A) True", "B) False"]) == (
        ["Max is a yumpus.", "So Max is a dumpus."],
        "A",
    )
    assert LLMReasoner(stages).generate(Context(question="q")) is None  # invalid twice: fail closed


def test_invariants_are_on_in_tests() -> None:
    assert VerifierConfig().debug_invariants is True
