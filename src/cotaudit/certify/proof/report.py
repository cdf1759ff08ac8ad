"""What a recheck reports: every failed check with its stable code, or why it could not decide.

:data:`RECHECK_OBSERVERS` are called with every certificate a recheck verifies (the test suite
checks that every certificate it produces goes through the checker; see
:data:`cotaudit.certify.proof.format.SEAL_OBSERVERS`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cotaudit.certify.lang.syntax import Unit

Overlay = Mapping[int, Unit] | Sequence[tuple[int, Unit]]

# Called with every certificate ``recheck`` verifies (see format.SEAL_OBSERVERS).
RECHECK_OBSERVERS: list[Callable[[Any], None]] = []


@dataclass(frozen=True, slots=True)
class RecheckFailure:
    """One failed check: the stable code, the node (if any), a message, machine-readable detail."""

    code: str
    node: int | None
    message: str
    detail: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RecheckReport:
    """``ok`` iff no check failed and every check could be decided.

    ``undecided`` says why a check could not be decided (a closure or lower-stratum model that
    needs more than the reference evaluator's fact bound): the certificate is then neither
    accepted nor shown wrong — ``ok`` is false, ``failures`` lists only checks that failed, and
    callers report "could not check" (abstain), never a failure, when ``failures`` is empty.
    A time or memory bound is not reported here: it raises
    :class:`~cotaudit.certify.core.errors.ResourceCap` out of :func:`recheck`."""

    ok: bool
    kind: str | None
    conclusion: str | None
    depth: int | None
    failures: tuple[RecheckFailure, ...]
    undecided: str | None = None

    def codes(self) -> list[str]:
        return sorted({f.code for f in self.failures})
