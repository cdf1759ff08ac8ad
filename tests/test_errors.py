"""Every public error cotaudit defines is a :class:`~cotaudit.errors.CotauditError`.

An error class is public when its name does not start with ``_`` and ends with ``Error``;
control-flow signals (``NeedsSymbolic``, ``BudgetExceeded`` …) are not errors and keep their
own bases. Errors that used to be bare ``ValueError``\\s (or ``LookupError``, ``OSError``) keep
that base too, so existing ``except ValueError`` clauses still catch them.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from cotaudit.errors import CotauditError

PKG = Path(__file__).resolve().parent.parent / "src" / "cotaudit"
# Modules that need an optional extra to be imported at all.
OPTIONAL = ("cotaudit.service", "cotaudit.batch.ray_backend", "cotaudit.llm.openai_backend")


def _error_classes() -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for path in sorted(PKG.rglob("*.py")):
        parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        module = ".".join(parts)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if (
                isinstance(node, ast.ClassDef)
                and node.name.endswith("Error")
                and not node.name.startswith("_")
            ):
                found.append((module, node.name))
    return found


ERRORS = _error_classes()


def test_the_walk_finds_the_errors() -> None:
    assert ("cotaudit.errors", "UsageError") in ERRORS
    assert ("cotaudit.certify.core.canon", "NotCanonical") not in ERRORS  # not named *Error
    assert len(ERRORS) >= 30


@pytest.mark.parametrize(("module", "name"), ERRORS, ids=[f"{m}.{n}" for m, n in ERRORS])
def test_every_public_error_is_a_cotaudit_error(module: str, name: str) -> None:
    try:
        cls = getattr(importlib.import_module(module), name)
    except ModuleNotFoundError as exc:  # an optional extra that is not installed
        if module.startswith(OPTIONAL) and not (exc.name or "").startswith("cotaudit"):
            pytest.skip(f"{module} needs {exc.name}")
        raise
    if not (isinstance(cls, type) and issubclass(cls, BaseException)):
        pytest.skip(f"{module}.{name} is not an exception")
    assert issubclass(cls, CotauditError), f"{module}.{name} bases: {cls.__mro__[1:]}"


@pytest.mark.parametrize(
    ("module", "name", "base"),
    [
        ("cotaudit.report.model", "ReportFormatError", ValueError),
        ("cotaudit.vericot.smtlib", "SmtError", ValueError),
        ("cotaudit.vericot.datasets", "DataMissing", FileNotFoundError),
        ("cotaudit.llm.prompts", "PromptError", LookupError),
        ("cotaudit.certify.core.canon", "NotCanonical", ValueError),
        ("cotaudit.certify.adapters.proofwriter", "PWParseError", ValueError),
    ],
)
def test_former_builtin_errors_keep_their_builtin_base(module: str, name: str, base: type) -> None:
    cls = getattr(importlib.import_module(module), name)
    assert issubclass(cls, CotauditError) and issubclass(cls, base)
