"""Y-35: the k-ary closed forms agree with the normative tables; algebraic laws hold."""

from __future__ import annotations

import itertools

import pytest

from cotaudit.type6.kleene import (
    AND_TABLE,
    IMPLIES_TABLE,
    NEG,
    OR_TABLE,
    STAR,
    TRUTH,
    and_k,
    iff,
    implies,
    or_k,
)

VALUES = (*TRUTH, STAR)


def lookup(table: dict[tuple[str, str], str], a: str, b: str) -> str:
    """The table, with an intermediate * read as Uc (Y-35)."""
    return table["Uc" if a == STAR else a, "Uc" if b == STAR else b]


@pytest.mark.parametrize(("a", "b"), list(itertools.product(TRUTH, TRUTH)))
def test_closed_forms_match_tables(a: str, b: str) -> None:
    assert and_k((a, b)) == AND_TABLE[a, b]
    assert or_k((a, b)) == OR_TABLE[a, b]
    assert implies(a, b) == IMPLIES_TABLE[a, b]


def test_table_spot_checks_from_the_spec() -> None:
    assert AND_TABLE["Uc", "F"] == "F" and AND_TABLE["Uk", "Uc"] == STAR
    assert OR_TABLE["Uc", "T"] == "T" and OR_TABLE["Uk", "F"] == "Uk"
    assert (
        IMPLIES_TABLE["F", "Uc"] == "T"
        and IMPLIES_TABLE["Uc", "T"] == "T"
        and IMPLIES_TABLE["Uk", "F"] == "Uk"
    )


@pytest.mark.parametrize(("a", "b", "c"), list(itertools.product(VALUES, VALUES, VALUES)))
def test_associative_and_k_ary(a: str, b: str, c: str) -> None:
    for table, op in ((AND_TABLE, and_k), (OR_TABLE, or_k)):
        left = lookup(table, lookup(table, a, b), c)
        right = lookup(table, a, lookup(table, b, c))
        assert left == right == op((a, b, c))


@pytest.mark.parametrize(("a", "b"), list(itertools.product(VALUES, VALUES)))
def test_commutative_and_implication_as_disjunction(a: str, b: str) -> None:
    assert and_k((a, b)) == and_k((b, a)) and or_k((a, b)) == or_k((b, a))
    assert implies(a, b) == or_k((NEG[a], b))
    assert iff(a, b) == and_k((implies(a, b), implies(b, a)))


def test_negation_and_empty() -> None:
    assert [NEG[v] for v in VALUES] == ["F", "Uk", "Uc", "T", STAR]
    assert and_k(()) == "T" and or_k(()) == "F"
