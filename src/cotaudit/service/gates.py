"""ASGI gates in front of the app: who may ask, how much they may send, how many are served.

Plain ASGI (no framework), so each answers before FastAPI reads or validates anything:

- :class:`TokenGate` checks the bearer token first: a request without it is answered 401 (403
  for a write endpoint on a service without a token) before a byte of its body is read, so a
  malformed body cannot tell an anonymous client anything (422 comes after 401), and the
  schema at ``/openapi.json`` is behind the token like every other route but ``/v1/health``.
- :class:`RequestGate` reads the body — refused at ``max_body`` bytes by ``Content-Length`` up
  front, else while reading — and only then takes one of ``max_active`` places; beyond them
  the request is answered 503 ``overloaded`` with ``Retry-After``. A client still trickling
  its body holds no place (the transport's read deadline ends it), and ``/v1/health`` needs no
  place: it answers however busy the service is.

Errors they send carry ``connection: close`` when the body was not read, so the server does
not go on reading (and discarding) what the client still sends.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, MutableMapping
from typing import Any

from cotaudit.service.core import ServiceError
from cotaudit.service.encode import encode

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


async def send_error(send: Send, error: ServiceError, *, close: bool = False) -> None:
    """Answer ``error`` as the service's JSON error body."""
    body = encode(error.body())
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in error.headers.items()]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers") or ():
        if key.lower() == name:
            return bytes(value)
    return None


class TokenGate:
    """``authorize(header, write=...)`` for every request but those to ``open_paths``."""

    def __init__(
        self,
        app: ASGIApp,
        authorize: Callable[..., None],
        open_paths: Collection[str],
        write_paths: Collection[str],
    ) -> None:
        self.app = app
        self.authorize = authorize
        self.open_paths = frozenset(open_paths)
        self.write_paths = frozenset(write_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and path not in self.open_paths:
            try:
                self.authorize(_header(scope, b"authorization"), write=path in self.write_paths)
            except ServiceError as error:
                await send_error(send, error, close=True)
                return
        await self.app(scope, receive, send)


def too_large(limit: int) -> ServiceError:
    return ServiceError(413, "payload_too_large", f"the request body is larger than {limit} bytes")


class RequestGate:
    """Read the body (at most ``max_body`` bytes), then serve it in one of ``max_active`` places."""

    def __init__(self, app: ASGIApp, max_body: int, max_active: int, exempt: Collection[str]) -> None:
        self.app = app
        self.max_body = max_body
        self.max_active = max_active
        self.exempt = frozenset(exempt)
        self.active = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = (_header(scope, b"content-length") or b"").decode("latin-1")
        if declared.isdigit() and int(declared) > self.max_body:
            await send_error(send, too_large(self.max_body), close=True)
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # the client left (or the read deadline closed it): nobody to answer
            body += message.get("body", b"") or b""
            if len(body) > self.max_body:
                await send_error(send, too_large(self.max_body), close=True)
                return
            if not message.get("more_body", False):
                break
        exempt = scope.get("path", "") in self.exempt
        if not exempt and self.active >= self.max_active:
            busy = ServiceError(
                503, "overloaded", "too many requests at work; retry later", {"Retry-After": "1"}
            )
            await send_error(send, busy)
            return
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()  # after the body: the disconnect, whenever it comes

        if exempt:
            await self.app(scope, replay, send)
            return
        self.active += 1
        try:
            await self.app(scope, replay, send)
        finally:
            self.active -= 1
