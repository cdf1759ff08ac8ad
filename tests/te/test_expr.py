"""The safe expression layer (TE-19 … TE-28): normalisation, numerals, whitelist, exact values."""

from __future__ import annotations

from fractions import Fraction

import pytest

from cotaudit import te
from cotaudit.te import compare, expr, ir
from cotaudit.te.evaluate import Evaluator
from cotaudit.te.numeric import EvalError, LimitError, Limits, Poisoned

CONFIG = te.LintConfig(symbolic="inprocess")


class NoNames:
    def lookup(self, name: str) -> Fraction:
        raise Poisoned()

    def attr_value(self, ident: str) -> Fraction:
        raise Poisoned()

    def function(self, name: str) -> None:
        return None


def value(text: str, symbolic: bool = False) -> object:
    return Evaluator(Limits(), symbolic, ir.CONSTANTS).value(expr.parse(text), NoNames())


@pytest.mark.parametrize(
    ("text", "exact"),
    [
        ("0.1", Fraction(1, 10)),
        ("15%", Fraction(3, 20)),
        ("12.5%", Fraction(1, 8)),
        ("4343_6", Fraction(999)),
        ("FF_16", None),  # a name, not a numeral (digits must start with 0-9)
        ("1A_16", Fraction(26)),
        ("1{2}", None),
        ("80,000", Fraction(80000)),
        ("2 × 3 ÷ 4", Fraction(3, 2)),
        ("2^10", Fraction(1024)),
        ("3²", Fraction(9)),
        ("√(16)", Fraction(4)),
        ("5 − 2", Fraction(3)),
        ("round(2.5)", Fraction(3)),
        ("round(-2.5)", Fraction(-3)),
        ("round(2.675, 2)", Fraction(268, 100)),
        ("mod(-7, 3)", Fraction(2)),
        ("mod(7, -3)", Fraction(-2)),
        ("floor(-1/2)", Fraction(-1)),
        ("ceil(7/2)", Fraction(4)),
        ("gcd(12, 18, 30)", Fraction(6)),
        ("lcm(4, 6)", Fraction(12)),
        ("binomial(5, 7)", Fraction(0)),
        ("factorial(5)", Fraction(120)),
        ("Sum(k**2, (k, 1, 10))", Fraction(385)),
        ("Product(k, (k, 1, 5))", Fraction(120)),
        ("8**(1/3)", Fraction(2)),
        ("(4/9)**(1/2)", Fraction(2, 3)),
        ("1.5e3", Fraction(1500)),
        ("max(1, 7/2, 3)", Fraction(7, 2)),
        ("abs(-3/4)", Fraction(3, 4)),
    ],
)
def test_exact_values(text: str, exact: Fraction | None) -> None:
    if exact is None:
        with pytest.raises((expr.ExprError, Poisoned)):
            value(text)
        return
    assert value(text) == exact


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("1_000", "TE_E013"),
        ("2x", "TE_E013"),
        ("x % 3", "TE_E013"),
        ("a // b", "TE_E013"),
        ("a | b", "TE_E013"),
        ("'s'", "TE_E013"),
        ("0xFF", "TE_E013"),
        ("3j", "TE_E013"),
        ("True", "TE_E013"),
        ("a if b else c", "TE_E013"),
        ("[1, 2]", "TE_E013"),
        ("a[0]", "TE_E013"),
        ("sqrt(1, 2)", "TE_E013"),
        ("mod(1)", "TE_E013"),
        ("gcd(4)", "TE_E013"),
        ("frobnicate(2)", "TE_E013"),
        ("is_prime(3)", "TE_E013"),  # predicates belong to claims
        ("é + 1", "TE_E013"),
        ("a, b", "TE_E013"),  # tuples only at the top of ANS
        ("1e1001", "TE_E014"),
        ("9" * 1001, "TE_E014"),
        ("(" * 51 + "1" + ")" * 51, "TE_E013"),
    ],
)
def test_rejections(text: str, code: str) -> None:
    with pytest.raises(expr.ExprError) as info:
        expr.parse(text)
    assert info.value.code == code


def test_keywords_are_ordinary_symbols() -> None:
    node = expr.parse("lambda * 2")
    assert isinstance(node, ir.BinOp) and node.left == ir.Name("lambda", 0)


def test_limits() -> None:
    with pytest.raises(LimitError):
        value("10**10**10")
    with pytest.raises(LimitError):
        value("factorial(10**9)")
    with pytest.raises(LimitError):
        value("2**70000")
    assert value("mod(2**1000000, 7)") == Fraction(2)
    assert value("2**100") == Fraction(2**100)
    assert value("factorial(5000)") > 0


@pytest.mark.parametrize(
    "text", ["1/0", "mod(3, 0)", "0**-1", "factorial(-1)", "factorial(1/2)", "gcd(1/2, 3)"]
)
def test_evaluation_errors(text: str) -> None:
    with pytest.raises(EvalError):
        value(text)


def test_symbolic_values_need_sympy() -> None:
    from cotaudit.te.numeric import NeedsSymbolic

    for text in ("sqrt(2)", "pi", "log(8, 2)", "sin(1)"):
        with pytest.raises(NeedsSymbolic):
            value(text)
    assert value("log(8, 2)", symbolic=True) == Fraction(3)
    assert value("sqrt(8) * sqrt(2)", symbolic=True) == Fraction(4)


def test_equality_is_exact_and_inclusive() -> None:
    third = Fraction(1, 3)
    assert compare.equal(third, Fraction(333333, 10**6)).value is True  # difference exactly eps_rel * 1/3
    assert compare.equal(third, Fraction(333332, 10**6)).value is False
    assert compare.equal(Fraction(10, 3), Fraction(3333333, 10**6)).value is True
    assert compare.equal(Fraction(10, 3), Fraction(333, 100)).value is False
    assert compare.equal(Fraction(0), Fraction(1, 10**9)).value is True  # eps_abs, inclusive
    assert compare.equal(Fraction(0), Fraction(2, 10**9)).value is False


def test_declared_rounding_tolerance() -> None:
    assert expr.literal_tolerance("33.33") == Fraction(1, 200)
    assert expr.literal_tolerance("33") == Fraction(1, 2)
    assert expr.literal_tolerance("1.2e3") == Fraction(50)
    assert compare.approx(Fraction(100, 3), Fraction(3333, 100), Fraction(1, 200)).value is True
    assert compare.approx(Fraction(10, 3), Fraction(333, 100), Fraction(1, 200)).value is True
    assert compare.approx(Fraction(10, 3), Fraction(34, 10), Fraction(1, 20)).value is False


def test_shadowed_constants_are_user_symbols() -> None:
    src = "GIVEN:\n  e := 2\nGOAL: y\nEQ[e1]: y = e * 3 = 6\nANS: y\n"
    assert te.lint(src, CONFIG).at() == []
    unbound = "GIVEN:\n  a := 1\nGOAL: y\nEQ[e1]: y = e * 0 + a = 1\nANS: y\n"
    assert te.lint(unbound, CONFIG).at() == []  # e is the constant when unbound


def test_identity_probing_reports_a_counterexample() -> None:
    src = "GIVEN:\n  n := param(integer)\nGOAL: k\nEQ[e1]: k = 2*n + 1 = 7\nANS: k\n"
    result = te.lint(src, CONFIG)
    assert result.at() == ["TE_E006@4"]
    assert result.diagnostics[0].evidence_dict()["counterexample"] == {"n": "2"}
