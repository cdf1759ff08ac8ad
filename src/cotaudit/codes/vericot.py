"""Stable codes of the vericot engine (shared/spec/vericot.md); none until the engine lands."""

from cotaudit.codes.model import Code

VERICOT: tuple[Code, ...] = ()
