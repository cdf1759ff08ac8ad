"""What back-propagation (:mod:`.backprop`) and the licensing window (:mod:`.licensing`) read and
write of the sequential verifier: :class:`SequentialView`.

:class:`~cotaudit.type6.sequential.Sequential` implements it and hands itself to those steps;
they depend on this protocol and never import the verifier back.
"""

from __future__ import annotations

from typing import Protocol

from cotaudit.type6.constraints import Constraint
from cotaudit.type6.events import Event


class SequentialView(Protocol):
    """The verifier state one step of back-propagation or licensing works on."""

    tau: dict[str, str]
    constraints: list[Constraint]
    by_prop: dict[str, list[int]]
    by_target: dict[str, list[int]]
    change_steps: list[int]
    last_change: dict[str, int]
    parents: dict[str, dict[str, None]]
    upstream_limit: int
    upstream_budget: int
    upstream_exhausted_at: int | None
    evaluation_limit: int
    evaluations_left: int
    r_prefix: list[int]
    jump_prefix: list[int]

    def _emit(self, code: str, stmt: int | None, prop: str | None, rank: str, **data: object) -> Event: ...

    def _write(self, i: int, prop: str, tau: str) -> None: ...

    def _changed_at(self, prop: str, i: int) -> bool: ...
