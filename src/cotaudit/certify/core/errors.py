"""The certify engine's errors: every one is a :class:`~cotaudit.errors.CotauditError`.

Untrusted input (programs, interfaces, certificates, ``.kb`` files) never raises anything
else: a bad input becomes one of these, carrying the spec's stable reason code (``PARSE_ERROR``,
``UNSAFE_RULE`` …) and, where it has one, a ``line L, col C`` position.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cotaudit.errors import CotauditError


class CertifyError(CotauditError):
    """Root of the certify engine's errors (a usage/input error: exit code 2)."""

    reason: str = "CERTIFY_ERROR"


def _where(line: int | None, col: int | None) -> str:
    if line is None:
        return ""
    return f"line {line}, col {col or 1}: " if col is not None else f"line {line}: "


class ProgramError(CertifyError):
    """A program or unit that cannot be loaded: syntax, safety, limits, stratification."""

    def __init__(
        self,
        reason: str,
        message: str,
        *,
        line: int | None = None,
        col: int | None = None,
        label: str | None = None,
        detail: Mapping[str, Any] | None = None,
    ) -> None:
        self.reason = reason
        self.line = line
        self.col = col
        self.label = label
        self.detail = dict(detail or {})
        self.bare = message
        unit = f"[{label}] " if label else ""
        super().__init__(f"{_where(line, col)}{unit}{reason}: {message}")


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem of an interface file, with its stable code."""

    code: str
    message: str
    where: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)


class InterfaceError(CertifyError):
    """An interface file that does not validate; ``problems`` lists every problem found."""

    reason = "INTERFACE_INVALID"

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(problems)
        first = self.problems[0] if self.problems else Problem("INTERFACE_INVALID", "invalid interface")
        more = f" (and {len(self.problems) - 1} more)" if len(self.problems) > 1 else ""
        super().__init__(f"interface: {first.code}: {first.message}{more}")


class WhitelistViolation(CertifyError):
    """Proposition 1 at load time: rules whose head predicate is in the source whitelist Ω."""

    reason = "HEAD_IN_WHITELIST"

    def __init__(self, labels: Sequence[str]) -> None:
        self.labels = tuple(labels)
        super().__init__(f"rule heads in the source whitelist: {', '.join(self.labels)}")


class ComputationCap(CertifyError):
    """A computation exceeded one of its bounds (never a hang).

    This class itself is a *work* bound — facts, rounds, join steps, search atoms: counted, so
    the same input meets it at the same point on every machine, and a caller may decide on it
    (retain a unit in the kernel scan, evict a cache entry, abstain a query, leave a unit
    undecided). A wall-time or memory bound is the subclass :class:`ResourceCap`.
    """

    reason = "COMPUTATION_CAP"
    bound = "work"
    exit_code = 1  # the CLI's "abstained" (C-120), not a usage or input error

    def __init__(self, what: str, stats: Mapping[str, Any]) -> None:
        self.what = what
        self.stats = dict(stats)
        super().__init__(f"computation cap: {what}")


class ResourceCap(ComputationCap):
    """A wall-time or memory bound (``bound`` is ``"time"`` or ``"memory"``) was exceeded.

    Whether it is met depends on the machine's speed and load, so it must never decide
    anything — not a kernel member, not a cache entry, not an answer (C-26, C-118). It aborts
    the whole operation it happened in, which is then reported as an abstention: a query
    abstains ``COMPUTATION_CAP``, an admission or erasure is rolled back and raises this, a
    ``.kb`` check is an ``abstain`` report. Code that catches :class:`ComputationCap` to decide
    on a work bound re-raises this one first.
    """

    def __init__(self, what: str, stats: Mapping[str, Any], bound: str = "time") -> None:
        super().__init__(what, stats)
        self.bound = bound


class KbError(CertifyError):
    """A ``.kb`` or ``.cert.json`` file whose structure cannot be read."""

    reason = "INPUT_MALFORMED"

    def __init__(self, message: str, *, line: int | None = None, col: int | None = None) -> None:
        self.line = line
        self.col = col
        self.bare = message
        super().__init__(f"{_where(line, col)}{message}")


class StoreError(CertifyError):
    """The state file cannot be opened or used as asked (wrong interface, unknown unit …)."""

    reason = "STORE_ERROR"
