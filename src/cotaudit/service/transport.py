"""Connections: uvicorn's h11 protocol with deadlines, and the uvicorn server that runs the app.

uvicorn on its own bounds none of what a hostile client controls: its ``limit_concurrency``
counts every open connection, including those that never finish their headers, so a few
hundred half-open sockets make every request (``/v1/health`` included) answer 503; and nothing
times out a request while it is being read, so a half-sent request or a slowloris client holds
its socket for ever. :class:`GuardedH11Protocol` (uvicorn's ``H11Protocol`` with three timers
and one shared list) replaces that:

- **read deadline**: a request must arrive whole — headers and body — within
  ``read_timeout`` seconds of its first byte (of the connection's opening, for the first
  request). Past it the connection is answered ``408`` (if no request line was parsed yet) and
  closed. Idle keep-alive connections keep uvicorn's own ``timeout_keep_alive``.
- **write deadline**: a client that stops reading its answer (the transport's buffer stays
  over its high-water mark) for ``read_timeout`` seconds is dropped, so a response can never
  be parked for ever on a full socket.
- **waiting connections**: at most ``max_waiting`` connections may be open without a request
  at work (still sending one, or idle between two); one more closes the *oldest* of them. A
  connection whose request has arrived is never evicted, so an attacker holding sockets open
  evicts only his own (and at worst an idle keep-alive connection, which any HTTP client
  reopens), while a real client's request, which arrives in milliseconds, goes through.

The number of requests at work is bounded in the app (:mod:`cotaudit.service.gates`), where
``/v1/health`` can be exempt, instead of by uvicorn's connection count.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import sys
from typing import Any, ClassVar, NamedTuple, TextIO

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from cotaudit.service.core import ServiceError
from cotaudit.service.encode import encode

KEEP_ALIVE_S = 5
DROP_GRACE_S = 1.0  # a closed transport that cannot flush its buffer is aborted after this
FD_RESERVE = 64  # descriptors kept for the listening socket, worker pipes, logs, imports


class ConnectionLimits(NamedTuple):
    read_timeout: float
    max_waiting: int


class Waiting:
    """Connections open without a request at work, oldest first; one over the cap evicts the
    oldest."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._order: dict[GuardedH11Protocol, None] = {}  # insertion order = age

    def add(self, conn: GuardedH11Protocol) -> None:
        self._order.pop(conn, None)
        self._order[conn] = None
        while len(self._order) > self.cap:
            oldest = next(iter(self._order))
            del self._order[oldest]
            oldest.drop()

    def discard(self, conn: GuardedH11Protocol) -> None:
        self._order.pop(conn, None)

    def __len__(self) -> int:
        return len(self._order)


