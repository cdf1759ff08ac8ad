"""Classify and fold a statement's operator tokens (ParseLine steps 5-6, Y-7..Y-10, Y-16).

Each non-``NOT`` token becomes an :class:`OpItem` (a known operator or an unknown token); each
``NOT`` attaches to the nearest known operator on its left, else on its right, else to the
proposition (a bare negation). ``negated`` (ν) is the parity of all ``NOT`` tokens: it flips
the written value and gives the proposition negative polarity wherever the ``NOT`` sits (D3).

The analysis of an ``ops`` tuple does not depend on the rest of the statement, and a trace
repeats a handful of operator lists, so :class:`Folder` memoises it for one run.
"""

from __future__ import annotations

from typing import NamedTuple

from cotaudit.type6.model import CONNECTIVES, FLIP, NOT, OPERATORS, VALUE_OPS, Statement

UNKNOWN = "unknown"
MISPLACED = "misplaced-connective"


class OpItem(NamedTuple):
    """One operator position after folding: a known operator (with its NOT count) or an unknown token."""

    token: str
    known: bool
    nots: int = 0
    reason: str | None = None  # unknown tokens: "unknown" or "misplaced-connective"

    @property
    def negated(self) -> bool:
        return self.nots % 2 == 1

    @property
    def label(self) -> str:
        """Y-59: the operator name, prefixed ``NOT `` when negated; the raw token when unknown."""
        return f"NOT {self.token}" if self.known and self.nots % 2 == 1 else self.token


class OpsReading(NamedTuple):
    """What an ``ops`` tuple means, independent of annotation and proposition."""

    items: tuple[OpItem, ...]
    unknown: tuple[OpItem, ...]
    connective: str | None  # the legal leading connective, if any
    connective_negated: bool
    value_ops: tuple[str, ...]  # V (Y-19): K, B, ? in written order
    has_r: bool
    has_not: bool
    negated: bool  # ν
    known_any: bool


class Folded(NamedTuple):
    """The logical reading of one statement; ``stmt`` is its 1-based statement index."""

    stmt: int
    line: int | None
    alpha: str
    value: str  # α' (Y-16)
    prop: str | None
    reading: OpsReading

    @property
    def negated(self) -> bool:
        return self.reading.negated

    @property
    def items(self) -> tuple[OpItem, ...]:
        return self.reading.items

    @property
    def unknown(self) -> tuple[OpItem, ...]:
        return self.reading.unknown

    @property
    def connective(self) -> str | None:
        return self.reading.connective

    @property
    def connective_negated(self) -> bool:
        return self.reading.connective_negated

    @property
    def value_ops(self) -> tuple[str, ...]:
        return self.reading.value_ops

    @property
    def has_r(self) -> bool:
        return self.reading.has_r

    @property
    def has_not(self) -> bool:
        return self.reading.has_not

    @property
    def filler(self) -> bool:
        """No known operator and no proposition (Y-6); unknown tokens are ignored by the logic."""
        return self.prop is None and not self.reading.known_any


def read_ops(ops: tuple[str, ...]) -> OpsReading:
    """Y-7 steps 5-6 for one operator list."""
    classes: list[OpItem | None] = []  # None marks a NOT position
    leading_seen = False
    nots_total = 0
    for token in ops:
        if token == NOT:
            classes.append(None)
            nots_total += 1
            continue
        if token in CONNECTIVES:
            item = OpItem(token, True) if not leading_seen else OpItem(token, False, 0, MISPLACED)
        elif token in OPERATORS:
            item = OpItem(token, True)
        else:
            item = OpItem(token, False, 0, UNKNOWN)
        leading_seen = True
        classes.append(item)
    if nots_total:
        classes = _attach_nots(classes)
    items = tuple(item for item in classes if item is not None)
    first = items[0] if items else None
    connective = first.token if first is not None and first.known and first.token in CONNECTIVES else None
    return OpsReading(
        items=items,
        unknown=tuple(item for item in items if not item.known),
        connective=connective,
        connective_negated=connective is not None and first is not None and first.negated,
        value_ops=tuple(item.token for item in items if item.known and item.token in VALUE_OPS),
        has_r=any(item.known and item.token == "R" for item in items),
        has_not=nots_total > 0,
        negated=nots_total % 2 == 1,
        known_any=any(item.known for item in items),
    )


def _attach_nots(classes: list[OpItem | None]) -> list[OpItem | None]:
    """Y-9: each NOT goes to the nearest known operator on its left, else on its right."""
    known = [k for k, item in enumerate(classes) if item is not None and item.known]
    if not known:
        return classes  # bare negation: every NOT attaches to the proposition
    counts = dict.fromkeys(known, 0)
    last_known: int | None = None
    first_known = known[0]
    for k, item in enumerate(classes):
        if item is None:
            counts[last_known if last_known is not None else first_known] += 1
        elif item.known:
            last_known = k
    out = list(classes)
    for k, n in counts.items():
        item = out[k]
        if n and item is not None:
            out[k] = OpItem(item.token, True, n)
    return out


class Folder:
    """Folds the statements of one run, memoising the reading of each distinct ``ops`` tuple."""

    def __init__(self) -> None:
        self._readings: dict[tuple[str, ...], OpsReading] = {}

    def fold(self, stmt: Statement, index: int) -> Folded:
        reading = self._readings.get(stmt.ops)
        if reading is None:
            reading = self._readings[stmt.ops] = read_ops(stmt.ops)
        value = FLIP[stmt.alpha] if reading.negated else stmt.alpha
        return Folded(index, stmt.line, stmt.alpha, value, stmt.prop, reading)


def fold(stmt: Statement, index: int) -> Folded:
    """Fold one statement (no memoisation)."""
    return Folder().fold(stmt, index)
