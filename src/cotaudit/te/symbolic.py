"""The only door to SymPy (TE-25 … TE-27): lazy import, per-call deadlines, exact equality.

SymPy is needed only for what exact rationals cannot hold: free parameters, constants,
irrational roots, logarithms, trigonometry and unbounded sums. Every call into it goes
through :func:`guarded`, which arms a ``setitimer`` deadline when that is possible (the main
thread of the worker process, or of an in-process caller) and counts the call, so
``details.stats.symbolic_calls`` is the same in every mode.

No trace text ever reaches SymPy's string parsers: objects are built from ``Integer``,
``Rational``, ``Symbol`` and the function classes directly (TE-18).

A deadline interrupts Python code only: a single GMP operation on a ten-billion-digit integer
cannot be stopped. So nothing huge may ever be *started*: :func:`log2_abs` and
:func:`bounded_at` estimate magnitudes (inside out, at 53 bits) before the evaluator or a
probe point asks SymPy for an exact value, and :func:`to_fraction` refuses to turn a huge
float into an exact rational (TE-24). Deadlines also never outlive the caller's budget
(:func:`cotaudit.limits.remaining`); when that budget is what ran out, the caller gets
:class:`cotaudit.limits.BudgetExceeded`, not a TE diagnostic.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any, TypeVar

import cotaudit.limits as budget
from cotaudit.te.numeric import LimitError, int_text

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
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-4))  # 0 would disarm the timer
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
    budget.checkpoint()  # the caller's budget (api.check) may already be spent
    seconds = budget.remaining(_state.timeout)
    assert seconds is not None
    _state.depth += 1
    try:
        with _deadline(seconds):
            return fn(*args)
    except SymbolicTimeout:
        budget.checkpoint()  # the caller's budget, not the 2 s per call, ran out: W001, not TE_E014
        raise
    except ValueError as exc:
        if "integer string conversion" in str(exc):
            # SymPy printed an integer of more than 4,300 digits somewhere inside (Python's
            # int-to-str limit); exact results may reach 65,536 bits, so this is a size limit.
            raise LimitError("digits", "4300", "a number inside SymPy has too many digits to print") from None
        raise
    except Exception as exc:
        if type(exc).__name__ == "PrecisionExhausted":  # sympy.core.evalf: needs more precision
            raise LimitError("precision", "evalf", "SymPy ran out of numeric precision") from None
        raise
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
    """Deterministic text of a value: ``p/q`` for Fractions, lex-ordered ``sstr`` otherwise
    (integers printed without Python's 4,300-digit limit, as :func:`int_text`)."""
    if isinstance(x, Fraction):
        return (
            int_text(x.numerator)
            if x.denominator == 1
            else f"{int_text(x.numerator)}/{int_text(x.denominator)}"
        )
    return str(_printer_class()({"order": "lex"}).doprint(x))  # a printer keeps state: one per call


_PRINTER: Any = None


def _printer_class() -> Any:
    """SymPy's ``StrPrinter`` (what ``sstr`` uses) with integers printed by :func:`int_text`."""
    global _PRINTER
    if _PRINTER is None:
        from sympy.printing.str import StrPrinter

        class _TextPrinter(StrPrinter):  # type: ignore[misc]
            def _print_Integer(self, expr: Any) -> str:
                return int_text(int(expr.p))

            def _print_int(self, expr: int) -> str:
                return int_text(expr)

            def _print_Rational(self, expr: Any) -> str:
                if expr.q == 1:
                    return int_text(int(expr.p))
                return f"{int_text(int(expr.p))}/{int_text(int(expr.q))}"

        _PRINTER = _TextPrinter
    return _PRINTER


def free_symbols(x: Any) -> bool:
    return not isinstance(x, Fraction) and bool(getattr(x, "free_symbols", ()))


# -- magnitudes and exact conversions (TE-24): estimate first, compute second ---------------

# Exact conversions of floats (probe values, 40-digit approximations) refuse magnitudes beyond
# 2^±CONVERSION_BITS: far above any exact result the limits admit, far below a hang.
CONVERSION_BITS = 1 << 20


def numeric(x: Any, prec: int = 53) -> Any:
    """An mpmath approximation (``mpf``/``mpc``) of a constant value, or ``None`` (not a finite
    number). Callers make sure ``x`` is built from bounded parts, so this is cheap."""
    import mpmath

    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    if free_symbols(x):
        return None
    try:
        value = guarded(lambda: x._to_mpmath(prec), counted=False)
    except (TypeError, ValueError, AttributeError, ZeroDivisionError, OverflowError):
        return None
    return value if mpmath.isfinite(value) else None


def log2_abs(x: Any) -> float | None:
    """``log2 |x|`` of a constant value (``-inf`` for zero), ``None`` if it has no finite value."""
    import mpmath

    if isinstance(x, Fraction):
        if x == 0:
            return float("-inf")
        return float(x.numerator.bit_length() - x.denominator.bit_length())
    v = numeric(x)
    if v is None:
        return None
    if v == 0:
        return float("-inf")
    return float(mpmath.log(abs(v), 2))


def log2_power(base: Any, exponent: Any) -> float | None:
    """``log2 |base ** exponent|`` = re(exponent · log base) / ln 2, estimated before computing."""
    import mpmath

    b, e = numeric(base), numeric(exponent)
    if b is None or e is None or b == 0:
        return None
    return float(mpmath.re(e * mpmath.log(b)) / mpmath.ln2)


def exceeds(bits: float | None, max_bits: int) -> bool:
    """Whether a ``log2`` magnitude is beyond ``2^±max_bits`` (zero and unknown never are)."""
    return bits is not None and bits != float("-inf") and abs(bits) > max_bits


def bounded_at(expr: Any, point: dict[Any, Any], max_bits: int) -> bool:
    """Whether substituting ``point`` into ``expr`` keeps every power, exponential and factorial
    inside ``2^±max_bits``. Checked inside out, numerically at 53 bits, so ``10**10**n`` at
    ``n = 31`` is refused before SymPy computes an exact ten-to-the-10³¹."""
    sp = sympy()
    checked: set[Any] = set()
    for node in sp.postorder_traversal(expr):
        if node in checked or not (node.is_Pow or isinstance(node, sp.exp | sp.factorial | sp.binomial)):
            continue
        checked.add(node)
        args = [guarded(lambda a=a: a.evalf(15, subs=point), counted=False) for a in node.args]
        if node.is_Pow:
            bits = log2_power(args[0], args[1])
        elif isinstance(node, sp.exp):
            v = numeric(args[0])
            bits = None if v is None else float(mp().re(v) / mp().ln2)
        else:
            v = numeric(args[0])
            bits = None if v is None else float(mp().re(mp().loggamma(v + 1)) / mp().ln2)
        if exceeds(bits, max_bits):
            return False
    return True


def mp() -> Any:
    """The ``mpmath`` module (SymPy's numeric backend)."""
    import mpmath

    return mpmath


def approx(v: Any) -> str:
    """Six significant digits of an mpmath number, for messages (deterministic)."""
    return str(mp().nstr(v, 6))


def mpf_fraction(v: Any) -> Fraction:
    """An mpmath real exactly as a Fraction (mantissa × 2^exponent); ``ValueError`` beyond
    ``2^±CONVERSION_BITS``, where the exact power of two alone would be a huge computation."""
    import mpmath

    man, exp = mpmath.mpf(v).man_exp
    if man == 0:
        return Fraction(0)
    if abs(exp) > CONVERSION_BITS:
        raise ValueError(f"magnitude 2^{exp} is beyond 2^{CONVERSION_BITS}")
    return Fraction(int(man) << int(exp)) if exp >= 0 else Fraction(int(man), 1 << -int(exp))


def number_fraction(v: Any) -> Fraction:
    """A SymPy number (``Float``, ``Rational``) as the Fraction its decimal text denotes, as
    ``Fraction(str(v))`` did, but never parsing an exponent beyond ``2^±CONVERSION_BITS`` (a
    ten-billion-digit power of ten) and never printing an integer (Python's digit limit)."""
    if getattr(v, "is_Rational", False):
        return Fraction(int(v.p), int(v.q))
    mpf = getattr(v, "_mpf_", None)
    if mpf is None:
        raise ValueError(f"not a real number: {type(v).__name__}")
    _sign, man, exp, bc = mpf
    if man and abs(exp + bc) > CONVERSION_BITS:
        raise ValueError(f"magnitude 2^{exp + bc} is beyond 2^{CONVERSION_BITS}")
    return Fraction(str(v))
