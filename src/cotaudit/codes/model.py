"""The record of one stable code."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True, slots=True)
class Code:
    """One stable diagnostic code."""

    code: str
    engine: str
    name: str
    severity: Severity
    layer: str
    summary: str
