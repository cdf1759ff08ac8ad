"""The one error root of cotaudit and its few subclasses.

Every error a user can cause (or fix) is a ``CotauditError``. Each carries the process exit
code the CLI uses for it (spec/report.md, R-4): 2 for usage errors and unreadable input, 3
for a missing optional dependency. Messages are one line; the CLI prints them as
``cotaudit: <message>`` and never shows a traceback.

Findings about a trace are never exceptions: engines return them in a ``Report``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import ClassVar, Literal

# Optional third-party modules → the extra that installs them (pyproject.toml).
_EXTRAS: dict[str, str] = {
    "z3": "z3",
    "openai": "llm",
    "pydantic": "llm",
    "fastapi": "service",
    "uvicorn": "service",
    "ray": "ray",
    "pyarrow": "data",
    "pandas": "data",
    "datasets": "data",
    "inspect_ai": "inspect",
    "verifiers": "verifiers",
}
# Import names whose PyPI distribution is spelled differently.
_DISTRIBUTIONS: dict[str, str] = {"z3": "z3-solver"}


class CotauditError(Exception):
    """Root of every error cotaudit raises on purpose."""

    exit_code: ClassVar[int] = 2


class UsageError(CotauditError):
    """The request cannot be served as asked: bad arguments, unknown engine, unknown format."""


class UnknownEngine(UsageError):
    """An engine name that cotaudit has never heard of."""


class EngineUnavailable(UsageError):
    """A known engine that is not implemented (or cannot be loaded) in this installation."""

    def __init__(self, engine: str, detail: str | None = None) -> None:
        self.engine = engine
        self.detail = detail
        message = f"engine '{engine}' is not available in this version of cotaudit"
        super().__init__(f"{message} ({detail})" if detail else message)


class UnsupportedInput(UsageError):
    """A path whose extension maps to no engine, given without ``--engine``."""


class InputError(CotauditError):
    """An input that cannot be read at all: missing, a directory, not UTF-8 text."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


class MissingDependency(CotauditError):
    """An optional third-party module is not installed; ``hint`` is the one-line fix."""

    exit_code: ClassVar[int] = 3

    def __init__(self, module: str, hint: str | None = None) -> None:
        self.module = module
        self.hint = hint or install_hint(module)
        super().__init__(f"missing optional dependency '{module}': {self.hint}")

    @classmethod
    def from_import_error(cls, exc: ImportError) -> MissingDependency:
        """Wrap the ``ModuleNotFoundError`` of a lazy import, keeping only the top-level name."""
        name = (exc.name or "unknown").split(".")[0]
        return cls(name)


def source_checkout() -> Path | None:
    """The root of the source checkout this cotaudit runs from (an editable install, or
    ``PYTHONPATH=src``), or ``None`` for an installed wheel."""
    root = Path(__file__).resolve().parents[2]
    try:
        text = (root / "pyproject.toml").read_text(encoding="utf-8")
    except OSError:
        return None
    return root if 'name = "cotaudit"' in text else None


def install_hint(module: str, checkout: Path | Literal["auto"] | None = "auto") -> str:
    """The one-line fix for a missing ``module``, fitting how cotaudit was installed: from a
    source checkout ``pip install -e '.[z3]'`` (the checkout's path when it is not the working
    directory), else ``pip install 'cotaudit[z3]'``; a module of no extra: ``pip install <dist>``."""
    top = module.split(".")[0]
    extra = _EXTRAS.get(top)
    if extra is None:
        return f"pip install {_DISTRIBUTIONS.get(top, top)}"
    root = source_checkout() if checkout == "auto" else checkout
    if root is None:
        return f"pip install 'cotaudit[{extra}]'"
    try:
        here = root.resolve() == Path(os.getcwd()).resolve()
    except OSError:
        here = False
    return f"pip install -e '{'.' if here else root.as_posix()}[{extra}]'"
