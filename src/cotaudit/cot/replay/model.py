"""What a task replayer is and what it returns: :class:`Replayer`, :class:`Replay`, :class:`Check`.

The built-in replayers (:mod:`.multistep`, :mod:`.dyck`, :mod:`.wordsort`, :mod:`.shuffle`,
:mod:`.deduction`) import these; the registry (:mod:`.registry`) loads them on first use.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from cotaudit.cot.claims import Claim


@dataclass(frozen=True, slots=True)
class Check:
    """One replayed claim: the step it is in, whether it holds, what was claimed and expected.

    ``column`` is 1-based within the step text, when known.
    """

    step: int
    ok: bool
    what: str
    claimed: str
    expected: str
    column: int | None = None
    note: str = ""


@dataclass(slots=True)
class Replay:
    """What a replayer found: its checks, the arithmetic claims of steps it read itself, and
    the steps it read completely."""

    checks: list[Check] = field(default_factory=list)
    claims: dict[int, list[Claim]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    # Steps the replayer read in full: every statement in them was replayed (nothing left
    # unread). The engine reports them as ``complete`` when every check in them holds.
    complete: set[int] = field(default_factory=set)


class Replayer(Protocol):
    name: str

    def recognises(self, problem: str, steps: Sequence[str]) -> bool: ...

    def replay(self, problem: str, steps: Sequence[str]) -> Replay: ...
