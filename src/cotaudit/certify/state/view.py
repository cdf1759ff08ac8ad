"""What the state machine's services read and write of a state: :class:`StateView`.

The facade (:class:`~cotaudit.certify.state.machine.CertState`) implements it and hands itself
to its services (:mod:`.admission`, :mod:`.cacheops`, :mod:`.history`, :mod:`.query`,
:mod:`.deploy`); they depend on this protocol and never import the facade back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from cotaudit.certify.engine.closure import Closure
from cotaudit.certify.engine.facts import Source
from cotaudit.certify.engine.limits import EvalLimits
from cotaudit.certify.gate.source import GateState
from cotaudit.certify.interface.model import Interface
from cotaudit.certify.kernel.scan import KernelResult, OrderRank
from cotaudit.certify.lang.syntax import Rule, Unit
from cotaudit.certify.proof.kernelview import KernelView
from cotaudit.certify.sources.checkers import CheckerRegistry
from cotaudit.certify.sources.records import CheckerConfig
from cotaudit.certify.state.config import CertifyConfig
from cotaudit.certify.state.logreplay import Divergence
from cotaudit.certify.state.rows import CacheEntry, MirrorEdits, StoreRecords, UnitRow
from cotaudit.certify.state.store import LogCheck, Store

T = TypeVar("T")


class StateView(GateState, Protocol):
    """A certified state as its services see it: the store, the mirror and the derived views."""

    store: Store
    config: CertifyConfig
    records: StoreRecords
    units: dict[int, UnitRow]
    cache: dict[str, CacheEntry]
    freq: dict[str, float]
    requests: dict[str, int]
    audit_buffer: list[dict[str, Any]]
    version: int
    tick_no: int
    evidence_sha: dict[int, str]
    edits: MirrorEdits

    @property
    def interface(self) -> Interface: ...

    @property
    def checkers(self) -> CheckerRegistry: ...

    @property
    def checker_config(self) -> CheckerConfig: ...

    @property
    def checker_timeout_s(self) -> float: ...

    @property
    def limits(self) -> EvalLimits: ...

    def refresh(self) -> None: ...

    def ensure_sound(self) -> None: ...

    def transition(self, fn: Callable[[], T]) -> T: ...

    def active(self, scope: str = "kernel") -> list[UnitRow]: ...

    def kernel_sources(self) -> list[Source]: ...

    def sources(self) -> list[Source]: ...

    def active_keys(self) -> Mapping[str, int]: ...

    def active_rules(self) -> list[Rule]: ...

    def order(self) -> dict[int, OrderRank]: ...

    def scan(
        self, extra: Sequence[tuple[Source, OrderRank]] = (), without: int | None = None
    ) -> KernelResult: ...

    def scan_with(self, unit: Unit) -> KernelResult: ...

    def drop_closure(self) -> None: ...

    def closure(self) -> Closure: ...

    def kernel_view(self, version: int | None = None) -> KernelView: ...

    def evidence_hashes(self, unit_id: int) -> list[str]: ...

    def leaf_info(self) -> dict[int, tuple[str, str | None]]: ...

    def verify_log(self, anchor: tuple[int, str] | None = None) -> LogCheck: ...

    def verify_state(self) -> list[Divergence]: ...