@functools.cache
def _timeout_response(seconds: float) -> bytes:
    error = ServiceError(408, "request_timeout", f"the request did not arrive within {seconds:g} s")
    body = encode(error.body())
    head = (
        "HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a read deadline, a write deadline and the waiting list.

    Subclassed per server by :func:`protocol_class`, which sets ``limits`` and ``waiting``.
    """

    limits: ClassVar[ConnectionLimits]
    waiting: ClassVar[Waiting]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._read_timer: asyncio.TimerHandle | None = None
        self._write_timer: asyncio.TimerHandle | None = None
        self._lost = False

    # ------------------------------------------------------------------ uvicorn's hooks

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_read()
        self.waiting.add(self)

    def data_received(self, data: bytes) -> None:
        if self._read_timer is None:  # the first byte of a request: its clock starts now
            self._arm_read()
        super().data_received(data)
        self._after_events()

    def on_response_complete(self) -> None:
        super().on_response_complete()  # arms keep-alive, runs a pipelined request if complete
        if not self.transport.is_closing():
            self._after_events()
            if self.conn.their_state is not h11.DONE and self.conn.their_state is not h11.MUST_CLOSE:
                self.waiting.add(self)  # idle, or its next request is still arriving

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._write_timer is None:
            self._write_timer = self.loop.call_later(self.limits.read_timeout, self.drop)

    def resume_writing(self) -> None:
        super().resume_writing()
        self._cancel_write()

    def connection_lost(self, exc: Exception | None) -> None:
        self._lost = True
        self._cancel_read()
        self._cancel_write()
        self.waiting.discard(self)
        super().connection_lost(exc)

    # ------------------------------------------------------------------ the deadlines

    def _after_events(self) -> None:
        """After h11 has consumed what arrived: a request that is whole stops its clock."""
        state = self.conn.their_state
        if state is h11.DONE or state is h11.MUST_CLOSE:
            self._cancel_read()
            self.waiting.discard(self)
        elif state is h11.ERROR or state is h11.CLOSED:
            self._cancel_read()
        elif self._read_timer is None and (state is h11.SEND_BODY or self.conn.trailing_data[0]):
            self._arm_read()  # a pipelined request, in part already here: its clock starts now

    def _arm_read(self) -> None:
        self._cancel_read()
        self._read_timer = self.loop.call_later(self.limits.read_timeout, self._read_timed_out)

    def _read_timed_out(self) -> None:
        self._read_timer = None
        if self.transport.is_closing():
            return
        if self.conn.their_state is h11.IDLE and self.conn.our_state is h11.IDLE:
            self.transport.write(_timeout_response(self.limits.read_timeout))
        self.drop()  # a request whose body is still coming: its handler sees a disconnect

    def drop(self) -> None:
        """Close the connection now; abort it if its buffer has not flushed within a second."""
        self._cancel_read()
        self._cancel_write()
        self.waiting.discard(self)
        if self._lost:
            return
        self.transport.close()
        if self.transport.get_write_buffer_size():  # a client that does not read: do not wait
            self.loop.call_later(DROP_GRACE_S, self._abort_if_open)

    def _abort_if_open(self) -> None:
        if not self._lost:
            self.transport.abort()

    def _cancel_read(self) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None

    def _cancel_write(self) -> None:
        if self._write_timer is not None:
            self._write_timer.cancel()
            self._write_timer = None


def protocol_class(limits: ConnectionLimits) -> type[GuardedH11Protocol]:
    """A protocol class for one server: its own limits and its own waiting list."""
    attrs = {"limits": limits, "waiting": Waiting(limits.max_waiting)}
    return type("ServedH11Protocol", (GuardedH11Protocol,), attrs)


# --------------------------------------------------------------------------- running it


def raise_fd_limit() -> int:
    """Raise this process's soft limit on open files to its hard limit; return the soft limit."""
    try:
        import resource
    except ImportError:  # not POSIX
        return 1 << 30
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = max(soft, 1 << 20) if soft != resource.RLIM_INFINITY else 1 << 20
    if soft == resource.RLIM_INFINITY or soft >= hard:
        return int(hard if soft == resource.RLIM_INFINITY else soft)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        soft = hard
    return int(soft)


def fit_to_fd_limit(max_waiting: int, max_active: int, fd_limit: int) -> int:
    """``max_waiting``, lowered so that waiting and active connections fit in ``fd_limit``."""
    room = fd_limit - FD_RESERVE - max_active
    return max(1, min(max_waiting, room))


class _Server(uvicorn.Server):
    """uvicorn's server, except that a SIGINT/SIGTERM shutdown ends ``cotaudit serve`` with exit
    status 0 instead of re-raising the signal once the graceful shutdown is done."""

    def handle_exit(self, sig: int, frame: Any) -> None:
        super().handle_exit(sig, frame)
        self._captured_signals.clear()


def run(
    app: Any,
    *,
    host: str,
    port: int,
    limits: ConnectionLimits,
    max_active: int,
    graceful_s: int,
    log_level: str,
    stream: TextIO | None = None,
) -> None:
    """Serve ``app`` until SIGINT/SIGTERM behind :class:`GuardedH11Protocol`."""
    out = stream or sys.stderr
    fd_limit = raise_fd_limit()
    waiting = fit_to_fd_limit(limits.max_waiting, max_active, fd_limit)
    if waiting < limits.max_waiting:
        out.write(
            f"cotaudit: warning: {fd_limit} open files allowed (ulimit -n): "
            f"at most {waiting} waiting connections instead of {limits.max_waiting}\n"
        )
        out.flush()
        limits = limits._replace(max_waiting=waiting)
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        http=protocol_class(limits),
        ws="none",  # no websocket routes: an upgrade would leave the guarded protocol
        log_level=log_level,
        access_log=False,
        limit_concurrency=None,  # counted in the app (gates.RequestGate), health exempt
        timeout_keep_alive=KEEP_ALIVE_S,
        timeout_graceful_shutdown=graceful_s,
    )
    _Server(config).run()
