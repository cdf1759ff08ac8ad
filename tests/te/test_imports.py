"""Lazy imports (TE-26, TE-58, TE-61): rational traces never import SymPy; units never import pint."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GSM8K = ROOT.parent / "shared" / "data" / "gsm8k" / "test.jsonl"


def _modules_after(code: str) -> set[str]:
    probe = code + "\nimport sys\nprint(' '.join(m for m in ('sympy', 'pint') if m in sys.modules))\n"
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr
    return set(proc.stdout.split())


def test_importing_cotaudit_and_te_imports_neither() -> None:
    assert _modules_after("import cotaudit, cotaudit.te, cotaudit.cli") == set()


def test_count_noun_trace_imports_neither() -> None:
    code = (
        "from cotaudit import te\n"
        "r = te.lint('GIVEN:\\n  eggs := 16 [eggs]\\nGOAL: left [eggs]\\n"
        "EQ[e1]: left = eggs - 3 = 13 [egg]\\nANS: left [eggs]\\n')\n"
        "assert r.verdict == 'CLEAN', r.at()\n"
    )
    assert _modules_after(code) == set()


def test_physical_units_import_neither() -> None:
    # Their factors come from the table generated from pint (issue 18), not from pint.
    code = (
        "from cotaudit import te\n"
        "r = te.lint('GIVEN:\\n  d := 12 [km]\\nGOAL: m [m]\\nEQ[e1]: m = d * 1000 = 12000 [m]\\nANS: m [m]\\n')\n"
    )
    assert _modules_after(code) == set()


@pytest.mark.skipif(not GSM8K.exists(), reason=f"GSM8K test split not found at {GSM8K}")
def test_every_converted_gsm8k_trace_lints_without_sympy() -> None:
    code = (
        "from cotaudit import te\n"
        "from cotaudit.te.corpus.gsm8k import convert_jsonl\n"
        f"traces = [c.trace for _, c in convert_jsonl({str(GSM8K)!r}) if c.trace]\n"
        "assert len(traces) >= 1250\n"
        "assert all(te.lint(t).verdict == 'CLEAN' for t in traces)\n"
    )
    assert "sympy" not in _modules_after(code)
