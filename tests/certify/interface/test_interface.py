"""C-10 … C-14: interface files, validation problems with codes, type checks, Proposition 1."""

from __future__ import annotations

import pytest

from cotaudit.certify.core.errors import InterfaceError
from cotaudit.certify.interface import load as interface_load
from cotaudit.certify.interface.load import load_interface
from cotaudit.certify.lang.parse import parse_literal, parse_unit

from ..legal import DATA, interface


def test_the_spec_example_loads_and_hashes_stably() -> None:
    a = interface()
    b = load_interface((DATA / "legal_prelim.interface.yaml").read_text(encoding="utf-8"))
    assert a.sha256 == b.sha256 and len(a.sha256) == 64
    assert a.whitelist == {
        "subscription_order_or_booking_form",
        "agrees_future_conclusion",
        "determinable_parties_and_subject",
        "refuses_to_conclude_main_contract",
    }
    import json

    assert load_interface(json.dumps(a.to_json())).sha256 == a.sha256


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        ('{"format": "x"}', ["BAD_FORMAT"]),
        (
            '{"format": "cotaudit.certify.interface/1", "predicates": {"p": {"args": ["nope"]}}}',
            ["UNKNOWN_ROLE"],
        ),
        ('{"format": "cotaudit.certify.interface/1", "source_whitelist": ["p"]}', ["WHITELIST_NOT_IN_SIGMA"]),
        (
            '{"format": "cotaudit.certify.interface/1", "query_predicates": ["q"]}',
            ["QUERY_PREDICATE_UNKNOWN"],
        ),
        (
            '{"format": "cotaudit.certify.interface/1", "roles": {"r": {"type": "symbol", "pattern": "^p"}}, "legend": {"x1": {"role": "r", "label": "X"}}}',
            ["LEGEND_TYPE_MISMATCH"],
        ),
        (
            '{"format": "cotaudit.certify.interface/1", "roles": {"r": {"type": "symbol"}}, "legend": {"a": {"role": "r", "label": "A"}, "b": {"role": "r", "label": "A"}}}',
            ["LEGEND_NOT_INJECTIVE"],
        ),
        (
            '{"format": "cotaudit.certify.interface/1", "roles": {"r": {"type": "symbol", "pattern": "("}}}',
            ["BAD_ROLE"],
        ),
        (
            "format: cotaudit.certify.interface/1\npredicates:\n  p: {args: []}\n  p: {args: []}\n",
            ["DUPLICATE_PREDICATE"],
        ),
        (
            '{"format": "cotaudit.certify.interface/1", "predicates": {"p": {"args": ["nope"]}}, "source_whitelist": ["z"]}',
            ["UNKNOWN_ROLE", "WHITELIST_NOT_IN_SIGMA"],
        ),
    ],
)
def test_every_problem_is_listed_with_its_code(text: str, codes: list[str]) -> None:
    with pytest.raises(InterfaceError) as err:
        load_interface(text)
    assert [p.code for p in err.value.problems] == codes


def test_role_types() -> None:
    iface = load_interface(
        '{"format": "cotaudit.certify.interface/1", "roles": {"i": {"type": "integer", "min": 0, "max": 9}, '
        '"d": {"type": "decimal", "places": 1}, "s": {"type": "string", "max_len": 3}, "b": {"type": "boolean"}, '
        '"e": {"type": "symbol", "enum": ["red", "blue"]}}, "predicates": {"p": {"args": ["i", "d", "s", "b", "e"]}}}'
    )
    assert iface.check_literal(parse_literal('p(3, 1.5, "abc", true, red)')) is None
    for bad in (
        'p(3.5, 1.5, "abc", true, red)',
        'p(10, 1.5, "abc", true, red)',
        'p(3, 1.25, "abc", true, red)',
        'p(3, 1.5, "abcd", true, red)',
        'p(3, 1.5, "abc", yes, red)',
        'p(3, 1.5, "abc", true, green)',
        "p(3, 1.5, abc, true, red)",
    ):
        issue = iface.check_literal(parse_literal(bad))
        assert issue is not None and issue.reason == "ROLE_MISMATCH", bad


def test_type_check_reasons_and_skolems() -> None:
    i = interface()
    assert i.type_check(parse_unit("foo(a).")).reason == "UNKNOWN_PREDICATE"  # type: ignore[union-attr]
    assert i.type_check(parse_unit("agrees_future_conclusion(x1, x2).")).reason == "ARITY_MISMATCH"  # type: ignore[union-attr]
    assert i.type_check(parse_unit("refuses_to_conclude_main_contract(x1, x1).")).reason == "ROLE_MISMATCH"  # type: ignore[union-attr]
    assert i.type_check(parse_unit("-agrees_future_conclusion(x1).")).reason == "NEGATION_NOT_ENABLED"  # type: ignore[union-attr]
    assert (
        i.type_check(
            parse_unit("is_preliminary_contract(X) :- agrees_future_conclusion(X), not x(X).")
        ).reason
        == "NEGATION_NOT_ENABLED"
    )  # type: ignore[union-attr]
    assert (
        i.check_literal(parse_literal("refuses_to_conclude_main_contract(#sk0, #sk1)", skolem=True)) is None
    )


def test_missing_pyyaml_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    from cotaudit.errors import MissingDependency

    real = builtins.__import__

    def fake(name: str, *args: object, **kwargs: object) -> object:
        if name == "yaml":
            raise ModuleNotFoundError("No module named 'yaml'", name="yaml")
        return real(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(MissingDependency, match="PyYAML"):
        load_interface("format: x\n")


def test_oversized_yaml_interface_is_refused_before_parsing() -> None:
    """A YAML interface is parsed by pure-Python PyYAML: a hostile 3 MiB one would hold the
    process for seconds, so it is refused at once with a pointer to JSON."""
    import time

    text = '"signed": {"args": ["party"]}\n' * 100_000
    start = time.monotonic()
    with pytest.raises(InterfaceError) as info:
        load_interface(text)
    assert time.monotonic() - start < 5.0
    assert [p.code for p in info.value.problems] == ["BAD_FORMAT"]
    assert "JSON" in info.value.problems[0].message


def test_yaml_interface_under_the_cap_still_loads() -> None:
    text = (DATA / "legal_prelim.interface.yaml").read_text(encoding="utf-8")
    assert len(text.encode()) < interface_load.MAX_YAML_BYTES
    assert load_interface(text + "\n# " + "x" * 1000 + "\n") == load_interface(text)
