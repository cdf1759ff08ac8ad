"""Every versioned prompt file parses and renders with exactly its fields."""

from __future__ import annotations

import pytest

from cotaudit.llm.prompts import PromptError, available, load_prompt

EXPECTED = {
    "reask": {"error"},
    "te_emit": {"problem"},
    "np_verify": {"numbered"},
    "te_judge": {"numbered"},
    "type6_split": {"numbered"},
    "type6_same": {"pairs"},
    "type6_annotate": {"statements"},
    "type6_label": {"context", "statement"},
    "type6_verify": {"problems", "annotation"},
    "type6_judge": {"trace"},
    "certify_cnli_ground": {"hypothesis", "clauses"},
    "certify_cnli_recheck": {"check"},
}


def test_every_prompt_is_known_with_its_fields() -> None:
    assert set(available()) == set(EXPECTED)
    for name, fields in EXPECTED.items():
        prompt = load_prompt(name)
        assert prompt.fields() == fields
        assert prompt.id == f"{name}@v{prompt.version}"
        messages = prompt.render(**{f: f"<{f}>" for f in fields})
        assert messages and all(m.content for m in messages)
        assert all(f"<{f}>" in "".join(m.content for m in messages) for f in fields)


def test_te_emit_is_five_shot() -> None:
    messages = load_prompt("te_emit").render(problem="p")
    roles = [m.role for m in messages]
    assert roles == ["system"] + ["user", "assistant"] * 5 + ["user"]


@pytest.mark.parametrize("version", available()["te_emit"])
def test_the_five_shots_are_clean_te(version: int) -> None:
    from cotaudit import te

    messages = load_prompt("te_emit", version).render(problem="p")
    assert [m.role for m in messages] == ["system"] + ["user", "assistant"] * 5 + ["user"]
    shots = [m.content for m in messages if m.role == "assistant"]
    assert [te.lint(s).verdict for s in shots] == ["CLEAN"] * 5
    assert all(not te.lint(s).diagnostics for s in shots)


def test_te_emit_v2_teaches_rebinding_rounding_and_base_numerals() -> None:
    """Issue 19, 6 (a): the syntax the linter added for the paper's false-positive causes is in
    the rules and in a worked example each; v1 stays loadable for its recordings."""
    import re

    prompt = load_prompt("te_emit")
    assert prompt.id == "te_emit@v2" and load_prompt("te_emit", 1).id == "te_emit@v1"
    messages = prompt.render(problem="p")
    rules = messages[0].content
    shots = "\n".join(m.content for m in messages if m.role == "assistant")
    for pattern in (r"EQ\[\w+\]: \w+ := ", r"≈ [0-9.]+", r"\b[0-9]+_[0-9]+\b"):
        assert re.search(pattern, rules) and re.search(pattern, shots), pattern


def test_missing_unknown_and_bad_versions_are_errors() -> None:
    with pytest.raises(PromptError):
        load_prompt("te_emit").render()
    with pytest.raises(PromptError):
        load_prompt("te_emit").render(problem="p", extra="x")
    with pytest.raises(PromptError):
        load_prompt("no_such_prompt")
    with pytest.raises(PromptError):
        load_prompt("te_emit", 99)


def test_values_are_inserted_verbatim() -> None:
    messages = load_prompt("reask").render(error="cost is $5 {{x}}")
    assert "cost is $5 {{x}}" in messages[0].content
