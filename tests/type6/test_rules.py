"""Every event code: a firing case and a near-miss (Y-104), plus the finer semantics of §2-§7.

Each case is a trace written one statement per list item; ``fires`` is CODE@stmt/prop as in
``Type6Result.at()``. The near-miss differs minimally and must not produce the code.
"""

from __future__ import annotations

import pytest

from cotaudit import type6

Q = "T q : Q"
A = "T THEN a : A"


def run(*lines: str, **config: object) -> type6.Type6Result:
    return type6.verify("\n".join(lines) + "\n", type6.Config(**config))  # type: ignore[arg-type]


# code -> (firing trace, expected CODE@stmt/prop, near-miss trace)
CASES: dict[str, tuple[list[str], str, list[str]]] = {
    "T6_H01": ([Q, "T K p1 : x", "F K p1 : y", "F THEN a : z"], "T6_H01@3/p1",
               [Q, "T K p1 : x", "T K p1 : y", A]),
    "T6_H02": ([Q, "T p1 : x", "F THEN a : z"], "T6_H02@3/a", [Q, "T p1 : x", A]),
    "T6_H03": ([Q, "Uc B p1 : x", "T p2 : y", A], "T6_H03@2/p1", [Q, "Uc p1 : x", "T p2 : y", A]),
    "T6_H04": ([Q, "Uk K p1 : x", "T p2 : y", A], "T6_H04@2/p1", [Q, "Uk B p1 : x", "T p2 : y", A]),
    "T6_H05": ([Q, "T p1 : x", "T a : z"], "T6_H05@-/a", [Q, "T p1 : x", A]),
    "T6_S01": ([Q, "T B p1 : x", "F B p1 : y", "F THEN a : z"], "T6_S01@3/p1",
               [Q, "T B p1 : x", "T B p1 : y", A]),
    "T6_S02": ([Q, "T p1 : x", "F p1 : y", "F THEN a : z"], "T6_S02@3/p1",
               [Q, "T p1 : x", "Uk p1 : y", "T p2 : w", A]),
    "T6_S03": ([Q, "T K p1 : x", "T p2 : w", "T B p1 : y", A], "T6_S03@4/p1",
               [Q, "T K p1 : x", "T p2 : w", "T THEN B p1 : y", A]),
    "T6_S04": ([Q, "T B p1 : x", "F K p1 : y", "F THEN a : z"], "T6_S04@3/p1",
               [Q, "T B p1 : x", "T K p1 : y", A]),
    "T6_S05": ([Q, "T p1 : x", "T p2 : y", "F p1 : w", "T p3 : v", A], "T6_S05@-/p1",
               [Q, "T p1 : x", "T p2 : y", "T p1 : w", "T p3 : v", A]),
    "T6_R01": ([Q, "T p1 : x", "T ? p1 : y", A], "T6_R01@3/p1", [Q, "T p1 : x", "T ? p1 : y", "T K p1 : z", A]),
    "T6_R02": ([Q, "Uk p1 : x", A], "T6_R02@2/p1", [Q, "Uk p1 : x", "T K p1 : y", A]),
    "T6_Q01": ([Q, "T p1 : x", "T p1 : y", A], "T6_Q01@3/p1", [Q, "T p1 : x", "T K p1 : y", A]),
    "T6_Q02": ([Q, "T K p1 : x", "T K ? p1 : y", "T K p1 : z", A], "T6_Q02@3/p1",
               [Q, "T B p1 : x", "T K ? p1 : y", "T K p1 : z", A]),
    "T6_Q03": ([Q, "T B p1 : x", "T B ? p1 : y", "T B p1 : z", A], "T6_Q03@3/p1",
               [Q, "T K p1 : x", "T B ? p1 : y", "T K p1 : z", A]),
    "T6_Q04": ([Q, "Uk p1 : x", "T THEN a : z"], "T6_Q04@3/a", [Q, "Uk p1 : x", "Uk THEN a : z"]),
    "T6_Q05": ([Q, "T p1 : x", "T OR NOT p2 : y", A], "T6_Q05@3/p2", [Q, "T p1 : x", "T OR K NOT p2 : y", A]),
    "T6_D01": ([Q, "T IF p1 : x", "Uk R : y", "T p2 : z", A], "T6_D01@3/p1",
               [Q, "T IF p1 : x", "T THEN p2 : z", "Uk R : y", "T p3 : w", A]),
    "T6_D02": ([Q, "T p1 : x", "T p2 : y", "Uk p1 : w", "T p3 : v", A], "T6_D02@-/p1",
               [Q, "T p1 : x", "T p2 : y", "T p1 : w", "T p3 : v", A]),
    "T6_I01": ([Q, "T K p1 : x", "Uk R : y", "F p2 : z", "F THEN p1 : w", "F THEN a : v"], "T6_I01@5/p1",
               [Q, "T K p1 : x", "F p2 : z", "F THEN p1 : w", "F THEN a : v"]),
    "T6_I02": ([Q, "T p1 : x", "Uk THEN a : z"], "T6_I02@3/a", [Q, "Uk p1 : x", "Uk THEN a : z"]),
    "T6_W01": ([Q, "T PERHAPS p1 : x", A], "T6_W01@2/p1", [Q, "T p1 : x", A]),
    "T6_W02": (["T p1 : x", A], "T6_W02@-/p1", [Q, "T p1 : x", A]),
    "T6_W03": ([Q, "T p1 : x", "T THEN p2 : y"], "T6_W03@-/p2", [Q, "T p1 : x", "T THEN a : y"]),
    "T6_W04": ([Q, "T p1 : x", "T OR : y", A], "T6_W04@3/-", [Q, "T p1 : x", "T OR p2 : y", A]),
    "T6_W05": ([Q, "T p1 : x", "T B : y", A], "T6_W05@3/-", [Q, "T p1 : x", "Uk N : y", A]),
    "T6_W06": ([Q, "Uk R : x", "T THEN p1 : y", A], "T6_W06@3/p1", [Q, "T p0 : x", "T THEN p1 : y", A]),
    "T6_W07": ([Q, "T p1 : x", "T p2 : y", "T p1 : x", "T p2 : y", "T p1 : x", A], "T6_W07@-/-",
               [Q, "T p1 : x", "T p2 : y", "T p1 : x", A]),
    "T6_W08": (["T a : x"], "T6_W08@-/-", ["T p1 : x", "T THEN a : y"]),
    "T6_W09": ([Q, "T p1 : x", "T THEN p2 : y", "T THEN p3 : z", "T K p3 : w", "T p9 : v", "T B p3 : u", A],
               "T6_W09@7/p3",
               [Q, "T p1 : x", "T THEN p2 : y", "T THEN p3 : z", "T K p3 : w", "T p9 : v", "T B p3 : u", A]),
}  # fmt: skip
CONFIG: dict[str, dict[str, object]] = {"T6_W07": {"max_paths": 3}, "T6_W09": {"max_upstream_visits": 1}}
NEAR_MISS_CONFIG: dict[str, dict[str, object]] = {"T6_W09": {"max_upstream_visits": 2}}


