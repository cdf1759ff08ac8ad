"""The bottom layer of certify: its errors, canonical JSON and hashing, and the engine version."""

from cotaudit.certify.core.errors import (
    CertifyError,
    ComputationCap,
    InterfaceError,
    KbError,
    ProgramError,
    ResourceCap,
    StoreError,
    WhitelistViolation,
)
from cotaudit.certify.core.version import ENGINE, ENGINE_VERSION

__all__ = [
    "ENGINE",
    "ENGINE_VERSION",
    "CertifyError",
    "ComputationCap",
    "InterfaceError",
    "KbError",
    "ProgramError",
    "ResourceCap",
    "StoreError",
    "WhitelistViolation",
]
