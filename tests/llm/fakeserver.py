"""A tiny OpenAI-compatible HTTP server on loopback, in a thread, that misbehaves on request.

Used to drive the real ``openai`` client through :class:`OpenAIBackend` offline. Behaviours:
``ok`` (a chat completion whose text is ``reply``), ``500``, ``401`` (echoing the Authorization
header, as a careless server might), ``garbage`` (200 with an HTML body), ``slow`` (sleeps
``delay_s`` before answering), ``empty`` (200 with no choices), and ``script``: a list of
behaviours consumed in order. Every request body is kept in ``bodies``.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeServer:
    def __init__(self) -> None:
        self.behaviour = "ok"
        self.script: list[str] = []
        self.reply = '{"value": 4}'
        self.delay_s = 2.0
        self.bodies: list[dict[str, Any]] = []
        self.hits = 0
        self.url = ""

    def next_behaviour(self) -> str:
        return self.script.pop(0) if self.script else self.behaviour


def _handler(server: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
            pass

        def _send(self, code: int, body: bytes, kind: str = "application/json") -> None:
            # the client may have given up first (the timeout tests): nothing to report then
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self._write(code, body, kind)

        def _write(self, code: int, body: bytes, kind: str) -> None:
            self.send_response(code)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            server.bodies.append(json.loads(self.rfile.read(length) or b"{}"))
            server.hits += 1
            behaviour = server.next_behaviour()
            if behaviour == "slow":
                time.sleep(server.delay_s)
            if behaviour == "500":
                return self._send(500, b'{"error": {"message": "internal error"}}')
            if behaviour == "401":
                auth = self.headers.get("Authorization", "")
                body = {"error": {"message": f"Incorrect API key provided: {auth}"}}
                return self._send(401, json.dumps(body).encode())
            if behaviour == "garbage":
                return self._send(200, b"<html>upstream says hello</html>", "text/html")
            if behaviour == "empty":
                return self._send(200, b'{"id": "x", "object": "chat.completion", "choices": []}')
            completion = {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 0,
                "model": "fake",
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": server.reply},
                    }
                ],
                "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10},
            }
            return self._send(200, json.dumps(completion).encode())

    return Handler


@contextmanager
def fake_server() -> Iterator[FakeServer]:
    state = FakeServer()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    httpd.daemon_threads = True
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
