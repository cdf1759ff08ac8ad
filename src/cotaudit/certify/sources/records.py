"""Source records, evidence and the source-checker protocol (certify.md §4, C-15 … C-18).

A :class:`SourceRecord` is a document, a structured fact list or a formalised rule file; an
:class:`Evidence` points into one (spans in Unicode code points, a quote, extras). A
:class:`SourceChecker` decides whether a unit is SUPPORTED by its evidence. Checkers are pure
with respect to the state, never raise for bad input (:func:`run_checker` turns any exception
or timeout into ``ERROR``) and are chosen per scope and per predicate by :class:`CheckerConfig`.
"""

from __future__ import annotations

import concurrent.futures
import functools
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from cotaudit.certify.core.canon import sha256_hex, sha256_json
from cotaudit.certify.core.errors import ResourceCap
from cotaudit.certify.lang.syntax import Unit
from cotaudit.limits import BudgetExceeded

if TYPE_CHECKING:
    from cotaudit.certify.interface.model import Interface

Verdict = Literal["SUPPORTED", "UNSUPPORTED", "ERROR"]
RECORD_KINDS = ("document", "facts", "rules")


@dataclass(frozen=True, slots=True)
class SourceRecord:
    """A source, stored once and addressed by the sha256 of its content."""

    record_id: str
    kind: str
    body: str
    uri: str | None = None

    @property
    def sha256(self) -> str:
        return _body_sha256(self.body)

    def to_json(self) -> dict[str, Any]:
        return {"record_id": self.record_id, "kind": self.kind, "uri": self.uri, "sha256": self.sha256}


@functools.lru_cache(maxsize=64)
def _body_sha256(body: str) -> str:
    """A record's hash, computed once per body (every admission citing a record asks for it)."""
    return sha256_hex(body)


@dataclass(frozen=True, slots=True)
class Evidence:
    """Where a unit's support is: record, spans ``[(start, end)]``, quote and extras."""

    record_id: str | None
    spans: tuple[tuple[int, int], ...] = ()
    quote: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "record_id": self.record_id,
            "spans": [list(s) for s in self.spans],
            "quote": self.quote,
            "extra": dict(self.extra),
        }

    @property
    def sha256(self) -> str:
        return sha256_json(self.to_json())

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Evidence:
        spans = tuple((int(a), int(b)) for a, b in d.get("spans") or ())
        rid = d.get("record_id")
        return cls(None if rid is None else str(rid), spans, d.get("quote"), dict(d.get("extra") or {}))


@dataclass(frozen=True, slots=True)
class CheckResult:
    """A checker's verdict with its reason, JSON log and cost (tokens, seconds)."""

    verdict: Verdict
    reason: str = ""
    log: Mapping[str, Any] = field(default_factory=dict)
    cost: Mapping[str, float] = field(default_factory=dict)


class RecordStore(Protocol):
    def record(self, record_id: str) -> SourceRecord | None: ...


class MemoryRecords:
    """A :class:`RecordStore` in memory."""

    def __init__(self, records: Sequence[SourceRecord] = ()) -> None:
        self._records = {r.record_id: r for r in records}

    def add(self, record: SourceRecord) -> None:
        self._records[record.record_id] = record

    def record(self, record_id: str) -> SourceRecord | None:
        return self._records.get(record_id)

    def all(self) -> list[SourceRecord]:
        return [self._records[k] for k in sorted(self._records)]


@runtime_checkable
class SourceChecker(Protocol):
    """C-16. ``inline`` checkers are trusted to be bounded; others run under a timeout thread."""

    id: str
    version: str
    inline: bool

    def check(
        self, unit: Unit, evidence: Evidence, records: RecordStore, interface: Interface
    ) -> CheckResult: ...


def run_checker(
    checker: SourceChecker,
    unit: Unit,
    evidence: Evidence,
    records: RecordStore,
    interface: Interface,
    timeout_s: float = 30.0,
) -> CheckResult:
    """Run ``checker``; an exception or a timeout is an ``ERROR`` verdict, never a raise."""
    start = time.perf_counter()
    try:
        if getattr(checker, "inline", False):
            result = checker.check(unit, evidence, records, interface)
        else:
            pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
            try:
                result = pool.submit(checker.check, unit, evidence, records, interface).result(
                    timeout=timeout_s
                )
            finally:
                pool.shutdown(wait=False, cancel_futures=True)
    except concurrent.futures.TimeoutError:
        return CheckResult("ERROR", f"checker timed out after {timeout_s} s", {"checker": checker.id})
    except (BudgetExceeded, MemoryError, ResourceCap):
        raise  # the whole input is over its budget: not this checker's verdict on the unit
    except Exception as exc:  # a checker must never take the gate down
        return CheckResult("ERROR", f"checker raised {type(exc).__name__}: {exc}", {"checker": checker.id})
    seconds = time.perf_counter() - start
    if not isinstance(result, CheckResult) or result.verdict not in ("SUPPORTED", "UNSUPPORTED", "ERROR"):
        return CheckResult("ERROR", "checker returned no CheckResult", {"checker": checker.id})
    if seconds > timeout_s:
        return CheckResult("ERROR", f"checker took {seconds:.1f} s > {timeout_s} s", dict(result.log))
    return result


@dataclass(frozen=True)
class CheckerConfig:
    """Which checker runs, per scope (``kernel``/``query``) and per predicate (C-16).

    A value is a checker id or a list of ids (``all_of``). ``predicates`` overrides the scope
    default for facts and rule heads of that predicate.
    """

    kernel: str | tuple[str, ...] = "match/1"
    query: str | tuple[str, ...] = "match/1"
    predicates: Mapping[str, str | tuple[str, ...]] = field(default_factory=dict)

    def choice(self, unit: Unit, scope: str) -> tuple[str, ...]:
        pick = self.predicates.get(unit.head.pred, self.kernel if scope == "kernel" else self.query)
        return (pick,) if isinstance(pick, str) else tuple(pick)

    def to_json(self) -> dict[str, Any]:
        def norm(v: str | tuple[str, ...]) -> Any:
            return v if isinstance(v, str) else list(v)

        return {
            "kernel": norm(self.kernel),
            "query": norm(self.query),
            "predicates": {k: norm(v) for k, v in sorted(self.predicates.items())},
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> CheckerConfig:
        def norm(v: Any) -> str | tuple[str, ...]:
            if isinstance(v, str):
                return v
            if isinstance(v, list) and v and all(isinstance(x, str) for x in v):
                return tuple(v)
            raise ValueError(f"a checker is an id or a list of ids, got {v!r}")

        preds = d.get("predicates") or {}
        if not isinstance(preds, Mapping):
            raise ValueError("'predicates' must be a mapping")
        return cls(
            kernel=norm(d.get("kernel", "match/1")),
            query=norm(d.get("query", "match/1")),
            predicates={str(k): norm(v) for k, v in preds.items()},
        )
