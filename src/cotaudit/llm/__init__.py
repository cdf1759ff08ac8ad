"""The LLM layer shared by every front end and LLM baseline (conventions: "Dependencies behind seams").

- :class:`~cotaudit.llm.backend.Backend`: the narrow provider protocol; the one HTTP
  implementation is :class:`~cotaudit.llm.openai_backend.OpenAIBackend` (the only module that
  imports ``openai``, loaded only when a server is used);
- :class:`~cotaudit.llm.client.LLMClient`: the one wrapper — content-addressed JSON cache with
  ``readwrite`` / ``record`` / ``replay`` / ``off`` modes, retries with backoff, bounded
  concurrency, pydantic validation with re-asks, and the call log;
- :class:`~cotaudit.llm.mock.ScriptedBackend`: the deterministic mock for unit tests;
- :mod:`~cotaudit.llm.config`: flags and ``COTAUDIT_LLM_*`` environment → a client;
- :mod:`~cotaudit.llm.prompts`: versioned prompt files.

Engines never import this package (tests/test_layering.py); front ends and ``cotaudit.eval`` do.
Importing it loads neither ``openai`` nor ``pydantic``.
"""

from cotaudit.llm.backend import Backend
from cotaudit.llm.client import LLMClient
from cotaudit.llm.config import LLMSettings, build_client
from cotaudit.llm.mock import ScriptedBackend
from cotaudit.llm.prompts import Prompt, load_prompt
from cotaudit.llm.structured import Structured
from cotaudit.llm.types import (
    BackendError,
    Completion,
    LLMError,
    Message,
    NotConfigured,
    ReplayMiss,
    Request,
    TransientBackendError,
    Usage,
)

__all__ = [
    "Backend",
    "BackendError",
    "Completion",
    "LLMClient",
    "LLMError",
    "LLMSettings",
    "Message",
    "NotConfigured",
    "Prompt",
    "ReplayMiss",
    "Request",
    "ScriptedBackend",
    "Structured",
    "TransientBackendError",
    "Usage",
    "build_client",
    "load_prompt",
]
