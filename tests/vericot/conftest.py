"""vericot tests run with V-17's invariant check on (SAT(KB) ≠ unsat after every commit)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _kb_invariants(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("COTAUDIT_VERICOT_INVARIANTS", "1")
    yield
