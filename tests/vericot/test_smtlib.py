"""V-6 … V-10: the splitter, the command whitelist, symbol rules, the vocabulary manager."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cotaudit.vericot.smtlib import (
    MAX_DEPTH,
    Decl,
    SmtError,
    Vocabulary,
    parse_field,
    render,
    split_commands,
    tokenize,
)

FORBIDDEN = [
    "(set-option :timeout 1)",
    "(set-logic QF_UF)",
    "(push 1)",
    "(pop 1)",
    "(check-sat)",
    "(get-model)",
    "(get-value (a))",
    "(echo hi)",
    "(reset)",
    "(exit)",
    "(define-fun f () Bool true)",
    "(define-sort S () Int)",
    "(declare-datatype D ((mk)))",
    "(declare-datatypes () ((D mk)))",
]


@pytest.mark.parametrize("cmd", FORBIDDEN)
def test_forbidden_command_smuggled_into_a_step(cmd: str) -> None:
    with pytest.raises(SmtError) as info:
        parse_field(f"(assert a) {cmd}", assertions=True)
    assert info.value.reason in ("forbidden_command", "parse_error")


@pytest.mark.parametrize("cmd", ["(check-sat)", "(push 1)", "(echo hi)", "(get-model)"])
def test_forbidden_command_reason(cmd: str) -> None:
    with pytest.raises(SmtError) as info:
        parse_field(f"(assert a) {cmd}", assertions=True)
    assert info.value.reason == "forbidden_command"


def test_near_miss_allowed_commands() -> None:
    f = parse_field(
        "(declare-sort S 0) (declare-const c S) (declare-fun f (S Int) Bool) ; comment\n(assert (f c 1))",
        assertions=True,
    )
    assert [d.name for d in f.decls] == ["S", "c", "f"]
    assert f.asserts == ("(assert (f c 1))",)


def test_assert_not_allowed_in_declaration_field() -> None:
    with pytest.raises(SmtError) as info:
        parse_field("(assert true)", assertions=False)
    assert info.value.reason == "forbidden_command"


def test_assertion_field_needs_an_assert() -> None:
    with pytest.raises(SmtError, match="no \\(assert"):
        parse_field("(declare-const a Bool)", assertions=True)


@pytest.mark.parametrize(
    "text,message",
    [
        ("(assert (and a b)", "missing"),
        ("(assert a))", "unexpected"),
        ('(assert (= s "x"))', "string"),
        ("(assert |weird sym|)", "quoted"),
        ("assert a", "outside"),
        ("(assert #b01)", "unexpected"),
    ],
)
def test_malformed(text: str, message: str) -> None:
    with pytest.raises(SmtError) as info:
        parse_field(text, assertions=True)
    assert info.value.reason == "parse_error" and message in info.value.message


def test_depth_limit() -> None:
    deep = "(assert " + "(not " * (MAX_DEPTH + 5) + "a" + ")" * (MAX_DEPTH + 5) + ")"
    with pytest.raises(SmtError, match="nesting"):
        parse_field(deep, assertions=True)
    ok = "(assert " + "(not " * 50 + "a" + ")" * 50 + ")"
    assert parse_field(ok, assertions=True).asserts


@pytest.mark.parametrize(
    "decl",
    [
        "(declare-const and Bool)",
        "(declare-const Int Bool)",
        "(declare-const vc_t_0 Bool)",
        "(declare-const _x Bool)",
        "(declare-const " + "a" * 65 + " Bool)",
        "(declare-sort S 1)",
    ],
)
def test_symbol_rules(decl: str) -> None:
    with pytest.raises(SmtError):
        parse_field(decl, assertions=False)


def test_symbol_near_miss() -> None:
    assert parse_field("(declare-const a" + "b" * 63 + " Bool)", assertions=False).decls


def test_vc_prefix_in_a_term_is_rejected() -> None:
    with pytest.raises(SmtError, match="vc_"):
        parse_field("(assert vc_t_0)", assertions=True)


def test_vocabulary_conflicts() -> None:
    v = Vocabulary()
    v.extend(
        v.new_decls(
            list(
                parse_field(
                    "(declare-sort Person 0) (declare-fun age (Person Int) Int)", assertions=False
                ).decls
            )
        )
    )
    # identical redeclaration is reuse
    assert v.new_decls([Decl("age", ("Person", "Int"), "Int")]) == []
    with pytest.raises(SmtError) as info:
        v.new_decls([Decl("age", ("Person",), "Int")])
    assert info.value.reason == "vocabulary_conflict"
    with pytest.raises(SmtError) as info:
        v.new_decls([Decl("Person", (), "Int")])  # sort name reused as a constant
    assert info.value.reason == "vocabulary_conflict"
    with pytest.raises(SmtError) as info:
        v.new_decls([Decl("age", None, None)])  # function name reused as a sort
    assert info.value.reason == "vocabulary_conflict"
    with pytest.raises(SmtError) as info:
        v.new_decls([Decl("g", ("age",), "Int")])  # function used as a sort
    assert info.value.reason == "vocabulary_conflict"
    with pytest.raises(SmtError) as info:
        v.new_decls([Decl("g", ("Nope",), "Int")])
    assert info.value.reason == "parse_error"
    # declare-const is stored as declare-fun with no arguments
    assert Decl("c", (), "Person").canon() == "(declare-fun c () Person)"


def test_canonical_text() -> None:
    cmds = split_commands("  (assert\n  (and   a ; c\n b))  ")
    assert [render(c) for c in cmds] == ["(assert (and a b))"]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('()ab ;\n"|#:-0123456789assertdeclare')), max_size=80))
def test_splitter_never_raises_anything_but_smterror(text: str) -> None:
    try:
        f = parse_field(text, assertions=True)
    except SmtError as exc:
        assert exc.reason in ("parse_error", "forbidden_command")
    else:
        assert f.asserts


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_tokenizer_on_arbitrary_text(text: str) -> None:
    try:
        toks = tokenize(text)
    except SmtError:
        return
    assert all(t.strip() == t and t for t in toks)


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.sampled_from(["a", "b", "c", "1"]),
        lambda kids: st.lists(kids, min_size=1, max_size=4),
        max_leaves=20,
    )
)
def test_render_split_round_trip(expr: object) -> None:
    text = render(["assert", expr])  # type: ignore[list-item]
    assert [render(c) for c in split_commands(text)] == [text]
    vocab = Vocabulary()
    vocab.new_decls([])  # never raises on empty input
