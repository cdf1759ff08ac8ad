"""The pre-commit hook (issue 18): ``pre-commit try-repo`` installs this checkout into a fresh
virtualenv (pip, from the local path; its dependencies come from PyPI or pip's cache) and runs
the ``cotaudit`` hook of ``.pre-commit-hooks.yaml`` on a scratch repository.

Slow (the first run builds the environment, about 20 s with a warm pip cache). Off CI, a machine
without pre-commit skips it with the reason; on CI (``CI`` set) that is a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args], cwd=cwd, check=True,
        capture_output=True,
    )  # fmt: skip


def test_the_hook_file_names_the_trace_types() -> None:
    import yaml

    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hook["id"] == "cotaudit" and hook["entry"].startswith("cotaudit check")
    assert hook["language"] == "python"
    import re

    pattern = re.compile(hook["files"])
    for name in ("a.te", "dir/b.t6", "c.vcot.json", "d.kb"):
        assert pattern.search(name), name
    for name in ("a.json", "notes.md", "b.tex", "c.kbd"):
        assert not pattern.search(name), name


def test_pre_commit_try_repo(tmp_path: Path) -> None:
    exe = shutil.which("pre-commit")
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("pre-commit is not installed (pip install -e '.[dev]')")
        pytest.skip("pre-commit is not installed (pip install -e '.[dev]')")
    repo = tmp_path / "scratch"
    repo.mkdir()
    _git(repo, "init", "-q")
    shutil.copy(ROOT / "examples/te/C_arithmetic_slip.te", repo / "bad.te")
    shutil.copy(ROOT / "examples/te/A_janet.te", repo / "good.te")
    (repo / "notes.md").write_text("not a trace\n", encoding="utf-8")
    _git(repo, "add", "-A")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pc-home")}
    env.pop("PYTHONPATH", None)  # the hook must run the installed copy, not this process's path
    env.pop("COTAUDIT_DEBUG", None)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [exe, "try-repo", str(ROOT), "cotaudit", *args],
            cwd=repo, env=env, capture_output=True, text=True, timeout=1200, check=False,
        )  # fmt: skip

    failing = run("--all-files")
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "bad.te:5:26: TE_E006" in failing.stdout
    assert "notes.md" not in failing.stdout  # only trace files reach the hook
    passing = run("--files", "good.te")  # the near miss: a clean trace
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "Passed" in passing.stdout
