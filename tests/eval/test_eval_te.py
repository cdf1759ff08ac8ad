"""`cotaudit te corrupt` and `cotaudit eval te` end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cotaudit import cli
from cotaudit.eval import te as te_eval
from cotaudit.te.corpus.adversarial import read_jsonl

pytest.importorskip("scipy", reason="SciPy is not installed (pip install -e '.[eval]')")
ROOT = Path(__file__).resolve().parents[2]
GSM8K = ROOT.parent / "shared" / "data" / "gsm8k" / "test.jsonl"
needs_gsm8k = pytest.mark.skipif(not GSM8K.exists(), reason=f"GSM8K test split not found at {GSM8K}")


def _small_corpus(path: Path) -> Path:
    examples = ROOT / "examples" / "te"
    rows = []
    for name, gold, category, codes in [
        ("C_arithmetic_slip", 5, "arithmetic_slip", ["TE_E006"]),
        ("E_undeclared_symbol", 5, "lost_variable", ["TE_E004"]),
        ("J_answer_not_derived", 6, "unsupported_conclusion", ["TE_E011"]),
        ("A_janet", None, None, []),
        ("T_gsm8k_janet", None, None, []),
    ]:
        rows.append(
            {
                "id": name,
                "part": "seed" if category else "clean",
                "category": category,
                "gold_line": gold,
                "base_id": None,
                "perturbation": None,
                "text": (examples / f"{name}.te").read_text(),
                "expected_codes": codes,
            }
        )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_eval_cli_on_a_small_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = _small_corpus(tmp_path / "c.jsonl")
    out_md, out_json = tmp_path / "r.md", tmp_path / "r.json"
    argv = [
        "eval",
        "te",
        "--corpus",
        str(corpus),
        "--no-determinism",
        "--iterations",
        "500",
        "-o",
        str(out_md),
    ]
    assert cli.main([*argv, "--json", str(out_json), "--log", str(tmp_path / "run.jsonl")]) == 0
    report = json.loads(out_json.read_text())
    m2 = report["methods"]["M2"]
    assert (m2["tpr"], m2["fpr"], m2["loc3"]) == (1.0, 0.0, 1.0)
    assert m2["counts"] == {"tp": 3, "adversarial": 3, "fp": 0, "clean": 2, "localised": 3, "code_correct": 3}
    assert report["methods"]["M1"]["tpr"] == 0.0
    assert (
        report["methods"]["M3"]["available"] is False
        and "not configured" in report["methods"]["M3"]["reason"]
    )
    assert [c["pair"] for c in report["comparisons"]] == ["M2-M1"]
    assert set(report["comparisons_not_run"]) == {"M2-M3", "M2-M4", "M1-M3", "M1-M4"}
    assert report["ablation"]["TE_E011"]["uniquely_detected"] == 1
    text = out_md.read_text()
    assert "| M2 | 100.0%" in text and "not configured" in text
    # The run log resumes: a second run over the same log recomputes nothing and agrees.
    assert cli.main([*argv, "--json", str(out_json), "--log", str(tmp_path / "run.jsonl")]) == 0


def test_eval_cli_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["eval", "te", "--corpus", str(tmp_path / "missing.jsonl")]) == 2
    corpus = _small_corpus(tmp_path / "c.jsonl")
    assert cli.main(["eval", "te", "--corpus", str(corpus), "--methods", "M9", "--no-determinism"]) == 2
    assert cli.main(["eval"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and all(line.startswith("cotaudit: ") for line in err.splitlines())


@needs_gsm8k
def test_corrupt_writes_the_paper_corpus(tmp_path: Path) -> None:
    out = tmp_path / "corpus.jsonl"
    assert cli.main(["te", "corrupt", "--gsm8k", str(GSM8K), "-o", str(out)]) == 0
    items = list(read_jsonl(out))
    assert len(items) == 266 and sum(i.adversarial for i in items) == 196


@pytest.mark.slow
@needs_gsm8k
def test_paper_corpus_meets_the_targets() -> None:
    items = te_eval.load_corpus("paper266", GSM8K)
    report = te_eval.evaluate(items, ("M1", "M2"), runs=2, iterations=1000, determinism=False)
    m2 = report["methods"]["M2"]
    assert m2["tpr"] == 1.0 and m2["fpr"] <= 0.02 and m2["loc3"] >= 0.99  # TE-58
    assert m2["code_tpr"] >= 0.98
    assert m2["kappa_min"] == 1.0
    assert report["latency"]["total_s"] < 2.0  # generous: CI machines vary; the benchmark reports
    assert report["misses"] == {"missed": [], "mislocalised": [], "false_positives": []}
