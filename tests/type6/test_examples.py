"""The spec's golden examples (§16, Y-101..Y-104): exact events, scores, graph and paths.

Each example and each near-miss/variant is a file in examples/type6/. The expectations below are
transcribed from type6.md; the golden R-1 reports in tests/type6/golden/ pin every other byte.
Regenerate them with ``COTAUDIT_REGEN_GOLDEN=1 pytest tests/type6/test_examples.py`` and review
the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from cotaudit import type6
from cotaudit.type6.result import CRITERIA

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "type6"
GOLDEN = Path(__file__).parent / "golden"

# name -> (events as CODE@stmt/prop in canonical order, hard_fail, graded, strict, proportional)
EXPECTED: dict[str, tuple[list[str], bool, float, float, float]] = {
    "memories": (["T6_H01@2/p1", "T6_Q04@4/a", "T6_W02@-/p1", "T6_R02@3/p2"], True, 2.75, 0, 2.75),
    "chinese_nation": (["T6_D01@8/p9", "T6_R02@2/p9", "T6_R02@3/p10"], False, 3.5, 3.5, 3.5),
    "G03_derived_contradiction": (["T6_I02@4/p3", "T6_H02@5/a"], True, 4.0, 0, 4.0),
    "G03_nearmiss": (["T6_I02@4/p3"], False, 5, 5, 5),
    "G04_licensed_revision": (["T6_I01@5/p1"], False, 5, 5, 5),
    "G04_nearmiss": (["T6_H01@6/p1"], True, 4.0, 0, 4.0),
    "G05_bb_conflict": (["T6_S01@4/p1"], False, 4.5, 4.5, 4.5),
    "G05_nearmiss": ([], False, 5, 5, 5),
    "G06_modal_mismatch": (["T6_H04@2/p1", "T6_R02@2/p1"], True, 3.5, 0, 3.5),
    "G06_nearmiss_B": (["T6_R02@2/p1"], False, 4.5, 4.5, 4.5),
    "G06_variant_Uc_B": (["T6_H03@2/p1"], True, 4.0, 0, 4.0),
    "G07_reasoning_avoidance": (["T6_H05@-/a"], True, 0, 0, 0),
    "G07_nearmiss": ([], False, 5, 5, 5),
    "G08_modal_shift": (["T6_S04@4/p1"], False, 4.5, 4.5, 4.5),
    "G08_nearmiss": ([], False, 5, 5, 5),
    "G09_redundant": (["T6_Q01@4/p1"], False, 4.75, 4.75, 4.75),
    "G09_nearmiss": ([], False, 5, 5, 5),
    "G10_negated_connective": (["T6_Q05@3/p2"], False, 4.75, 4.75, 4.75),
    "G10_not_before": (["T6_Q05@3/p2"], False, 4.75, 4.75, 4.75),
    "G10_nearmiss": ([], False, 5, 5, 5),
    "G11_unverifiable": (["T6_Q04@3/a", "T6_R02@2/p1"], True, 3.75, 0, 3.75),
    "G11_variant_if": (["T6_R02@2/p1"], True, 4.0, 0, 4.0),
    "G12_doubt_suffix": (["T6_R01@3/p1"], True, 4.0, 0, 4.5),
    "G13_downgrade": (["T6_S03@4/p1"], False, 4.5, 4.5, 4.5),
    "G14_self_questioned_B": (["T6_Q03@3/p1", "T6_R01@3/p1"], True, 3.75, 0, 4.25),
    "G14_self_questioned_K": (["T6_Q02@3/p1", "T6_R01@3/p1"], True, 3.75, 0, 4.25),
    "G15_disagreement": (["T6_S02@4/p1", "T6_S05@-/p1"], False, 4.0, 4.0, 4.0),
    "G15_variant_uk": (["T6_R02@4/p1", "T6_D02@-/p1"], False, 4.5, 4.5, 4.75),
    "G16_second_if": (["T6_D01@3/p1"], False, 4.5, 4.5, 4.5),
    "G17_unknown_token": (["T6_W01@2/p1"], False, 5, 5, 5),
}


def load(name: str) -> str:
    return (EXAMPLES / f"{name}.t6").read_text(encoding="utf-8")


def result(name: str) -> type6.Type6Result:
    return type6.verify(type6.parse_t6(load(name), name))


def event(r: type6.Type6Result, code: str) -> dict[str, Any]:
    return next(e for e in r.events if e["code"] == code)


def test_fixture_set_is_complete() -> None:
    assert sorted(p.stem for p in EXAMPLES.glob("*.t6")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_events_and_scores(name: str) -> None:
    events, hard, graded, strict, proportional = EXPECTED[name]
    r = result(name)
    assert r.at() == events
    assert r.hard_fail is hard
    assert r.scores == {"strict": strict, "graded": graded, "proportional": proportional}
    assert r.score == graded
    assert [e["id"] for e in r.events] == list(range(1, len(events) + 1))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_golden_report(name: str) -> None:
    report = type6.check(load(name), path=f"examples/type6/{name}.t6", item_id=name)
    produced = json.dumps(report.to_dict(timing=False), indent=1, ensure_ascii=False) + "\n"
    golden = GOLDEN / f"{name}.json"
    if os.environ.get("COTAUDIT_REGEN_GOLDEN") == "1":
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(produced, encoding="utf-8")
    assert golden.exists(), f"missing golden {golden}; run with COTAUDIT_REGEN_GOLDEN=1"
    assert produced == golden.read_text(encoding="utf-8")


def test_every_code_but_w03_to_w08_fires_in_a_golden() -> None:
    """Y-104."""
    fired = {e["code"] for name in EXPECTED for e in result(name).events}
    # W03..W08 are exempt (Y-104); W09 is cotaudit's extension, not in the spec's catalogue.
    expected = {c for c in type6_codes() if c not in {f"T6_W0{k}" for k in range(3, 10)}}
    assert expected <= fired


def type6_codes() -> list[str]:
    from cotaudit.type6.events import CATALOGUE

    return list(CATALOGUE)


# --------------------------------------------------------------------------- §16.1 memories


def test_memories_details() -> None:
    r = result("memories")
    h01 = event(r, "T6_H01")
    assert h01["data"] == {"prev_stmt": 1, "prev_kind": "K", "prev_value": "T", "kind": "K", "value": "F"}
    q04 = event(r, "T6_Q04")
    assert q04["constraint"] == 1
    assert event(r, "T6_R02")["data"] == {"elevated": True} and event(r, "T6_R02")["severity"] == "hard"
    s = r.summary
    assert s["chain"] == {
        "propositions": ["p2", "a"],
        "length": 2,
        "on_chain_fraction": 0.5,
        "elevated_residuals": 1,
    }
    assert r.document["sequential"]["final_state"] == [
        {"prop": "p1", "tau": "F", "sigma": "K", "delta": 0},
        {"prop": "p2", "tau": "Uk", "sigma": None, "delta": 0},
        {"prop": "a", "tau": "F", "sigma": None, "delta": 0},
    ]
    edges = [
        (e["src"], e["dst"], e["label"], e["kind"], e["stmt"], e["revisit"])
        for e in r.document["graph"]["edges"]
    ]
    assert edges == [
        ("_b1", "p1", "K", "logical", 1, False),
        ("p1", "_b2", None, "jump", 2, False),
        ("_b2", "p1", "NOT K", "logical", 2, True),
        ("p1", "p2", None, "gap", 3, False),
        ("p2", "a", "THEN", "logical", 4, False),
    ]
    paths = r.document["per_path"]["paths"]
    assert [p["edges"] for p in paths] == [[2, 3, 4, 5], [4, 5]]
    assert [p["coherent"] for p in paths] == [False, False]
    constraint = r.document["sequential"]["constraints"][0]
    assert constraint["formula"] == "a == p2" and constraint["status"] == "unverifiable"


# --------------------------------------------------------------------------- §16.2 Chinese Nation


def test_chinese_nation_details() -> None:
    r = result("chinese_nation")
    d01 = event(r, "T6_D01")
    assert (d01["stmt"], d01["line"], d01["prop"], d01["data"]) == (
        8,
        9,
        "p9",
        {"opened_at": 2, "closed_by": "R"},
    )
    assert d01["message"] == "IF opened at statement 2 was closed by R without THEN"
    assert r.events[1]["message"] == "p9 is Uk when the trace concludes (off the implication chain)"
    assert [e["severity"] for e in r.events] == ["structural", "soft", "soft"]
    edges = [(e["src"], e["dst"], e["label"], e["kind"], e["stmt"]) for e in r.document["graph"]["edges"]]
    assert edges == [
        ("q", "p9", "IF", "logical", 2),
        ("p9", "p10", "OR", "logical", 3),
        ("p10", "p11", "AND", "logical", 4),
        ("p11", "_b1", None, "gap", 5),
        ("_b1", "_b2", "N", "meander", 5),
        ("_b2", "p12", "K", "logical", 6),
        ("p12", "_b3", None, "gap", 7),
        ("_b3", "p13", "B", "logical", 7),
        ("p13", "_b4", None, "gap", 8),
        ("_b4", "_b5", None, "gap", 9),
        ("_b5", "_b6", "N", "meander", 9),
        ("_b4", "p14", "R", "loopback", 10),
        ("_b6", "p14", None, "jump", 10),
        ("p14", "p15", "AND", "logical", 11),
        ("p15", "a", "THEN", "logical", 12),
    ]
    per_path = r.document["per_path"]
    p1, p2 = per_path["paths"]
    assert p1["edges"] == [*range(1, 12), 13, 14, 15] and p1["statements"] == list(range(1, 13))
    assert p2["edges"] == [*range(1, 10), 12, 14, 15] and 9 not in p2["statements"]
    assert p1["nodes"] == [
        "q", "p9", "p10", "p11", "_b1", "_b2", "p12", "_b3", "p13", "_b4", "_b5", "_b6", "p14", "p15", "a",
    ]  # fmt: skip
    assert all(p["coherent"] and p["consistent"] and p["score"] == 3.5 for p in (p1, p2))
    assert p1["events"] == [1] and p1["chain"] == ["p14", "p15", "a"]
    assert p1["residuals"] == [
        {"code": "T6_R02", "prop": "p9", "elevated": False},
        {"code": "T6_R02", "prop": "p10", "elevated": False},
    ]
    assert p1["terminal"] == {
        "q": "T", "p9": "Uk", "p10": "Uk", "p11": "T", "p12": "F", "p13": "F", "p14": "T", "p15": "T", "a": "T",
    }  # fmt: skip
    (constraint,) = r.document["sequential"]["constraints"]
    assert constraint == {
        "id": 1,
        "stmt": 12,
        "form": "identity",
        "target": "a",
        "target_negated": False,
        "operands": [
            {"prop": "p14", "join": "seed", "negated": False},
            {"prop": "p15", "join": "AND", "negated": False},
        ],
        "formula": "a == p14 & p15",
        "status": "consistent",
        "forced": "T",
        "holds": "T",
    }
    s = r.summary
    assert s["chain"] == {
        "propositions": ["p14", "p15", "a"],
        "length": 3,
        "on_chain_fraction": 0.25,
        "elevated_residuals": 0,
    }
    assert s["paths"] == {"mode": "exhaustive", "count": 2, "coherent": 2, "consistent": 2, "complete": True}
    assert s["event_counts"] == {"T6_D01": 1, "T6_R02": 2}
    criteria = r.document["coherence"]["criteria"]
    assert criteria["length"] == {"min": 12, "max": 14, "mean": 13.0, "median": 13.0}
    assert criteria["loopback"] == {"min": 0, "max": 1, "mean": 0.5, "median": 0.5}
    assert criteria["score"] == {"min": 3.5, "max": 3.5, "mean": 3.5, "median": 3.5}
    assert list(criteria) == list(CRITERIA)
    statement = r.document["sequential"]["statements"][0]
    assert statement == {
        "index": 1,
        "line": 2,
        "alpha": "T",
        "ops": [],
        "prop": "q",
        "negated": False,
        "text": "Explain how it relates to other thought experiments in philosophy of mind.",
        "edges": [],
    }


# --------------------------------------------------------------------------- §16.3 details


def test_g03_pin_and_conflict_data() -> None:
    r = result("G03_derived_contradiction")
    pin, h02 = r.events
    assert (pin["constraint"], pin["data"]["value"]) == (1, "T")
    assert h02["constraint"] == 2 and h02["data"]["forced"] == "T" and h02["data"]["value"] == "F"


def test_g04_counts_and_licence() -> None:
    r = result("G04_licensed_revision")
    assert r.events[0]["data"]["prev_stmt"] == 2
    assert r.summary["paths"]["count"] == 8 and r.summary["paths"]["consistent"] == 7
    shortcut = next(p for p in r.document["per_path"]["paths"] if p["statements"] == [1, 2, 7])
    assert not shortcut["consistent"] and shortcut["terminal"]["p1"] == "F"


def test_g10_constraint_and_state() -> None:
    r = result("G10_negated_connective")
    (c,) = r.document["sequential"]["constraints"]
    assert c["formula"] == "a == p1 & !p2" and c["status"] == "consistent"
    assert r.document["sequential"]["final_state"][2] == {"prop": "p2", "tau": "F", "sigma": None, "delta": 0}
    assert (
        result("G10_not_before").document["sequential"]["constraints"]
        == r.document["sequential"]["constraints"]
    )


def test_g15_values() -> None:
    s05 = event(result("G15_disagreement"), "T6_S05")
    assert s05["data"] == {"values": {"T": [2], "F": [1]}}
    assert [p["edges"] for p in result("G15_disagreement").document["per_path"]["paths"]] == [
        [1, 2, 3, 4, 5],
        [1, 4, 5],
    ]
    d02 = event(result("G15_variant_uk"), "T6_D02")
    assert d02["data"] == {"values": {"T": [2], "Uk": [1]}}
    disagreement = result("G15_disagreement").document["per_path"]["disagreements"]
    assert disagreement == [{"prop": "p1", "event": 2, "values": {"T": [2], "F": [1]}}]


def test_g16_implication() -> None:
    r = result("G16_second_if")
    assert r.events[0]["data"] == {"opened_at": 2, "closed_by": "IF"}
    assert r.document["sequential"]["constraints"][0]["formula"] == "p2 -> a"


def test_g17_unknown_edge() -> None:
    r = result("G17_unknown_token")
    assert r.events[0]["data"] == {"token": "MAYBE", "reason": "unknown"}
    edges = [(e["src"], e["dst"], e["label"], e["kind"]) for e in r.document["graph"]["edges"]]
    assert edges[:2] == [("q", "_b1", None, "gap"), ("_b1", "p1", "MAYBE", "unknown")]
