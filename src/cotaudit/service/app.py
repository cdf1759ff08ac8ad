"""The HTTP service: the one module of cotaudit that imports ``fastapi`` (with pydantic);
:mod:`cotaudit.service.transport` is the one that imports ``uvicorn``. :func:`create_app` builds
the app, :func:`serve` runs it (``cotaudit serve``).

Endpoints (all JSON; errors are ``{"error": {"status", "code", "message"}}``):

| method and path | what |
|---|---|
| ``POST /v1/check`` | one item ``{"engine", "text", "id"?}`` → its R-1 report |
| ``POST /v1/batch`` | ``{"items": [...]}`` (bounded) → ``{"reports": [...]}`` in order |
| ``POST /v1/reward`` | ``{"completions", "engine"?, "shaping"?, "gold"?, "mode"?, "steps"?, ...}`` → |
| | ``{"rewards", "verdicts", "outcomes"?, "step_rewards"?}`` (see below) |
| ``GET /v1/health`` | liveness, version, engines, workers, backlog (never behind the token) |
| ``GET /v1/codes`` | every stable diagnostic code |
| ``POST /v1/<engine>/<name>`` | engine endpoints (:mod:`cotaudit.service.routes`) |
| ``GET /openapi.json`` | the OpenAPI schema, with the R-1 report schema in it |

``/v1/reward`` gives what :func:`cotaudit.rewards.score_completion` gives for each completion
(:mod:`cotaudit.service.reward`): ``gold`` is one answer per completion (string, number or
null), ``mode`` one of ``cotaudit.rewards.MODES`` (default ``process``, whose answer is
``{"rewards", "verdicts"}`` alone), ``steps`` adds ``step_rewards``; any ``mode`` but
``process``, or ``steps``, adds ``outcomes`` (``Outcome.to_dict()`` of each completion).

In front of the app sit the gates (:mod:`cotaudit.service.gates`: the token before anything is
read, then the body limit and the number of requests at work) and, under it, the transport
(:mod:`cotaudit.service.transport`: read and write deadlines, the waiting-connection cap).
Every answer is encoded by :mod:`cotaudit.service.encode`, so a lone surrogate anywhere is
escaped, never a 500.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any, TextIO

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException

from cotaudit import __version__
from cotaudit.report import json_schema
from cotaudit.rewards import DEFAULT_ENGINE, MODES
from cotaudit.service import transport
from cotaudit.service.config import TOKEN_ENV, EngineRoute, ServiceConfig, routes
from cotaudit.service.core import ServiceCore, ServiceError
from cotaudit.service.encode import encode
from cotaudit.service.gates import RequestGate, TokenGate

REPORT_REF = {"$ref": "#/components/schemas/Report"}
HEALTH = "/v1/health"
# Declares the bearer scheme in the OpenAPI schema; the check itself is gates.TokenGate, which
# runs ServiceCore.authorize before anything of the request is read.
BearerToken = Annotated[
    HTTPAuthorizationCredentials | None, Depends(HTTPBearer(auto_error=False, description=TOKEN_ENV))
]
_HTTP_CODES = {404: "not_found", 405: "method_not_allowed", 413: "payload_too_large"}


class JSON(JSONResponse):
    """A JSON response for any Unicode content (lone surrogates escaped, see ``encode``)."""

    def render(self, content: Any) -> bytes:
        return encode(content)


def _json(body: bytes) -> Response:
    """An answer the core has already encoded (off the event loop)."""
    return Response(content=body, media_type="application/json")


class CheckItem(BaseModel):
    """One trace to check."""

    engine: str = Field(description="engine name (te, type6, vericot, certify, ...)")
    text: str = Field(description="the trace, in the engine's format")
    id: str | int | None = Field(default=None, description="item id, echoed in the report")
    path: str | None = Field(default=None, description="a file name to show in the report")


class BatchRequest(BaseModel):
    items: list[CheckItem]


class RewardRequest(BaseModel):
    """What ``cotaudit.rewards.score_completion`` takes, for a list of completions. ``gold``,
    ``mode``, ``steps`` and ``time_limit`` are checked by the core (clear 422s, one code each)."""

    completions: list[str | list[dict[str, Any]]] = Field(description="strings, or conversations")
    engine: str = DEFAULT_ENGINE
    shaping: dict[str, Any] | None = Field(default=None, description="cotaudit.rewards.Shaping fields")
    gold: Any = Field(
        default=None,
        description="one gold answer per completion: a string, a number or null (GSM8K '#### 18' "
        "and MATH '\\boxed{...}' solutions are read as in-process)",
        json_schema_extra={"type": ["array", "null"], "items": {"type": ["string", "number", "null"]}},
    )
    mode: Any = Field(
        default="process",
        description="how the process and answer rewards combine",
        json_schema_extra={"type": "string", "enum": list(MODES)},
    )
    steps: Any = Field(
        default=False,
        description="add per-step rewards (te, vericot, cot; null for other engines)",
        json_schema_extra={"type": "boolean"},
    )
    time_limit: Any = Field(
        default=None,
        description="seconds per completion (default 10, at most the item time limit)",
        json_schema_extra={"type": ["number", "null"], "exclusiveMinimum": 0},
    )


def create_app(config: ServiceConfig | None = None) -> FastAPI:
    """The app for ``config`` (default: from the environment); its lifespan owns the worker pool."""
    config = config or ServiceConfig.from_env()
    core = ServiceCore(config)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        core.start()
        try:
            yield
        finally:
            core.stop()

    app = FastAPI(
        title="cotaudit",
        version=__version__,
        description="Mechanical audits of language-model reasoning traces (R-1 reports).",
        lifespan=lifespan,
        docs_url=None,  # Swagger UI loads from a CDN; the schema itself is at /openapi.json
        redoc_url=None,
        default_response_class=JSON,
    )
    app.state.core = core
    # added innermost first: TokenGate sees the request before RequestGate reads its body
    app.add_middleware(
        RequestGate, max_body=config.max_body_bytes, max_active=config.max_active, exempt=(HEALTH,)
    )
    write_paths = [r.path for r in routes() if r.write]
    app.add_middleware(TokenGate, authorize=core.authorize, open_paths=(HEALTH,), write_paths=write_paths)

    async def bearer(_: BearerToken) -> None:
        """Declares the scheme in the schema; TokenGate has checked the token already."""

    read_auth = [Depends(bearer)]

    @app.post(
        "/v1/check",
        dependencies=read_auth,
        responses={200: {"content": {"application/json": {"schema": REPORT_REF}}}},
    )
    async def check(item: CheckItem) -> Response:
        """Check one item and return its R-1 report."""
        return _json(await core.check(item.model_dump()))

    @app.post("/v1/batch", dependencies=read_auth)
    async def batch(request: BatchRequest) -> Response:
        """Check a bounded list of items; the reports come back in order."""
        return _json(await core.batch([i.model_dump() for i in request.items]))

    @app.post("/v1/reward", dependencies=read_auth)
    async def reward(request: RewardRequest) -> Response:
        """Rewards for a list of completions, as ``cotaudit.rewards.score_completion`` gives them:
        process (pass 1, fail 0, graded type6, could-not-check null), or with a gold answer per
        completion and a ``mode``, answer-aware; ``steps`` adds per-step rewards."""
        return _json(
            await core.reward(
                request.completions,
                request.engine,
                request.shaping,
                gold=request.gold,
                mode=request.mode,
                steps=request.steps,
                time_limit=request.time_limit,
            )
        )

    @app.get(HEALTH)
    async def health() -> JSON:
        """Liveness and what this instance can do (never behind the token, never turned away)."""
        return JSON(core.health())

    @app.get("/v1/codes", dependencies=read_auth)
    async def codes() -> Response:
        """Every stable diagnostic code of every engine."""
        return _json(await core.codes())

    for route in routes():
        _add_engine_route(app, core, route, read_auth)
    _install_error_handlers(app)
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
    return app


def _add_engine_route(app: FastAPI, core: ServiceCore, route: EngineRoute, dependencies: list[Any]) -> None:
    async def endpoint(body: dict[str, Any]) -> Response:
        return _json(await core.call_route(route, body))

    endpoint.__name__ = f"{route.engine}_{route.name}"
    summary = route.summary + (" (needs the bearer token)" if route.write else "")
    app.add_api_route(route.path, endpoint, methods=["POST"], dependencies=dependencies, summary=summary)


def _install_error_handlers(app: FastAPI) -> None:
    def answer(error: ServiceError) -> JSON:
        return JSON(error.body(), status_code=error.status, headers=error.headers)

    async def on_service_error(request: Request, exc: Exception) -> JSON:
        assert isinstance(exc, ServiceError)
        return answer(exc)

    async def on_validation(request: Request, exc: Exception) -> JSON:
        assert isinstance(exc, RequestValidationError)
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        message = f"{where}: {first.get('msg', 'invalid request')}" if where else "invalid request"
        return answer(ServiceError(422, "invalid_request", message))

    async def on_http(request: Request, exc: Exception) -> JSON:
        assert isinstance(exc, HTTPException)
        code = _HTTP_CODES.get(exc.status_code, f"http_{exc.status_code}")
        return answer(ServiceError(exc.status_code, code, str(exc.detail), exc.headers))

    async def on_crash(request: Request, exc: Exception) -> JSON:
        return answer(ServiceError(500, "internal_error", f"internal error: {type(exc).__name__}"))

    app.add_exception_handler(ServiceError, on_service_error)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(HTTPException, on_http)
    app.add_exception_handler(Exception, on_crash)


def _openapi(app: FastAPI) -> dict[str, Any]:
    """FastAPI's schema plus the R-1 report schema as ``components.schemas.Report``."""
    if app.openapi_schema:
        return app.openapi_schema
    schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
    report = json_schema()
    defs = report.pop("$defs", {})
    report.pop("$schema", None)
    report.pop("$id", None)
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    components["Report"] = _rewrite_refs(report)
    for name, sub in defs.items():
        components[f"Report_{name}"] = _rewrite_refs(sub)
    app.openapi_schema = schema
    return schema


