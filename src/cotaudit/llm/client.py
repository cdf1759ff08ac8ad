"""The one wrapper around a backend: cache, retries, concurrency, validation, call log.

Every model call in cotaudit goes through :class:`LLMClient` (inspect_ai's ``Model`` around a
``ModelAPI``). Cache modes:

- ``readwrite``: answer from the cache when the key is there, else call and store;
- ``record``: always call and (over)write — how fixtures are made;
- ``replay``: answer only from the cache; a miss raises :class:`~cotaudit.llm.types.ReplayMiss`
  naming the request and never touches the network (a client in replay mode needs no backend);
- ``off``: always call, store nothing.

Transient failures are retried with exponential backoff, a bounded number of times; a
semaphore bounds how many backend calls run at once, whichever threads make them.
:meth:`LLMClient.structured` validates the answer with pydantic and re-asks (at most ``reasks``
times) with the validation error; it never raises for what a model or server did — it returns
``invalid`` or ``abstain`` with the reason, so one bad item cannot crash a batch.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from cotaudit.errors import MissingDependency
from cotaudit.llm.backend import Backend
from cotaudit.llm.cache import CacheStore, cache_key, key_material
from cotaudit.llm.calllog import CacheUse, CallLog, CallRecord, redact
from cotaudit.llm.prompts import load_prompt
from cotaudit.llm.structured import AnswerError, Structured, describe_validation_error, parse_json_object
from cotaudit.llm.types import (
    BackendError,
    CacheMode,
    Completion,
    JsonMode,
    LLMError,
    Message,
    NotConfigured,
    ReplayMiss,
    Request,
    TransientBackendError,
)

if TYPE_CHECKING:
    from pydantic import BaseModel

M = TypeVar("M", bound="BaseModel")
X = TypeVar("X")
Y = TypeVar("Y")
_MAX_ECHO = 4000  # characters of a bad answer echoed back in a re-ask


class LLMClient:
    """A model, a cache mode, and the policies around every call."""

    def __init__(
        self,
        backend: Backend | None,
        *,
        model: str | None = None,
        json_mode: JsonMode | None = None,
        mode: CacheMode = "readwrite",
        cache_dir: str | Path | None = None,
        retries: int = 3,
        backoff_s: float = 0.5,
        max_backoff_s: float = 8.0,
        concurrency: int = 4,
        secrets: Sequence[str] = (),
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if backend is None and mode != "replay":
            raise NotConfigured(
                f"LLM mode '{mode}' needs a server (--llm-base-url); only replay works without"
            )
        if mode in ("record", "replay") and cache_dir is None:
            raise NotConfigured(f"LLM mode '{mode}' needs a cache directory (--llm-cache)")
        resolved_model = model or (backend.model if backend is not None else None)
        if not resolved_model:
            raise NotConfigured("no model configured (--llm-model or COTAUDIT_LLM_MODEL)")
        self.backend = backend
        self.model: str = resolved_model
        self.json_mode: JsonMode = json_mode or (backend.json_mode if backend is not None else "json_object")
        self.mode: CacheMode = mode
        self.store = CacheStore(cache_dir) if cache_dir is not None and mode != "off" else None
        self.retries = max(0, retries)
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.concurrency = max(1, concurrency)
        self._slots = threading.BoundedSemaphore(self.concurrency)
        self._secrets = tuple(secrets)
        self._sleep = sleep
        self.log = CallLog()

    def describe(self) -> dict[str, object]:
        """The configuration, for reports and run-log headers (no address, no secret)."""
        return {"model": self.model, "mode": self.mode, "json_mode": self.json_mode}

    # ------------------------------------------------------------------ plain completions

    def complete(self, request: Request) -> Completion:
        """The completion for ``request``, from the cache or the backend (see the module doc)."""
        key = cache_key(request, self.model, self.json_mode)
        start = time.perf_counter()
        if self.store is not None and self.mode in ("readwrite", "replay"):
            hit = self.store.get(key)
            if hit is not None:
                self._record(request, key, "hit", hit, 0, start)
                return hit
        if self.mode == "replay" or self.backend is None:
            where = str(self.store.root) if self.store is not None else "no cache"
            miss = ReplayMiss(request, key, where)
            self._record(request, key, "miss", None, 0, start, str(miss))
            raise miss
        use: CacheUse = "off" if self.store is None else ("record" if self.mode == "record" else "miss")
        try:
            completion, attempts = self._call(request)
        except LLMError as exc:
            self._record(request, key, use, None, self.retries + 1, start, str(exc))
            raise
        if self.store is not None:
            material = key_material(request, self.model, self.json_mode)
            self.store.put(key, material, completion, time.perf_counter() - start)
        self._record(request, key, use, completion, attempts, start)
        return completion

    def _call(self, request: Request) -> tuple[Completion, int]:
        assert self.backend is not None
        last: LLMError | None = None
        for attempt in range(self.retries + 1):
            try:
                with self._slots:
                    return self.backend.complete(request), attempt + 1
            except TransientBackendError as exc:
                last = exc
            except BackendError:
                raise
            except Exception as exc:  # a backend bug or a garbled reply: transient, bounded
                last = TransientBackendError(f"{type(exc).__name__}: {exc}")
            if attempt < self.retries:
                self._sleep(min(self.max_backoff_s, self.backoff_s * 2**attempt))
        message = redact(str(last), self._secrets)
        raise TransientBackendError(f"gave up after {self.retries + 1} attempts: {message}")

    def _record(
        self,
        request: Request,
        key: str,
        use: CacheUse,
        completion: Completion | None,
        attempts: int,
        start: float,
        error: str | None = None,
    ) -> None:
        self.log.add(
            CallRecord(
                prompt=request.prompt,
                tag=request.tag,
                sample=request.sample,
                key=key,
                cache=use,
                ok=completion is not None,
                attempts=attempts,
                latency_s=time.perf_counter() - start,
                prompt_tokens=completion.usage.prompt_tokens if completion else 0,
                completion_tokens=completion.usage.completion_tokens if completion else 0,
                error=redact(error, self._secrets) if error else None,
            )
        )

    # ------------------------------------------------------------------ structured answers

    def structured(
        self,
        request: Request,
        model: type[M],
        *,
        check: Callable[[M], str | None] | None = None,
        reasks: int = 2,
    ) -> Structured[M]:
        """A validated ``model`` instance, re-asking up to ``reasks`` times with the error.

        ``check`` adds what a schema cannot say (a line number inside the trace, say); it
        returns the problem in one line, or ``None``. Replay misses still raise: a missing
        recording is a setup error, not a model's answer.
        """
        try:
            from pydantic import ValidationError
        except ModuleNotFoundError as exc:
            raise MissingDependency.from_import_error(exc) from None
        if request.schema is None:
            request = Request(
                request.messages,
                request.prompt,
                request.temperature,
                request.max_tokens,
                model.model_json_schema(),
                model.__name__,
                request.sample,
                request.tag,
            )
        raw = ""
        for asked in range(reasks + 1):
            try:
                raw = self.complete(request).text
            except ReplayMiss:
                raise
            except LLMError as exc:
                self.log.count_structured(reasks=asked, valid=False)
                return Structured("abstain", reason=redact(str(exc), self._secrets), reasks=asked, raw=raw)
            try:
                value = model.model_validate(parse_json_object(raw))
                problem = check(value) if check is not None else None
                if problem is None:
                    self.log.count_structured(reasks=asked, valid=True)
                    return Structured("ok", value, reasks=asked, raw=raw)
                error = problem
            except AnswerError as exc:
                error = str(exc)
            except ValidationError as exc:
                error = describe_validation_error(exc)
            if asked < reasks:
                reask = load_prompt("reask").render(error=error)
                echo = Message("assistant", raw[:_MAX_ECHO])
                request = request.with_messages((*request.messages, echo, *reask))
        self.log.count_structured(reasks=reasks, valid=False)
        return Structured("invalid", reason=error, reasks=reasks, raw=raw)

    # ------------------------------------------------------------------ batches

    def map(self, fn: Callable[[X], Y], items: Sequence[X]) -> list[Y]:
        """``[fn(i) for i in items]`` on up to ``concurrency`` threads, results in input order."""
        if self.concurrency == 1 or len(items) <= 1:
            return [fn(i) for i in items]
        with ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="llm") as pool:
            return list(pool.map(fn, items))
