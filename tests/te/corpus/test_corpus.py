"""The adversarial corpus (TE-52 … TE-54): every perturbation injects exactly one error, at its gold line."""

from __future__ import annotations

import ast
import collections
import difflib
import random
from pathlib import Path

import pytest

from cotaudit import te
from cotaudit.te.corpus import perturb
from cotaudit.te.corpus.adversarial import PAPER_COUNTS, Base, _perturb, build_corpus, converted_bases

ROOT = Path(__file__).resolve().parents[3]
GSM8K = ROOT.parent / "shared" / "data" / "gsm8k" / "test.jsonl"
needs_gsm8k = pytest.mark.skipif(not GSM8K.exists(), reason=f"GSM8K test split not found at {GSM8K}")
CONFIG = te.LintConfig(symbolic="inprocess")


@pytest.fixture(scope="module")
def bases() -> list[Base]:
    if not GSM8K.exists():
        pytest.skip(f"GSM8K test split not found at {GSM8K}")
    return converted_bases(GSM8K)


def _changed_lines(before: str, after: str) -> int:
    ops = difflib.SequenceMatcher(a=before.splitlines(), b=after.splitlines()).get_opcodes()
    return sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal")


@needs_gsm8k
@pytest.mark.parametrize("category", perturb.CATEGORIES)
def test_each_perturbation_injects_one_error_at_its_gold_line(bases: list[Base], category: str) -> None:
    checked = 0
    for base in bases[:120]:
        item = _perturb(base, category, 7)
        if item is None:
            continue
        checked += 1
        assert te.lint(base.text, CONFIG).verdict == "CLEAN"
        result = te.lint(item.text, CONFIG)
        errors = [d for d in result.diagnostics if d.severity == "error"]
        assert errors, (item.id, item.perturbation)
        first = min(errors, key=lambda d: (d.line, d.column or 0))
        assert first.line == item.gold_line, (item.id, item.perturbation, result.at())
        assert {d.code for d in errors} & set(item.expected_codes), (item.id, result.at())
        # One edit: a changed, inserted or deleted line, or (shuffle) two lines trading places.
        if category == "shuffle_steps":
            a, b = base.text.splitlines(), item.text.splitlines()
            assert sorted(a) == sorted(b) and sum(x != y for x, y in zip(a, b, strict=True)) == 2, item.id
        else:
            allowed = (
                1 + len(base.meta["checks"]) if category == "arithmetic_slip" else 1
            )  # CHECKs follow a slip
            assert _changed_lines(base.text, item.text) <= allowed, item.id
    assert checked >= (10 if category == "wrong_unit" else 60), f"too few eligible bases for {category}"


def test_perturbers_are_seeded_and_never_lint() -> None:
    src = "".join(
        (ROOT / "src" / "cotaudit" / "te" / "corpus" / name).read_text()
        for name in ("perturb.py", "adversarial.py")
    )
    imported = {
        alias.name if isinstance(node, ast.Import) else node.module or ""
        for node in ast.walk(ast.parse(src))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in (node.names if isinstance(node, ast.Import) else [node])
    }
    assert not any(m in ("cotaudit.te.linter", "cotaudit.te.semantic") for m in imported), imported
    assert "lint(" not in src


@needs_gsm8k
def test_same_seed_same_perturbation(bases: list[Base]) -> None:
    for category in perturb.PAPER_CATEGORIES:
        a = _perturb(bases[3], category, 11)
        b = _perturb(bases[3], category, 11)
        assert a == b
    trace = perturb.Trace(bases[3].text, bases[3].meta)
    assert perturb.arithmetic_slip(trace, random.Random(1)) == perturb.arithmetic_slip(
        trace, random.Random(1)
    )


@needs_gsm8k
def test_paper_corpus_composition() -> None:
    items = build_corpus(GSM8K, 20260513, "paper")
    parts = collections.Counter(i.part for i in items)
    assert parts == {"seed": 30, "perturbation": 166, "clean": 50, "hard_clean": 20}
    assert len(items) == 266
    per_cat = collections.Counter(i.category for i in items if i.part == "perturbation")
    assert dict(per_cat) == PAPER_COUNTS
    totals = collections.Counter(i.category for i in items if i.adversarial)
    assert dict(totals) == {c: n + 6 for c, n in PAPER_COUNTS.items()}  # 46/46/46/12/46 (TE-52)
    perturbed_bases = [i.base_id for i in items if i.part == "perturbation"]
    clean_bases = {i.base_id for i in items if i.part == "clean"}
    assert len(set(perturbed_bases)) == 166  # one perturbation per base
    assert clean_bases.isdisjoint(perturbed_bases)
    assert len({i.id for i in items}) == 266
    assert [i.to_dict() for i in items] == [i.to_dict() for i in build_corpus(GSM8K, 20260513, "paper")]
    other = build_corpus(GSM8K, 1, "paper")
    assert [i.id for i in other] != [i.id for i in items]
