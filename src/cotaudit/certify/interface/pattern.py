"""Role patterns (C-10 ``pattern``) compiled and matched by RE2, in time linear in the input.

An interface is untrusted text, and so is its ``pattern``: Python's backtracking ``re`` takes
exponential time on a pattern such as ``^(p[0-9]+|(a+)+)$`` (thirty ``a`` and a ``b`` ran for
more than a minute). **Decision:** every role pattern is compiled by RE2 (``google-re2``, a
core dependency; this is the one module that imports it), whose automata match in time linear
in the constant whatever the pattern, with a bounded memory for the compiled program
(``max_mem``). RE2's syntax is Python's minus the features that need backtracking —
backreferences (``\\1``, ``(?P=name)``), lookaround (``(?=``, ``(?!``, ``(?<=``, ``(?<!``),
possessive and atomic groups: a pattern using one is rejected when the interface loads
(``BAD_ROLE``, with RE2's reason), never run by a backtracking engine. Patterns are at most
:data:`MAX_PATTERN_CHARS` characters.
"""

from __future__ import annotations

import functools
from typing import Any

from cotaudit.errors import CotauditError, MissingDependency

MAX_PATTERN_CHARS = 4096
MAX_PROGRAM_BYTES = 1 << 20  # RE2's budget for one compiled pattern (its default is 8 MiB)


class PatternError(CotauditError, ValueError):
    """A role pattern that cannot be compiled by the linear-time matcher (the reason is the message)."""


def _re2() -> Any:
    try:
        import re2
    except ModuleNotFoundError:
        raise MissingDependency("re2", "pip install google-re2 (role patterns are matched by RE2)") from None
    return re2


@functools.lru_cache(maxsize=1024)
def compile_pattern(pattern: str) -> Any:
    """The compiled RE2 program of ``pattern``; :class:`PatternError` when RE2 cannot take it."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternError(f"longer than {MAX_PATTERN_CHARS} characters")
    re2 = _re2()
    options = re2.Options()
    options.log_errors = False
    options.max_mem = MAX_PROGRAM_BYTES
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        why = exc.args[0] if exc.args else exc
        text = why.decode("utf-8", "replace") if isinstance(why, bytes) else str(why)
        raise PatternError(f"{text} (RE2 syntax: no backreferences or lookaround)") from None
    except (UnicodeError, TypeError, ValueError) as exc:
        raise PatternError(str(exc)) from None


def fullmatch(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches the whole of ``text`` (linear in ``len(text)``)."""
    try:
        return compile_pattern(pattern).fullmatch(text) is not None
    except UnicodeError:  # a lone surrogate in the text cannot be UTF-8 for RE2, so no match
        return False
