"""Shared fixtures: a FAKE engine so front-end tests never depend on a real engine.

The ``fake`` engine owns ``.fake`` files. Per line of the text:
``BAD`` → error FAKE_E001 at the column of ``BAD``; ``WARN`` → warning FAKE_W001 (no column);
``UNSURE`` → verdict abstain; ``CRASH`` → the engine raises RuntimeError;
``NEEDZ3`` → the engine raises ModuleNotFoundError for ``z3`` (a missing optional dependency).

Subprocess tests run the CLI through :data:`FAKE_LAUNCHER`, which loads this file under its own
module name, registers the fake engine and calls ``cotaudit.cli.main``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from cotaudit import api, registry
from cotaudit.report import Finding, InputRef, Location, Report, Severity, Verdict

REPO = Path(__file__).resolve().parent.parent
CONFTEST = Path(__file__).resolve()


def fake_check(
    text: str, *, path: str | None = None, item_id: str | None = None, strict: bool = False
) -> Report:
    """The fake engine's entry point (same calling convention as ``cotaudit.te.check``)."""
    findings: list[Finding] = []
    abstain = False
    for lineno, line in enumerate(text.split("\n"), start=1):
        if "CRASH" in line:
            raise RuntimeError(f"fake engine crashed on line {lineno}")
        if "NEEDZ3" in line:
            raise ModuleNotFoundError("No module named 'z3'", name="z3")
        col = line.find("BAD")
        if col >= 0:
            findings.append(
                Finding("FAKE_E001", "error", Location(line=lineno), "line contains BAD", {"column": col + 1})
            )
        if "WARN" in line:
            severity: Severity = "error" if strict else "warning"
            findings.append(Finding("FAKE_W001", severity, Location(line=lineno), "line contains WARN", {}))
        if "UNSURE" in line:
            abstain = True
    errors = any(f.severity == "error" for f in findings)
    verdict: Verdict = "fail" if errors else ("abstain" if abstain else "pass")
    return Report(
        engine="fake",
        engine_version="fake/1",
        input=InputRef.for_text(text, path, item_id),
        verdict=verdict,
        findings=Report.sorted_findings(findings),
        details={"verdict": "FLAG" if errors else "CLEAN", "lines": text.count("\n") + 1},
    )


def register_fake_engine() -> None:
    api.register_engine("fake", fake_check, (".fake",))


FAKE_LAUNCHER = (
    "import importlib.util, sys\n"
    f"spec = importlib.util.spec_from_file_location('cotaudit_test_conftest', {str(CONFTEST)!r})\n"
    "mod = importlib.util.module_from_spec(spec)\n"
    "spec.loader.exec_module(mod)\n"
    "mod.register_fake_engine()\n"
    "from cotaudit.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


@pytest.fixture(autouse=True)
def fake_engine() -> Iterator[str]:
    """Every test sees the ``fake`` engine registered, and no registration leaks between tests."""
    saved = dict(registry._REGISTRY)
    register_fake_engine()
    yield "fake"
    registry._REGISTRY.clear()
    registry._REGISTRY.update(saved)
    registry._RESOLVED.clear()


def _run_cli(
    args: Sequence[str],
    *,
    cwd: Path,
    stdin: bytes | None = None,
    env: Mapping[str, str] | None = None,
    fake: bool = True,
) -> subprocess.CompletedProcess[bytes]:
    """Run the CLI in a fresh interpreter (with the fake engine unless ``fake=False``)."""
    command = [sys.executable, "-c", FAKE_LAUNCHER] if fake else [sys.executable, "-m", "cotaudit"]
    full_env = {**os.environ, **(env or {})}
    full_env.pop("COTAUDIT_DEBUG", None)
    return subprocess.run(
        [*command, *args], cwd=cwd, input=stdin, capture_output=True, env=full_env, timeout=60, check=False
    )


def _make_report(**overrides: Any) -> Report:
    """A small hand-built report: two findings (one with a column), details with unsorted keys."""
    fields: dict[str, Any] = {
        "engine": "te",
        "engine_version": "te/1",
        "input": InputRef(path="examples/te/janet.te", id="janet", sha256="ab" * 32),
        "verdict": "fail",
        "findings": (
            Finding(
                "TE_E006",
                "error",
                Location(line=9, step="e3"),
                "EQ[e3] claims 8 but total - eaten - baked = 9",
                {"expected": "9", "claimed": "8", "column": 26},
            ),
            Finding("TE_W001", "warning", Location(line=11), "CHECK c1 cannot be decided", {"column": None}),
        ),
        "details": {
            "verdict": "FLAG",
            "grammar": "TE_REASONING_V1+cotaudit",
            "stats": {"lines": 12, "eq": 4},
        },
        "timing_ms": 0.41,
    }
    fields.update(overrides)
    return Report(**fields)


# Test modules use these through fixtures, not ``from conftest import ...``: other test
# directories may have their own conftest.py, so the module name ``conftest`` is ambiguous.


@pytest.fixture
def report() -> Report:
    return _make_report()


@pytest.fixture
def make_report() -> Callable[..., Report]:
    return _make_report


@pytest.fixture
def run_cli() -> Callable[..., subprocess.CompletedProcess[bytes]]:
    return _run_cli


@pytest.fixture
def fake_launcher() -> str:
    """Source for ``python -c`` that runs the CLI with the fake engine registered."""
    return FAKE_LAUNCHER
