"""The line model and grammar (TE-1 … TE-17): golden parses of every tag form."""

from __future__ import annotations

import pytest

from cotaudit.te.grammar import (
    AnsBody,
    CheckBody,
    Decl,
    EqBody,
    Kind,
    Malformed,
    classify,
    extract_trace,
    parse_ans,
    parse_check,
    parse_decl,
    parse_resolve,
    split_eq,
    split_lines,
    step_refs,
)


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("a\nb\n", ["a", "b"]),
        ("a\nb", ["a", "b"]),
        ("", [""]),
        ("\n", [""]),
        ("a\r\nb\rc", ["a", "b", "c"]),
        ("\ufeffa\n", ["a"]),
        ("a\vb\x1cc\u2028d\n", ["a\vb\x1cc\u2028d"]),  # only \n splits (TE-1)
    ],
)
def test_split_lines(text: str, lines: list[str]) -> None:
    assert split_lines(text) == lines


def test_classify_kinds_in_order() -> None:
    src = [
        "GIVEN: a := 1",
        "  b := 2",
        "  # c := 3",
        "  just prose",
        "Given that x",
        "GOAL: b",
        "EQ[e1]: c = a + b = 3",
        "EQ[1x]: d = 1",
        "STEP 2: think",
        "  ",
        "ANS: c",
    ]
    kinds = [ln.kind for ln in classify(src, 4000)]
    assert kinds == [
        Kind.HEADER,
        Kind.DECL,
        Kind.UNTAGGED,  # comments are untagged, in the GIVEN block too (TE-2)
        Kind.UNTAGGED,
        Kind.UNTAGGED,  # tags are case-sensitive: capitalised prose is untagged
        Kind.HEADER,
        Kind.BRACKET,
        Kind.BRACKET,  # invalid ID: bracket line with id None (E013)
        Kind.ATTEMPT,
        Kind.BLANK,
        Kind.HEADER,
    ]
    lines = classify(src, 4000)
    assert lines[6].id == "e1" and lines[7].id is None and lines[7].raw_id == "1x"


def test_long_line_keeps_kind_and_id() -> None:
    ln = classify(["EQ[e9]: x = " + "1 + " * 2000 + "1"], 4000)[0]
    assert (ln.kind, ln.id, ln.skipped) == (Kind.BRACKET, "e9", True)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("total := 16", ("total", "expr", "16", None)),
        ("  total = 16", ("total", "expr", "16", None)),
        ("price := 2 [USD]", ("price", "expr", "2", "USD")),
        ("rate := 15%", ("rate", "expr", "15%", None)),
        ("budget := 80,000 [USD]", ("budget", "expr", "80,000", "USD")),
        ("n := param(integer, positive)", ("n", "param", "", None)),
        ("x := param [m]", ("x", "param", "", "m")),
        ('rec := "a(k) = a(k-1) + 3"', ("rec", "doc", '"a(k) = a(k-1) + 3"', None)),
        ("f(x) := 2*x + 1", ("f", "function", "2*x + 1", None)),
    ],
)
def test_declarations(body: str, expected: tuple[str, str, str, str | None]) -> None:
    decl = parse_decl(body, 0)
    assert isinstance(decl, Decl)
    assert (decl.name, decl.kind, decl.value.strip(), decl.unit) == expected


def test_param_assumptions_and_bad_ones() -> None:
    decl = parse_decl("n := param(integer, positive)", 0)
    assert isinstance(decl, Decl) and decl.assumptions == ("integer", "positive")
    assert isinstance(parse_decl("n := param(smallish)", 0), Malformed)
    assert isinstance(parse_decl("x == 3", 0), Malformed)


def test_eq_target_and_relation_forms() -> None:
    eq = split_eq(" total = 16-3-4 = 8", 7)
    assert isinstance(eq, EqBody)
    assert eq.target == "total" and [p.text for p in eq.parts] == ["total", "16-3-4", "8"]
    assert eq.parts[2].col == 25  # 0-based: column 26 of the line (example C)
    rel = split_eq(" 2*x + 3 = 11", 0)
    assert isinstance(rel, EqBody) and rel.target is None
    rebind = split_eq(" x := x + 1 = 6", 0)
    assert isinstance(rebind, EqBody) and rebind.seps == (":=", "=")
    approx = split_eq(" r = 10/3 ≈ 3.33 [m]", 0)
    assert isinstance(approx, EqBody) and approx.seps == ("=", "≈") and approx.unit == "m"
    nested = split_eq(" y = max(a, (b = c))", 0)  # '=' inside parentheses is not a separator
    assert isinstance(nested, EqBody) and [p.text for p in nested.parts] == ["y", "max(a, (b = c))"]


@pytest.mark.parametrize(
    "body", [" x == 3", " x < 3", " a + b", " = 3", " x = ", " a + b := 3", " x = 3 ≈ y", " x = 1 := 2"]
)
def test_malformed_eq_bodies(body: str) -> None:
    assert isinstance(split_eq(body, 0), Malformed)


def test_check_resolve_and_refs() -> None:
    check = parse_check(" arith: e1.value == 9", 10)
    assert isinstance(check, CheckBody) and (check.kind, check.claim) == ("arith", "e1.value == 9")
    assert isinstance(parse_check(" maths: 1 == 1", 0), Malformed)
    res = parse_resolve(" by e2.", 0)
    assert not isinstance(res, Malformed) and res.by == "e2"
    assert isinstance(parse_resolve(" by e2 and e3", 0), Malformed)
    assert [r.name for r in step_refs(" double it (from e1, total)", 0)] == ["e1", "total"]
    assert [r.name for r in step_refs(" the rest comes from total.", 0)] == ["total"]
    assert step_refs(" no clause here", 0) == ()
    assert step_refs(" unbalanced (from a", 0) == ()


def test_answers() -> None:
    ans = parse_ans(" total = 10 [USD]", 4)
    assert isinstance(ans, AnsBody) and (ans.label, ans.expr, ans.unit) == ("total", "10", "USD")
    tup = parse_ans(" 2, 3", 4)
    assert isinstance(tup, AnsBody) and tup.expr == "2, 3"
    approx = parse_ans(" ≈ 33.33", 4)
    assert isinstance(approx, AnsBody) and approx.approx
    assert isinstance(parse_ans(" ≈ x", 4), Malformed)
    assert isinstance(parse_ans("  ", 4), Malformed)


def test_extract_trace_from_a_completion() -> None:
    raw = "Sure.\n```\nGIVEN:\n  a := 1\nGOAL: b\nEQ[e1]: b = a + 1 = 2\nANS: b\n```\nThanks"
    extracted = extract_trace(raw)
    assert extracted.line_offset == 2
    assert extracted.trace == "GIVEN:\n  a := 1\nGOAL: b\nEQ[e1]: b = a + 1 = 2\nANS: b\n"
    assert extract_trace("no trace here").line_offset == 0
