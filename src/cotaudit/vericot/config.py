"""``VerifierConfig`` (V-56): solver, logic, judging, LLM and output settings.

An invalid combination raises one clear :class:`ConfigError` (a :class:`UsageError`).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from cotaudit.errors import UsageError
from cotaudit.vericot.schema import Limits

SEMANTICS = ("classical", "proofwriter")
FORMALIZERS = ("none", "proofwriter", "prontoqa", "llm")
PROVIDERS = ("input", "pool", "llm")
JUDGES = ("deterministic", "llm", "accept_all")


class ConfigError(UsageError):
    """An invalid vericot configuration."""


@dataclass(frozen=True)
class VerifierConfig:
    """Every knob of the verifier; defaults as in V-56."""

    timeout_ms: int = 2000
    rlimit: int | None = None
    step_budget_ms: int = 15_000
    # [ours] wall time for the whole trace (load, every step, LLM stages); an enclosing
    # cotaudit.limits budget, if tighter, wins; None leaves only that one. Steps it leaves
    # unchecked are unknown (budget_exhausted).
    trace_budget_ms: int | None = 60_000
    max_core_checks: int = 64
    semantics: str = "classical"
    formalizer: str = "none"
    premise_providers: tuple[str, ...] = ("input", "pool", "llm")
    commit_policy: str = "assume"
    tautology: str = "reject"
    judge: str = "deterministic"
    commonsense_no_individuals: bool = True
    commonsense_allowlist: tuple[str, ...] = ()
    max_rounds: int = 3
    max_premises: int = 6
    max_llm_calls_per_trace: int = 200
    llm: Any = None  # an object with the stage hooks (cotaudit.frontends.vericot_llm); never imported here
    # [ours, issue 19] what to configure when a step has no formalization and no formaliser can
    # make one (the front end says which model settings are missing); None: a generic hint
    formalizer_hint: str | None = None
    include_timings: bool = False
    # V-17's invariant check (SAT(KB) after every commit); on in the test suite via this variable
    debug_invariants: bool = field(
        default_factory=lambda: os.environ.get("COTAUDIT_VERICOT_INVARIANTS") == "1"
    )
    limits: Limits = field(default_factory=Limits)

    def __post_init__(self) -> None:
        problems: list[str] = []
        if self.semantics not in SEMANTICS:
            problems.append(f"semantics must be one of {SEMANTICS}, got {self.semantics!r}")
        if self.formalizer not in FORMALIZERS:
            problems.append(f"formalizer must be one of {FORMALIZERS}, got {self.formalizer!r}")
        bad = [p for p in self.premise_providers if p not in PROVIDERS]
        if bad:
            problems.append(f"unknown premise provider {bad[0]!r} (known: {', '.join(PROVIDERS)})")
        if self.commit_policy not in ("assume", "strict"):
            problems.append(f"commit_policy must be 'assume' or 'strict', got {self.commit_policy!r}")
        if self.tautology not in ("reject", "flag"):
            problems.append(f"tautology must be 'reject' or 'flag', got {self.tautology!r}")
        if self.judge not in JUDGES:
            problems.append(f"judge must be one of {JUDGES}, got {self.judge!r}")
        if self.semantics == "proofwriter" and self.formalizer == "llm":
            problems.append("semantics 'proofwriter' cannot be combined with the LLM formalizer (V-19)")
        if (self.formalizer == "llm" or self.judge == "llm") and self.llm is None:
            problems.append(
                f"{'formalizer' if self.formalizer == 'llm' else 'judge'} 'llm' needs an LLM backend"
            )
        for name in (
            "timeout_ms",
            "step_budget_ms",
            "max_core_checks",
            "max_rounds",
            "max_llm_calls_per_trace",
        ):
            if getattr(self, name) < 1:
                problems.append(f"{name} must be at least 1")
        if self.trace_budget_ms is not None and self.trace_budget_ms < 1:
            problems.append("trace_budget_ms must be at least 1 (or None: no bound of its own)")
        if self.rlimit is not None and self.rlimit < 1:
            problems.append("rlimit must be positive")
        if problems:
            raise ConfigError("vericot: " + "; ".join(problems))

    def with_options(self, **options: Any) -> VerifierConfig:
        known = {f.name for f in fields(self)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise ConfigError(f"vericot: unknown option {unknown[0]!r}")
        if "premise_providers" in options:
            options["premise_providers"] = tuple(options["premise_providers"])
        if "commonsense_allowlist" in options:
            options["commonsense_allowlist"] = tuple(options["commonsense_allowlist"])
        return replace(self, **options)

    @property
    def providers(self) -> tuple[str, ...]:
        """The providers in use: ``llm`` only when a backend is configured."""
        return tuple(p for p in self.premise_providers if p != "llm" or self.llm is not None)

    def report_dict(self) -> dict[str, Any]:
        """The effective configuration as written into reports (no backend object)."""
        skip = {"llm", "limits", "debug_invariants", "formalizer_hint"}
        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in skip}
        d["premise_providers"] = list(self.providers)
        d["commonsense_allowlist"] = list(self.commonsense_allowlist)
        d["llm"] = None if self.llm is None else getattr(self.llm, "name", "llm")
        return d


def load_config(path: str | Path) -> VerifierConfig:
    """A config from a TOML file (a ``[vericot]`` table or top-level keys)."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"vericot: cannot read config {path}: {exc}") from None
    table = data.get("vericot", data)
    return VerifierConfig().with_options(**table)
