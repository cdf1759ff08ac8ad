"""Every docstring example of every TE rule (pycodestyle's convention), and the rule table."""

from __future__ import annotations

import hashlib

import pytest

from cotaudit import te
from cotaudit.codes import CODES
from cotaudit.te.rules import RULES, Example, examples

CONFIG = te.LintConfig(symbolic="inprocess")
ALL = [ex for rule in RULES.values() for ex in examples(rule)]


def _id(ex: Example) -> str:
    """The same id in every run (``hash(str)`` is salted per process): rule, kind, text digest."""
    kind = "okay" if ex.code is None else f"fires@{ex.line}"
    return f"{ex.rule}-{kind}-{hashlib.sha256(ex.text.encode()).hexdigest()[:8]}"


@pytest.mark.parametrize("ex", ALL, ids=_id)
def test_docstring_example(ex: Example) -> None:
    result = te.lint(ex.text, CONFIG)
    produced = {(d.code, d.line) for d in result.diagnostics}
    assert "TE_X001" not in {c for c, _ in produced}
    if ex.code is None:
        assert ex.rule not in {c for c, _ in produced}, result.at()
    else:
        assert (ex.code, ex.line) in produced, result.at()


def test_every_te_code_has_a_rule_with_both_kinds_of_example() -> None:
    te_codes = {c for c, entry in CODES.items() if entry.engine == "te" and c != "TE_X001"}
    assert set(RULES) == te_codes
    for rule in RULES.values():
        kinds = {ex.code is None for ex in examples(rule)}
        assert kinds == {True, False}, rule.code


def test_rule_layers_match_the_m1_preset() -> None:
    structural = {code for code, rule in RULES.items() if rule.layer == "structural"}
    assert structural.isdisjoint(te.M1.disabled_rules)
    assert structural == {"TE_E001", "TE_E002", "TE_E003", "TE_E008", "TE_E010", "TE_E012", "TE_E013"}
