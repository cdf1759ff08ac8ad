"""Hypothesis strategies for random ``.t6`` traces (shared by the property tests)."""

from __future__ import annotations

from hypothesis import strategies as st

ALPHAS = ("T", "F", "Uk", "Uc")
OPS = ("K", "B", "?", "R", "N", "NOT", "IF", "THEN", "AND", "OR", "MAYBE")
PROPS = ("p1", "p2", "p3", "p4", "a")


@st.composite
def statement_line(draw: st.DrawFn, props: tuple[str, ...] = PROPS) -> str:
    alpha = draw(st.sampled_from(ALPHAS))
    ops = draw(st.lists(st.sampled_from(OPS), max_size=3))
    prop = draw(st.one_of(st.none(), st.sampled_from(props)))
    suffix = "?" if prop is not None and draw(st.booleans()) and draw(st.booleans()) else ""
    tokens = [alpha, *ops, *([prop + suffix] if prop is not None else [])]
    if prop is None and ops and ops[-1] == "MAYBE":
        tokens.append("K")  # a trailing unknown token would be read as the proposition
    return " ".join(tokens) + " : text"


@st.composite
def trace_text(draw: st.DrawFn, max_size: int = 12) -> str:
    """A valid trace: ``T q``, random statements, ``T THEN a``."""
    body = draw(st.lists(statement_line(), max_size=max_size))
    return "\n".join(["T q : Q", *body, "T THEN a : A"]) + "\n"


TOKEN_SOUP = st.lists(
    st.one_of(
        st.sampled_from([*OPS, *ALPHAS, *PROPS, ":", "?", "#", "#@ id: x", "U_k", "{", "}", "q"]),
        st.text(max_size=6),
    ),
    max_size=8,
).map(" ".join)
