"""The OpenAI-compatible HTTP backend — the only module that imports ``openai``.

Any server that speaks the chat-completions API works: vLLM, Ollama, llama.cpp's server,
hosted providers. Servers differ in how they accept a JSON constraint, so ``json_mode`` says
which to send when a request carries a schema:

- ``json_schema``: ``response_format={"type": "json_schema", "json_schema": {...}}`` (OpenAI, vLLM);
- ``json_object``: ``{"type": "json_object", "schema": {...}}`` (llama-cpp-python, which turns
  the schema into a grammar; servers that ignore ``schema`` still return JSON);
- ``none``: nothing; the prompt alone asks for JSON.

The client's own retries are off (``max_retries=0``): the wrapper retries, so there is exactly
one retry policy. Errors become :class:`~cotaudit.llm.types.TransientBackendError` (timeouts,
connection errors, 408/429/5xx, a body that is not a chat completion) or
:class:`~cotaudit.llm.types.BackendError` (other 4xx), with the API key redacted.
"""

from __future__ import annotations

from typing import Any

from cotaudit.errors import MissingDependency
from cotaudit.llm.calllog import redact
from cotaudit.llm.types import (
    BackendError,
    Completion,
    JsonMode,
    Request,
    TransientBackendError,
    Usage,
)

try:
    import openai
except ModuleNotFoundError as _exc:  # the llm extra is optional
    raise MissingDependency.from_import_error(_exc) from None

# Placeholder sent when no key is configured: local servers ignore it, and the openai client
# refuses to start without one.
NO_KEY = "not-needed"


def response_format(request: Request, json_mode: JsonMode) -> dict[str, Any] | None:
    """The ``response_format`` field for ``request`` on a server of kind ``json_mode``."""
    if request.schema is None or json_mode == "none":
        return None
    schema = dict(request.schema)
    if json_mode == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": request.schema_name, "schema": schema}}
    return {"type": "json_object", "schema": schema}


class OpenAIBackend:
    """Chat completions over HTTP with the ``openai`` client."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        json_mode: JsonMode = "json_object",
        timeout_s: float = 60.0,
    ) -> None:
        self._model = model
        self._base_url = base_url  # named in every error: which server did not answer
        self._json_mode: JsonMode = json_mode
        self._secrets = (api_key,) if api_key else ()
        self._client = openai.OpenAI(
            base_url=base_url, api_key=api_key or NO_KEY, timeout=timeout_s, max_retries=0
        )

    @property
    def model(self) -> str:
        return self._model

    @property
    def json_mode(self) -> JsonMode:
        return self._json_mode

    def complete(self, request: Request) -> Completion:
        kwargs: dict[str, Any] = {
            "model": self._model,
            "messages": [m.to_dict() for m in request.messages],
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
        }
        fmt = response_format(request, self._json_mode)
        if fmt is not None:
            kwargs["response_format"] = fmt
        try:
            response = self._client.chat.completions.create(**kwargs)
        except openai.APIStatusError as exc:
            detail = self._clean(f"{self._base_url}: HTTP {exc.status_code}: {exc.message}")
            if exc.status_code in (408, 409, 429) or exc.status_code >= 500:
                raise TransientBackendError(detail) from None
            raise BackendError(detail) from None
        except openai.APITimeoutError:
            raise TransientBackendError(f"{self._base_url}: the server did not answer in time") from None
        except openai.APIConnectionError as exc:
            raise TransientBackendError(self._clean(f"{self._base_url}: connection failed: {exc}")) from None
        except openai.OpenAIError as exc:
            raise TransientBackendError(
                self._clean(f"{self._base_url}: {type(exc).__name__}: {exc}")
            ) from None
        return self._completion(response)

    def _completion(self, response: Any) -> Completion:
        # A server that answers 200 with something that is not a chat completion (an HTML page,
        # a bare string) reaches here as an object without choices.
        choices = getattr(response, "choices", None)
        if not choices:
            raise TransientBackendError("the server's reply held no completion")
        message = getattr(choices[0], "message", None)
        text = getattr(message, "content", None) or ""
        usage = getattr(response, "usage", None)
        return Completion(
            text if isinstance(text, str) else str(text),
            Usage(
                int(getattr(usage, "prompt_tokens", 0) or 0),
                int(getattr(usage, "completion_tokens", 0) or 0),
            ),
            getattr(choices[0], "finish_reason", None),
        )

    def _clean(self, text: str) -> str:
        return redact(" ".join(text.split())[:300], self._secrets)
