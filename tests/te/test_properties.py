"""Property-based tests (TE-60): any text gives a valid report, deterministically, fast."""

from __future__ import annotations

import keyword
import re
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cotaudit import te
from cotaudit.report import Report
from cotaudit.te import expr, ir

CONFIG = te.LintConfig(symbolic="inprocess")

# Fragments that reach deep into the grammar, mixed with arbitrary text.
FRAGMENTS = [
    "GIVEN:",
    "GOAL: x",
    "ANS: x",
    "ANS: 3 [m]",
    "  a := 4",
    "  b := 2.5 [USD]",
    "  n := param(integer)",
    '  s := "doc"',
    "  f(x) := 2*x + 1",
    "EQ[e1]: x = a + b",
    "EQ[e2]: y = x * 2 = 13",
    "EQ[e3]: x**2 - 4 = 0",
    "EQ[e4]: z := z + 1",
    "CHECK[c1]: arith: e1.value == 6.5",
    "CHECK[c2]: unit: e1.unit == USD",
    "CHECK[c3]: domain: is_integer(e2.value)",
    "OPEN[o1]: case",
    "RESOLVE[o1]: by e1",
    "STEP[s1]: text (from e1, a)",
    "STEP[s2]: maybe wait",
    "",
    "   ",
    "EQ[e5]: w = sqrt(2) ≈ 1.41",
    "EQ[e6]: v = 15% * 200 = 30",
    "EQ[e7]: u = Sum(k, (k, 1, 4)) = 10",
    "EQ[bad id]: q = 1",
    "# comment",
    "prose line",
    "EQ[e8]: t = 1/0",
    "EQ[e9]: r = f(3) = 7",
]
line = st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=40))
traces = st.lists(line, max_size=25).map("\n".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(traces)
def test_lint_never_raises_and_returns_a_valid_report(text: str) -> None:
    start = time.perf_counter()
    report = te.check(text, config=CONFIG)
    assert time.perf_counter() - start < 10.0
    assert report.verdict in ("pass", "fail")
    assert all(f.code != "TE_X001" for f in report.findings), [f.message for f in report.findings]
    assert Report.from_dict(report.to_dict()) == report
    lines = [f.location.line for f in report.findings]
    assert lines == sorted(lines)


@settings(max_examples=150, deadline=None)
@given(traces)
def test_lint_is_deterministic(text: str) -> None:
    assert te.lint(text, CONFIG) == te.lint(text, CONFIG)


@settings(max_examples=150, deadline=None)
@given(traces, st.integers(min_value=1, max_value=5))
def test_appending_blank_lines_changes_nothing(text: str, n: int) -> None:
    base = text if text.endswith("\n") or not text else text + "\n"
    assert te.lint(base, CONFIG).diagnostics == te.lint(base + "\n" * n, CONFIG).diagnostics


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80), st.sampled_from(["expr", "claim", "ans"]))
def test_expression_parser_accepts_or_rejects_cleanly(text: str, mode: str) -> None:
    try:
        expr.parse(text, mode)  # type: ignore[arg-type]
    except expr.ExprError as err:
        assert err.code in ("TE_E013", "TE_E014")
        assert 0 <= err.pos <= max(len(text), 1)


CLEAN_TRACE = """GIVEN:
  total := 16
  eaten := 3
  baked := 4
  price := 2 [USD]
GOAL: revenue [USD]
STEP[s1]: subtract used eggs (from total, eaten)
EQ[e1]: sold = total - eaten - baked = 9
CHECK[c1]: arith: e1.value == 9
EQ[e2]: revenue = sold * price = 18 [USD]
ANS: revenue [USD]
"""
SLIP_TRACE = CLEAN_TRACE.replace("= 9\n", "= 8\n", 1)
NAMES = ("total", "eaten", "baked", "price", "sold", "revenue")
identifiers = st.from_regex(r"[a-z][a-z0-9_]{2,8}", fullmatch=True).filter(
    lambda s: (
        s not in ir.RESERVED | ir.CONSTANTS | {"from", "wait", "maybe", "actually"}
        and not keyword.iskeyword(s)
        and not s.startswith("hmm")
    )
)


@settings(max_examples=100, deadline=None)
@given(st.lists(identifiers, min_size=len(NAMES), max_size=len(NAMES), unique=True))
def test_consistent_renaming_keeps_the_verdict(new_names: list[str]) -> None:
    for src in (CLEAN_TRACE, SLIP_TRACE):
        renamed = src
        for old, new in zip(NAMES, new_names, strict=True):
            renamed = re.sub(rf"\b{old}\b", f"@{new}@", renamed)
        renamed = renamed.replace("@", "")
        a, b = te.lint(src, CONFIG), te.lint(renamed, CONFIG)
        assert a.verdict == b.verdict
        assert [(d.code, d.line) for d in a.diagnostics] == [(d.code, d.line) for d in b.diagnostics]


@settings(max_examples=200, deadline=None)
@given(
    st.fractions(min_value=-(10**6), max_value=10**6, max_denominator=1000),
    st.fractions(min_value=-(10**6), max_value=10**6, max_denominator=1000),
)
def test_exact_arithmetic_round_trips_through_a_trace(x: object, y: object) -> None:
    from fractions import Fraction

    assert isinstance(x, Fraction) and isinstance(y, Fraction)
    total = x + y
    head = f"GIVEN:\n  a := {x.numerator}/{x.denominator}\n  b := {y.numerator}/{y.denominator}\nGOAL: c\n"
    src = head + f"EQ[e1]: c = a + b = {total.numerator}/{total.denominator}\nANS: c\n"
    assert te.lint(src, CONFIG).at() == []
    wrong = total + Fraction(1, 1000)
    bad = head + f"EQ[e1]: c = a + b = {wrong.numerator}/{wrong.denominator}\nANS: c\n"
    if abs(wrong - total) > max(Fraction(1, 10**9), Fraction(1, 10**6) * max(abs(wrong), abs(total))):
        assert te.lint(bad, CONFIG).at() == ["TE_E006@5"]
