"""Constraints (§4-§5): the chain closure Ψ, forcing and status (Y-25, Y-26, Y-36, Y-37).

A constraint is created by ``THEN`` from the open chain: an *identity* ``(π, ε) ≡ Ψ(χ)`` when no
IF is pending, an *implication* ``Ψ(χ) → (π, ε)`` when one is. Its status under a state is a
pure function of the τ values of the propositions it mentions, which is what makes the
proposition→constraints index of back-propagation exact (Y-41).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cotaudit.type6.kleene import NEG, STAR, and_k, iff, implies, or_k

SEED, AND, OR = "seed", "AND", "OR"
TF = frozenset({"T", "F"})

# Statuses (Y-36). PIN is transient: back-propagation acts on it at once.
ABSTAIN, VACUOUS, INACTIVE = "abstain", "vacuous", "inactive"
UNCLEAR, PIN, OPEN = "unclear-target", "pin", "open"
CONSISTENT, CONFLICT, UNVERIFIABLE = "consistent", "conflict", "unverifiable"


@dataclass(slots=True)
class Constraint:
    """One constraint; ``operands`` are ``(prop, join, negated)`` in chain order."""

    id: int
    stmt: int
    implication: bool
    target: str
    target_negated: bool
    operands: tuple[tuple[str, str, bool], ...]
    groups: tuple[tuple[tuple[str, bool], ...], ...]
    operand_props: tuple[str, ...]  # distinct, in order
    props: tuple[str, ...]  # operand_props plus the target, distinct
    status: str | None = None

    @classmethod
    def close(
        cls,
        cid: int,
        stmt: int,
        chain: list[tuple[str, str, bool]],
        implication: bool,
        target: str,
        negated: bool,
    ) -> Constraint:
        """close(χ, φ, π, ε) (Y-26): AND-groups start at the seed and at each OR (Y-25)."""
        groups: list[list[tuple[str, bool]]] = []
        for prop, join, neg in chain:
            if join != AND or not groups:
                groups.append([])
            groups[-1].append((prop, neg))
        operand_props = tuple(dict.fromkeys(p for p, _, _ in chain))
        props = tuple(dict.fromkeys((*operand_props, target)))
        return cls(
            cid,
            stmt,
            implication,
            target,
            negated,
            tuple(chain),
            tuple(tuple(g) for g in groups),
            operand_props,
            props,
        )

    def psi(self, tau: Mapping[str, str]) -> str:
        """Ψ(χ): OR over AND-groups; a negative operand contributes flip(τ) (Y-25)."""
        return or_k(
            and_k(NEG[tau.get(p, "Uk")] if neg else tau.get(p, "Uk") for p, neg in group)
            for group in self.groups
        )

    def evaluate(self, tau: Mapping[str, str]) -> tuple[str, str | None]:
        """(status, forced value v*) under τ (Y-36)."""
        w = self.psi(tau)
        if w == STAR or w == "Uc":
            return ABSTAIN, None
        if self.implication:
            if w == "F":
                return VACUOUS, None
            if w == "Uk":
                return INACTIVE, None
            forced = "F" if self.target_negated else "T"
        else:
            forced = NEG[w] if self.target_negated else w
        t = tau.get(self.target, "Uk")
        if t == "Uc":
            return UNCLEAR, forced
        if t == "Uk":
            return (PIN if forced in TF else OPEN), forced
        if t == forced:
            return CONSISTENT, forced
        if forced == "Uk":
            return UNVERIFIABLE, forced
        return CONFLICT, forced

    def holds(self, tau: Mapping[str, str]) -> str:
        """Y-37 (informational): Ψ → τ' for an implication, Ψ ↔ τ' for an identity."""
        t = tau.get(self.target, "Uk")
        if self.target_negated:
            t = NEG[t]
        w = self.psi(tau)
        return implies(w, t) if self.implication else iff(w, t)

    @property
    def formula(self) -> str:
        """Y-86 syntax: ``!`` > ``&`` > ``|`` > ``->``/``==``; identities put the target left."""
        parts: list[str] = []
        for prop, join, neg in self.operands:
            if join != SEED:
                parts.append("&" if join == AND else "|")
            parts.append(f"!{prop}" if neg else prop)
        body = " ".join(parts)
        target = f"!{self.target}" if self.target_negated else self.target
        return f"{body} -> {target}" if self.implication else f"{target} == {body}"

    def to_dict(self, tau: Mapping[str, str]) -> dict[str, Any]:
        status, forced = self.evaluate(tau)
        return {
            "id": self.id,
            "stmt": self.stmt,
            "form": "implication" if self.implication else "identity",
            "target": self.target,
            "target_negated": self.target_negated,
            "operands": [{"prop": p, "join": j, "negated": n} for p, j, n in self.operands],
            "formula": self.formula,
            "status": self.status if self.status is not None else status,
            "forced": forced,
            "holds": self.holds(tau),
        }
