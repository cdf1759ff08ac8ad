"""The call log: one record per request the wrapper served — cache hit or miss, tokens, latency.

Front ends put :meth:`CallLog.summary` into their reports and :meth:`CallLog.records` into the
run log. Records never hold message text or any secret: a prompt id, a tag, the key and numbers.
Error messages are redacted of every registered secret before they are stored.
"""

from __future__ import annotations

import statistics
import threading
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any, Literal

CacheUse = Literal["hit", "miss", "record", "off"]


@dataclass(frozen=True, slots=True)
class CallRecord:
    prompt: str
    tag: str
    sample: int
    key: str
    cache: CacheUse
    ok: bool
    attempts: int  # backend attempts (0 on a cache hit)
    latency_s: float
    prompt_tokens: int = 0
    completion_tokens: int = 0
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["latency_s"] = round(self.latency_s, 4)
        return d


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret (of 4+ characters) replaced by ``***``."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return text


class CallLog:
    """Thread-safe list of :class:`CallRecord` with a summary."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._records: list[CallRecord] = []
        self.reasks = 0
        self.invalid = 0

    def add(self, record: CallRecord) -> None:
        with self._lock:
            self._records.append(record)

    def count_structured(self, *, reasks: int, valid: bool) -> None:
        with self._lock:
            self.reasks += reasks
            self.invalid += 0 if valid else 1

    def records(self) -> list[CallRecord]:
        with self._lock:
            return list(self._records)

    def summary(self) -> dict[str, Any]:
        """Counts, cache hits, tokens and latency (median and total of backend calls)."""
        records = self.records()
        live = [r.latency_s for r in records if r.cache != "hit"]
        return {
            "calls": len(records),
            "cache_hits": sum(r.cache == "hit" for r in records),
            "backend_calls": sum(r.cache != "hit" for r in records),
            "backend_attempts": sum(r.attempts for r in records),
            "errors": sum(not r.ok for r in records),
            "reasks": self.reasks,
            "invalid_answers": self.invalid,
            "prompt_tokens": sum(r.prompt_tokens for r in records),
            "completion_tokens": sum(r.completion_tokens for r in records),
            "latency_s_total": round(sum(live), 3),
            "latency_s_median": round(statistics.median(live), 3) if live else None,
        }
