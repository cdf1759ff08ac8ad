"""The certify suite's guard for these evaluations too: every certificate a test produces must go
through the independent ``recheck`` (tests/certify/conftest.py)."""

from certify.conftest import every_certificate_rechecks, tampered_files

__all__ = ["every_certificate_rechecks", "tampered_files"]
