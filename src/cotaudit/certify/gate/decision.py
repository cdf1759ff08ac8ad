"""The gate's decisions (certify.md §7, C-37): outcomes, reason codes and proposals.

A :class:`GateDecision` says SOURCE_ADMIT, REDUNDANT, CERTIFY or REJECT with the first failing
reason; :func:`parse_proposal` turns a unit given as text, JSON or :class:`Unit` into a unit or
a REJECT decision. Source mode lives in :mod:`.source`, derived mode in :mod:`.derived`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from cotaudit.certify.core.errors import ProgramError
from cotaudit.certify.kernel.scan import KernelResult
from cotaudit.certify.lang.jsonform import unit_from_json
from cotaudit.certify.lang.parse import parse_unit
from cotaudit.certify.lang.syntax import Fact, Rule, Unit

WRITERS = ("deploy", "operator", "grounder")
SCOPES = ("kernel", "query")
SOURCE_REASONS = (
    "PARSE_ERROR",
    "UNSAFE_RULE",
    "UNSTRATIFIED",
    "UNKNOWN_PREDICATE",
    "ARITY_MISMATCH",
    "ROLE_MISMATCH",
    "NEGATION_NOT_ENABLED",
    "RULE_WRITE_FORBIDDEN",
    "PREDICATE_NOT_IN_WHITELIST",
    "HEAD_IN_WHITELIST",
    "UNSUPPORTED_BY_SOURCE",
    "CHECKER_ERROR",
    "CONTRADICTS_KERNEL",
    "UNDECIDED",
)


class Outcome(Enum):
    SOURCE_ADMIT = "SOURCE_ADMIT"
    REDUNDANT = "REDUNDANT"
    CERTIFY = "CERTIFY"
    REJECT = "REJECT"


@dataclass(frozen=True)
class GateDecision:
    """C-37: outcome, reason code (REJECT only), detail, π_src/π_der record, log sequence."""

    outcome: Outcome
    reason: str | None = None
    detail: Mapping[str, Any] = field(default_factory=dict)
    record: Mapping[str, Any] | None = None
    log_seq: int | None = None
    unit: Unit | None = None
    scan: KernelResult | None = field(default=None, compare=False, repr=False)

    def with_seq(self, seq: int) -> GateDecision:
        return replace(self, log_seq=seq)

    def to_json(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome.value,
            "reason": self.reason,
            "detail": dict(self.detail),
            "log_seq": self.log_seq,
            "unit": self.unit.text() if self.unit is not None else None,
        }


def reject(reason: str, message: str, unit: Unit | None = None, **detail: Any) -> GateDecision:
    return GateDecision(Outcome.REJECT, reason, {"message": message, **detail}, None, None, unit)


def parse_proposal(proposal: Unit | str | Mapping[str, Any]) -> Unit | GateDecision:
    """A unit from text, its JSON form or a :class:`Unit`; a REJECT decision when it does not load."""
    if isinstance(proposal, Fact | Rule):
        return proposal
    if isinstance(proposal, str) and not proposal.rstrip().endswith("."):
        proposal = proposal.rstrip() + "."  # a bare literal, as grounders write facts
    try:
        unit = parse_unit(proposal) if isinstance(proposal, str) else unit_from_json(dict(proposal))
    except ProgramError as exc:
        reason = exc.reason if exc.reason in ("UNSAFE_RULE",) else "PARSE_ERROR"
        return reject(reason, exc.bare, None, line=exc.line, col=exc.col, label=exc.label, **exc.detail)
    except (TypeError, ValueError) as exc:
        return reject("PARSE_ERROR", f"not a unit: {exc}")
    return unit
