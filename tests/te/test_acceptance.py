"""Independent acceptance corpus for ``cotaudit.te`` (expectations written from docs/spec te.md only).

Each ``tests/te/acceptance/*.te`` file is linted with the config given in ``expected.json`` and
``symbolic="inprocess"``. The test asserts the exact ``.at()`` list (CODE@LINE, in the linter's sorted order,
TE-42), the verdict (TE-43), and any pinned columns or evidence fields. Files are read as raw bytes and
decoded as UTF-8 without newline translation or BOM stripping, so the TE-1 line-model cases reach ``lint()``
exactly as written.

Cases the linter currently gets wrong are marked ``xfail(strict=True)`` in ``KNOWN_LINTER_BUGS`` with a
one-line reason, so the suite stays green while the bug stays visible (and an accidental fix is reported).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cotaudit import te

CORPUS = Path(__file__).resolve().parent / "acceptance"
MANIFEST: dict[str, dict[str, Any]] = json.loads((CORPUS / "expected.json").read_text(encoding="utf-8"))

# file name -> one-line reason (linter disagrees with the spec; see the clause in expected.json)
KNOWN_LINTER_BUGS: dict[str, str] = {}


def _params() -> list[Any]:
    out = []
    for name in sorted(MANIFEST):
        marks = []
        if name in KNOWN_LINTER_BUGS:
            marks.append(pytest.mark.xfail(strict=True, reason=f"linter bug: {KNOWN_LINTER_BUGS[name]}"))
        out.append(pytest.param(name, marks=marks, id=name.removesuffix(".te")))
    return out


def _config(spec: dict[str, Any]) -> Any:
    kwargs: dict[str, Any] = {"symbolic": "inprocess"}
    if spec.get("strict"):
        kwargs["strict"] = True
    if spec.get("disabled_rules"):
        kwargs["disabled_rules"] = frozenset(spec["disabled_rules"])
    return te.LintConfig(**kwargs)


def _find(result: Any, key: str) -> Any:
    code, line = key.split("@")
    for diag in result.diagnostics:
        if diag.code == code and diag.line == int(line):
            return diag
    raise AssertionError(f"no diagnostic {key} in {result.at()}")


def _as_dict(evidence: Any) -> dict[str, Any]:
    """Evidence may be a mapping or (for hashability) a tuple of (key, value) pairs."""
    if evidence is None:
        return {}
    if hasattr(evidence, "items"):
        return dict(evidence.items())
    return dict(evidence)


def test_manifest_matches_files() -> None:
    files = {p.name for p in CORPUS.glob("*.te")}
    assert files == set(MANIFEST)


@pytest.mark.parametrize("name", _params())
def test_acceptance_case(name: str) -> None:
    entry = MANIFEST[name]
    text = (CORPUS / name).read_bytes().decode("utf-8")
    result = te.lint(text, _config(entry.get("config", {})))
    got = list(result.at())
    assert got == entry["expect"], f"{name}: {entry['why']} [{entry['clause']}]\n got {got}"
    assert result.verdict == entry["verdict"]
    for key, column in entry.get("columns", {}).items():
        assert _find(result, key).column == column, f"{name}: column of {key}"
    for key, fields in entry.get("evidence", {}).items():
        evidence = _as_dict(_find(result, key).evidence)
        for field, want in fields.items():
            assert field in evidence, f"{name}: {key} evidence lacks {field!r}: {evidence}"
            assert str(evidence[field]) == str(want), f"{name}: {key} evidence {field}={evidence[field]!r}"
