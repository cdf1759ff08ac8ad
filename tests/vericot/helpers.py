"""Shared helpers for the vericot tests: the data-skip marker and small trace builders."""

from __future__ import annotations

from typing import Any

import pytest

from cotaudit.vericot.datasets import data_root


def have_data(name: str) -> bool:
    return (data_root() / "logic" / name).is_dir()


def needs_data(name: str) -> pytest.MarkDecorator:
    """Skip, with the reason, when ../shared/data/logic/<name> is absent."""
    return pytest.mark.skipif(
        not have_data(name), reason=f"data folder {data_root() / 'logic' / name} is absent"
    )


BOOL_VOCAB = "(declare-const a Bool) (declare-const b Bool) (declare-const c Bool)"


def trace(
    steps: list[tuple[str, str | None]],
    *,
    vocab: str = BOOL_VOCAB,
    premises: list[dict[str, Any]] | None = None,
    step_premises: dict[str, list[dict[str, Any]]] | None = None,
    question: str = "a holds. b holds.",
    semantics: str = "classical",
) -> dict[str, Any]:
    """A pre-formalised trace: ``steps`` are (smt, negation_smt) pairs, ids s1..sn."""
    forms = []
    for i, (smt, neg) in enumerate(steps, start=1):
        f: dict[str, Any] = {"step_id": f"s{i}", "smt": smt}
        if neg is not None:
            f["negation_smt"] = neg
        if step_premises and f"s{i}" in step_premises:
            f["premises"] = step_premises[f"s{i}"]
        forms.append(f)
    return {
        "id": "t",
        "context": {"question": question},
        "steps": [{"id": f"s{i}", "text": f"step {i}"} for i in range(1, len(steps) + 1)],
        "formalization": {
            "semantics": semantics,
            "vocabulary": vocab,
            "premises": premises or [],
            "steps": forms,
        },
    }


def prem(
    pid: str,
    smt: str,
    *,
    use: str = "given",
    source: str = "context",
    text: str | None = None,
    evidence: str | None = None,
) -> dict[str, Any]:
    d: dict[str, Any] = {"id": pid, "text": text or f"{pid} holds.", "source": source, "smt": smt, "use": use}
    if evidence is None and text is None and source == "context":
        evidence = "a holds"  # occurs in the default context, so the evidence pre-check passes
    if evidence is not None:
        d["evidence"] = evidence
    return d
