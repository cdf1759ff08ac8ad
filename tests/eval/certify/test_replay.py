"""The legal case generator (C-101) and the admission replay H5 (C-108 … C-110)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cotaudit.certify.adapters import legal
from cotaudit.eval.certify.replay import h5_report, replay_h5


def test_generator_is_seeded_and_rotates_the_dropped_leaf() -> None:
    items = legal.generate_items(4, 8, seed=0)
    assert items == legal.generate_items(4, 8, seed=0)
    assert items != legal.generate_items(4, 8, seed=1)
    assert [i.gold for i in items] == ["yes"] * 4 + ["no"] * 8
    assert [i.dropped for i in items[4:]] == list(legal.LEAVES) * 2
    for i in items:
        assert all(f.quote in i.story for f in i.facts)
        assert i.target.endswith(f"x{int(i.item_id[-4:]) + 2})")  # fresh constants, not the legend's
        if i.dropped:
            assert not any(
                f.fact.startswith(i.dropped) and i.target.split(", ")[1].rstrip(")") in f.fact
                for f in i.facts
            )


def test_reference_answer_is_the_least_model() -> None:
    item = legal.generate_items(1, 0, seed=3)[0]
    assert legal.reference_answer(item.facts, item.target) == "yes"
    assert legal.reference_answer(item.facts[1:], item.target) in ("yes", "no")
    leafless = tuple(f for f in item.facts if not f.fact.startswith("refuses"))
    assert legal.reference_answer(leafless, item.target) == "no"  # near miss: one link missing


def small_rows() -> dict[str, object]:
    rows = replay_h5(legal.generate_items(8, 8, seed=0))
    return {r.name: r for r in rows}


def test_h5_small_replay_matches_c109() -> None:
    by = small_rows()
    clean = by["barrier: clean"]
    assert (clean.items, clean.correct, clean.wrong, clean.abstained) == (16, 16, 0, 0)  # type: ignore[attr-defined]
    for name in ("barrier: injected-abstain", "barrier: intermediate-abstain"):
        r = by[name]
        assert (r.injected, r.rejected, r.abstained) == (8, 8, 8)  # type: ignore[attr-defined]
        assert r.reasons == {"PREDICATE_NOT_IN_WHITELIST": 8}  # type: ignore[attr-defined]
    for name in ("barrier: injected-drop", "barrier: intermediate-drop"):
        r = by[name]
        assert (r.rejected, r.correct, r.wrong) == (8, 8, 0)  # type: ignore[attr-defined]
    raw = by["raw: injected"]
    assert (raw.injected, raw.rejected, raw.wrong) == (8, 0, 8)  # type: ignore[attr-defined]
    assert by["raw: clean"].correct == 16  # type: ignore[attr-defined]
    assert all(not r.recheck_failures for r in by.values())  # type: ignore[attr-defined]


@pytest.mark.slow
def test_h5_full_replay_120_of_120() -> None:
    rows = {r.name: r for r in replay_h5()}
    assert (rows["barrier: injected-abstain"].injected, rows["barrier: injected-abstain"].rejected) == (
        120,
        120,
    )
    assert rows["barrier: injected-abstain"].abstained == 120
    assert rows["barrier: injected-drop"].correct == 120
    assert rows["raw: injected"].wrong == 120  # the raw solver answers yes on every injected negative
    assert rows["barrier: clean"].correct == 240 and rows["raw: clean"].correct == 240
    assert rows["barrier: intermediate-abstain"].rejected == 120
    doc, text = h5_report(list(rows.values()))
    assert "PREDICATE_NOT_IN_WHITELIST" in text and "structural" in doc["note"]


def test_replay_command(tmp_path: Path) -> None:
    from cotaudit.cli import main

    out = tmp_path / "h5.txt"
    assert (
        main(["certify", "replay-h5", "--n-pos", "2", "--n-neg", "4", "--no-variants", "-o", str(out)]) == 0
    )
    text = out.read_text(encoding="utf-8")
    assert "barrier: injected-abstain" in text and "raw: injected" in text
    assert main(["certify", "replay-h5", "--n-pos", "-1"]) == 2


PW_DEV = Path(__file__).resolve().parents[4] / "shared" / "data" / "logic" / "proofwriter" / "dev.json"


@pytest.mark.skipif(not PW_DEV.is_file(), reason=f"ProofWriter data not found at {PW_DEV}")
def test_proofwriter_variant_rejects_question_literals() -> None:
    from cotaudit.eval.certify.pweval import load_items
    from cotaudit.eval.certify.replay import replay_proofwriter

    abstain, drop = replay_proofwriter(load_items(PW_DEV), limit=12)
    assert (abstain.injected, abstain.rejected, abstain.abstained) == (12, 12, 12)
    assert abstain.reasons == {"PREDICATE_NOT_IN_WHITELIST": 12}
    assert (drop.rejected, drop.correct, drop.wrong) == (12, 12, 0)
