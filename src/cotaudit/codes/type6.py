"""Stable codes of the type6 engine (shared/spec/type6.md); none until the engine lands."""

from cotaudit.codes.model import Code

TYPE6: tuple[Code, ...] = ()
