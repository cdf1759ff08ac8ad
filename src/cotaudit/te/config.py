"""Linter configuration (TE-44) and the diagnostic record (TE-41)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Literal

from cotaudit.codes import CODES
from cotaudit.te.numeric import Limits

SymbolicMode = Literal["worker", "inprocess"]

DEFAULT_HEDGE_TOKENS: tuple[str, ...] = ("maybe", "actually", "wait", "hm{2,}")
STRUCTURAL_RULES: frozenset[str] = frozenset(
    {"TE_E001", "TE_E002", "TE_E003", "TE_E008", "TE_E010", "TE_E012", "TE_E013"}
)
SEMANTIC_RULES: frozenset[str] = frozenset(
    {"TE_E004", "TE_E005", "TE_E006", "TE_E007", "TE_E009", "TE_E011", "TE_E014", "TE_W001"}
)


@dataclass(frozen=True, slots=True)
class LintConfig:
    """A frozen, hashable linter configuration.

    ``symbolic="worker"`` (the default) runs SymPy work in a persistent worker process with a
    hard per-call deadline and a 10 s per-trace budget. ``symbolic="inprocess"`` runs SymPy in
    the calling thread: the per-call deadline (SIGALRM) then works only on the main thread,
    and off the main thread there is **no** timeout at all.
    """

    disabled_rules: frozenset[str] = frozenset()
    strict: bool = False
    eps_rel: Fraction = Fraction(1, 10**6)
    eps_abs: Fraction = Fraction(1, 10**9)
    hedge_tokens: tuple[str, ...] = DEFAULT_HEDGE_TOKENS
    limits: Limits = field(default_factory=Limits)
    symbolic: SymbolicMode = "worker"

    def enabled(self, code: str) -> bool:
        return code not in self.disabled_rules

    def with_(self, **changes: Any) -> LintConfig:
        return replace(self, **changes)

    def hedge_regex(self) -> re.Pattern[str]:
        return _hedge_regex(self.hedge_tokens)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able form (for the worker protocol and run-log headers)."""
        lim = self.limits
        return {
            "disabled_rules": sorted(self.disabled_rules),
            "strict": self.strict,
            "eps_rel": str(self.eps_rel),
            "eps_abs": str(self.eps_abs),
            "hedge_tokens": list(self.hedge_tokens),
            "limits": {k: getattr(lim, k) for k in lim.__dataclass_fields__},
            "symbolic": self.symbolic,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LintConfig:
        return cls(
            disabled_rules=frozenset(d.get("disabled_rules", ())),
            strict=bool(d.get("strict", False)),
            eps_rel=Fraction(d.get("eps_rel", "1/1000000")),
            eps_abs=Fraction(d.get("eps_abs", "1/1000000000")),
            hedge_tokens=tuple(d.get("hedge_tokens", DEFAULT_HEDGE_TOKENS)),
            limits=Limits(**d.get("limits", {})),
            symbolic=d.get("symbolic", "worker"),
        )


_HEDGE_CACHE: dict[tuple[str, ...], re.Pattern[str]] = {}


def _hedge_regex(tokens: tuple[str, ...]) -> re.Pattern[str]:
    pattern = _HEDGE_CACHE.get(tokens)
    if pattern is None:
        pattern = re.compile(r"(?i)\b(" + "|".join(tokens) + r")\b")
        _HEDGE_CACHE[tokens] = pattern
    return pattern


# The two presets of TE-44: M1 is structural only, M2 is every rule.
M1 = LintConfig(disabled_rules=frozenset(SEMANTIC_RULES))
M2 = LintConfig()


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One TE diagnostic (TE-41)."""

    code: str
    line: int
    column: int | None  # 1-based, or None for a whole line
    message: str
    tag: str | None = None
    id: str | None = None
    evidence: tuple[tuple[str, Any], ...] = ()

    @property
    def rule(self) -> str:
        return CODES[self.code].name

    @property
    def severity(self) -> str:
        return CODES[self.code].severity

    def sort_key(self) -> tuple[int, int, str]:
        return (self.line, self.column or 0, self.code)

    def dedupe_key(self) -> tuple[str, int, int | None, str]:
        return (self.code, self.line, self.column, self.message)

    def evidence_dict(self) -> dict[str, Any]:
        return dict(self.evidence)

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "rule": self.rule,
            "severity": self.severity,
            "line": self.line,
            "column": self.column,
            "tag": self.tag,
            "id": self.id,
            "message": self.message,
            "evidence": self.evidence_dict(),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Diagnostic:
        return cls(
            code=d["code"],
            line=d["line"],
            column=d["column"],
            message=d["message"],
            tag=d.get("tag"),
            id=d.get("id"),
            evidence=tuple(d.get("evidence", {}).items()),
        )
