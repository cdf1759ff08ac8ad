"""The executor's limits (C-25): work bounds counted the same on every machine, time and
memory bounds that depend on it."""

from __future__ import annotations

from dataclasses import dataclass

CHECK_EVERY = 1000
INDEX_CHECK_EVERY = 1 << 16  # facts entered into an index between two limit checks


@dataclass(frozen=True, slots=True)
class EvalLimits:
    """C-25: exceeding a limit raises :class:`ComputationCap` (checked every 1,000 join steps,
    every 65,536 facts indexed and after every round).

    ``max_facts`` counts the facts found in the current round too (a single round of
    ``path(X,Z) :- path(X,Y), path(Y,Z)`` can find millions before it is stored);
    ``max_rounds`` is a bound, not a truncation: an evaluation that would need round
    ``max_rounds + 1`` raises, it never returns a partial closure (which would answer "no");
    ``max_memory_mb`` bounds the growth of the process's resident set during the evaluation
    (a cotaudit addition to C-25: 5,000,000 facts with witnesses take about 1.5 GiB, so the fact
    bound alone would let an evaluation reach gigabytes). The enclosing per-input budget of
    :mod:`cotaudit.limits` is checked at the same points.

    Facts, rounds and ``max_join_steps`` (off by default; the kernel scan sets it per check)
    are work bounds: counted, so :class:`ComputationCap` is raised at the same point on every
    machine. Time and memory depend on the machine and raise
    :class:`~cotaudit.certify.core.errors.ResourceCap`.
    """

    max_facts: int = 5_000_000
    timeout_s: float = 60.0
    max_rounds: int | None = None
    max_memory_mb: int | None = 1024
    max_join_steps: int | None = None
