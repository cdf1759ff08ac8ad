"""Every certificate produced in a certify test must go through the independent ``recheck``.

The autouse fixture records every certificate sealed and every certificate rechecked while the
test runs; at teardown it rechecks every certificate stored in the states the test opened (and
left open) and then fails the test if a sealed certificate was never rechecked.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest

from cotaudit.certify.proof import format as certificate_mod
from cotaudit.certify.proof import report as recheck_mod
from cotaudit.certify.state.history import recheck_all
from cotaudit.certify.state.machine import CertState


@pytest.fixture
def tampered_files() -> list[str]:
    """Paths a test corrupts on purpose; their stored certificates are not rechecked at teardown."""
    return []


@pytest.fixture(autouse=True)
def every_certificate_rechecks(monkeypatch: pytest.MonkeyPatch, tampered_files: list[str]) -> Iterator[None]:
    sealed: dict[str, Any] = {}
    checked: set[str] = set()
    states: list[CertState] = []

    def on_seal(cert: Any) -> None:
        sealed[cert["sha256"]] = cert

    def on_recheck(cert: Any) -> None:
        if isinstance(cert, dict) and isinstance(cert.get("sha256"), str):
            checked.add(cert["sha256"])

    original = CertState.open.__func__  # type: ignore[attr-defined]

    def tracking_open(cls: type[CertState], *args: Any, **kwargs: Any) -> CertState:
        state = original(cls, *args, **kwargs)
        states.append(state)
        return state

    monkeypatch.setattr(CertState, "open", classmethod(tracking_open))
    certificate_mod.SEAL_OBSERVERS.append(on_seal)
    recheck_mod.RECHECK_OBSERVERS.append(on_recheck)
    try:
        yield
        for state in states:
            if state.store.path in tampered_files:
                continue
            try:
                state.store.conn.execute("SELECT 1")
                state.load()  # another handle may have written to the same file since
                assert recheck_all(state) == []
            except sqlite3.ProgrammingError:  # closed by the test
                if state.store.path != ":memory:" and state.store.path not in tampered_files:
                    again = original(CertState, state.store.path)
                    try:
                        assert recheck_all(again) == []
                    finally:
                        again.close()
    finally:
        certificate_mod.SEAL_OBSERVERS.remove(on_seal)
        recheck_mod.RECHECK_OBSERVERS.remove(on_recheck)
    missing = sorted(set(sealed) - checked)
    assert not missing, f"{len(missing)} certificate(s) produced but never rechecked"
