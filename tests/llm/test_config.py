"""Flags and COTAUDIT_LLM_* → settings → a client; "not configured" is said, never guessed."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from cotaudit.cli.llm import add_llm_options, llm_settings, optional_llm_client
from cotaudit.errors import UsageError
from cotaudit.llm.config import LLMSettings, build_client, default_cache_dir
from cotaudit.llm.types import NotConfigured


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_llm_options(parser)
    return parser.parse_args(list(argv))


def test_environment_then_flags() -> None:
    env = {
        "COTAUDIT_LLM_BASE_URL": "http://127.0.0.1:9/v1",
        "COTAUDIT_LLM_MODEL": "env-model",
        "COTAUDIT_LLM_MODE": "record",
        "COTAUDIT_LLM_CACHE": "/tmp/c",
        "COTAUDIT_LLM_JSON": "none",
        "COTAUDIT_LLM_TIMEOUT": "5",
        "COTAUDIT_LLM_RETRIES": "1",
        "COTAUDIT_LLM_CONCURRENCY": "2",
    }
    s = llm_settings(parse(), env)
    assert (s.base_url, s.model, s.mode, s.cache, s.json_mode) == (
        "http://127.0.0.1:9/v1",
        "env-model",
        "record",
        "/tmp/c",
        "none",
    )
    assert (s.timeout_s, s.retries, s.concurrency) == (5.0, 1, 2)
    s = llm_settings(parse("--llm-model", "flag-model", "--llm-mode", "off", "--llm-retries", "0"), env)
    assert (s.model, s.mode, s.retries, s.base_url) == ("flag-model", "off", 0, "http://127.0.0.1:9/v1")


@pytest.mark.parametrize(
    "env",
    [
        {"COTAUDIT_LLM_MODE": "sometimes"},
        {"COTAUDIT_LLM_JSON": "xml"},
        {"COTAUDIT_LLM_RETRIES": "many"},
        {"COTAUDIT_LLM_CONCURRENCY": "0"},
        {"COTAUDIT_LLM_TIMEOUT": "-1"},
    ],
)
def test_bad_settings_are_usage_errors(env: dict[str, str]) -> None:
    with pytest.raises(UsageError):
        LLMSettings.from_env(env)


def test_unconfigured_reasons(tmp_path: Path) -> None:
    assert "no model configured" in (LLMSettings().unconfigured_reason() or "")
    assert "no server configured" in (LLMSettings(model="m").unconfigured_reason() or "")
    missing = LLMSettings(model="m", mode="replay", cache=str(tmp_path / "none"))
    assert "is not a directory" in (missing.unconfigured_reason() or "")
    assert LLMSettings(model="m", mode="replay", cache=str(tmp_path)).unconfigured_reason() is None
    with pytest.raises(NotConfigured, match="no model configured"):
        build_client(LLMSettings(), {})


def test_optional_client_reports_not_configured_instead_of_failing() -> None:
    client, reason = optional_llm_client(parse(), {})
    assert client is None and reason is not None and "--llm-model" in reason


def test_replay_needs_no_server_and_no_openai(tmp_path: Path) -> None:
    client = build_client(LLMSettings(model="m", mode="replay", cache=str(tmp_path)), {})
    assert client.backend is None and client.describe() == {
        "model": "m",
        "mode": "replay",
        "json_mode": "json_object",
    }


def test_the_key_comes_from_the_environment_only_and_is_not_described(tmp_path: Path) -> None:
    pytest.importorskip("openai")
    env = {"COTAUDIT_LLM_API_KEY": "sk-secret-value-123"}
    settings = LLMSettings(base_url="http://127.0.0.1:9/v1", model="m", cache=str(tmp_path))
    client = build_client(settings, env)
    assert "sk-secret" not in repr(client.describe()) and "sk-secret" not in repr(settings)
    assert not any(a.dest == "llm_api_key" for a in argparse.ArgumentParser()._actions)


def test_default_cache_dir_follows_xdg(tmp_path: Path) -> None:
    assert default_cache_dir({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "cotaudit" / "llm"
