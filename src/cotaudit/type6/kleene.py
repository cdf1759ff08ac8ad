"""Four-valued strong-Kleene logic with abstention (spec §5.1, Y-35..Y-37).

Values are the strings ``"T"``, ``"F"``, ``"Uk"``, ``"Uc"`` and ``"*"`` (abstention: a ``Uc``
operand makes a derivation uninterpretable). The normative tables are reproduced in
:data:`AND_TABLE`, :data:`OR_TABLE` and :data:`IMPLIES_TABLE`; the engine uses the k-ary closed
forms, which the tests check against the tables (including associativity and commutativity).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

STAR = "*"
TRUTH = ("T", "Uk", "Uc", "F")  # the tables' row and column order


def _table(rows: tuple[tuple[str, ...], ...]) -> Mapping[tuple[str, str], str]:
    """A 4×4 table written as in the spec: rows = left operand, columns = right operand."""
    return {(a, b): v for a, row in zip(TRUTH, rows, strict=True) for b, v in zip(TRUTH, row, strict=True)}


#                 T        Uk       Uc       F
AND_TABLE = _table(
    (
        ("T", "Uk", STAR, "F"),  # T
        ("Uk", "Uk", STAR, "F"),  # Uk
        (STAR, STAR, STAR, "F"),  # Uc
        ("F", "F", "F", "F"),  # F
    )
)
OR_TABLE = _table(
    (
        ("T", "T", "T", "T"),
        ("T", "Uk", STAR, "Uk"),
        ("T", STAR, STAR, STAR),
        ("T", "Uk", STAR, "F"),
    )
)
IMPLIES_TABLE = _table(
    (
        ("T", "Uk", STAR, "F"),
        ("T", "Uk", STAR, "Uk"),
        ("T", STAR, STAR, STAR),
        ("T", "T", "T", "T"),
    )
)

NEG: Mapping[str, str] = {"T": "F", "F": "T", "Uk": "Uk", "Uc": "Uc", STAR: STAR}


def and_k(values: Iterable[str]) -> str:
    """k-ary AND: F if any F, else * if any Uc/*, else Uk if any Uk, else T (Y-35)."""
    star = unknown = False
    for v in values:
        if v == "F":
            return "F"
        if v == "Uc" or v == STAR:
            star = True
        elif v == "Uk":
            unknown = True
    return STAR if star else ("Uk" if unknown else "T")


def or_k(values: Iterable[str]) -> str:
    """k-ary OR: T if any T, else * if any Uc/*, else Uk if any Uk, else F (Y-35)."""
    star = unknown = False
    for v in values:
        if v == "T":
            return "T"
        if v == "Uc" or v == STAR:
            star = True
        elif v == "Uk":
            unknown = True
    return STAR if star else ("Uk" if unknown else "F")


def implies(a: str, b: str) -> str:
    """``a → b`` = ``¬a ∨ b`` (Y-35)."""
    return or_k((NEG[a], b))


def iff(a: str, b: str) -> str:
    """``(a → b) ∧ (b → a)``: the ``holds`` value of an identity (Y-37)."""
    return and_k((implies(a, b), implies(b, a)))
