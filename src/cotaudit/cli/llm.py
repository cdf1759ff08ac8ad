"""LLM options shared by every command that may call a model (``te emit``, ``eval te``, …).

``add_llm_options(parser)`` adds ``--llm-base-url``, ``--llm-model``, ``--llm-mode``,
``--llm-cache``, ``--llm-json``, ``--llm-timeout``, ``--llm-retries`` and
``--llm-concurrency``; :func:`llm_settings` merges them over ``COTAUDIT_LLM_*``;
:func:`llm_client` builds the client, or says why it cannot. The API key is read from
``COTAUDIT_LLM_API_KEY`` only. Nothing here imports ``openai``: the backend is loaded when a
client for a live server is built.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cotaudit.llm.client import LLMClient
    from cotaudit.llm.config import LLMSettings


def add_llm_options(parser: Any) -> None:
    """Add the ``--llm-*`` options to an argparse parser (as one titled group)."""
    group = parser.add_argument_group("language model (or COTAUDIT_LLM_* in the environment)")
    group.add_argument(
        "--llm-base-url", metavar="URL", help="OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1"
    )
    group.add_argument(
        "--llm-model", metavar="NAME", help="model name sent to the server (part of every cache key)"
    )
    group.add_argument(
        "--llm-mode",
        choices=("readwrite", "record", "replay", "off"),
        help="cache mode (default readwrite; replay never calls a server)",
    )
    group.add_argument("--llm-cache", metavar="DIR", help="cache / recordings directory")
    group.add_argument(
        "--llm-json",
        choices=("json_schema", "json_object", "none"),
        help="how this server is asked for JSON (default json_object, with the schema)",
    )
    group.add_argument("--llm-timeout", type=float, metavar="S", help="seconds per request (default 60)")
    group.add_argument("--llm-retries", type=int, metavar="N", help="retries of a failed request (default 3)")
    group.add_argument(
        "--llm-concurrency", type=int, metavar="N", help="requests in flight at once (default 4)"
    )


def llm_settings(args: argparse.Namespace, environ: Mapping[str, str] | None = None) -> LLMSettings:
    """The environment's settings with the given flags on top."""
    from cotaudit.llm.config import LLMSettings

    return LLMSettings.from_env(environ).merged(
        base_url=getattr(args, "llm_base_url", None),
        model=getattr(args, "llm_model", None),
        mode=getattr(args, "llm_mode", None),
        cache=getattr(args, "llm_cache", None),
        json_mode=getattr(args, "llm_json", None),
        timeout_s=getattr(args, "llm_timeout", None),
        retries=getattr(args, "llm_retries", None),
        concurrency=getattr(args, "llm_concurrency", None),
    )


def llm_client(args: argparse.Namespace, environ: Mapping[str, str] | None = None) -> LLMClient:
    """The client the flags and environment describe; raises ``NotConfigured`` (exit 2) if none."""
    from cotaudit.llm.config import build_client

    return build_client(llm_settings(args, environ), environ)


def optional_llm_client(
    args: argparse.Namespace, environ: Mapping[str, str] | None = None
) -> tuple[LLMClient | None, str | None]:
    """``(client, None)``, or ``(None, reason)`` when no model is configured — for commands
    whose LLM parts are optional and must then say "not configured" instead of failing."""
    settings = llm_settings(args, environ)
    reason = settings.unconfigured_reason()
    if reason is not None:
        return None, reason
    from cotaudit.llm.config import build_client

    return build_client(settings, environ), None
