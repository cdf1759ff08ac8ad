"""Every command output quoted in README.md and docs/ is the real output (issue 18).

Quoted sessions are ```` ```console ```` blocks: ``$ cotaudit ...`` lines, each followed by what
it prints (stdout, then stderr, as a terminal shows them). The test runs each command in a
scratch directory holding ``examples/`` (a link to the repository's) and the files a document
defines in ```` ```text file=NAME ```` blocks, with ``NO_COLOR`` set, and compares the text
exactly. A document that shows output any other way is not checked, so output goes in console
blocks.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```\s*$", re.M | re.S)


class Session(NamedTuple):
    doc: str
    line: int
    command: str
    expected: str
    files: dict[str, str]


def _sessions() -> list[Session]:
    out: list[Session] = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        files: dict[str, str] = {}
        for match in FENCE.finditer(text):
            info, body = match.group(1).strip(), match.group(2)
            named = re.fullmatch(r"\w+ file=(\S+)", info)
            if named:
                files[named.group(1)] = body
            if info != "console":
                continue
            start = text.count("\n", 0, match.start()) + 2
            command, expected, line = None, [], start
            for offset, raw in enumerate(body.splitlines()):
                if raw.startswith("$ "):
                    if command is not None:
                        out.append(Session(doc.name, line, command, "".join(expected), dict(files)))
                    command, expected, line = raw[2:], [], start + offset
                else:
                    expected.append(raw + "\n")
            if command is not None:
                out.append(Session(doc.name, line, command, "".join(expected), dict(files)))
    return out


SESSIONS = _sessions()


def test_the_readme_quotes_real_sessions() -> None:
    readme = [s for s in SESSIONS if s.doc == "README.md"]
    assert len(readme) >= 2
    assert any("TE_E006" in s.expected for s in readme)


@pytest.mark.parametrize("session", SESSIONS, ids=lambda s: f"{s.doc}:{s.line}")
def test_quoted_output_is_real(session: Session, tmp_path: Path) -> None:
    argv = shlex.split(session.command)
    assert argv[0] == "cotaudit", f"{session.doc}:{session.line}: only cotaudit commands are run"
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    for name, body in session.files.items():
        (tmp_path / name).write_text(body, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NO_COLOR": "1", "COLUMNS": "100"}
    env.pop("COTAUDIT_DEBUG", None)
    proc = subprocess.run(
        [sys.executable, "-m", "cotaudit", *argv[1:]],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert proc.stdout + proc.stderr == session.expected, f"{session.doc}:{session.line}: $ {session.command}"
