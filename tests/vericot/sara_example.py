"""The §13.1 trace (SARA-style) as a builder shared by the worked-example tests."""

from __future__ import annotations

import copy
from typing import Any

QUESTION = (
    "Charlie was born in 2005 and lives with his father Bob. "
    "Does Charlie qualify as Bob's child under the rule in 2023?"
)
D1 = (
    "An individual who is at most 18 years old at the end of a year and lives with a parent "
    "qualifies for that parent in that year."
)
VOCAB = (
    "(declare-sort Person 0) (declare-const charlie Person) (declare-const bob Person) "
    "(declare-fun birthYear (Person) Int) (declare-fun livesWith (Person Person) Bool) "
    "(declare-fun parentOf (Person Person) Bool) (declare-fun age (Person Int) Int) "
    "(declare-fun qualifies (Person Person Int) Bool)"
)
P4 = "(assert (forall ((x Person) (y Int)) (<= (age x y) (- y (birthYear x)))))"
P4R = (
    "(assert (forall ((x Person) (y Int)) (and (<= (- (- y (birthYear x)) 1) (age x y)) "
    "(<= (age x y) (- y (birthYear x))))))"
)
RULE = (
    "(assert (forall ((x Person) (p Person) (y Int)) (=> (and (<= (age x y) 18) (livesWith x p) "
    "(parentOf p x)) (qualifies x p y))))"
)


def _prem(pid: str, text: str, source: str, smt: str, evidence: str | None = None) -> dict[str, Any]:
    d: dict[str, Any] = {"id": pid, "text": text, "source": source, "smt": smt}
    if evidence is not None:
        d["evidence"] = evidence
    return d


def trace_13_1() -> dict[str, Any]:
    steps = [
        ("s1", "Charlie was born in 2005 and lives with Bob."),
        ("s2", "So Charlie is at most 18 in 2023."),
        ("s3", "People 18 or under who live with a parent qualify."),
        ("s4", "Therefore Charlie qualifies."),
    ]
    forms = [
        {
            "step_id": "s1",
            "smt": "(assert (and (= (birthYear charlie) 2005) (livesWith charlie bob)))",
            "premises": [
                _prem(
                    "p1",
                    "Charlie was born in 2005.",
                    "context",
                    "(assert (= (birthYear charlie) 2005))",
                    "Charlie was born in 2005",
                ),
                _prem(
                    "p2",
                    "Charlie lives with Bob.",
                    "context",
                    "(assert (livesWith charlie bob))",
                    "lives with his father Bob",
                ),
                _prem(
                    "p3",
                    "Bob is Charlie's father.",
                    "context",
                    "(assert (parentOf bob charlie))",
                    "his father Bob",
                ),
            ],
        },
        {
            "step_id": "s2",
            "smt": "(assert (<= (age charlie 2023) 18))",
            "premises": [
                _prem(
                    "p4",
                    "In year y a person is at most y minus their birth year years old.",
                    "commonsense",
                    P4,
                ),
            ],
        },
        {
            "step_id": "s3",
            "smt": RULE,
            "premises": [_prem("p5", "The qualifying-child rule of d1.", "context", RULE, D1)],
        },
        {"step_id": "s4", "smt": "(assert (qualifies charlie bob 2023))"},
    ]
    return {
        "id": "sara-13-1",
        "context": {"question": QUESTION, "documents": [{"id": "d1", "text": D1}]},
        "steps": [{"id": i, "text": t} for i, t in steps],
        "formalization": {"vocabulary": VOCAB, "steps": forms},
    }


def with_step(
    trace: dict[str, Any], step_id: str, text: str, smt: str, premises: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """``trace`` with step ``step_id`` replaced (or appended when it is new)."""
    t = copy.deepcopy(trace)
    form = {"step_id": step_id, "smt": smt, "premises": premises or []}
    ids = [s["id"] for s in t["steps"]]
    if step_id in ids:
        i = ids.index(step_id)
        t["steps"][i]["text"] = text
        t["formalization"]["steps"][i] = form
    else:
        t["steps"].append({"id": step_id, "text": text})
        t["formalization"]["steps"].append(form)
    return t


ALLOW = [P4]
