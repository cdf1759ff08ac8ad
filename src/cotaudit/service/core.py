"""What the service does, without the web framework: checks, batches, rewards, auth, limits.

Items run in a :class:`~cotaudit.batch.pool.LocalPool` (processes killed at the item time
limit), so a trace that makes an engine spin costs one worker for ``item_timeout`` seconds and
never a hung service. Reports come back from the workers already encoded
(:class:`~cotaudit.report.encoded.EncodedReport`) and are never rebuilt as objects here: a
40 MB report as dicts cost seconds of GIL and garbage collection, and ``/v1/health`` must not
wait for that. Answers are put together from those bytes in a small thread pool, never on the
event loop, to at most ``max_response_bytes`` (:mod:`cotaudit.service.encode`). Errors a client can cause
are :class:`ServiceError` with an HTTP status and a stable ``code``; the app turns them into
``{"error": {"status", "code", "message"}}``.
"""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from cotaudit import __version__, api, codes
from cotaudit.batch.jobs import Payload, execute
from cotaudit.batch.pool import LocalPool
from cotaudit.errors import CotauditError, EngineUnavailable, UnknownEngine
from cotaudit.report.encoded import EncodedReport
from cotaudit.service import reward
from cotaudit.service.config import EngineRoute, ServiceConfig, resolve, run_handler
from cotaudit.service.encode import TooLarge, encode, fit_report, fit_reports

RENDER_THREADS = 2  # encoding is CPU work: more threads than cores only queue on the GIL


