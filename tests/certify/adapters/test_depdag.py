"""The dependency-DAG adapter (certify.md §13.4, C-106 … C-107; X-17)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cotaudit.certify.adapters import depdag
from cotaudit.certify.proof.recheck import recheck
from cotaudit.certify.serve.serving import serve
from cotaudit.certify.serve.votes import ParserGrounder, ProposedFact, QueryInput
from cotaudit.certify.state.query import AbstainReason, ServeStatus

X17 = [
    {"id": "t0", "proofs": []},
    {"id": "t1", "proofs": [["t0"]]},
    {"id": "t2", "proofs": [["t1"]]},
    {"id": "t3", "proofs": [["t1", "t2"]]},
    {"id": "t4", "proofs": [["t3", "t9"]]},
    {"id": "t9", "proofs": [], "axiom": False},
]
DATA = Path(os.environ.get("COTAUDIT_DATA", Path(__file__).resolve().parents[4] / "shared" / "data"))
QL = DATA / "proofdag" / "metamath" / "ql_dag.json"


def ask(state, lib, target: str, premises: list[str], qid: str | None = None):  # type: ignore[no-untyped-def]
    qid = qid or f"q{target}-{'-'.join(premises)}"
    grounder = ParserGrounder(lambda q: [ProposedFact(f, ev) for f, ev in depdag.premise_facts(premises)])
    r = serve(state, QueryInput(qid, "premises", f"derivable({target})", "yesno"), grounder)
    if r.certificate is not None:
        assert recheck(r.certificate, state.kernel_view(), overlay=r.overlay).ok
    return r


def test_x17_worked_example() -> None:
    lib = depdag.parse_library(json.dumps(x) for x in X17)
    state = depdag.library_state(lib)
    r = ask(state, lib, "t3", ["t0"])
    assert (r.status, r.answer, r.certificate["depth"]) == (ServeStatus.CERTIFIED, "yes", 4)  # type: ignore[index]
    assert ask(state, lib, "t4", ["t0"]).answer == "no"  # t9 underivable
    r = ask(state, lib, "t4", ["t0", "t9"])
    assert (r.answer, r.certificate["depth"]) == ("yes", 5)  # type: ignore[index]
    r = ask(state, lib, "t3", ["t2"])  # mid-link break: t1 missing
    assert (r.answer, r.certificate["kind"]) == ("no", "closure")  # type: ignore[index]
    r = ask(state, lib, "t3", ["t0", "t77"])
    assert (r.status, r.abstain_reason) == (ServeStatus.ABSTAINED, AbstainReason.SOURCE_CHECK_FAILED)
    assert any(d.reason == "UNSUPPORTED_BY_SOURCE" for d in r.gate_decisions)


def test_library_input_is_validated() -> None:
    for bad in [
        '{"id": "T1"}',
        '{"id": "t1", "proofs": [["t2"]]}',
        '{"id": "t1", "proofs": [[]]}',
        "x",
        '{"id": "t1"}\n{"id": "t1"}',
        '{"id": "t1", "proofs": "t2"}',
    ]:
        with pytest.raises(ValueError):
            depdag.parse_library(bad.splitlines())


def test_bfs_and_generator_agree_with_certified_answers() -> None:
    rows = [{"id": f"t{i}", "proofs": []} for i in range(6)]
    rows += [
        {"id": "t6", "proofs": [["t0", "t1"]]},
        {"id": "t7", "proofs": [["t2", "t6"], ["t3", "t4"]]},
        {"id": "t8", "proofs": [["t7", "t5"]]},
        {"id": "t9", "proofs": [["t8", "t6"]]},
    ]
    lib = depdag.parse_library(json.dumps(x) for x in rows)
    assert depdag.bfs_derivable(lib, ["t3", "t4", "t5"]) >= {"t7", "t8"}
    tasks = depdag.generate_tasks(lib, n=8, depths=(1, 2), seed=1)
    assert tasks and tasks == depdag.generate_tasks(lib, n=8, depths=(1, 2), seed=1)
    state = depdag.library_state(lib)
    for t in tasks:
        r = ask(state, lib, t.target, list(t.premises), t.task_id)
        bfs = "yes" if t.target in depdag.bfs_derivable(lib, t.premises) else "no"
        assert r.answer == t.gold == bfs


@pytest.mark.skipif(not QL.is_file(), reason=f"Metamath DAG not found at {QL}")
def test_metamath_ql_tasks_agree_with_bfs() -> None:
    lib = depdag.from_metamath(QL)
    assert len(lib.order) == 48 + 1140
    tasks = depdag.generate_tasks(lib, n=20, depths=(2, 3, 4), seed=0)
    assert len(tasks) == 20
    state = depdag.library_state(lib)
    for t in tasks:
        r = ask(state, lib, t.target, list(t.premises), t.task_id)
        assert r.status is ServeStatus.CERTIFIED and r.answer == t.gold, t.task_id
