"""ParseLine, NOT folding, the ? suffix, metadata, limits and the JSON forms (§1, Y-1..Y-14)."""

from __future__ import annotations

import json

import pytest

from cotaudit import type6
from cotaudit.type6.fold import fold
from cotaudit.type6.model import Diagnostic, Statement
from cotaudit.type6.parse import Limits, parse_line

LIMITS = Limits()


def line(text: str) -> Statement:
    parsed = parse_line(text, 1, LIMITS)
    assert isinstance(parsed, Statement), parsed
    return parsed


def error(text: str) -> str:
    parsed = parse_line(text, 1, LIMITS)
    assert isinstance(parsed, Diagnostic), parsed
    return parsed.code


@pytest.mark.parametrize(
    ("text", "ops", "prop", "body"),
    [
        (
            "T  K NOT p1 : Actually, memories could be planted.",
            ("K", "NOT"),
            "p1",
            "Actually, memories could be planted.",
        ),
        ("T p1 : time is 10:30", (), "p1", "time is 10:30"),
        ("T : Hmm.", (), None, "Hmm."),
        ("Uk N :", ("N",), None, ""),
        ("T p1? : x", ("?",), "p1", "x"),
        ("T K p1?? : x", ("K", "?"), "p1", "x"),
        ("T ?? : x", ("?",), None, "x"),
        ("T K? : x", ("K", "?"), None, "x"),
        ("T MAYBE K : x", ("MAYBE", "K"), None, "x"),
        ("T a_1 : x", (), "a_1", "x"),
        ("T NOT : x", ("NOT",), None, "x"),
    ],
)
def test_parse_line(text: str, ops: tuple[str, ...], prop: str | None, body: str) -> None:
    s = line(text)
    assert (s.ops, s.prop, s.text) == (ops, prop, body)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("X p1 : x", "T6_E01"),
        (": x", "T6_E01"),
        ("t p1 : x", "T6_E01"),
        ("T p1 x", "T6_E02"),
        ("T 1x : x", "T6_E03"),
        ("T K p-1 : x", "T6_E03"),
        ("T K é : x", "T6_E03"),
        ("T K _p : x", "T6_E03"),
        ("T " + "K " * 33 + "p : x", "T6_E05"),
    ],
)
def test_parse_line_errors(text: str, code: str) -> None:
    assert error(text) == code


def test_aliases_normalised() -> None:
    assert line("U_c p : x").alpha == "Uc" and line("U_k p : x").alpha == "Uk"


@pytest.mark.parametrize(
    ("text", "labels", "negated", "connective", "cneg"),
    [
        ("T K NOT p : x", ["NOT K"], True, None, False),
        ("T NOT K p : x", ["NOT K"], True, None, False),
        ("T NOT NOT K p : x", ["K"], False, None, False),
        ("T AND NOT p : x", ["NOT AND"], True, "AND", True),
        ("T NOT AND p : x", ["NOT AND"], True, "AND", True),
        ("T NOT AND NOT p : x", ["AND"], False, "AND", False),
        ("T AND K NOT p : x", ["AND", "NOT K"], True, "AND", False),
        ("T NOT p : x", [], True, None, False),
        ("T NOT MAYBE p : x", ["MAYBE"], True, None, False),
        ("T K AND p : x", ["K", "AND"], False, None, False),
        ("T R THEN p : x", ["R", "THEN"], False, None, False),
        ("T THEN R p : x", ["THEN", "R"], False, "THEN", False),
        ("T B K ? p : x", ["B", "K", "?"], False, None, False),
    ],
)
def test_fold(text: str, labels: list[str], negated: bool, connective: str | None, cneg: bool) -> None:
    f = fold(line(text), 1)
    assert [item.label for item in f.items] == labels
    assert (f.negated, f.connective, f.connective_negated) == (negated, connective, cneg)
    assert f.value == ("F" if negated else "T")


def test_misplaced_connectives_are_unknown() -> None:
    f = fold(line("T K AND OR p : x"), 1)
    assert [(i.token, i.reason) for i in f.unknown] == [
        ("AND", "misplaced-connective"),
        ("OR", "misplaced-connective"),
    ]
    f = fold(line("T AND THEN p : x"), 1)
    assert f.connective == "AND" and [i.token for i in f.unknown] == ["THEN"]


def test_value_ops_ignore_connectives_and_inert() -> None:
    f = fold(line("T AND R N K ? p : x"), 1)
    assert f.value_ops == ("K", "?") and f.has_r and f.connective == "AND"


def test_metadata_comments_and_lines() -> None:
    text = "\ufeff#@ id: t1\r\n#@ origin: test: yes\r\n# c\r\n\r\nT q : Q\r\n#@ late: no\r\nT THEN a : A\r\n"
    trace = type6.parse_t6(text, "stem")
    assert trace.id == "t1" and dict(trace.meta) == {"origin": "test: yes"}
    assert [s.line for s in trace.statements] == [5, 7]
    assert type6.parse_t6("T q : Q\nT THEN a : A", "stem").id == "stem"


def test_all_errors_reported_and_sorted() -> None:
    trace = type6.parse_t6("T q : Q\nX p : x\nT p\nT 9 : x\n")
    assert [(d.code, d.line) for d in trace.diagnostics] == [("T6_E01", 2), ("T6_E02", 3), ("T6_E03", 4)]


