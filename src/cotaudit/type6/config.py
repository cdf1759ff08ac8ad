"""The verifier's configuration (Y-92) with the Y-13 input limits."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from cotaudit.type6.parse import MIB, Limits

PATH_MODES = ("auto", "enumerate", "sample", "off")
SCORES = ("graded", "strict", "proportional")
DEFAULT_WEIGHTS: Mapping[str, float] = {"hard": 1.0, "soft": 0.5, "quality": 0.25, "structural": 0.5}


@dataclass(frozen=True)
class Config:
    """Every knob of the verifier, with the spec's defaults. Invalid values raise ``ValueError``."""

    max_paths: int = 10_000
    max_loopbacks: int = 1
    path_mode: str = "auto"
    samples: int = 1_000
    max_walk_len: int | None = None
    seed: int = 0
    max_expansions: int = 1_000_000
    max_walk_steps: int = 2_000_000
    path_detail_limit: int = 200
    weights: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    score: str = "graded"
    max_input_bytes: int = 32 * MIB
    max_statements: int = 100_000
    max_ops: int = 32
    max_line_chars: int = 100_000
    max_upstream_visits: int = 1_000_000  # extension: budget of the Y-46 (b) searches
    max_evaluations: int = 500_000  # extension: back-propagation work; beyond it, T6_E05
    # Extensions (issue 14, docs/type6.md): what the result document lists. The analysis
    # always covers everything; a cut listing is counted in the document's ``truncated``.
    max_events_per_code: int = 100  # events (and diagnostics) listed per code
    max_listed_path_ids: int = 100  # path ids per value in S05/D02 data
    report_floor_bytes: int = 524_288  # listing allowance: floor + per input byte × |trace|
    report_bytes_per_input_byte: int = 8

    def __post_init__(self) -> None:
        if self.path_mode not in PATH_MODES:
            raise ValueError(f"path_mode must be one of {PATH_MODES}, got {self.path_mode!r}")
        if self.score not in SCORES:
            raise ValueError(f"score must be one of {SCORES}, got {self.score!r}")
        for name in (
            "max_paths",
            "max_loopbacks",
            "samples",
            "seed",
            "max_expansions",
            "max_walk_steps",
            "path_detail_limit",
            "max_input_bytes",
            "max_statements",
            "max_ops",
            "max_line_chars",
            "max_upstream_visits",
            "max_evaluations",
            "max_events_per_code",
            "max_listed_path_ids",
            "report_floor_bytes",
            "report_bytes_per_input_byte",
        ):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
        if self.max_walk_len is not None and (
            not isinstance(self.max_walk_len, int) or self.max_walk_len < 1
        ):
            raise ValueError(f"max_walk_len must be a positive integer or None, got {self.max_walk_len!r}")
        merged = dict(DEFAULT_WEIGHTS)
        for key, value in dict(self.weights).items():
            if key not in DEFAULT_WEIGHTS:
                raise ValueError(f"weights: unknown severity {key!r} (known: {', '.join(DEFAULT_WEIGHTS)})")
            if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value < float("inf"):
                raise ValueError(f"weights[{key!r}] must be a non-negative number, got {value!r}")
            merged[key] = float(value)
        object.__setattr__(self, "weights", merged)

    @property
    def limits(self) -> Limits:
        return Limits(self.max_input_bytes, self.max_statements, self.max_ops, self.max_line_chars)

    def with_options(self, **options: Any) -> Config:
        """A copy with some fields replaced; unknown names raise ``ValueError``."""
        known = {f.name for f in fields(self)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise ValueError(f"unknown type6 option(s): {', '.join(unknown)}")
        return replace(self, **options)

    def to_dict(self) -> dict[str, Any]:
        """The effective configuration, as reported in the result (Y-89)."""
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["weights"] = {k: self.weights[k] for k in DEFAULT_WEIGHTS}
        return d
