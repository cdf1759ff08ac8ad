"""``cotaudit serve`` refuses bad flags on one line, before it binds anything."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cotaudit import cli
from cotaudit.service.certify_routes import CERTIFY_DB_ENV


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--workers", "0"], "--workers must be positive"),
        (["--item-timeout", "-1"], "--item-timeout must be positive"),
        (["--max-body", "0"], "--max-body must be positive"),
        (["--max-response", "0"], "--max-response must be positive"),
        (["--read-timeout", "-2"], "--read-timeout must be positive"),
        (["--max-waiting", "0"], "--max-waiting must be positive"),
        (["--max-active", "-1"], "--max-active must be positive"),
        (["--port", "70000"], "--port must be between 0 and 65535"),
        (["--certify-db", "missing.sqlite"], "--certify-db missing.sqlite: no such file"),
    ],
)
def test_bad_flags_exit_2_on_one_line(
    args: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(CERTIFY_DB_ENV, raising=False)
    assert cli.main(["serve", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert CERTIFY_DB_ENV not in os.environ  # nothing was set for a refused run
