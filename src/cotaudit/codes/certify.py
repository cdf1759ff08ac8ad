"""Stable codes of the certify engine (shared/spec/certify.md); none until the engine lands."""

from cotaudit.codes.model import Code

CERTIFY: tuple[Code, ...] = ()
