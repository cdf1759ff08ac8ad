"""The licensing window of a revision (Y-46, D13).

A revision of π between its earlier commitment at ``j`` and the new one at ``i`` is licensed
when it is both *structural* (an R in ``(j, i]``, or a jump owned by a statement in ``(j, i)`` —
the revision's own revisit does not count) and *derived* (a constraint on π created in
``(j, i]``, or a τ change of some proposition upstream of π in ``(j, i)``).
"""

from __future__ import annotations

from bisect import bisect_right

import cotaudit.limits as limits
from cotaudit.type6.stepview import SequentialView


def structural(seq: SequentialView, j: int, i: int) -> bool:
    """An R in (j, i], or a jump owned by a statement in (j, i): prefix counts, O(1)."""
    return seq.r_prefix[i] > seq.r_prefix[j] or seq.jump_prefix[i - 1] > seq.jump_prefix[j]


def derived(seq: SequentialView, j: int, i: int, pi: str) -> bool:
    """(a) a constraint on π created in (j, i], or (b) an upstream τ change in (j, i)."""
    targeted = seq.by_target.get(pi)
    if targeted and seq.constraints[targeted[-1] - 1].stmt > j:
        return True
    return upstream_changed(seq, j, i, pi)


def upstream_changed(seq: SequentialView, j: int, i: int, pi: str) -> bool:
    """(b): some x ∈ Up(π) changed τ at a step in (j, i).

    Up(π) is searched only for candidate revisions and only when something changed anywhere in
    the window (Y-97), breadth-first over the operands of the constraints on each node, and
    stops at the first upstream proposition that changed in the window. During step i only π
    has changed so far (its own value effect), and π is not in Up(π), so "a change in (j, i)"
    is "latest change > j".

    An adversarial trace (a long derivation chain whose every link is revised) would make these
    searches quadratic, so they share a deterministic budget of node visits. Once it is spent
    the upstream case is judged "not derived" — a licence must be shown, never presumed — and
    the statement where that first happened gets ``T6_W09``.
    """
    k = bisect_right(seq.change_steps, j)
    if k >= len(seq.change_steps) or seq.change_steps[k] >= i:
        return False
    if seq.upstream_exhausted_at is not None:
        return False
    last = seq.last_change
    parents = seq.parents
    seen = {pi}
    frontier = [pi]
    budget = seq.upstream_budget
    while frontier:
        limits.checkpoint()  # the caller's wall-time budget, per expanded node
        for x in parents.get(frontier.pop(), ()):
            if x in seen:
                continue
            budget -= 1
            if budget < 0:
                seq.upstream_budget = 0
                seq.upstream_exhausted_at = i
                seq._emit("T6_W09", i, pi, "Y43", budget=seq.upstream_limit)
                return False
            if last.get(x, 0) > j:
                seq.upstream_budget = budget
                return True
            seen.add(x)
            frontier.append(x)
    seq.upstream_budget = budget
    return False
