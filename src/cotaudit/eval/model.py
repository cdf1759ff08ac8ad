"""Items, outcomes and the method protocol of the evaluation harness."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class EvalItem:
    """One corpus item with its gold label."""

    id: str
    engine: str
    text: str
    adversarial: bool
    category: str | None = None
    gold_line: int | None = None
    expected_codes: tuple[str, ...] = ()
    part: str = ""

    @property
    def stratum(self) -> str:
        return "adversarial" if self.adversarial else "clean"


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one method said about one item in one run."""

    method: str
    item: str
    run: int
    flagged: bool
    errors: tuple[tuple[int | None, str], ...] = ()  # (line, code) of every error, sorted
    seconds: float = 0.0

    @property
    def first_error_line(self) -> int | None:
        lines = [line for line, _ in self.errors if line is not None]
        return min(lines) if lines else None

    def codes(self) -> set[str]:
        return {code for _, code in self.errors}

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "outcome",
            "method": self.method,
            "item": self.item,
            "run": self.run,
            "flagged": self.flagged,
            "errors": [list(e) for e in self.errors],
            "seconds": round(self.seconds, 6),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Outcome:
        return cls(
            method=d["method"],
            item=d["item"],
            run=int(d["run"]),
            flagged=bool(d["flagged"]),
            errors=tuple((e[0], e[1]) for e in d.get("errors", ())),
            seconds=float(d.get("seconds", 0.0)),
        )


class Method(Protocol):
    """A verifier under evaluation."""

    name: str
    description: str
    deterministic: bool

    def unavailable(self) -> str | None:
        """Why the method cannot run here (``None`` when it can)."""
        ...

    def run(self, item: EvalItem, run: int) -> Outcome: ...


@dataclass(slots=True)
class Results:
    """Every outcome of a run, indexed by (method, run, item)."""

    outcomes: dict[tuple[str, int, str], Outcome] = field(default_factory=dict)

    def add(self, outcome: Outcome) -> None:
        self.outcomes[(outcome.method, outcome.run, outcome.item)] = outcome

    def get(self, method: str, item: str, run: int = 0) -> Outcome | None:
        return self.outcomes.get((method, run, item))

    def runs(self, method: str) -> list[int]:
        return sorted({r for m, r, _ in self.outcomes if m == method})
