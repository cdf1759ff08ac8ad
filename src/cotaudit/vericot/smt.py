"""The one module that imports z3 (conventions.md): a per-trace context, parsing, tagged
assertions and the raw ``check`` call with a timeout and a watchdog (V-9, V-11 … V-15).

Everything else in the engine handles Z3 terms as opaque values.
"""

from __future__ import annotations

import os
import re
import threading
import time
import weakref
from dataclasses import dataclass
from typing import Any

import z3  # type: ignore[import-untyped]
from z3 import z3core

from cotaudit.errors import CotauditError

Z3_VERSION = z3.get_version_string()
WATCHDOG_GRACE_MS = 1000


class Z3ParseError(CotauditError, ValueError):
    """Z3 rejected a script; the message is Z3's own, without the ``(error "...")`` wrapping."""


UNKNOWN_REASONS = ("timeout", "interrupted", "incomplete", "resource_limit", "budget_exhausted", "other")
"""The stable categories a report gives for an ``unknown`` check (Z3's own words vary, see below)."""

TIMEOUT_FRACTION = 0.9
"""An ``unknown`` after at least this share of the check's timeout is a ``timeout``, whatever Z3
says: cancelled at its timer, the same search reports ``canceled`` in one run and
``(incomplete quantifiers)`` in the next (measured on the §13.5 axiom, about half each)."""

_INCOMPLETE = re.compile(r"incomplete")
_RESOURCE = re.compile(r"resource|memory|memout")


def unknown_category(z3_reason: str | None, ms: float, timeout_ms: int, rlimit: int | None) -> str:
    """Map Z3's ``reason_unknown`` for a check that ran ``ms`` of its ``timeout_ms`` to a category.

    ``timeout``: the check used (nearly) its whole time; ``resource_limit``: Z3 stopped at the
    rlimit or a memory limit before that (``canceled`` early is the rlimit when one is set);
    ``incomplete``: Z3 gave up early (incomplete quantifier or theory reasoning); ``other``: any
    other text (a Z3 exception during the check, say). ``interrupted``
    and ``budget_exhausted`` are decided by the caller (watchdog, budgets), never from the text.
    The raw text stays out of the deterministic report (V-46).
    """
    if ms >= TIMEOUT_FRACTION * timeout_ms:
        return "timeout"
    text = (z3_reason or "").casefold()
    if _RESOURCE.search(text) or (rlimit is not None and text in ("canceled", "timeout")):
        return "resource_limit"
    if _INCOMPLETE.search(text):
        return "incomplete"
    if text in ("canceled", "timeout"):  # cancelled early without an rlimit: treat as out of time
        return "timeout"
    return "other"


@dataclass(frozen=True, slots=True)
class RawCheck:
    """One ``check()``: result, the category of an ``unknown`` (:data:`UNKNOWN_REASONS`), the
    core (tag indices), time, and Z3's own words for the ``unknown`` (volatile: not reported)."""

    result: str
    reason_unknown: str | None
    core: tuple[int, ...]
    ms: float
    z3_reason: str | None = None


class _Watchdog:
    """One daemon thread that interrupts a context whose check overran its deadline.

    It never keeps a context alive: an armed check is held by a *weak* reference, and
    :meth:`disarm` removes its entry at once. (A ``z3.Context`` costs ~16 MB; an earlier version
    kept each one in its heap until the deadline passed, and back-to-back checks grew the RSS
    without bound, issue 14.) Only checks in flight are armed, one per thread at most, so a
    linear scan for the earliest deadline is cheaper than keeping a heap in step.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._armed: dict[int, tuple[float, weakref.ref[Any]]] = {}
        self._fired: set[int] = set()
        self._counter = 0
        self._thread: threading.Thread | None = None

    def arm(self, deadline: float, ctx: Any) -> int:
        with self._cond:
            self._counter += 1
            token = self._counter
            earliest = min((d for d, _ in self._armed.values()), default=None)
            self._armed[token] = (deadline, weakref.ref(ctx))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="vericot-watchdog", daemon=True)
                self._thread.start()
            if earliest is None or deadline < earliest:  # only an earlier deadline needs to wake it
                self._cond.notify()
            return token

    def disarm(self, token: int) -> bool:
        """Forget ``token``; ``True`` if the watchdog already fired for it."""
        with self._cond:
            self._armed.pop(token, None)
            if token in self._fired:
                self._fired.discard(token)
                return True
            return False

    def armed(self) -> int:
        """How many checks are armed now (tests: a finished check leaves none behind)."""
        with self._cond:
            return len(self._armed)

    def _run(self) -> None:
        with self._cond:
            while True:
                if not self._armed:
                    self._cond.wait()
                    continue
                token, (deadline, ref) = min(self._armed.items(), key=lambda kv: kv[1][0])
                now = time.monotonic()
                if now < deadline:
                    del ref  # hold nothing while waiting
                    self._cond.wait(deadline - now)
                    continue
                del self._armed[token]
                ctx = ref()
                del ref
                if ctx is not None:  # the check is still running (its session holds the context)
                    self._fired.add(token)
                    ctx.interrupt()
                    del ctx


_WATCHDOG = _Watchdog()


def _reset_watchdog_in_child() -> None:
    """A forked worker inherits the watchdog's state but not its thread: start afresh."""
    global _WATCHDOG
    _WATCHDOG = _Watchdog()


os.register_at_fork(after_in_child=_reset_watchdog_in_child)
_ERROR = re.compile(r'\(error "(?:line \d+ column \d+: )?(.*?)"\)', re.DOTALL)


