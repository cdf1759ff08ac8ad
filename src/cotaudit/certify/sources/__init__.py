"""Source records, evidence, the source-checker protocol and the built-in source checkers."""

from cotaudit.certify.sources.checkers import CheckerRegistry
from cotaudit.certify.sources.records import (
    CheckerConfig,
    CheckResult,
    Evidence,
    MemoryRecords,
    RecordStore,
    SourceChecker,
    SourceRecord,
)

__all__ = [
    "CheckResult",
    "CheckerConfig",
    "CheckerRegistry",
    "Evidence",
    "MemoryRecords",
    "RecordStore",
    "SourceChecker",
    "SourceRecord",
]
