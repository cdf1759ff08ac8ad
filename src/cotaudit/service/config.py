"""The service's settings — where it listens, who may call it, how much it will take — and its
engine endpoints.

Every limit exists so that no request can hang the service or take it down: a body larger
than ``max_body_bytes`` is refused before it is parsed, a list longer than ``max_batch_items``
(or ``max_reward_items``, or ``max_query_facts`` for certify's query facts) is refused, every
item runs in a worker process that is killed at ``item_timeout`` seconds, a request still
waiting at ``request_timeout`` is answered 504, and more than ``max_backlog`` items queued at
once are answered 503 with ``Retry-After``.

Connections are bounded too (:mod:`cotaudit.service.transport`): a request must arrive whole,
headers and body, within ``read_timeout`` seconds of its first byte (a new connection's clock
starts when it opens), and a client that stops reading its answer for ``read_timeout`` seconds
is dropped; at most ``max_waiting`` connections may be open without a request at work (still
sending one, or idle between two) — a new one beyond that closes the oldest of them, never a
connection whose request is being served; at most ``max_active`` requests are served at once
(more are answered 503, ``/v1/health`` never); an answer is at most ``max_response_bytes``
(reports over it are shortened and say so, see :mod:`cotaudit.service.encode`).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, NamedTuple

TOKEN_ENV = "COTAUDIT_API_TOKEN"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def default_workers() -> int:
    """One worker per core, at most four (each is a process with its engines loaded)."""
    return max(1, min(4, os.cpu_count() or 1))


@dataclass(frozen=True)
class ServiceConfig:
    """``token`` ``None`` leaves the read endpoints open; write endpoints then refuse."""

    host: str = "127.0.0.1"
    port: int = 8000
    token: str | None = None
    workers: int = 1
    max_body_bytes: int = 1 << 20
    max_batch_items: int = 256
    max_reward_items: int = 1024
    item_timeout: float = 10.0
    request_timeout: float = 60.0
    max_backlog: int = 4096
    read_timeout: float = 10.0
    max_waiting: int = 1024
    max_active: int = 512
    max_response_bytes: int = 16 << 20
    max_query_facts: int = 256  # facts in one /v1/certify/query (certify.kb.facts.MAX_QUERY_FACTS)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> ServiceConfig:
        """Defaults, then ``COTAUDIT_API_TOKEN`` from ``env`` (the process environment), then
        ``overrides`` (command-line flags; ``None`` values are ignored)."""
        env = os.environ if env is None else env
        token = env.get(TOKEN_ENV) or None
        values = {k: v for k, v in overrides.items() if v is not None}
        return cls(**{"token": token, "workers": default_workers(), **values})  # type: ignore[arg-type]

    @property
    def loopback(self) -> bool:
        return self.host in LOOPBACK_HOSTS or self.host.startswith("127.")


# --------------------------------------------------------------------------- engine endpoints
#
# ``POST /v1/<engine>/<name>``, one registration line each. An engine that needs more than
# ``check`` (certify's ``admit`` and ``erase`` change its store) registers a handler:
# ``"module:function"`` (imported on first call) taking the JSON body as a dict and returning a
# JSON-able dict. ``write=True`` marks an endpoint that changes state: it always needs the bearer
# token, and is refused outright when the service has no token set. A handler may raise
# ``ValueError`` (answered 400) or ``KeyError`` (404); ``entry_point=None`` declares an endpoint
# whose engine has not shipped the handler yet (answered 501, after the token check). A handler
# reads the limits of the service running it with ``serving_config()``.


Handler = Callable[[Mapping[str, Any]], Mapping[str, Any]]


class EngineRoute(NamedTuple):
    """One engine endpoint: ``POST /v1/<engine>/<name>``."""

    engine: str
    name: str
    entry_point: str | Handler | None
    write: bool
    summary: str

    @property
    def path(self) -> str:
        return f"/v1/{self.engine}/{self.name}"


_ROUTES: dict[tuple[str, str], EngineRoute] = {}


def register_route(
    engine: str, name: str, entry_point: str | Handler | None, *, write: bool = False, summary: str = ""
) -> EngineRoute:
    """Register (or replace) ``POST /v1/<engine>/<name>``; call before the app is created."""
    for part in (engine, name):
        if not part or not part.replace("_", "").replace("-", "").isalnum():
            raise ValueError(f"route parts must be alphanumeric, got {part!r}")
    if isinstance(entry_point, str) and entry_point.count(":") != 1:
        raise ValueError(f"entry point must be 'module:function', got {entry_point!r}")
    route = EngineRoute(engine, name, entry_point, write, summary or f"{engine} {name}")
    _ROUTES[(engine, name)] = route
    return route


def unregister_route(engine: str, name: str) -> None:
    _ROUTES.pop((engine, name), None)


def routes() -> tuple[EngineRoute, ...]:
    """Every registered engine endpoint, sorted by path."""
    return tuple(sorted(_ROUTES.values(), key=lambda r: r.path))


def resolve(route: EngineRoute) -> Handler | None:
    """The handler of ``route`` (``None`` while its engine has not shipped one)."""
    entry = route.entry_point
    if entry is None or callable(entry):
        return entry
    module_name, _, attr = entry.partition(":")
    try:
        fn = getattr(importlib.import_module(module_name), attr, None)
    except ModuleNotFoundError:
        return None
    return fn if callable(fn) else None


_SERVING: ContextVar[ServiceConfig | None] = ContextVar("cotaudit_serving_config", default=None)


def run_handler(handler: Handler, body: Mapping[str, Any], config: ServiceConfig) -> Mapping[str, Any]:
    """``handler(body)`` with ``config`` as :func:`serving_config` (the service calls handlers
    this way, in a thread of their own: the setting stays in that thread's context)."""
    token = _SERVING.set(config)
    try:
        return handler(body)
    finally:
        _SERVING.reset(token)


def serving_config() -> ServiceConfig:
    """The configuration of the service running the current handler; the defaults when a
    handler is called directly."""
    return _SERVING.get() or ServiceConfig()


# certify's state-changing transitions (shared/spec/certify.md C-55) on the state named by
# --certify-db: always behind the token (cotaudit.service.certify_routes).
register_route(
    "certify",
    "admit",
    "cotaudit.service.certify_routes:admit",
    write=True,
    summary="admit a unit into the certify kernel",
)
register_route(
    "certify",
    "erase",
    "cotaudit.service.certify_routes:erase",
    write=True,
    summary="erase a unit from the certify kernel",
)
# A certified answer or an explicit abstention, with its certificate. A query writes too (the
# cache, the audit log, the frequencies): behind the token like admit and erase.
register_route(
    "certify",
    "query",
    "cotaudit.service.certify_routes:query",
    write=True,
    summary="a certified answer from the certify state and query-scoped facts, or an explicit abstention",
)
