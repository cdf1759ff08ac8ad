"""Bindings, versions, liveness and the two worlds (TE-29 … TE-34).

Every binding carries a *truth* value (from each EQ's right-hand side) and a *belief* value
(from its last part, what the author believes). A check passes if it holds in at least one
world where it can be evaluated, so each inconsistency is reported once, on the line that
introduces it, whichever world later lines follow.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from cotaudit.te import symbolic as sym
from cotaudit.te.evaluate import UserFunction
from cotaudit.te.numeric import EvalError, NeedsSymbolic, Poisoned, Value
from cotaudit.te.unitcheck import UnitT

TRUTH: Final = 0
BELIEF: Final = 1


class _Poison:
    def __repr__(self) -> str:
        return "POISON"


POISON: Final = _Poison()


@dataclass(frozen=True, slots=True)
class EvalFailure:
    """An evaluation error in one world (TE-26), kept with its reason."""

    reason: str


Slot = Any  # Value | POISON | EvalFailure


def usable(v: Slot) -> bool:
    return v is not POISON and not isinstance(v, EvalFailure)


@dataclass(slots=True)
class Binding:
    """One version of a name."""

    name: str
    kind: str  # given | param | doc | function | eq | solved
    line: int
    path: tuple[str, ...]
    values: list[Slot] = field(default_factory=lambda: [POISON, POISON])
    units: list[UnitT] = field(default_factory=lambda: [None, None])
    param: bool = False  # a param or one of its solutions
    assumptions: tuple[str, ...] = ()
    text: str = ""  # the STRING of a doc entry, or the value text of a declaration

    @property
    def unsolved(self) -> bool:
        return self.kind == "param"


@dataclass(slots=True)
class EqRecord:
    """What ``ID.value`` / ``ID.unit`` read: the EQ's value as of its line, per world."""

    line: int
    relation: bool
    values: list[Slot] = field(default_factory=lambda: [POISON, POISON])
    units: list[UnitT] = field(default_factory=lambda: [None, None])


def is_live(binding: Binding, path: tuple[str, ...]) -> bool:
    """TE-34: live iff made at top level or in a block that is still open on this path."""
    return path[: len(binding.path)] == binding.path


class Scope:
    """All bindings of one trace, with the world-specific views the evaluator asks for."""

    def __init__(self, symbolic: bool) -> None:
        self.symbolic = symbolic
        self.versions: dict[str, list[Binding]] = {}
        self.records: dict[str, EqRecord] = {}
        self.functions: dict[str, UserFunction] = {}
        # Every declared function, including those whose body failed: calls to a poisoned
        # function parse (no second E013) and evaluate to nothing (TE-32).
        self.function_arity: dict[str, int] = {}
        self.function_key: frozenset[tuple[str, int]] = frozenset()  # the parser's cache key
        self._symbols: dict[str, Any] = {}
        self.diverged = False
        self._views = (WorldView(self, TRUTH), WorldView(self, BELIEF))

    def declare_function(self, name: str, arity: int) -> None:
        self.function_arity.setdefault(name, arity)
        self.function_key = frozenset(self.function_arity.items())

    def current(self, name: str) -> Binding | None:
        versions = self.versions.get(name)
        return versions[-1] if versions else None

    def first_param(self, name: str) -> Binding | None:
        for b in self.versions.get(name, ()):
            if b.kind == "param":
                return b
        return None

    def bind(self, b: Binding) -> None:
        self.versions.setdefault(b.name, []).append(b)
        self.note_divergence(b.values, b.units)

    def note_divergence(self, values: list[Slot], units: list[UnitT]) -> None:
        if not self.diverged and (not _same(values[TRUTH], values[BELIEF]) or units[TRUTH] != units[BELIEF]):
            self.diverged = True

    def symbol(self, b: Binding) -> Any:
        """The SymPy symbol of a param (built from the name, never parsed)."""
        if not self.symbolic:
            raise NeedsSymbolic()
        s = self._symbols.get(b.name)
        if s is None:
            sp = sym.sympy()
            flags = {a: True for a in b.assumptions}
            s = sp.Symbol(b.name, **flags)
            self._symbols[b.name] = s
        return s

    def view(self, world: int) -> WorldView:
        return self._views[world]


def _same(a: Slot, b: Slot) -> bool:
    if a is b:
        return True
    if not usable(a) or not usable(b):
        return False
    try:
        return bool(type(a) is type(b) and a == b)
    except TypeError:  # pragma: no cover - defensive
        return False


class WorldView:
    """The evaluator's :class:`~cotaudit.te.evaluate.Scope` for one world."""

    def __init__(self, scope: Scope, world: int) -> None:
        self.scope = scope
        self.world = world

    def lookup(self, name: str) -> Value:
        b = self.scope.current(name)
        if b is None or b.kind in ("doc", "function"):
            raise Poisoned()
        if b.kind == "param":
            return self.scope.symbol(b)
        v = b.values[self.world]
        if not usable(v):
            raise Poisoned()
        return v

    def attr_value(self, ident: str) -> Value:
        rec = self.scope.records.get(ident)
        if rec is None:
            raise Poisoned()
        if rec.relation:
            raise EvalError(f"{ident} is a relation-form EQ and has no .value")
        v = rec.values[self.world]
        if not usable(v):
            raise Poisoned()
        return v

    def function(self, name: str) -> UserFunction | None:
        return self.scope.functions.get(name)

    # unit lookups (UnitEnv)
    def name_unit(self, name: str) -> UnitT:
        b = self.scope.current(name)
        return None if b is None else b.units[self.world]

    def attr_unit(self, ident: str) -> UnitT:
        rec = self.scope.records.get(ident)
        return None if rec is None else rec.units[self.world]
