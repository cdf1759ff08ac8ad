"""The back-propagation step (Y-38, Y-39, Y-41, D10).

After the first seven phases of statement ``i``: a min-heap (by constraint id) is seeded with
the constraints created at ``i`` and those mentioning π when τ(π) changed at ``i``. Popping in id
order, a *pin* sets a Uk target to its forced value (each proposition at most once per step)
and queues every constraint that mentions it, so cascades run to a fixpoint, lowest id first.
Then every constraint touched in the step gets its final status; a transition into
``conflict`` emits ``T6_H02``, into ``unverifiable`` ``T6_Q04``. Only pins change Σ: conflicts
never do (the agent wins, Y-40).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

import cotaudit.limits as budget
from cotaudit.type6.constraints import CONFLICT, PIN, UNVERIFIABLE
from cotaudit.type6.stepview import SequentialView


class WorkLimitExceeded(Exception):
    """Back-propagation exceeded its evaluation budget at statement ``stmt`` (the trace is then
    reported invalid with ``T6_E05``: its event log would grow with constraints × revisions)."""

    def __init__(self, stmt: int, limit: int) -> None:
        super().__init__(stmt, limit)
        self.stmt = stmt
        self.limit = limit


def backpropagate(seq: SequentialView, i: int, created: Sequence[int], pi: str | None) -> None:
    """Y-38 for step ``i``; events go to the step's event list through ``seq._emit``."""
    queued = set(created)
    if pi is not None and seq._changed_at(pi, i):
        queued.update(seq.by_prop.get(pi, ()))
    if not queued:
        return
    heap = sorted(queued)
    touched: set[int] = set()
    pinned: set[str] = set()
    constraints = seq.constraints
    tau = seq.tau
    # Each pop and each final check is one evaluation; the budget is counted, never timed.
    seq.evaluations_left -= len(queued)
    while heap:
        budget.checkpoint()
        cid = heapq.heappop(heap)
        queued.discard(cid)
        touched.add(cid)
        c = constraints[cid - 1]
        status, forced = c.evaluate(tau)
        if status == PIN and c.target not in pinned and forced is not None:
            pinned.add(c.target)
            seq._write(i, c.target, forced)
            seq._emit("T6_I02", i, c.target, "I02", constraint_id=cid, constraint=cid, value=forced)
            for other in seq.by_prop.get(c.target, ()):
                if other not in queued:
                    queued.add(other)
                    heapq.heappush(heap, other)
                    seq.evaluations_left -= 1
        if seq.evaluations_left < 0:
            raise WorkLimitExceeded(i, seq.evaluation_limit)
    seq.evaluations_left -= len(touched)
    if seq.evaluations_left < 0:
        raise WorkLimitExceeded(i, seq.evaluation_limit)
    for cid in sorted(touched):
        c = constraints[cid - 1]
        status, forced = c.evaluate(tau)
        if status == c.status:
            continue  # Y-39: events fire on transitions only
        if status in (CONFLICT, UNVERIFIABLE):
            code, rank = ("T6_H02", "H02") if status == CONFLICT else ("T6_Q04", "Q04")
            value = tau.get(c.target, "Uk")
            seq._emit(code, i, c.target, rank, constraint_id=cid, constraint=cid, forced=forced, value=value)
        c.status = status