@pytest.mark.parametrize("code", sorted(CASES))
def test_fires(code: str) -> None:
    lines, expected, _ = CASES[code]
    assert expected in run(*lines, **CONFIG.get(code, {})).at()


@pytest.mark.parametrize("code", sorted(CASES))
def test_near_miss(code: str) -> None:
    _, _, lines = CASES[code]
    config = NEAR_MISS_CONFIG.get(code, CONFIG.get(code, {}))
    assert code not in {e["code"] for e in run(*lines, **config).events}


def test_catalogue_is_covered() -> None:
    from cotaudit.type6.events import CATALOGUE

    assert set(CASES) == set(CATALOGUE)


# --------------------------------------------------------------------------- finer semantics


def test_event_order_within_a_statement() -> None:
    """Y-56: W01, D01(R), W04/W05, D01(IF), H03/H04, Y-43, Q01, Q02/Q03, Q05, W06, I02, H02/Q04."""
    r = run(Q, "T IF p0 : x", "Uc IF MAYBE R K p1 : y", "Uc THEN p1 : z", A)
    assert r.at()[:3] == ["T6_W01@3/p1", "T6_D01@3/p0", "T6_H03@3/p1"]
    assert r.events[1]["data"]["closed_by"] == "R"
    r = run(Q, "T IF p0 : x", "Uk IF K p1 : y", "T THEN a : z")
    assert r.at()[:2] == ["T6_D01@3/p0", "T6_H04@3/p1"]
    r = run(Q, "T K p1 : x", "F NOT THEN K p1 : y", "F THEN a : z")
    codes = [e["code"] for e in r.events if e["stmt"] == 3]
    assert codes.index("T6_Q05") < codes.index("T6_H02")


def test_end_of_trace_d01_sorts_after_statement_events() -> None:
    r = run(Q, "T p1 : x", "T THEN a : y", "T IF p2 : z", "T PERHAPS p3 : w")
    assert r.at() == ["T6_W01@5/p3", "T6_D01@5/p2"]
    assert r.events[1]["data"] == {"opened_at": 4, "closed_by": "end"}


def test_pins_cascade_lowest_id_first() -> None:
    r = run(Q, "Uk p1 : x", "Uk THEN p2 : y", "Uk THEN p3 : z", "T K p1 : w", A)
    assert r.at() == ["T6_I02@5/p2", "T6_I02@5/p3"]
    assert [e["constraint"] for e in r.events] == [1, 2]


def test_conflict_logged_once_while_stuck() -> None:
    r = run(Q, "T p1 : x", "T THEN p2 : y", "F p2 : z", "T p3 : w", "F p2 : v", "F THEN a : u")
    assert [e for e in r.at() if e.startswith("T6_H02")] == ["T6_H02@4/p2"]


def test_agent_wins_conflict_does_not_change_state() -> None:
    r = run(Q, "T p1 : x", "F THEN a : y")
    state = {s["prop"]: s["tau"] for s in r.document["sequential"]["final_state"]}
    assert state["a"] == "F"


