"""Report model (R-1) and the writers that format it."""

from cotaudit.report.model import (
    SCHEMA_VERSION,
    Finding,
    InputRef,
    Location,
    Report,
    ReportFormatError,
    Severity,
    Verdict,
    sha256_text,
)

__all__ = [
    "SCHEMA_VERSION",
    "Finding",
    "InputRef",
    "Location",
    "Report",
    "ReportFormatError",
    "Severity",
    "Verdict",
    "sha256_text",
]
