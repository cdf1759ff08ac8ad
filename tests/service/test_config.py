"""Service settings and the engine-endpoint registry (no server needed)."""

from __future__ import annotations

import pytest

from cotaudit.service.config import (
    ServiceConfig,
    default_workers,
    register_route,
    resolve,
    routes,
    unregister_route,
)


def test_from_env_reads_the_token_and_keeps_flags() -> None:
    config = ServiceConfig.from_env({"COTAUDIT_API_TOKEN": "t"}, port=9000, workers=None)
    assert config.token == "t" and config.port == 9000 and config.workers == default_workers()
    assert config.host == "127.0.0.1" and config.loopback
    assert ServiceConfig.from_env({"COTAUDIT_API_TOKEN": ""}).token is None
    assert not ServiceConfig(host="0.0.0.0").loopback and ServiceConfig(host="127.0.0.2").loopback
    assert 1 <= default_workers() <= 4


def test_register_resolve_and_unregister_routes() -> None:
    route = register_route("demo", "ping", lambda body: {"pong": True}, summary="ping")
    try:
        assert route.path == "/v1/demo/ping" and route in routes() and not route.write
        handler = resolve(route)
        assert handler is not None and handler({}) == {"pong": True}
        lazy = register_route("demo", "lazy", "cotaudit.rewards:compute_score", write=True)
        assert resolve(lazy) is not None
        missing = register_route("demo", "missing", "cotaudit.no_such_module:f")
        assert resolve(missing) is None
    finally:
        for name in ("ping", "lazy", "missing"):
            unregister_route("demo", name)
    assert not any(r.engine == "demo" for r in routes())
    assert {("certify", "admit"), ("certify", "erase")} <= {(r.engine, r.name) for r in routes() if r.write}


@pytest.mark.parametrize(
    ("engine", "name", "entry"),
    [("", "x", None), ("a/b", "x", None), ("a", "x y", None), ("a", "x", "no_colon")],
)
def test_bad_routes_are_refused(engine: str, name: str, entry: str | None) -> None:
    with pytest.raises(ValueError):
        register_route(engine, name, entry)
