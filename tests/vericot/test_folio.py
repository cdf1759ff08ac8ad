"""FOLIO's gold-FOL reader (issue 19, item 6): identifiers with ``+``, constants of several words,
and error messages that point at the offending character. Forms written for these tests."""

from __future__ import annotations

from typing import Any

import pytest

from cotaudit.vericot.config import VerifierConfig
from cotaudit.vericot.datasets import folio_trace
from cotaudit.vericot.formalizers.folio import FolError, Signature, to_smt
from cotaudit.vericot.pipeline import Verifier
from cotaudit.vericot.smtlib import SYMBOL


def _status(premises: list[str], conclusion: str) -> str:
    row = {
        "premises": premises,
        "premises-FOL": premises,
        "conclusion": conclusion,
        "conclusion-FOL": conclusion,
    }
    trace, problems = folio_trace(row, 0)
    assert trace is not None, problems
    return Verifier(VerifierConfig(premise_providers=())).run(trace).steps[0].status


def test_identifiers_with_plus() -> None:
    sig = Signature()
    smt = to_smt("∀x (Compiler(x) → (Targets(x, c++) ⊕ Targets(x, c)))", sig)
    assert "c++" in sig.consts and "c" in sig.consts
    assert to_smt("Grade(kim, a+) ∨ Grade(kim, b+)", sig)
    syms = {d.split()[1] for d in sig.decls() if d.startswith("(declare-const")}
    assert len(syms) == len(sig.consts) == 5 and all(SYMBOL.match(s) for s in syms), syms
    assert "(forall" in smt


def test_plus_constants_are_distinct_from_their_stems() -> None:
    premises = ["∀x (Compiler(x) → Targets(x, c++))", "Compiler(gcc)"]
    assert _status(premises, "Targets(gcc, c++)") == "entailed"
    assert _status(premises, "Targets(gcc, c)") == "ungrounded"  # near miss: c is not c++
    assert _status(["Grade(kim, a+)"], "Grade(kim, a-)") == "ungrounded"
    assert _status(["Grade(kim, c__)"], "Grade(kim, c++)") == "ungrounded"


def test_constants_of_several_words() -> None:
    sig = Signature()
    to_smt("Mayor(lord provost) ∧ LivesIn(lord provost, new york city)", sig)
    assert sig.consts == {"lord provost", "new york city"}
    premises = ["∀x (Hero(x) → Brave(x))", "Hero(iron man)"]
    assert _status(premises, "Brave(iron man)") == "entailed"
    assert _status(premises, "Brave(iron  man)") == "entailed"  # the spacing is not part of the name
    assert _status(premises, "Brave(iron)") == "ungrounded"  # near miss: another constant


@pytest.mark.parametrize(
    "formula,needle",
    [
        ("Hero(iron man(x))", "function name is one word"),
        ("∀x Hero(big x)", "variable 'x'"),
        ("Hero(iron man", r"expected \)"),
    ],
)
def test_bad_terms_are_reported(formula: str, needle: str) -> None:
    with pytest.raises(FolError, match=needle):
        to_smt(formula, Signature())


@pytest.mark.parametrize(
    "formula,char",
    [
        ("Rich(ann) ^ Happy(ann)", "^"),
        ("Rich(ann)  ∧  Happy(ann)  &  Tall(ann)", "&"),
        ("   Rich(ann) ; Tall(ann)", ";"),
    ],
)
def test_unexpected_character_points_at_itself(formula: str, char: str) -> None:
    with pytest.raises(FolError) as info:
        to_smt(formula, Signature())
    offset = formula.index(char)
    assert str(info.value) == f"unexpected character {char!r} at offset {offset}"


def test_plain_names_keep_their_symbols() -> None:
    sig = Signature()
    smt: Any = to_smt("Superhero(bruce) ∧ Likes(bruce, tea)", sig)
    assert "(p_Superhero c_bruce)" in smt and "c_tea" in smt
