"""``eval type6`` on an annotated corpus (issue 19 item 5): the paper's corpus-level findings
aggregated over a small corpus whose counts are known from the spec's golden examples (§16)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cotaudit.cli import main
from cotaudit.eval import type6_corpus
from cotaudit.eval.type6_corpus import aggregate, five_numbers, is_annotated, verify_corpus
from cotaudit.eval.type6_tables import render
from cotaudit.limits import Limits

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "type6"
# Spec §16 events per golden: memories H01 Q04 W02 R02(elevated); chinese_nation D01 R02 R02
# (off-chain); G03 I02 H02; G07 H05; G05 S01.
GOLDENS = (
    "memories",
    "chinese_nation",
    "G03_derived_contradiction",
    "G07_reasoning_avoidance",
    "G05_bb_conflict",
)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    (root / "more").mkdir(parents=True)
    for name in GOLDENS:
        shutil.copy(EXAMPLES / f"{name}.t6", root / f"{name}.t6")
    shutil.copy(EXAMPLES / "G03_derived_contradiction.t6", root / "more" / "g3_again.t6")
    (root / "bad.t6").write_text("X p1 : not an annotation\n", encoding="utf-8")
    (root / "notes.txt").write_text("a raw note is not part of an annotated corpus\n", encoding="utf-8")
    return root


def test_counts_on_a_known_corpus(corpus: Path) -> None:
    figures = aggregate(verify_corpus(corpus))
    assert figures["traces"] == {"read": 7, "verified": 6, "invalid": 1, "unchecked": 0}
    assert figures["not_verified"] == [{"id": "bad", "status": "invalid", "reason": "T6_E01"}]
    # hard fail: memories, both G03 copies, G07; not chinese_nation, not G05
    assert figures["hard_fail"]["traces"] == 4 and figures["hard_fail"]["rate"] == pytest.approx(
        4 / 6, abs=1e-6
    )
    hard = {c: v["traces"] for c, v in figures["hard_fail_categories"].items()}
    assert hard == {"T6_H01": 1, "T6_H02": 2, "T6_H03": 0, "T6_H04": 0, "T6_H05": 1, "T6_R01": 0, "T6_R02": 1}
    assert figures["most_common_hard_fail"] == {"by_traces": ["T6_H02"], "by_events": ["T6_H02"]}
    inc = figures["incidence"]
    # near miss: chinese_nation's two off-chain R02 count as events, not as a hard category
    assert (inc["T6_R02"]["traces"], inc["T6_R02"]["events"], inc["T6_R02"]["avg_events"]) == (2, 3, 1.5)
    assert (inc["T6_I02"]["traces"], inc["T6_S01"]["traces"], inc["T6_D01"]["traces"]) == (2, 1, 1)
    assert inc["T6_H03"] == {"traces": 0, "share": 0.0, "events": 0, "avg_events": None}
    assert figures["residuals"] == {
        "events": 3,
        "elevated": 1,
        "elevated_share": 0.333333,
        "traces_with_elevated": 1,
    }
    items = {i["id"]: i for i in figures["items"]}
    # Y-101 / Y-102: chain length 2, fraction 0.5; chain {p14, p15, a}, fraction 0.25
    assert (items["memories"]["chain_length"], items["memories"]["on_chain_fraction"]) == (2, 0.5)
    assert (items["chinese_nation"]["chain_length"], items["chinese_nation"]["on_chain_fraction"]) == (
        3,
        0.25,
    )
    assert items["more/g3_again"]["hard_codes"] == ["T6_H02"]
    chain = figures["chain"]
    assert chain["chain_length"] == [1, 2, 2.5, 3.75, 4]  # lengths 1 2 2 3 4 4
    assert chain["elevated_residuals"] == [0, 0, 0, 0, 1]
    assert chain["propositions_on_chain"] == pytest.approx(16 / 30, abs=1e-6)  # Σ chain / Σ propositions
    paths = figures["paths"]
    assert paths["modes"] == {"exhaustive": 6} and paths["per_trace"] == [1, 1, 1.5, 2, 2]
    # Y-101: memories' 2 paths, neither coherent; Y-102: both of chinese_nation's coherent
    assert (items["memories"]["paths"], items["chinese_nation"]["paths"]) == (2, 2)


def test_five_numbers_interpolate_like_numpy() -> None:
    assert five_numbers([4, 1, 3, 2]) == [1, 1.75, 2.5, 3.25, 4]
    assert five_numbers([7]) == [7, 7, 7, 7, 7] and five_numbers([]) is None


def test_the_table_sets_the_paper_beside_ours(corpus: Path) -> None:
    text = render(aggregate(verify_corpus(corpus)), title="known")
    assert "| derived contradiction | T6_H02 | 2 | 50.0% | 2 | 409 |" in text
    assert "| reasoning-avoidance | T6_H05 | 1 | 16.7% | 1.000 | 548 | — |" in text
    assert (
        "| chain length (propositions on the chain, sink included) | 1 / 2 / 2.5 / 3.75 / 4 | 1 / 1 / 1 / 3 / 32 |"
        in text
    )
    assert "only about 3% of the propositions of a trace have impact on the final derivation" in text
    assert "85.3% of 990 (Table 5)" in text and "paths" in text.lower()
    assert "- bad: invalid (T6_E01)" in text


def test_cli_on_the_bundled_examples_and_any_t6_folder(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_json = tmp_path / "fig.json"
    assert main(["eval", "type6", str(EXAMPLES), "--json", str(out_json)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("# type6 corpus") and "## Hard-fail categories" in text and "## Paths" in text
    figures = json.loads(out_json.read_text(encoding="utf-8"))
    assert figures["traces"]["verified"] == len(list(EXAMPLES.glob("*.t6")))
    assert main(["eval", "type6", str(corpus)]) == 0
    assert "7 read, 6 verified, 1 invalid" in capsys.readouterr().out


def test_a_single_trace_and_a_jsonl_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "type6", str(EXAMPLES / "memories.t6")]) == 0
    assert "1 read, 1 verified" in capsys.readouterr().out
    jsonl = tmp_path / "c.jsonl"
    good = json.dumps({"id": "one", "statements": ["T q : Q?", "T p1 : x", "T THEN a : so"]})
    jsonl.write_text(good + "\n\n{not json\n", encoding="utf-8")
    assert is_annotated(jsonl)
    figures = aggregate(verify_corpus(jsonl))
    assert figures["traces"] == {"read": 2, "verified": 1, "invalid": 1, "unchecked": 0}


def test_raw_traces_still_go_to_the_comparison(tmp_path: Path) -> None:
    """Near miss: a folder of raw *.txt chains of thought is not an annotated corpus."""
    (tmp_path / "a.txt").write_text("I think so.", encoding="utf-8")
    raw = tmp_path / "raw.jsonl"
    raw.write_text(json.dumps({"id": "a", "text": "I think so."}) + "\n", encoding="utf-8")
    assert not is_annotated(tmp_path) and not is_annotated(raw)


def test_bad_files_are_counted_never_a_stopped_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "latin1.t6").write_bytes("T q : caf\xe9\n".encode("latin-1"))
    (tmp_path / "big.t6").write_text("T q : " + "x" * 200 + "\n", encoding="utf-8")
    (tmp_path / "ok.t6").write_text("T q : Q?\nT p1 : x\nT THEN a : so\n", encoding="utf-8")
    monkeypatch.setattr(type6_corpus, "MAX_INPUT_BYTES", 100)
    facts = {f.id: f for f in verify_corpus(tmp_path)}
    assert facts["ok"].status == "ok"
    assert facts["latin1"].status == "invalid" and "not UTF-8" in str(facts["latin1"].reason)
    assert facts["big"].status == "invalid" and "T6_E05" in str(facts["big"].reason)


def test_an_overrun_is_not_checked_never_pass_or_fail(corpus: Path) -> None:
    facts = verify_corpus(corpus, Limits(wall_s=1e-9))
    assert {f.status for f in facts} == {"unchecked"}  # bad.t6 too: not even parsed in time
    figures = aggregate(facts)
    assert figures["traces"]["unchecked"] == 7 and figures["hard_fail"]["rate"] is None
    assert figures["not_verified"][0]["reason"] == "time_budget"


def test_empty_or_missing_corpus_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "x.t6").mkdir()  # a folder named like a trace, no trace in it
    assert main(["eval", "type6", str(tmp_path / "x.t6")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def _run(seed: str, out: Path) -> bytes:
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT / "src")}
    subprocess.run(
        [sys.executable, "-m", "cotaudit", "eval", "type6", str(EXAMPLES), "--json", str(out)],
        env=env, check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    return out.read_bytes()


def test_byte_identical_across_processes(tmp_path: Path) -> None:
    assert _run("0", tmp_path / "a.json") == _run("12345", tmp_path / "b.json")


def _figures_of(path: Path) -> dict[str, Any]:
    return aggregate(verify_corpus(path))


def test_same_corpus_same_figures(corpus: Path) -> None:
    assert json.dumps(_figures_of(corpus)) == json.dumps(_figures_of(corpus))
