"""The values that cross the LLM seam: messages, requests, completions, and the layer's errors.

A :class:`Request` holds everything that can change what a model says — messages, sampling
parameters, the JSON Schema of a structured answer, the prompt's versioned id and a ``sample``
index (inspect_ai's *epoch*: three votes at temperature 0 are three requests, not one request
asked three times). The cache key is a hash of exactly those fields plus the model name
(:func:`cotaudit.llm.cache.cache_key`); ``tag`` only labels the call log.

Errors derive from :class:`~cotaudit.errors.CotauditError` so the CLI prints them as one line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from cotaudit.errors import CotauditError, UsageError

Role = Literal["system", "user", "assistant"]
JsonMode = Literal["json_schema", "json_object", "none"]
CacheMode = Literal["readwrite", "record", "replay", "off"]
JSON_MODES: tuple[JsonMode, ...] = ("json_schema", "json_object", "none")
CACHE_MODES: tuple[CacheMode, ...] = ("readwrite", "record", "replay", "off")


@dataclass(frozen=True, slots=True)
class Message:
    """One chat message."""

    role: Role
    content: str

    def to_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True, slots=True)
class Request:
    """One chat-completion request, independent of any server."""

    messages: tuple[Message, ...]
    prompt: str = ""  # the versioned prompt id, ``name@vN``
    temperature: float = 0.0
    max_tokens: int = 512
    schema: Mapping[str, Any] | None = None  # JSON Schema of a structured answer
    schema_name: str = "answer"
    sample: int = 0  # which of several otherwise identical requests (votes, runs)
    tag: str = field(default="", compare=False)  # call-log label only; never part of the key

    def with_messages(self, messages: tuple[Message, ...]) -> Request:
        return Request(
            messages,
            self.prompt,
            self.temperature,
            self.max_tokens,
            self.schema,
            self.schema_name,
            self.sample,
            self.tag,
        )

    def describe(self) -> str:
        """A short human label: prompt, sample, tag and the start of the last user message."""
        last = next((m.content for m in reversed(self.messages) if m.role == "user"), "")
        snippet = " ".join(last.split())[:60]
        label = f"prompt {self.prompt or '?'}, sample {self.sample}"
        if self.tag:
            label += f", {self.tag}"
        return f"{label}: '{snippet}…'" if snippet else label


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True, slots=True)
class Completion:
    """What a backend answered: the text, the token counts, why it stopped."""

    text: str
    usage: Usage = Usage()
    finish_reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "finish_reason": self.finish_reason,
            "usage": {
                "prompt_tokens": self.usage.prompt_tokens,
                "completion_tokens": self.usage.completion_tokens,
            },
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Completion:
        usage = d.get("usage") or {}
        return cls(
            str(d.get("text", "")),
            Usage(int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))),
            d.get("finish_reason"),
        )


class LLMError(CotauditError):
    """A request the LLM layer could not serve."""


class BackendError(LLMError):
    """The server refused the request for good (a 4xx other than 408/429): retrying cannot help."""


class TransientBackendError(BackendError):
    """A timeout, a 5xx, a 429, a dropped connection or a garbled body: worth a bounded retry."""


class ReplayMiss(LLMError):
    """Replay mode found no recording for a request; replay never calls a server."""

    def __init__(self, request: Request, key: str, where: str) -> None:
        self.request = request
        self.key = key
        super().__init__(
            f"replay: no recording for {request.describe()} (key {key[:16]}… in {where}); "
            "re-record with scripts/record-llm-fixtures or use --llm-mode readwrite"
        )


class NotConfigured(UsageError):
    """No model is configured (no ``--llm-model`` / ``COTAUDIT_LLM_MODEL``, or no server)."""
