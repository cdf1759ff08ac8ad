"""The plain-arithmetic fast path gives exactly the IR of the full pipeline (differential test)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cotaudit.te import expr
from cotaudit.te.fastparse import parse_plain

FUNCS = {"f": 1, "g": 2}
FUNCTIONS = frozenset(FUNCS.items())

atoms = st.one_of(
    st.from_regex(r"[0-9]{1,4}(\.[0-9]{0,3})?([eE][-+]?[0-9]{1,2})?", fullmatch=True),
    st.from_regex(r"\.[0-9]{1,3}", fullmatch=True),
    st.sampled_from(
        ["a", "b", "total", "e", "pi", "i", "x_1", "lambda", "e1.value", "e2.unit", "sqrt", "f", "__x"]
    ),
)


def _combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    ops = st.sampled_from(["+", "-", "*", "/", "**", " + ", "*-", ", ", " ", "", "%", "."])
    return st.one_of(
        st.tuples(children, ops, children).map("".join),
        children.map(lambda c: f"({c})"),
        children.map(lambda c: f"-{c}"),
        st.tuples(
            st.sampled_from(["sqrt", "max", "min", "floor", "mod", "f", "g", "Sum", "round", "log"]), children
        ).map(lambda t: f"{t[0]}({t[1]})"),
        st.tuples(st.sampled_from(["max", "mod", "g", "f"]), children, children).map(
            lambda t: f"{t[0]}({t[1]}, {t[2]})"
        ),
    )


expressions = st.recursive(atoms, _combine, max_leaves=12)


def _full(text: str, mode: expr.Mode = "expr") -> object:
    """The full pipeline only (TE-21 → ast → TE-22), bypassing the fast path."""
    try:
        return expr._parse_full(text, mode, FUNCTIONS)
    except expr.ExprError as err:
        return ("error", err.code)


@settings(max_examples=1500, deadline=None)
@given(expressions, st.sampled_from(["", " ", "  "]), st.sampled_from(["expr", "ans"]))
def test_fast_path_agrees_with_the_full_pipeline(text: str, pad: str, mode: expr.Mode) -> None:
    text = pad + text + pad
    fast = parse_plain(text, FUNCS)
    if fast is not None:
        assert fast == _full(text, mode), text


comparisons = st.tuples(
    expressions,
    st.lists(
        st.tuples(st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "=", "=<"]), expressions), max_size=2
    ),
).map(lambda t: t[0] + "".join(f" {op} {e}" for op, e in t[1]))


@settings(max_examples=1000, deadline=None)
@given(comparisons)
def test_fast_claims_agree_with_the_full_pipeline(text: str) -> None:
    fast = parse_plain(text, FUNCS, claim=True)
    if fast is not None:
        assert fast == _full(text, "claim"), text


def test_fast_path_handles_the_common_shapes() -> None:
    for text in [
        "q1 - q2 - q3",
        "r1 * q4",
        "floor(e1.value / 6)",
        "(a + b) * c",
        "-2**2",
        "2**-1",
        "f(3) + 1",
    ]:
        assert parse_plain(text, FUNCS) is not None, text
        assert parse_plain(text, FUNCS) == _full(text)


def test_fast_path_declines_what_it_does_not_own() -> None:
    for text in [
        "15%",
        "4343_6",
        "80,000",
        "1_000",
        "2x",
        "lambda + 1",
        "Sum(k, (k, 1, n))",
        "a if b else c",
        "1e999",
        "a.b",
        "sqrt",
        "is_prime(3)",
        "__import__(1)",
        "(a",
        "a)",
        "",
        "h(1)",
        "f(1, 2)",
        "+".join(["a"] * 60),
        "a ≈ 3",
    ]:
        assert parse_plain(text, FUNCS) is None, text
