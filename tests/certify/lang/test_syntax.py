"""C-1 … C-5: terms, units, the lark grammar, safety, limits, the JSON form and keys."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cotaudit.certify.core.errors import ProgramError
from cotaudit.certify.lang.grammar import Limits
from cotaudit.certify.lang.jsonform import program_from_json, program_to_json, unit_from_json, unit_to_json
from cotaudit.certify.lang.parse import parse_literal, parse_program, parse_query, parse_unit
from cotaudit.certify.lang.syntax import Const, Fact, Rule, canonical_number, normal_form, program_text


@pytest.mark.parametrize(
    ("raw", "canon"),
    [
        ("1.50", "1.5"),
        ("2.0", "2"),
        ("-0", "0"),
        ("-0.000", "0"),
        ("10", "10"),
        ("-3.25", "-3.25"),
        ("0.10", "0.1"),
    ],
)
def test_canonical_numbers(raw: str, canon: str) -> None:
    assert canonical_number(raw) == canon
    assert parse_literal(f"p({raw})").args[0] == Const("num", canon)


def test_number_and_string_are_different_constants() -> None:
    a, b = parse_literal('p(2, "2")').args
    assert a != b and a.text() == "2" and b.text() == '"2"'


def test_key_vector_of_c5() -> None:
    k1 = parse_unit("h(A) :- c(B), b(A, B).").key
    k2 = parse_unit("h(X) :- b(X, Y), c(Y).").key
    assert k1 == k2 == "r:h(V0):-b(V0,V1),c(V1)"


def test_keys_drop_duplicates_and_ignore_labels() -> None:
    assert parse_unit("[a] h(X) :- p(X), p(X).").key == parse_unit("[b] h(Y) :- p(Y).").key
    assert parse_unit("f(a).").key == "f:f(a)"
    assert parse_unit("-kind(cat).").key == "f:-kind(cat)"


def test_default_label_is_key_hash() -> None:
    u = parse_unit("p(a).")
    assert u.label.startswith("u") and len(u.label) == 13


def test_legal_example_parses_with_label() -> None:
    u = parse_unit(
        "[art495] may_claim_preliminary_breach_liability(P, X) :- is_preliminary_contract(X), fails_conclusion_duty(P, X)."
    )
    assert isinstance(u, Rule) and u.label == "art495" and len(u.body) == 2


@pytest.mark.parametrize(
    ("text", "reason", "line", "col"),
    [
        ("p(X).", "UNSAFE_RULE", 1, 1),
        ("h(X) :- q(Y).", "UNSAFE_RULE", 1, 1),
        ("h(_) :- q(X).", "UNSAFE_RULE", 1, 1),
        ("h(X) :- q(X), not r(Y).", "UNSAFE_RULE", 1, 1),
        ("b(C, V) :- w(C, W) {V = bmi@1(W, H)}.", "UNSAFE_RULE", 1, 1),
        ("b(C, W) :- w(C, W) {W = bmi@1(W, W)}.", "UNSAFE_RULE", 1, 1),
        ("p(a", "PARSE_ERROR", 1, 3),
        ("\n\n  p(a) q(b).", "PARSE_ERROR", 3, 8),
        ("not(a).", "PARSE_ERROR", 1, 1),
        ("p(01).", "PARSE_ERROR", 1, 3),
        ("p(#sk0).", "PARSE_ERROR", 1, 3),
        ("[a] p. [a] q.", "DUPLICATE_LABEL", 1, 8),
    ],
)
def test_errors_have_reason_and_position(text: str, reason: str, line: int, col: int) -> None:
    with pytest.raises(ProgramError) as err:
        parse_program(text)
    assert (err.value.reason, err.value.line, err.value.col) == (reason, line, col)


def test_unsafe_detail_names_the_variable() -> None:
    with pytest.raises(ProgramError) as err:
        parse_unit("[u1] may_claim(P, X) :- is_preliminary_contract(X).")
    assert err.value.detail["variables"] == ["P"] and err.value.label == "u1"


def test_near_misses_are_safe() -> None:
    parse_program("h(X) :- q(X), not r(X).\nb(C, V) :- w(C, W), h(C, H) {V = bmi@1(W, H)}.\np(a).")


@pytest.mark.parametrize(
    ("text", "limits"),
    [
        ("p(a).", Limits(max_bytes=3)),
        ("p(a, b).", Limits(max_args=1)),
        ("h(X) :- a(X), b(X).", Limits(max_body=1)),
        ("abc(a).", Limits(max_ident=2)),
        ("p. q.", Limits(max_units=1)),
    ],
)
def test_limits_are_enforced(text: str, limits: Limits) -> None:
    with pytest.raises(ProgramError) as err:
        parse_program(text, limits)
    assert err.value.reason == "PARSE_ERROR" and "limit" in err.value.detail


def test_query_syntax() -> None:
    q = parse_query("[q1] ?- may(p1, x1) => yes.")
    assert (q.label, q.goal.text(), q.expect) == ("q1", "may(p1,x1)", "yes")
    assert parse_query("?- v(c1, V).").expect is None


def test_json_form_matches_the_spec_shape() -> None:
    u = parse_unit("[calc:bmi] bmi(C, V) :- weight(C, W), height(C, H) {V = bmi@1(W, H)}.")
    d = unit_to_json(u)
    assert d["calc"] == {"out": "V", "fn": "bmi", "version": "1", "in": ["W", "H"]}
    assert d["head"]["args"][0] == {"v": "C"}
    assert unit_from_json(d) == u
    prog = program_to_json([parse_unit('p(1.5, "s", x).')])
    assert prog["format"] == "cotaudit.certify.program/1"
    assert prog["units"][0]["lit"]["args"] == [{"n": "1.5"}, {"s": "s"}, {"c": "x"}]


@pytest.mark.parametrize(
    "bad",
    [
        '{"format": "x", "units": []}',
        '{"format": "cotaudit.certify.program/1", "units": [{"kind": "fact", "lit": {"pred": "P", "args": []}}]}',
        '{"format": "cotaudit.certify.program/1", "units": [{"kind": "fact", "lit": {"pred": "p", "args": [{"n": "1.50"}]}}]}',
        '{"format": "cotaudit.certify.program/1", "units": [{"kind": "fact", "lit": {"pred": "p", "args": [{"v": "X"}]}}]}',
        '{"format": "cotaudit.certify.program/1", "units": [{"kind": "rule", "head": {"pred": "p"}, "body": []}]}',
        "[1, 2",
    ],
)
def test_bad_json_is_a_parse_error(bad: str) -> None:
    with pytest.raises(ProgramError):
        program_from_json(bad)


# ---------------------------------------------------------------------- hypothesis round trips

NAMES = st.sampled_from(["a", "b", "kind", "x1", "p_q", "zz9"])
VARS = st.sampled_from(["X", "Y", "Z", "Foo", "_"])
NUMS = st.builds(str, st.integers(-50, 50)) | st.sampled_from(["1.5", "0.25", "-2.75", "100"])
STRS = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6)
CONSTS = NAMES.map(lambda n: n) | NUMS | STRS.map(lambda s: __import__("json").dumps(s, ensure_ascii=False))


@st.composite
def literal_text(draw: st.DrawFn, ground: bool) -> str:
    pred = draw(st.sampled_from(["p", "q", "rel", "is_x"]))
    neg = draw(st.booleans())
    terms = st.one_of(CONSTS) if ground else st.one_of(CONSTS, VARS)
    args = draw(st.lists(terms, max_size=3))
    return ("-" if neg else "") + pred + (f"({', '.join(args)})" if args else "")


@st.composite
def unit_text(draw: st.DrawFn) -> str:
    label = draw(st.none() | st.sampled_from(["r1", "art495", "copy:kind", "a.b@c-1"]))
    prefix = f"[{label}] " if label else ""
    if draw(st.booleans()):
        return prefix + draw(literal_text(True)) + "."
    body = draw(st.lists(literal_text(False), min_size=1, max_size=3))
    bound = [v for b in body for v in __import__("re").findall(r"\b[A-Z][A-Za-z0-9_]*", b.split('"')[0])]
    head_args = ", ".join(sorted(set(bound))[:2])
    head = "h" + (f"({head_args})" if head_args else "")
    return prefix + head + " :- " + ", ".join(body) + "."


@settings(max_examples=150, deadline=None)
@given(st.lists(unit_text(), max_size=6))
def test_text_json_text_round_trip(texts: list[str]) -> None:
    try:
        units = parse_program("\n".join(texts), fast=False)
    except ProgramError:
        return  # e.g. a duplicate label or an unsafe rule; not what this test is about
    canon = program_text(units)
    again = parse_program(canon)
    assert again == units and program_text(again) == canon
    via_json = program_from_json(program_to_json(units))
    assert via_json == units
    assert [u.key for u in via_json] == [u.key for u in units]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(unit_text() | st.sampled_from(["% comment", "", "  p(a, 1.50). % c", "[l] -q(b)."]), max_size=8)
)
def test_fast_path_equals_lark(lines: list[str]) -> None:
    text = "\n".join(lines)
    try:
        slow = parse_program(text, fast=False)
    except ProgramError as exc:
        with pytest.raises(ProgramError) as err:
            parse_program(text)
        assert (err.value.reason, err.value.line, err.value.col) == (exc.reason, exc.line, exc.col)
        return
    fast = parse_program(text)
    assert fast == slow
    assert [u.pos for u in fast] == [u.pos for u in slow]
    assert [u.key for u in fast] == [u.key for u in slow]


@settings(max_examples=100, deadline=None)
@given(
    st.permutations(["b(X, Y)", "c(Y)", "d(X, Z)", "e(Z, Y)"]),
    st.sampled_from([("X", "Y", "Z"), ("A", "B", "C"), ("Q", "R", "S")]),
)
def test_key_is_renaming_and_order_invariant(body: list[str], names: tuple[str, str, str]) -> None:
    table = str.maketrans({"X": names[0], "Y": names[1], "Z": names[2]})
    rule = parse_unit(f"h(X) :- {', '.join(body)}.".translate(table))
    base = parse_unit("h(X) :- b(X, Y), c(Y), d(X, Z), e(Z, Y).")
    assert rule.key == base.key
    assert isinstance(rule, Rule) and len(normal_form(rule).body_order) == 4


def test_facts_are_facts() -> None:
    assert isinstance(parse_unit("p(a)."), Fact)
