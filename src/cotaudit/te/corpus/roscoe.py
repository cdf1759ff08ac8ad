"""The ROSCOE step-level and arithmetic perturbations, as extra corpus categories.

Shuffle, remove and duplicate a step; swap numbers, swap operators, put in a random number,
negate a step — each applied to a converted GSM8K trace so that it injects exactly one error,
with its gold line, from the converter's meta alone (see :mod:`cotaudit.te.corpus.perturb`).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from cotaudit.te import ir
from cotaudit.te.corpus.perturb import (
    EXPECTED_CODES,
    SWAPS,
    Perturbed,
    Trace,
    first_reference,
    variant,
)


def _refs(eq: Mapping[str, Any]) -> list[str]:
    return [eq["target"], eq["id"]]


def shuffle_steps(t: Trace, rng: random.Random) -> Perturbed | None:
    """Swap an EQ with the earlier EQ it depends on: a name is then used before its definition."""
    pairs = []
    for a, b in zip(t.eqs, t.eqs[1:], strict=False):
        if re.search(rf"\b({re.escape(a['target'])}|{re.escape(a['id'])}\.value)\b", b["rhs"]):
            pairs.append((a, b))
    if not pairs:
        return None
    a, b = rng.choice(pairs)
    lines = list(t.lines)
    lines[a["line"] - 1], lines[b["line"] - 1] = lines[b["line"] - 1], lines[a["line"] - 1]
    return Perturbed(
        t.text(lines), a["line"], f"swapped {a['id']} and {b['id']}", EXPECTED_CODES["shuffle_steps"]
    )


def remove_step(t: Trace, rng: random.Random) -> Perturbed | None:
    """Delete an EQ whose result a later line uses."""
    order = [eq for eq in t.eqs if eq["id"] != t.meta.get("answer_eq")]
    rng.shuffle(order)
    for eq in order:
        k = eq["line"] - 1
        lines = t.lines[:k] + t.lines[k + 1 :]
        first = first_reference(lines, _refs(eq), k)
        if first is not None:
            return Perturbed(t.text(lines), first, f"removed {eq['id']}", EXPECTED_CODES["remove_step"])
    return None


def duplicate_step(t: Trace, rng: random.Random) -> Perturbed | None:
    """Repeat an EQ line verbatim right after itself (same ID)."""
    if not t.eqs:
        return None
    eq = rng.choice(t.eqs)
    lines = list(t.lines)
    lines.insert(eq["line"], lines[eq["line"] - 1])
    return Perturbed(
        t.text(lines), eq["line"] + 1, f"duplicated {eq['id']}", EXPECTED_CODES["duplicate_step"]
    )


def _rewrite_rhs(t: Trace, eq: Mapping[str, Any], new_rhs: str) -> list[str] | None:
    body = t.eq_body(eq)
    if body is None or len(body.parts) < 3:
        return None
    rhs = body.parts[1]
    lines = list(t.lines)
    line = lines[eq["line"] - 1]
    lines[eq["line"] - 1] = line[: rhs.col] + new_rhs + line[rhs.col + len(rhs.text) :]
    return lines


def _rhs_change(
    t: Trace, rng: random.Random, category: str, change: Callable[[ir.BinOp], ir.Node | None]
) -> Perturbed | None:
    order = list(t.eqs)
    rng.shuffle(order)
    for eq in order:
        changed = variant(t, eq, rng, change)
        if changed is None:
            continue
        lines = _rewrite_rhs(t, eq, changed[0])
        if lines is not None:
            return Perturbed(
                t.text(lines),
                eq["line"],
                f"{eq['id']}: {eq['rhs']} -> {changed[0]}",
                EXPECTED_CODES[category],
            )
    return None


def swap_numbers(t: Trace, rng: random.Random) -> Perturbed | None:
    """Swap the two operands of a non-commutative operation (``a - b`` → ``b - a``)."""
    return _rhs_change(
        t,
        rng,
        "swap_numbers",
        lambda op: ir.BinOp(op.op, op.right, op.left, op.pos) if op.op in ("-", "/") else None,
    )


def swap_operators(t: Trace, rng: random.Random) -> Perturbed | None:
    """Replace one operator: ``+``↔``−``, ``×``↔``÷``."""
    return _rhs_change(t, rng, "swap_operators", lambda op: ir.BinOp(SWAPS[op.op], op.left, op.right, op.pos))


def random_number(t: Trace, rng: random.Random) -> Perturbed | None:
    """Replace one operand of an operation by a random number."""

    def change(op: ir.BinOp) -> ir.Node:
        n = rng.randint(2, 99)
        return ir.BinOp(op.op, op.left, ir.Num(Fraction(n), str(n), 0), op.pos)

    return _rhs_change(t, rng, "random_number", change)


def negate_step(t: Trace, rng: random.Random) -> Perturbed | None:
    """Negate an EQ's right-hand side."""
    order = [eq for eq in t.eqs if Fraction(eq["value"]) != 0]
    rng.shuffle(order)
    for eq in order:
        lines = _rewrite_rhs(t, eq, f"-({eq['rhs']})")
        if lines is not None:
            return Perturbed(t.text(lines), eq["line"], f"negated {eq['id']}", EXPECTED_CODES["negate_step"])
    return None