def test_licensing_needs_both_structure_and_derivation() -> None:
    only_r = run(Q, "T K p1 : x", "Uk R : y", "F K p1 : z", "F THEN a : w")
    assert "T6_H01@4/p1" in only_r.at()
    both = run(Q, "T K p1 : x", "Uk R : y", "F p2 : v", "F THEN K p1 : z", "F THEN a : w")
    assert "T6_I01@5/p1" in both.at()


def test_own_jump_does_not_license_but_r_in_own_statement_does() -> None:
    own_jump = run(Q, "T K p1 : x", "F p2 : v", "F THEN K p1 : z", "F THEN a : w")
    assert "T6_H01@4/p1" in own_jump.at()
    own_r = run(Q, "T K p1 : x", "F p2 : v", "F R p3 : u", "F THEN K p1 : z", "F THEN a : w")
    assert "T6_I01@5/p1" in own_r.at()


def test_redundancy_ignores_propositionless_statements_between() -> None:
    assert "T6_Q01@4/p1" in run(Q, "T K p1 : x", "T : hmm", "T K p1 : y", A).at()
    assert "T6_Q01@4/p1" not in run(Q, "T K p1 : x", "T p2 : hmm", "T K p1 : y", A).at()


def test_anchor_polarity_and_then_after_then() -> None:
    r = run(Q, "T p1 : x", "T THEN p2 : y", "T THEN p3 : z", A)
    formulas = [c["formula"] for c in r.document["sequential"]["constraints"]]
    assert formulas == ["p2 == p1", "p3 == p2", "a == p3"]
    r = run(Q, "T NOT p1 : x", "T THEN a : y")
    assert r.document["sequential"]["constraints"][0]["formula"] == "a == !p1" and r.events == []
    assert run(Q, "T NOT p1 : x", "F THEN a : y").at() == ["T6_H02@3/a"]


def test_implication_formula_and_statuses() -> None:
    r = run(Q, "Uk IF p9 : x", "Uk OR p10 : y", "T AND p11 : z", "T THEN NOT a : w")
    (c,) = r.document["sequential"]["constraints"]
    assert c["formula"] == "p9 | p10 & p11 -> !a" and c["status"] == "inactive" and c["forced"] is None


def test_residual_snapshot_uses_last_sink_statement() -> None:
    r = run(Q, "Uk p1 : x", A, "T K p1 : y", "T THEN a : z")
    assert "T6_R02@2/p1" not in r.at()


def test_residual_provenance_counts_pins_and_doubt() -> None:
    r = run(Q, "Uk p1 : x", "T ? p2 : y", "T THEN a : z")
    assert "T6_R01@3/p2" in r.at() and "T6_R02@2/p1" in r.at()


def test_scores_weights_and_strict() -> None:
    r = run(Q, "T p1 : x", "T p1 : y", A, weights={"quality": 1.0})
    assert r.scores == {"strict": 4.0, "graded": 4.0, "proportional": 4.0}
    r = run(Q, "T p1 : x", "F THEN a : y", score="strict")
    assert r.score == 0.0 and r.scores["graded"] == 4.0  # type: ignore[index]


def test_path_modes() -> None:
    lines = (Q, "T p1 : x", "T p2 : y", "T p1 : x", "T p2 : y", "T p1 : x", A)
    assert run(*lines).summary["paths"]["mode"] == "exhaustive"
    r = run(*lines, max_paths=2, path_mode="enumerate")
    assert r.summary["paths"]["mode"] == "truncated" and r.summary["paths"]["count"] == 2
    w07 = r.events[-1]
    assert w07["code"] == "T6_W07" and w07["data"] == {
        "mode": "truncated",
        "found": 2,
        "truncated": True,
        "budget_exhausted": False,
    }
    r = run(*lines, path_mode="sample", samples=3)
    assert r.summary["paths"]["mode"] == "sampled" and r.events[-1]["data"]["truncated"] is False
    r = run(*lines, path_mode="off")
    assert r.summary["paths"]["mode"] == "off" and r.at()[-1] == "T6_W08@-/-"
    r = run(*lines, max_expansions=3)
    assert r.summary["paths"]["mode"] == "sampled" and r.events[-1]["data"]["budget_exhausted"] is True
    assert run("T a : x").summary["paths"]["mode"] == "skipped"


def test_path_detail_limit() -> None:
    r = run(Q, "T p1 : x", "T p2 : y", "T p1 : x", A, path_detail_limit=1)
    per_path = r.document["per_path"]
    assert per_path["count"] == 2 and per_path["listed"] == 1 and len(per_path["paths"]) == 1
    assert r.document["coherence"]["n_paths"] == 2


def test_no_paths_gives_null_criteria_and_graded_proportional() -> None:
    r = run("T a : x")
    assert r.document["coherence"]["n_paths"] == 0
    assert r.document["coherence"]["criteria"]["length"] == {
        "min": None,
        "max": None,
        "mean": None,
        "median": None,
    }
