"""Every ```python snippet of README.md and docs/*.md runs as printed (issue 17).

Each runs in a fresh interpreter, in a scratch directory where ``examples/`` and ``src/`` point
at the repository's, so the files it names are there and the files it writes go nowhere else.
A snippet says what it needs on its first lines:

- ``# needs: <what>`` — something the test cannot have (a model, a network, a library that is
  not a dependency): skipped, with that reason shown;
- ``# requires: mod, mod`` — optional libraries (installed by the dev extra): skipped, naming
  the missing one, only where they are not installed.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_FENCE = re.compile(r"^```python[^\n]*\n(.*?)^```", re.M | re.S)


def _snippets() -> list[tuple[str, str]]:
    found = []
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        for m in _FENCE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found.append((f"{path.relative_to(ROOT).as_posix()}:{line}", m.group(1)))
    return found


SNIPPETS = _snippets()


def test_the_snippets_are_found() -> None:
    where = {name.split(":")[0] for name, _ in SNIPPETS}
    assert {"README.md", "docs/integrations.md", "docs/batch.md", "docs/certify.md"} <= where
    assert len(SNIPPETS) >= 12


def _markers(code: str) -> tuple[str | None, list[str]]:
    needs, requires = None, []
    for line in code.splitlines():
        if not line.startswith("#"):
            break
        if line.startswith("# needs:"):
            needs = line.removeprefix("# needs:").strip()
        elif line.startswith("# requires:"):
            requires = [m.strip() for m in line.removeprefix("# requires:").split(",") if m.strip()]
    return needs, requires


@pytest.mark.parametrize(("name", "code"), SNIPPETS, ids=[name for name, _ in SNIPPETS])
def test_snippet_runs_as_printed(name: str, code: str, tmp_path: Path) -> None:
    needs, requires = _markers(code)
    if needs is not None:
        pytest.skip(f"{name} needs {needs}")
    missing = [m for m in requires if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"{name} requires {', '.join(missing)} (pip install -e '.[dev]')")
    for folder in ("examples", "src"):
        (tmp_path / folder).symlink_to(ROOT / folder)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, f"{name} failed:\n{done.stderr[-3000:]}"
