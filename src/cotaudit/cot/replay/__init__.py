"""Task replay checkers: small plug-ins that each know one task's state and replay a trace.

A replayer has a ``name``, a ``recognises(problem, steps)`` test and a ``replay(problem,
steps)`` that returns a :class:`Replay`: one :class:`Check` per claim it could test (the
stack after a symbol, who holds what after a swap, a bucket of words, a placement) and,
optionally, the arithmetic claims it read itself (with names bound, e.g. ``A = -14``) for
the steps it owns. The engine uses the record's ``task`` field, or the ``task=`` option,
or else the first registered replayer that recognises the problem; with none, only the
generic arithmetic reader runs.

Register your own (the built-in ones are registered the same way)::

    from cotaudit.cot.replay import Check, Replay, register_replayer

    class Countdown:
        name = "countdown"

        def recognises(self, problem, steps):
            return problem.startswith("Count down from")

        def replay(self, problem, steps):
            checks = []
            expected = int(problem.split()[3])
            for i, step in enumerate(steps):
                if step.strip().isdigit():
                    got = int(step)
                    checks.append(Check(i, got == expected, "count", str(got), str(expected)))
                    expected = got - 1
            return Replay(checks)

    register_replayer(Countdown())

A check that finds the trace wrong must be certain: when the trace's wording cannot be read,
return no check for it (the step stays ``unchecked``), never a failing one.
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


_REGISTRY: dict[str, Replayer] = {}
_BUILTINS_LOADED = False


def register_replayer(replayer: Replayer) -> None:
    """Add (or replace) a replayer under ``replayer.name``."""
    _REGISTRY[replayer.name] = replayer


def unregister_replayer(name: str) -> None:
    _REGISTRY.pop(name, None)


def _load_builtins() -> None:
    global _BUILTINS_LOADED
    if _BUILTINS_LOADED:
        return
    _BUILTINS_LOADED = True
    from cotaudit.cot.replay import deduction, dyck, multistep, shuffle, wordsort

    for module in (multistep, dyck, wordsort, shuffle, deduction):
        if module.REPLAYER.name not in _REGISTRY:
            _REGISTRY[module.REPLAYER.name] = module.REPLAYER


def replayers() -> dict[str, Replayer]:
    """Every registered replayer, by name (built-ins first, then your own, in order)."""
    _load_builtins()
    return dict(_REGISTRY)


def find_replayer(task: str | None, problem: str | None, steps: Sequence[str]) -> Replayer | None:
    """The replayer named ``task``, else the first that recognises ``problem``; ``KeyError`` for
    an unknown ``task``."""
    table = replayers()
    if task is not None:
        return table[task]
    if problem is None:
        return None
    for replayer in table.values():
        if replayer.recognises(problem, steps):
            return replayer
    return None
