"""What the service does, without the web framework: checks, batches, rewards, auth, limits.

Items run in a :class:`~cotaudit.batch.pool.LocalPool` (processes killed at the item time
limit), so a trace that makes an engine spin costs one worker for ``item_timeout`` seconds and
never a hung service. Errors a client can cause are :class:`ServiceError` with an HTTP status
and a stable ``code``; the app turns them into ``{"error": {"status", "code", "message"}}``.
"""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from typing import Any

from cotaudit import __version__, api, codes
from cotaudit.batch.jobs import Payload
from cotaudit.batch.pool import LocalPool
from cotaudit.errors import EngineUnavailable, UnknownEngine
from cotaudit.report import Report, report_dict
from cotaudit.rewards import Shaping, completion_text, reward_for
from cotaudit.service.config import EngineRoute, ServiceConfig, resolve


class ServiceError(Exception):
    """An error answered to the client: HTTP ``status``, stable ``code``, one-line ``message``."""

    def __init__(
        self, status: int, code: str, message: str, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = dict(headers or {})

    def body(self) -> dict[str, Any]:
        return {"error": {"status": self.status, "code": self.code, "message": self.message}}


def _engine_problem(name: str) -> ServiceError | None:
    try:
        api.get_engine(name)
    except UnknownEngine as exc:
        return ServiceError(400, "unknown_engine", str(exc))
    except EngineUnavailable as exc:
        return ServiceError(400, "engine_unavailable", str(exc))
    return None


class ServiceCore:
    """The service's state: its configuration and its worker pool (started by :meth:`start`)."""

    def __init__(self, config: ServiceConfig) -> None:
        self.config = config
        self._pool: LocalPool | None = None

    def start(self) -> None:
        available = tuple(s.name for s in api.engines() if s.implemented and _engine_problem(s.name) is None)
        self._pool = LocalPool(self.config.workers, timeout=self.config.item_timeout, preload=available)

    def stop(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    # ------------------------------------------------------------------ auth

    def authorize(self, authorization: str | None, *, write: bool = False) -> None:
        """Raise unless the request may go on: the bearer token when one is set (always for writes)."""
        token = self.config.token
        if token is None:
            if write:
                raise ServiceError(403, "writes_disabled", "write endpoints need COTAUDIT_API_TOKEN set")
            return
        scheme, _, given = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token.encode()):
            raise ServiceError(
                401, "unauthorized", "missing or wrong bearer token", {"WWW-Authenticate": "Bearer"}
            )

    # ------------------------------------------------------------------ endpoints

    def health(self) -> dict[str, Any]:
        engines = {s.name: _engine_problem(s.name) is None for s in api.engines()}
        backlog = self._pool.backlog if self._pool is not None else 0
        return {
            "status": "ok" if self._pool is not None else "starting",
            "version": __version__,
            "engines": engines,
            "workers": self.config.workers,
            "backlog": backlog,
        }

    @staticmethod
    def codes() -> dict[str, Any]:
        return {
            "codes": [
                {
                    "code": c.code,
                    "engine": c.engine,
                    "name": c.name,
                    "severity": c.severity,
                    "layer": c.layer,
                    "summary": c.summary,
                }
                for c in sorted(codes.ALL, key=lambda c: c.code)
            ]
        }

    async def check(self, item: Mapping[str, Any]) -> dict[str, Any]:
        """One item → its R-1 report; an engine that cannot run here is a 400."""
        payload = _payload(item, 0)
        if payload.error is not None:
            raise ServiceError(422, "bad_item", payload.error)
        problem = _engine_problem(payload.engine)
        if problem is not None:
            raise problem
        (report,) = await self._run([payload])
        return report_dict(report)

    async def batch(self, items: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """A bounded list of items → their reports, in order; a bad item gets an ``invalid`` one."""
        self._bounded(len(items), self.config.max_batch_items, "items")
        payloads = [_payload(item, i) for i, item in enumerate(items)]
        for k, p in enumerate(payloads):
            problem = _engine_problem(p.engine) if p.error is None else None
            if problem is not None:
                payloads[k] = p._replace(error=problem.message)
        reports = await self._run(payloads)
        return {"reports": [report_dict(r) for r in reports]}

    async def reward(
        self, completions: Sequence[Any], engine: str, shaping: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        """Completions → shaped rewards (``cotaudit.rewards``), with the verdicts behind them."""
        self._bounded(len(completions), self.config.max_reward_items, "completions")
        problem = _engine_problem(engine)
        if problem is not None:
            raise problem
        try:
            shape = Shaping.from_mapping(shaping)
        except (TypeError, ValueError) as exc:
            raise ServiceError(422, "bad_shaping", str(exc)) from None
        payloads = [
            Payload(engine, completion_text(c), None, f"completion-{i}") for i, c in enumerate(completions)
        ]
        reports = await self._run(payloads)
        return {"rewards": [reward_for(r, shape) for r in reports], "verdicts": [r.verdict for r in reports]}

    async def call_route(self, route: EngineRoute, body: Mapping[str, Any]) -> dict[str, Any]:
        """Run an engine endpoint's handler in a thread, under the request time limit."""
        handler = resolve(route)
        if handler is None:
            raise ServiceError(501, "not_implemented", f"{route.path} is not available in this version")
        try:
            result = await asyncio.wait_for(asyncio.to_thread(handler, body), self.config.request_timeout)
        except TimeoutError:
            raise ServiceError(
                504, "timeout", f"{route.path} took longer than {self.config.request_timeout:g} s"
            ) from None
        except ValueError as exc:
            raise ServiceError(400, "bad_request", str(exc)) from None
        except KeyError as exc:
            raise ServiceError(404, "not_found", str(exc)) from None
        return dict(result)

    # ------------------------------------------------------------------ running items

    def _bounded(self, n: int, limit: int, what: str) -> None:
        if n == 0:
            raise ServiceError(422, "empty", f"no {what} given")
        if n > limit:
            raise ServiceError(413, "too_many_items", f"{n} {what} given; the limit is {limit}")

    async def _run(self, payloads: list[Payload]) -> list[Report]:
        pool = self._pool
        if pool is None:
            raise ServiceError(503, "starting", "the service is starting", {"Retry-After": "1"})
        if pool.backlog + len(payloads) > self.config.max_backlog:
            raise ServiceError(503, "overloaded", "too many items queued; retry later", {"Retry-After": "1"})
        futures: list[Future[Report] | None] = [None if p.error else pool.submit(p) for p in payloads]
        waiting = [asyncio.wrap_future(f) for f in futures if f is not None]
        try:
            done = await asyncio.wait_for(asyncio.gather(*waiting), self.config.request_timeout)
        except TimeoutError:
            for f in futures:
                if f is not None:
                    f.cancel()
            raise ServiceError(
                504, "timeout", f"the request took longer than {self.config.request_timeout:g} s"
            ) from None
        results = iter(done)
        return [
            next(results) if f is not None else api.run_item(p.to_item())
            for p, f in zip(payloads, futures, strict=True)
        ]


def _payload(item: Mapping[str, Any], index: int) -> Payload:
    """A request item as a payload (``error`` set when a field is missing or of the wrong type)."""
    raw_id = item.get("id")
    item_id = (
        str(raw_id) if isinstance(raw_id, str | int) and not isinstance(raw_id, bool) else f"item-{index}"
    )
    engine = item.get("engine")
    text = item.get("text")
    path = item.get("path") if isinstance(item.get("path"), str) else None
    if not isinstance(engine, str) or not engine:
        return Payload(
            "unknown", text if isinstance(text, str) else "", path, item_id, "'engine' must be a string"
        )
    if not isinstance(text, str):
        return Payload(engine, "", path, item_id, "'text' must be a string")
    return Payload(engine, text, path, item_id)
