"""The narrow provider seam: a :class:`Backend` turns one :class:`Request` into one completion.

Backends know nothing of caching, retries, concurrency, validation or logging — the single
wrapper :class:`cotaudit.llm.client.LLMClient` owns all of those (inspect_ai's ``ModelAPI`` vs
``Model``). A backend raises :class:`~cotaudit.llm.types.TransientBackendError` for what a
retry may fix and :class:`~cotaudit.llm.types.BackendError` for what it cannot.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from cotaudit.llm.types import Completion, JsonMode, Request


@runtime_checkable
class Backend(Protocol):
    """One model behind one server."""

    @property
    def model(self) -> str:
        """The model name sent to the server; part of every cache key."""
        ...

    @property
    def json_mode(self) -> JsonMode:
        """How this server is asked for JSON: ``json_schema``, ``json_object`` (+schema) or ``none``."""
        ...

    def complete(self, request: Request) -> Completion:
        """Answer one request, or raise a :class:`~cotaudit.llm.types.BackendError`."""
        ...