def test_empty_and_sinkless() -> None:
    assert [d.code for d in type6.parse_t6("").diagnostics] == ["T6_E04"]
    assert [d.code for d in type6.parse_t6("# x\n\n").diagnostics] == ["T6_E04"]
    assert [d.code for d in type6.parse_t6("T q : Q\nT K : x").diagnostics] == ["T6_E04"]
    assert type6.parse_t6("T q : Q\nT p : x").diagnostics == ()


def test_limits() -> None:
    small = Limits(max_input_bytes=100, max_statements=3, max_ops=2, max_line_chars=20)
    assert [d.code for d in type6.parse_t6("T p : " + "x" * 200, limits=small).diagnostics] == ["T6_E05"]
    many = "T p : x\n" * 5
    assert [(d.code, d.line) for d in type6.parse_t6(many, limits=small).diagnostics] == [("T6_E05", 4)]
    long_line = "T q : Q\nT p : " + "y" * 30 + "\nT THEN a : A"
    assert [(d.code, d.line) for d in type6.parse_t6(long_line, limits=small).diagnostics] == [("T6_E05", 2)]
    assert [d.code for d in type6.parse_t6("T K K K p : x", limits=small).diagnostics] == ["T6_E05"]


def test_non_str_input_never_raises() -> None:
    assert type6.parse_t6(123).diagnostics  # type: ignore[arg-type]


# --------------------------------------------------------------------------- JSON / JSONL (Y-11, Y-12)

CANONICAL = {
    "id": "memories",
    "meta": {},
    "statements": [
        {"alpha": "T", "ops": ["K"], "prop": "p1", "text": "I know memories are reliable ..."},
        {"alpha": "T", "ops": ["K", "NOT"], "prop": "p1", "text": "Actually, memories could be planted."},
        {"alpha": "Uk", "ops": [], "prop": "p2", "text": "If memories were planted, ..."},
        {"alpha": "F", "ops": ["THEN"], "prop": "a", "text": "So the world was created ..."},
    ],
}


def test_canonical_json_example() -> None:
    trace = type6.parse_json(CANONICAL)
    assert trace.valid and trace.id == "memories"
    assert type6.verify(trace).at() == ["T6_H01@2/p1", "T6_Q04@4/a", "T6_W02@-/p1", "T6_R02@3/p2"]
    assert type6.parse_json(json.dumps(CANONICAL)) == trace
    assert type6.parse_t6(trace.to_t6()) == trace
    assert type6.parse_json(trace.to_json()) == trace


def test_json_defaults_line_strings_and_lines() -> None:
    trace = type6.parse_json(
        {"statements": ["T q : Q", {"alpha": "T", "prop": "a", "ops": ["THEN"], "line": 9}]}, "x"
    )
    assert trace.id == "x" and trace.statements[1].line == 9 and trace.statements[0].text == "Q"


@pytest.mark.parametrize(
    ("obj", "code"),
    [
        ({"statements": [{"ops": ["K"], "prop": "p1"}]}, "T6_E06"),
        ({"statements": [{"alpha": "X", "prop": "p1"}]}, "T6_E01"),
        ({"statements": [{"alpha": "T", "prop": "p1?"}]}, "T6_E03"),
        ({"statements": [{"alpha": "T", "prop": "K"}]}, "T6_E03"),
        ({"statements": [{"alpha": "T", "ops": ["K K"], "prop": "p"}]}, "T6_E06"),
        ({"statements": [{"alpha": "T", "ops": ["MAYBE"], "prop": None}]}, "T6_E06"),
        ({"statements": [{"alpha": "T", "prop": "p", "extra": 1}]}, "T6_E06"),
        ({"statements": [{"alpha": "T", "prop": "p", "text": 3}]}, "T6_E06"),
        ({"statements": [{"alpha": "T", "prop": "p", "line": "3"}]}, "T6_E06"),
        ({"statements": "T q : Q"}, "T6_E06"),
        ({"statements": [], "meta": {"k": 1}}, "T6_E06"),
        ({"statements": [], "bogus": 1}, "T6_E06"),
        ({"statements": []}, "T6_E04"),
        ({"statements": [3]}, "T6_E06"),
        ({"statements": ["T q : Q\nT a : A"]}, "T6_E06"),
    ],
)
def test_json_schema_errors(obj: dict[str, object], code: str) -> None:
    trace = type6.parse_json(obj)
    assert code in [d.code for d in trace.diagnostics]


def test_json_text_errors() -> None:
    assert [d.code for d in type6.parse_json("{").diagnostics] == ["T6_E06"]
    assert [d.code for d in type6.parse_json("[" * 100_000).diagnostics] == ["T6_E06"]
    assert [d.code for d in type6.parse_json("[]").diagnostics] == ["T6_E06"]


def test_jsonl() -> None:
    one = json.dumps({"id": "t1", "statements": ["T q : Q", "T THEN a : A"]})
    traces = type6.parse_jsonl(f"{one}\n\nnot json\n{one}\n")
    assert [t.id for t in traces] == ["t1", "trace-3", "t1"]
    assert [d.code for d in traces[1].diagnostics] == ["T6_E06"] and traces[1].diagnostics[0].line == 3


def test_parse_any_detection() -> None:
    one = json.dumps({"statements": ["T q : Q", "T THEN a : A"]})
    assert type6.parse_any(one, "x").id == "x" and type6.parse_any(one, "x").valid
    assert type6.parse_any(one + "\n", "x").valid
    two = type6.parse_any(f"{one}\n{one}\n", "x")
    assert [d.code for d in two.diagnostics] == ["T6_E06"]
    assert type6.parse_any("T q : Q\nT THEN a : A", "x").valid
