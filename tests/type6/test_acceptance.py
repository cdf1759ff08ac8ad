"""Independent acceptance corpus for ``cotaudit.type6`` (expectations written from type6.md only).

Each ``tests/type6/acceptance/*.t6`` was written, with its expected outcome in ``expected.json``,
before the engine existed: status, hard-fail, and the exact events as ``CODE@stmt/prop`` in
canonical order (Y-56), plus optional scores ``[graded, strict, proportional]`` (``null``: not
pinned), trace id and event lines. Invalid traces list their diagnostics as ``CODE@line``
(``CODE`` alone: line not pinned).

Cases where the engine disagrees with the corpus go in ``KNOWN_DISAGREEMENTS`` as
``xfail(strict=True)`` with a one-line reason, so the disagreement stays visible.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cotaudit import type6

CORPUS = Path(__file__).resolve().parent / "acceptance"
MANIFEST: dict[str, dict[str, Any]] = json.loads((CORPUS / "expected.json").read_text(encoding="utf-8"))

KNOWN_DISAGREEMENTS: dict[str, str] = {}


def _params() -> list[Any]:
    out = []
    for name in sorted(MANIFEST):
        marks = []
        if name in KNOWN_DISAGREEMENTS:
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_DISAGREEMENTS[name]))
        out.append(pytest.param(name, marks=marks, id=name.removesuffix(".t6")))
    return out


def test_manifest_matches_files() -> None:
    assert {p.name for p in CORPUS.glob("*.t6")} == set(MANIFEST)


def _diagnostics(result: type6.Type6Result) -> list[str]:
    return [f"{d['code']}@{d['line'] if d['line'] is not None else '-'}" for d in result.diagnostics]


@pytest.mark.parametrize("name", _params())
def test_acceptance_case(name: str) -> None:
    entry = MANIFEST[name]
    text = (CORPUS / name).read_bytes().decode("utf-8")
    trace = type6.parse_any(text, name.removesuffix(".t6"))
    result = type6.verify(trace)
    why = f"{name}: {entry['why']} [{entry['clause']}]"
    assert result.status == entry["status"], why
    assert result.hard_fail == entry["hard_fail"], why
    if entry["status"] == "invalid":
        got = _diagnostics(result)
        expected = entry["diagnostics"]
        assert len(got) == len(expected), f"{why}\n got {got}"
        for g, e in zip(got, expected, strict=True):
            assert g == e if "@" in e else g.split("@")[0] == e, f"{why}\n got {got}"
        assert result.events == []
        return
    assert result.at() == entry["events"], f"{why}\n got {result.at()}"
    if "scores" in entry:
        got_scores = [result.scores[k] for k in ("graded", "strict", "proportional")]  # type: ignore[index]
        for g, e in zip(got_scores, entry["scores"], strict=True):
            if e is not None:
                assert g == pytest.approx(e), f"{why}\n got scores {got_scores}"
    if "trace_id" in entry:
        assert result.trace_id == entry["trace_id"], why
    for key, line in entry.get("lines", {}).items():
        index = result.at().index(key)
        assert result.events[index]["line"] == line, why
