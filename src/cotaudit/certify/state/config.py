"""The engine's configuration (C-119): a frozen dataclass with the spec's defaults.

The spec names pydantic; pydantic is not a core dependency of cotaudit (only of the ``llm`` and
``service`` extras), so the engine validates by hand here and round-trips through JSON.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from cotaudit.certify.engine.limits import EvalLimits
from cotaudit.certify.sources.records import CheckerConfig

MIB = 1 << 20


@dataclass(frozen=True)
class CertifyConfig:
    """C-119 defaults; ``votes``/``agreement``/``evidence_policy`` are used by serving (part 2)."""

    delta: int = 6
    votes: int = 2
    agreement: str = "facts"
    evidence_policy: str = "first"
    on_reject: str = "abstain"
    rederive_k: int | None = None
    scan_cap: int = 100_000
    tau: float = 0.5
    rho: float = 1.0
    half_life_ticks: float = 1.0
    budget_bytes: int = 64 * MIB
    partial_enum_max: int = 40
    limits: EvalLimits = field(default_factory=EvalLimits)
    checker_timeout_s: float = 30.0
    closure_embed_max: int = 100_000
    c1_floor: float = 0.05
    audit_sync: bool = False
    synchronous: str = "FULL"
    checkers: CheckerConfig = field(default_factory=CheckerConfig)

    def __post_init__(self) -> None:
        problems = []
        if self.delta < 0:
            problems.append("delta must be ≥ 0")
        if self.votes < 1:
            problems.append("votes must be ≥ 1")
        if self.agreement not in ("facts", "answers"):
            problems.append("agreement must be facts or answers")
        if self.evidence_policy not in ("first", "all"):
            problems.append("evidence_policy must be first or all")
        if self.on_reject not in ("abstain", "drop"):
            problems.append("on_reject must be abstain or drop")
        if self.rederive_k is not None and self.rederive_k < 1:
            problems.append("rederive_k must be ≥ 1 or null")
        if self.half_life_ticks <= 0 or self.rho < 0 or self.budget_bytes < 0 or self.scan_cap < 1:
            problems.append("half_life_ticks > 0, rho ≥ 0, budget_bytes ≥ 0 and scan_cap ≥ 1 are required")
        if self.synchronous not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            problems.append("synchronous must be OFF, NORMAL, FULL or EXTRA")
        if problems:
            raise ValueError("; ".join(problems))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, EvalLimits):
                value = {
                    "max_facts": value.max_facts,
                    "timeout_s": str(value.timeout_s),
                    "max_rounds": value.max_rounds,
                    "max_memory_mb": value.max_memory_mb,
                }
            elif isinstance(value, CheckerConfig):
                value = value.to_json()
            elif isinstance(value, float):
                value = str(value)
            out[f.name] = value
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> CertifyConfig:
        """Build from a JSON/YAML mapping; unknown keys are an error (``ValueError``)."""
        names = {f.name: f for f in fields(cls)}
        unknown = sorted(set(d) - set(names))
        if unknown:
            raise ValueError(f"unknown config key(s): {', '.join(unknown)}")
        kwargs: dict[str, Any] = {}
        for key, value in d.items():
            if key == "limits":
                if not isinstance(value, Mapping):
                    raise ValueError("limits must be a mapping")
                kwargs[key] = _limits(value)
            elif key == "checkers":
                if not isinstance(value, Mapping):
                    raise ValueError("checkers must be a mapping")
                kwargs[key] = CheckerConfig.from_json(value)
            elif key in ("tau", "rho", "half_life_ticks", "checker_timeout_s", "c1_floor"):
                kwargs[key] = float(value)
            elif key == "rederive_k":
                kwargs[key] = None if value is None else int(value)
            elif key in (
                "delta",
                "votes",
                "scan_cap",
                "budget_bytes",
                "partial_enum_max",
                "closure_embed_max",
            ):
                if isinstance(value, bool) or not isinstance(value, int | str):
                    raise ValueError(f"{key} must be an integer")
                kwargs[key] = int(value)
            elif key == "audit_sync":
                kwargs[key] = bool(value)
            else:
                kwargs[key] = str(value)
        return cls(**kwargs)

    def with_(self, **changes: Any) -> CertifyConfig:
        return replace(self, **changes)


def _limits(d: Mapping[str, Any]) -> EvalLimits:
    """C-25's limits from a mapping: positive integers and a positive finite timeout."""
    unknown = sorted(set(d) - {"max_facts", "timeout_s", "max_rounds", "max_memory_mb"})
    if unknown:
        raise ValueError(f"unknown limits key(s): {', '.join(map(str, unknown))}")

    def count(name: str, default: int | None) -> int | None:
        value = d.get(name, default)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).strip().isdigit():
            raise ValueError(f"limits.{name} must be a positive integer")
        if int(value) < 1:
            raise ValueError(f"limits.{name} must be a positive integer")
        return int(value)

    timeout = d.get("timeout_s", 60)
    try:
        seconds = float(timeout) if not isinstance(timeout, bool) else math.nan
    except (TypeError, ValueError):
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise ValueError("limits.timeout_s must be a positive number of seconds")
    max_facts = count("max_facts", 5_000_000)
    return EvalLimits(
        max_facts=5_000_000 if max_facts is None else max_facts,
        timeout_s=seconds,
        max_rounds=count("max_rounds", None),
        max_memory_mb=count("max_memory_mb", 1024),
    )
