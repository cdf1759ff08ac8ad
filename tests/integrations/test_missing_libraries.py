"""Without their library, the integrations fail on import with the one-line install hint."""

from __future__ import annotations

import importlib
import sys

import pytest

from cotaudit.errors import MissingDependency


@pytest.mark.parametrize(
    ("module", "blocked", "hint"),
    [
        (
            "cotaudit.integrations.inspect",
            ("inspect_ai", "inspect_ai.scorer", "inspect_ai.solver"),
            "cotaudit[inspect]",
        ),
        ("cotaudit.integrations.verifiers", ("verifiers",), "cotaudit[verifiers]"),
    ],
)
def test_missing_library_gives_the_install_hint(
    module: str, blocked: tuple[str, ...], hint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(sys.modules, module, raising=False)
    for name in blocked:
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(MissingDependency) as caught:
        importlib.import_module(module)
    assert hint in str(caught.value) and caught.value.exit_code == 3
    monkeypatch.delitem(sys.modules, module, raising=False)
