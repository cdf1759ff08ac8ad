"""A deterministic scripted backend for unit tests (its answers are hand-written, not recorded).

A script is either a list of replies consumed in order, or a function from the request to a
reply. A reply is the answer text, a :class:`~cotaudit.llm.types.Completion`, or an exception
to raise (``TransientBackendError("500")`` to act out a failing server). The backend records
every request it saw and the largest number of calls it served at once, which is how the tests
check the wrapper's concurrency bound.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from cotaudit.llm.types import BackendError, Completion, JsonMode, Request, Usage

Reply = str | Completion | BaseException
Script = Sequence[Reply] | Callable[[Request], Reply]


class ScriptedBackend:
    """Answers from a script; thread-safe; never touches the network."""

    def __init__(
        self,
        script: Script,
        *,
        model: str = "mock-model",
        json_mode: JsonMode = "json_object",
        delay_s: float = 0.0,
    ) -> None:
        self._script = script
        self._model = model
        self._json_mode: JsonMode = json_mode
        self._delay_s = delay_s
        self._lock = threading.Lock()
        self._next = 0
        self._in_flight = 0
        self.max_in_flight = 0
        self.requests: list[Request] = []

    @property
    def model(self) -> str:
        return self._model

    @property
    def json_mode(self) -> JsonMode:
        return self._json_mode

    @property
    def calls(self) -> int:
        return len(self.requests)

    def complete(self, request: Request) -> Completion:
        with self._lock:
            self.requests.append(request)
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
            if callable(self._script):
                reply: Reply = self._script(request)
            elif self._next < len(self._script):
                reply = self._script[self._next]
                self._next += 1
            else:
                reply = BackendError(f"mock script exhausted after {self._next} replies")
        try:
            if self._delay_s:
                time.sleep(self._delay_s)
            if isinstance(reply, BaseException):
                raise reply
            if isinstance(reply, Completion):
                return reply
            words = sum(len(m.content.split()) for m in request.messages)
            return Completion(reply, Usage(words, len(reply.split())), "stop")
        finally:
            with self._lock:
                self._in_flight -= 1