def _z3_message(exc: Exception) -> str:
    raw = exc.args[0] if exc.args else str(exc)
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    found = _ERROR.findall(text)
    return " ".join(found[0].split()) if found else " ".join(text.split())


class Z3Session:
    """One context and one solver per trace (V-11). Tags are ``vc_t_<n>`` Booleans."""

    def __init__(self, timeout_ms: int, rlimit: int | None = None) -> None:
        self.ctx = z3.Context()
        self.solver = z3.Solver(ctx=self.ctx)
        self.timeout_ms = timeout_ms
        self.rlimit = rlimit
        self.solver.set("timeout", timeout_ms)
        self.solver.set("random_seed", 0)
        if rlimit is not None:
            self.solver.set("rlimit", rlimit)
        self._tags: list[Any] = []
        self._tag_index: dict[int, int] = {}
        self._current_timeout = timeout_ms
        self._ref = self.ctx.ref()
        self._sref = self.solver.solver

    # ------------------------------------------------------------------ terms

    def parse(self, script: str) -> list[Any]:
        """The assertions of ``script`` (declarations plus asserts), or :class:`Z3ParseError`."""
        try:
            vec = z3.parse_smt2_string(script, ctx=self.ctx)
        except z3.Z3Exception as exc:
            raise Z3ParseError(_z3_message(exc)) from None
        out = list(vec)
        for e in out:
            if not z3.is_bool(e):
                raise Z3ParseError("invalid assert command, term is not Boolean")
        return out

    def conj(self, terms: list[Any]) -> Any:
        return terms[0] if len(terms) == 1 else z3.And(*terms)

    def disj(self, terms: list[Any]) -> Any:
        return terms[0] if len(terms) == 1 else z3.Or(*terms)

    def neg(self, term: Any) -> Any:
        return z3.Not(term)

    def ints(self, names: list[str]) -> list[Any]:
        """Integer constants of this context (the same terms SMT-LIB ``declare-const`` makes)."""
        return [z3.Int(name, self.ctx) for name in names]

    def true(self) -> Any:
        return z3.BoolVal(True, ctx=self.ctx)

    # ------------------------------------------------------------------ tags

    def new_tag(self, term: Any) -> int:
        """Assert ``(=> vc_t_<n> term)`` once and return ``n`` (V-12)."""
        n = len(self._tags)
        tag = z3.Bool(f"vc_t_{n}", self.ctx)
        self._tags.append(tag)
        self._tag_index[tag.get_id()] = n
        self.solver.add(z3.Implies(tag, term))
        return n

    # ------------------------------------------------------------------ checking

    def check(self, tags: list[int], goal: Any | None, timeout_ms: int) -> RawCheck:
        """``check(tags)`` with ``goal`` pushed on top; a timeout or an interrupt is ``unknown``.

        Uses Z3's C API directly: the Python wrapper's argument casting cost more than the
        solving on small KBs.
        """
        timeout_ms = max(1, min(timeout_ms, self.timeout_ms))
        if timeout_ms != self._current_timeout:
            self.solver.set("timeout", timeout_ms)
            self._current_timeout = timeout_ms
        ref, sref = self._ref, self._sref
        n = len(tags)
        arr = (z3.Ast * n)(*[self._tags[t].as_ast() for t in tags])
        start = time.perf_counter()
        token = _WATCHDOG.arm(time.monotonic() + (timeout_ms + WATCHDOG_GRACE_MS) / 1000.0, self.ctx)
        pushed = goal is not None
        fired = False
        try:
            if goal is not None:
                z3core.Z3_solver_push(ref, sref)
                z3core.Z3_solver_assert(ref, sref, goal.as_ast())
            try:
                res = z3core.Z3_solver_check_assumptions(ref, sref, n, arr)
            except z3.Z3Exception as exc:  # an interrupt can surface as an exception
                fired = _WATCHDOG.disarm(token)
                token = 0
                ms = (time.perf_counter() - start) * 1000.0
                message = _z3_message(exc)
                if fired:
                    return RawCheck("unknown", "interrupted", (), ms, message)
                return RawCheck(
                    "unknown", unknown_category(message, ms, timeout_ms, self.rlimit), (), ms, message
                )
            core: tuple[int, ...] = ()
            if res == z3.Z3_L_FALSE:
                vec = z3core.Z3_solver_get_unsat_core(ref, sref)
                z3core.Z3_ast_vector_inc_ref(ref, vec)
                try:
                    size = z3core.Z3_ast_vector_size(ref, vec)
                    ids = [
                        z3core.Z3_get_ast_id(ref, z3core.Z3_ast_vector_get(ref, vec, k)) for k in range(size)
                    ]
                finally:
                    z3core.Z3_ast_vector_dec_ref(ref, vec)
                core = tuple(sorted(self._tag_index[i] for i in ids))
            reason = None
            if res == z3.Z3_L_UNDEF:
                reason = z3core.Z3_solver_get_reason_unknown(ref, sref)
        finally:
            if pushed:
                z3core.Z3_solver_pop(ref, sref, 1)
            if token:
                fired = _WATCHDOG.disarm(token)
        ms = (time.perf_counter() - start) * 1000.0
        if res == z3.Z3_L_FALSE:
            return RawCheck("unsat", None, core, ms)
        if res == z3.Z3_L_TRUE:
            return RawCheck("sat", None, (), ms)
        if fired:
            return RawCheck("unknown", "interrupted", (), ms, reason)
        return RawCheck("unknown", unknown_category(reason, ms, timeout_ms, self.rlimit), (), ms, reason)
