"""The only door to SymPy (TE-25 … TE-27): lazy import, per-call deadlines, exact equality.

SymPy is needed only for what exact rationals cannot hold: free parameters, constants,
irrational roots, logarithms, trigonometry and unbounded sums. Every call into it goes
through :func:`guarded`, which arms a ``setitimer`` deadline when that is possible (the main
thread of the worker process, or of an in-process caller) and counts the call, so
``details.stats.symbolic_calls`` is the same in every mode.

No trace text ever reaches SymPy's string parsers: objects are built from ``Integer``,
``Rational``, ``Symbol`` and the function classes directly (TE-18).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any, TypeVar

T = TypeVar("T")

_sympy: Any = None
_lock = threading.Lock()


def sympy() -> Any:
    """The ``sympy`` module, imported on first use."""
    global _sympy
    if _sympy is None:
        with _lock:
            if _sympy is None:
                import sympy as sp

                _sympy = sp
    return _sympy


class SymbolicTimeout(Exception):
    """A SymPy call ran past its deadline."""


class _State(threading.local):
    def __init__(self) -> None:
        self.calls = 0
        self.depth = 0
        self.timeout = 2.0


_state = _State()


def reset_counter(timeout: float) -> None:
    _state.calls = 0
    _state.timeout = timeout


def calls() -> int:
    return _state.calls


def _on_alarm(signum: int, frame: object) -> None:
    raise SymbolicTimeout()


@contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield  # documented: no timeout off the main thread (TE-25, symbolic="inprocess")
        return
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def count() -> None:
    """Count one logical SymPy call that a cache answered (stats must not depend on caches)."""
    _state.calls += 1


def guarded(fn: Callable[..., T], *args: Any, counted: bool = True) -> T:
    """Run one SymPy operation under the per-call deadline; nested calls share the outer one."""
    if counted:
        _state.calls += 1
    if _state.depth:
        return fn(*args)
    _state.depth += 1
    try:
        with _deadline(_state.timeout):
            return fn(*args)
    finally:
        _state.depth -= 1


def to_sympy(x: Any) -> Any:
    """A Fraction (or SymPy object) as a SymPy object."""
    if isinstance(x, Fraction):
        return sympy().Rational(x.numerator, x.denominator)
    if isinstance(x, int):
        return sympy().Integer(x)
    return x


def normalise(x: Any) -> Any:
    """SymPy rationals come back as Fractions, so the fast path resumes wherever it can."""
    if isinstance(x, Fraction):
        return x
    if getattr(x, "is_Rational", False):
        return Fraction(int(x.p), int(x.q))
    return x


def text(x: Any) -> str:
    """Deterministic text of a value: ``p/q`` for Fractions, lex-ordered ``sstr`` otherwise."""
    if isinstance(x, Fraction):
        return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"
    return str(sympy().sstr(x, order="lex"))


def free_symbols(x: Any) -> bool:
    return not isinstance(x, Fraction) and bool(getattr(x, "free_symbols", ()))