class ServiceError(CotauditError):
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
        self._render: ThreadPoolExecutor | None = None
        self._problems: dict[str, ServiceError | None] = {}

    def start(self) -> None:
        # resolved once: an engine that cannot load would otherwise retry its import per request
        self._problems = {s.name: _engine_problem(s.name) for s in api.engines()}
        available = tuple(s.name for s in api.engines() if s.implemented and self._problems[s.name] is None)
        self._render = ThreadPoolExecutor(RENDER_THREADS, thread_name_prefix="cotaudit-render")
        self._pool = LocalPool(self.config.workers, timeout=self.config.item_timeout, preload=available)

    def stop(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        if self._render is not None:
            self._render.shutdown(wait=True)
            self._render = None

    def _problem(self, engine: str) -> ServiceError | None:
        if engine in self._problems:
            return self._problems[engine]
        return _engine_problem(engine)

    # ------------------------------------------------------------------ auth

    def authorize(self, authorization: bytes | None, *, write: bool = False) -> None:
        """Raise unless the request may go on: the bearer token when one is set (always for writes).

        ``authorization`` is the raw header; the token is compared as bytes in constant time
        (a token from the environment that is not UTF-8 compares as its original bytes).
        """
        token = self.config.token
        if token is None:
            if write:
                raise ServiceError(403, "writes_disabled", "write endpoints need COTAUDIT_API_TOKEN set")
            return
        scheme, _, given = (authorization or b"").partition(b" ")
        expected = token.encode("utf-8", "surrogateescape")
        if scheme.lower() != b"bearer" or not hmac.compare_digest(given.strip(), expected):
            raise ServiceError(
                401, "unauthorized", "missing or wrong bearer token", {"WWW-Authenticate": "Bearer"}
            )

    # ------------------------------------------------------------------ endpoints

    def health(self) -> dict[str, Any]:
        engines = {s.name: self._problem(s.name) is None for s in api.engines()}
        backlog = self._pool.backlog if self._pool is not None else 0
        return {
            "status": "ok" if self._pool is not None else "starting",
            "version": __version__,
            "engines": engines,
            "workers": self.config.workers,
            "backlog": backlog,
        }

    async def codes(self) -> bytes:
        return await self._encode(lambda: encode(self._codes(), self.config.max_response_bytes))

    @staticmethod
    def _codes() -> dict[str, Any]:
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

    async def check(self, item: Mapping[str, Any]) -> bytes:
        """One item → its R-1 report (shortened if over the response limit); an engine that
        cannot run here is a 400."""
        payload = _payload(item, 0)
        if payload.error is not None:
            raise ServiceError(422, "bad_item", payload.error)
        problem = self._problem(payload.engine)
        if problem is not None:
            raise problem
        (report,) = await self._run([payload])
        return await self._encode(lambda: fit_report(report, self.config.max_response_bytes))

    async def batch(self, items: Sequence[Mapping[str, Any]]) -> bytes:
        """A bounded list of items → their reports, in order; a bad item gets an ``invalid`` one."""
        self._bounded(len(items), self.config.max_batch_items, "items")
        payloads = [_payload(item, i) for i, item in enumerate(items)]
        for k, p in enumerate(payloads):
            problem = self._problem(p.engine) if p.error is None else None
            if problem is not None:
                payloads[k] = p._replace(error=problem.message)
        reports = await self._run(payloads)

        def render() -> bytes:
            head, tail = b'{"reports":[', b"]}"
            room = self.config.max_response_bytes - len(head) - len(tail)
            return head + b",".join(fit_reports(reports, room)) + tail

        return await self._encode(render)

    async def reward(
        self,
        completions: Sequence[Any],
        engine: str,
        shaping: Mapping[str, Any] | None,
        *,
        gold: Any = None,
        mode: Any = "process",
        steps: Any = False,
        time_limit: Any = None,
    ) -> bytes:
        """Completions → rewards as :func:`cotaudit.rewards.score_completion` gives them (each
        scored in a worker: :mod:`cotaudit.service.reward`), with the verdicts behind them; with
        a ``mode`` other than ``process`` or ``steps``, the outcomes (and per-step rewards) too."""
        self._bounded(len(completions), self.config.max_reward_items, "completions")
        problem = self._problem(engine)
        if problem is not None:
            raise problem
        try:
            spec, golds = reward.parse(
                engine,
                shaping,
                count=len(completions),
                gold=gold,
                mode=mode,
                steps=steps,
                time_limit=time_limit,
                max_time_limit=self.config.item_timeout,
            )
        except reward.BadRequest as exc:
            raise ServiceError(422, exc.code, str(exc)) from None
        payloads = [Payload(engine, "", None, f"completion-{i}") for i in range(len(completions))]
        options = [reward.options(spec, c, g) for c, g in zip(completions, golds, strict=True)]
        reports = await self._run(payloads, options)
        limit = self.config.max_response_bytes
        return await self._encode(lambda: encode(reward.answer(reports, spec), limit))

    async def call_route(self, route: EngineRoute, body: Mapping[str, Any]) -> bytes:
        """Run an engine endpoint's handler in a thread, under the request time limit."""
        handler = resolve(route)
        if handler is None:
            raise ServiceError(501, "not_implemented", f"{route.path} is not available in this version")
        try:
            result = await asyncio.wait_for(
                asyncio.to_thread(run_handler, handler, body, self.config), self.config.request_timeout
            )
        except TimeoutError:
            raise ServiceError(
                504, "timeout", f"{route.path} took longer than {self.config.request_timeout:g} s"
            ) from None
        except ValueError as exc:
            raise ServiceError(400, "bad_request", str(exc)) from None
        except KeyError as exc:
            raise ServiceError(404, "not_found", str(exc)) from None
        answer = dict(result)
        return await self._encode(lambda: encode(answer, self.config.max_response_bytes), done=True)

    async def _encode(self, render: Callable[[], bytes], *, done: bool = False) -> bytes:
        """Run ``render`` in the render threads; an answer over the limit is a 422 that says
        whether the request was nevertheless carried out (``done``: an endpoint changed state)."""
        if self._render is None:
            raise ServiceError(503, "starting", "the service is starting", {"Retry-After": "1"})
        try:
            return await asyncio.get_running_loop().run_in_executor(self._render, render)
        except TooLarge as exc:
            what = "the request was carried out, but its answer" if done else "the answer"
            raise ServiceError(
                422, "response_too_large", f"{what} is larger than the response limit of {exc.limit} bytes"
            ) from None

    # ------------------------------------------------------------------ running items

    def _bounded(self, n: int, limit: int, what: str) -> None:
        if n == 0:
            raise ServiceError(422, "empty", f"no {what} given")
        if n > limit:
            raise ServiceError(413, "too_many_items", f"{n} {what} given; the limit is {limit}")

    async def _run(
        self, payloads: list[Payload], options: Sequence[Mapping[str, Any]] | None = None
    ) -> list[EncodedReport]:
        pool = self._pool
        if pool is None:
            raise ServiceError(503, "starting", "the service is starting", {"Retry-After": "1"})
        if pool.backlog + len(payloads) > self.config.max_backlog:
            raise ServiceError(503, "overloaded", "too many items queued; retry later", {"Retry-After": "1"})
        opts = options if options is not None else [{}] * len(payloads)
        futures: list[Future[EncodedReport] | None] = [
            None if p.error else pool.submit(p, o) for p, o in zip(payloads, opts, strict=True)
        ]
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
        return [  # a bad item's report is made here, as a worker would (a few hundred bytes)
            next(results) if f is not None else execute(p) for p, f in zip(payloads, futures, strict=True)
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