def _rewrite_refs(node: Any) -> Any:
    """``#/$defs/X`` → ``#/components/schemas/Report_X`` throughout ``node``."""
    if isinstance(node, dict):
        out = {k: _rewrite_refs(v) for k, v in node.items()}
        ref = out.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            out["$ref"] = "#/components/schemas/Report_" + ref[len("#/$defs/") :]
        return out
    if isinstance(node, list):
        return [_rewrite_refs(v) for v in node]
    return node


# --------------------------------------------------------------------------- running it


def serve(config: ServiceConfig, *, log_level: str = "warning", stream: TextIO | None = None) -> None:
    """Serve until SIGINT/SIGTERM: open requests finish, then the lifespan closes the pool."""
    out = stream or sys.stderr
    if not config.loopback and config.token is None:
        out.write(
            f"cotaudit: warning: serving on {config.host} without {TOKEN_ENV}: "
            "anyone who can reach the port can use the service\n"
        )
    out.write(f"cotaudit: serving on http://{_host(config.host)}:{config.port} ({config.workers} workers)\n")
    out.flush()
    transport.run(
        create_app(config),
        host=config.host,
        port=config.port,
        limits=transport.ConnectionLimits(config.read_timeout, config.max_waiting),
        max_active=config.max_active,
        graceful_s=int(config.request_timeout) + 5,
        log_level=log_level,
        stream=out,
    )


def _host(host: str) -> str:
    return f"[{host}]" if ":" in host else host
