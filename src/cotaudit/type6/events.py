"""The event catalogue (Y-54..Y-57): codes, names, severities, weights, messages, output order.

An :class:`Event` is created where its rule fires and carries a *rank* (Y-56: where it sorts
among the events of one statement); :func:`number_events` puts the events in canonical order
and numbers them. Messages are fixed templates filled from the event's data, never from the
surface text (Y-57).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple


class Kind(NamedTuple):
    """A catalogue row."""

    name: str
    severity: str  # hard, soft, quality, structural, diagnostic, info, warning
    blocking: bool
    template: str


CATALOGUE: Mapping[str, Kind] = {
    "T6_H01": Kind(
        "K-K contradiction", "hard", True, "K {prev_value} at statement {prev_stmt}, now K {value}"
    ),
    "T6_H02": Kind(
        "derived contradiction", "hard", True, "constraint {constraint} forces {forced} but {prop} is {value}"
    ),
    "T6_H03": Kind("modal mismatch (Uc)", "hard", True, "{kind} commitment on {prop} annotated Uc"),
    "T6_H04": Kind("modal mismatch (Uk/K)", "hard", True, "K commitment on {prop} annotated Uk"),
    "T6_H05": Kind("reasoning-avoidance", "hard", True, "no constraint derives the sink {prop}"),
    "T6_S01": Kind("B-B conflict", "soft", False, "B {prev_value} at statement {prev_stmt}, now B {value}"),
    "T6_S02": Kind(
        "bare-reassertion conflict",
        "soft",
        False,
        "{prev_kind} {prev_value} at statement {prev_stmt}, now {kind} {value}",
    ),
    "T6_S03": Kind(
        "unjustified downgrade", "soft", False, "K {prev_value} at statement {prev_stmt}, now B {value}"
    ),
    "T6_S04": Kind(
        "unjustified modal shift", "soft", False, "B {prev_value} at statement {prev_stmt}, now K {value}"
    ),
    "T6_S05": Kind("cross-path disagreement", "soft", False, "consistent paths end with {prop} both T and F"),
    "T6_R01": Kind(
        "unresolved doubt at sink", "soft", False, "{prop} is still doubted when the trace concludes{where}"
    ),
    "T6_R02": Kind(
        "unresolved unknowability at sink", "soft", False, "{prop} is Uk when the trace concludes{where}"
    ),
    "T6_Q01": Kind(
        "redundant re-assertion", "quality", False, "{kind} {value} on {prop} repeats statement {prev_stmt}"
    ),
    "T6_Q02": Kind("self-questioned K", "quality", False, "K ? {prop} after knowing {prop}"),
    "T6_Q03": Kind("self-questioned B", "quality", False, "B ? {prop} after believing {prop}"),
    "T6_Q04": Kind(
        "unverifiable derivation", "quality", False, "constraint {constraint} cannot verify {prop} = {value}"
    ),
    "T6_Q05": Kind("ambiguous negated connective", "quality", False, "negated {connective} on {prop}"),
    "T6_D01": Kind(
        "malformed implication", "structural", False, "IF opened at statement {opened_at} was closed by {by}"
    ),
    "T6_D02": Kind(
        "under-resolution", "diagnostic", False, "consistent paths leave {prop} both Uk and resolved"
    ),
    "T6_I01": Kind(
        "licensed revision",
        "info",
        False,
        "{prop} revised from {prev_value} (statement {prev_stmt}) to {value}",
    ),
    "T6_I02": Kind("pin", "info", False, "constraint {constraint} pins {prop} to {value}"),
    "T6_W01": Kind("unknown operator token", "warning", False, "{reason} token {token} ignored"),
    "T6_W02": Kind("source inferred", "warning", False, "no q: source inferred as {prop}"),
    "T6_W03": Kind("sink inferred", "warning", False, "no a: sink inferred as {prop}"),
    "T6_W04": Kind("connective without proposition", "warning", False, "{connective} without a proposition"),
    "T6_W05": Kind("operator without target / filler", "warning", False, "{what} without a proposition"),
    "T6_W06": Kind("dangling THEN", "warning", False, "THEN {prop} has no antecedent; no constraint"),
    "T6_W07": Kind("path set incomplete", "warning", False, "path set {mode}: {found} paths scored"),
    "T6_W08": Kind("path analysis skipped", "warning", False, "path analysis skipped: {reason}"),
    # Not in the spec's catalogue: the upstream-search budget of Y-46 (b) ran out (docs/type6.md).
    "T6_W09": Kind(
        "licensing search budget exhausted",
        "warning",
        False,
        "upstream searches exceeded {budget} visits: from here upstream derivations count as absent",
    ),
}

# Y-56 ranks within one statement.
RANK = {
    "W01": 0,
    "D01R": 1,
    "W04": 2,
    "W05": 2,
    "D01IF": 3,
    "H03": 4,
    "H04": 4,
    "Y43": 5,
    "Q01": 6,
    "Q02": 7,
    "Q03": 7,
    "Q05": 8,
    "W06": 9,
    "I02": 10,
    "H02": 11,
    "Q04": 11,
}
_CLOSED_BY = {
    "R": "R without THEN",
    "IF": "a new IF without THEN",
    "end": "the end of the trace without THEN",
}


def _clip(value: Any) -> Any:
    if isinstance(value, str) and len(value) > 40:
        return value[:37] + "..."
    return value


@dataclass(slots=True)
class Event:
    """One event before numbering. ``elevated`` is set for residuals only (Y-51)."""

    code: str
    stmt: int | None
    prop: str | None
    rank: int = 0
    constraint: int | None = None
    data: dict[str, Any] = field(default_factory=dict)
    elevated: bool | None = None
    line: int | None = None
    id: int = 0

    @property
    def kind(self) -> Kind:
        return CATALOGUE[self.code]

    @property
    def severity(self) -> str:
        """The effective severity: residuals on the implication chain are hard (Y-51)."""
        if self.elevated:
            return "hard"
        return CATALOGUE[self.code].severity

    @property
    def blocking(self) -> bool:
        return self.severity == "hard"

    def weight(self, weights: Mapping[str, float]) -> float:
        return weights.get(self.severity, 0.0)

    def message(self) -> str:
        """The template filled from the data; every value is cut to 40 characters (Y-57)."""
        values: dict[str, Any] = {
            key: _clip(value)
            for key, value in {"prop": self.prop, "constraint": self.constraint, **self.data}.items()
        }
        if self.code == "T6_D01":
            values["by"] = _CLOSED_BY.get(str(self.data.get("closed_by")), "?")
        elif self.code in ("T6_R01", "T6_R02"):
            values["where"] = (
                " (on the implication chain)" if self.elevated else " (off the implication chain)"
            )
        try:
            text = CATALOGUE[self.code].template.format(**values)
        except (KeyError, IndexError, ValueError):
            text = CATALOGUE[self.code].name
        return text if len(text) <= 200 else text[:197] + "..."

    def to_dict(self, weights: Mapping[str, float]) -> dict[str, Any]:
        data = dict(self.data)
        if self.elevated is not None:
            data["elevated"] = self.elevated
        return {
            "id": self.id,
            "code": self.code,
            "name": CATALOGUE[self.code].name,
            "severity": self.severity,
            "weight": round(self.weight(weights), 6),
            "blocking": self.blocking,
            "stmt": self.stmt,
            "line": self.line,
            "prop": self.prop,
            "constraint": self.constraint,
            "message": self.message(),
            "data": data,
        }
