"""Configuration of the LLM layer from flags and the environment, and building the client.

| flag | environment | default |
|---|---|---|
| ``--llm-base-url`` | ``COTAUDIT_LLM_BASE_URL`` | none (needed unless replaying) |
| ``--llm-model`` | ``COTAUDIT_LLM_MODEL`` | none (needed) |
| ``--llm-mode`` | ``COTAUDIT_LLM_MODE`` | ``readwrite`` |
| ``--llm-cache`` | ``COTAUDIT_LLM_CACHE`` | ``$XDG_CACHE_HOME/cotaudit/llm`` |
| ``--llm-json`` | ``COTAUDIT_LLM_JSON`` | ``json_object`` |
| ``--llm-timeout`` | ``COTAUDIT_LLM_TIMEOUT`` | 60 s |
| ``--llm-retries`` | ``COTAUDIT_LLM_RETRIES`` | 3 |
| ``--llm-concurrency`` | ``COTAUDIT_LLM_CONCURRENCY`` | 4 |
| (none) | ``COTAUDIT_LLM_API_KEY`` | none |

A flag beats the environment. The API key is read from the environment only — a key on a
command line shows in ``ps`` and shell history — and it is handed to the backend and to the
redactor, never to the cache, the call log or a report.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from cotaudit.errors import UsageError
from cotaudit.llm.client import LLMClient
from cotaudit.llm.types import CACHE_MODES, JSON_MODES, CacheMode, JsonMode, NotConfigured

ENV_PREFIX = "COTAUDIT_LLM_"
API_KEY_ENV = "COTAUDIT_LLM_API_KEY"


def default_cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cotaudit" / "llm"


@dataclass(frozen=True, slots=True)
class LLMSettings:
    """Everything needed to build an :class:`LLMClient`, minus the key (see the module doc)."""

    base_url: str | None = None
    model: str | None = None
    mode: CacheMode = "readwrite"
    cache: str | None = None
    json_mode: JsonMode = "json_object"
    timeout_s: float = 60.0
    retries: int = 3
    concurrency: int = 4

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> LLMSettings:
        env = os.environ if environ is None else environ

        def get(name: str) -> str | None:
            value = env.get(ENV_PREFIX + name, "").strip()
            return value or None

        settings = cls(base_url=get("BASE_URL"), model=get("MODEL"), cache=get("CACHE"))
        return settings.merged(
            mode=get("MODE"),
            json_mode=get("JSON"),
            timeout_s=get("TIMEOUT"),
            retries=get("RETRIES"),
            concurrency=get("CONCURRENCY"),
        )

    def merged(
        self,
        *,
        base_url: str | None = None,
        model: str | None = None,
        mode: str | None = None,
        cache: str | None = None,
        json_mode: str | None = None,
        timeout_s: str | float | None = None,
        retries: str | int | None = None,
        concurrency: str | int | None = None,
    ) -> LLMSettings:
        """A copy with every given (non-``None``) value applied; strings are parsed and checked."""
        if mode is not None and mode not in CACHE_MODES:
            raise UsageError(f"LLM mode must be one of {', '.join(CACHE_MODES)}, not {mode!r}")
        if json_mode is not None and json_mode not in JSON_MODES:
            raise UsageError(f"LLM JSON mode must be one of {', '.join(JSON_MODES)}, not {json_mode!r}")
        try:
            timeout = self.timeout_s if timeout_s is None else float(timeout_s)
            tries = self.retries if retries is None else int(retries)
            slots = self.concurrency if concurrency is None else int(concurrency)
        except ValueError as exc:
            raise UsageError(f"bad LLM setting: {exc}") from None
        if tries < 0 or slots < 1 or timeout <= 0:
            raise UsageError("LLM retries must be >= 0, concurrency >= 1 and timeout > 0")
        return LLMSettings(
            base_url=base_url if base_url is not None else self.base_url,
            model=model if model is not None else self.model,
            mode=mode if mode is not None else self.mode,
            cache=cache if cache is not None else self.cache,
            json_mode=json_mode if json_mode is not None else self.json_mode,
            timeout_s=timeout,
            retries=tries,
            concurrency=slots,
        )

    def unconfigured_reason(self) -> str | None:
        """Why no client can be built from these settings, or ``None``."""
        if not self.model:
            return "no model configured (pass --llm-model or set COTAUDIT_LLM_MODEL; see docs/llm.md)"
        if self.mode != "replay" and not self.base_url:
            return (
                "no server configured (pass --llm-base-url or set COTAUDIT_LLM_BASE_URL, "
                "or replay recordings with --llm-mode replay --llm-cache DIR)"
            )
        if self.mode == "replay" and not Path(self.cache_dir()).is_dir():
            return f"replay needs recordings, and {self.cache_dir()} is not a directory"
        return None

    def cache_dir(self) -> str:
        return self.cache or str(default_cache_dir())


def build_client(settings: LLMSettings, environ: Mapping[str, str] | None = None) -> LLMClient:
    """The client for ``settings``; :class:`NotConfigured` says why there is none."""
    reason = settings.unconfigured_reason()
    if reason is not None:
        raise NotConfigured(reason)
    env = os.environ if environ is None else environ
    api_key = env.get(API_KEY_ENV) or None
    backend = None
    if settings.mode != "replay":
        from cotaudit.llm.openai_backend import OpenAIBackend

        assert settings.base_url is not None and settings.model is not None
        backend = OpenAIBackend(
            settings.base_url,
            settings.model,
            api_key=api_key,
            json_mode=settings.json_mode,
            timeout_s=settings.timeout_s,
        )
    return LLMClient(
        backend,
        model=settings.model,
        json_mode=settings.json_mode,
        mode=settings.mode,
        cache_dir=None if settings.mode == "off" else settings.cache_dir(),
        retries=settings.retries,
        concurrency=settings.concurrency,
        secrets=(api_key,) if api_key else (),
    )
