"""Untrusted input (TE-18, TE-24, TE-60): nothing executes, everything ends fast with a diagnostic."""

from __future__ import annotations

import builtins
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cotaudit import te

CONFIG = te.LintConfig(symbolic="inprocess")
HEAD = "GIVEN:\n  a := 2\nGOAL: b\n"


def trace(eq_body: str) -> str:
    return f"{HEAD}EQ[e1]: b = {eq_body}\nANS: b\n"


HOSTILE = {
    "import": ('__import__("os").system("id")', "TE_E013"),
    "import-no-quotes": ("__import__(os).system(id)", "TE_E013"),
    "attribute-chain": ("a.__class__.__base__", "TE_E013"),
    "dunder-class": ("().__class__", "TE_E013"),
    "subscript": ("a[0]", "TE_E013"),
    "lambda": ("(lambda: 1)()", "TE_E013"),
    "comprehension": ("[x for x in a]", "TE_E013"),
    "walrus": ("(x := 3)", "TE_E013"),
    "fstring": ('f"{a}"', "TE_E013"),
    "keyword-call": ("max(a, key=a)", "TE_E013"),
    "starred": ("max(*a)", "TE_E013"),
    "tower": ("10**10**10", "TE_E014"),
    "factorial": ("factorial(10**9)", "TE_E014"),
    "huge-literal": ("1e999999", "TE_E014"),
    "binomial": ("binomial(10**9, 5*10**8)", "TE_E014"),
    "deep-parens": ("(" * 1000 + "1" + ")" * 1000, "TE_E013"),
    "unary-run": ("-" * 60 + "1", "TE_E013"),
    "unary-run-1e5": ("-" * 100_000 + "1", "TE_E014"),  # over the 4,000-character line cap
    "bitwise": ("a | 1", "TE_E013"),
    "nul": ("1\x00 + 2", "TE_E013"),
    "hex": ("0xFF", "TE_E013"),
    "many-nodes": ("+".join(["a"] * 600), "TE_E014"),
    "symbolic-exponent": ("2**(10**6 + 1/2)", "TE_E014"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_expression_is_refused_quickly(name: str) -> None:
    body, code = HOSTILE[name]
    start = time.perf_counter()
    result = te.lint(trace(body), CONFIG)
    elapsed = time.perf_counter() - start
    assert (code, 4) in {(d.code, d.line) for d in result.diagnostics}, result.at()
    assert "TE_X001" not in result.codes
    assert elapsed < 1.0


def test_nothing_is_executed(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    payloads = [
        f"__import__('os').system('touch {marker}')",
        f'__import__("os").system("touch {marker}")',
        f"().__class__.__bases__[0].__subclasses__()[0]('touch {marker}')",
        f'exec(\'open("{marker}", "w")\')',
        f'eval(\'open("{marker}", "w")\')',
        f"open('{marker}', 'w')",
    ]
    for p in payloads:
        te.lint(trace(p), CONFIG)
        te.lint(f"{HEAD}CHECK[c1]: arith: {p} == 1\nEQ[e1]: b = 1\nANS: b\n", CONFIG)
        te.lint(f"GIVEN:\n  x := {p}\nGOAL: x\nEQ[e1]: y = 1\nANS: y\n", CONFIG)
    assert not marker.exists()


def test_eval_and_exec_are_never_called(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("eval/exec called on trace text")

    monkeypatch.setattr(builtins, "eval", refuse)
    monkeypatch.setattr(builtins, "exec", refuse)
    for body in ("1 + 2", "sqrt(8) * pi", "Sum(k, (k, 1, n))", '__import__("os")', "log(4, 2)"):
        te.lint(trace(body), CONFIG)
    te.lint((Path(__file__).parents[2] / "examples" / "te" / "O_parametric.te").read_text(), CONFIG)


def test_sympy_string_parsers_are_never_called(monkeypatch: pytest.MonkeyPatch) -> None:
    import sympy
    import sympy.parsing.sympy_parser as parser

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("SymPy string parsing reached")

    monkeypatch.setattr(sympy, "sympify", refuse)
    monkeypatch.setattr(sympy, "S", refuse, raising=False)
    monkeypatch.setattr(parser, "parse_expr", refuse)
    src = "GIVEN:\n  n := param(integer, positive)\n  r := 3 [m]\nGOAL: S\n"
    src += "EQ[e1]: S = Sum(k, (k, 1, n)) = n*(n + 1)/2\nEQ[e2]: c = 2 * pi * r ≈ 18.85 [m]\n"
    src += "CHECK[c1]: domain: is_positive(e1.value)\nANS: n*(n + 1)/2\n"
    assert te.lint(src, CONFIG).verdict == "CLEAN"


def test_limits_near_misses_pass() -> None:
    src = HEAD + "EQ[e1]: b = 2**100 = 1267650600228229401496703205376\n"
    src += "EQ[e2]: c = factorial(20) = 2432902008176640000\n"
    src += (
        "EQ[e3]: d = mod(2**1000000, 7) = 2\nEQ[e4]: f = factorial(5000) / factorial(4999) = 5000\nANS: b\n"
    )
    assert te.lint(src, CONFIG).at() == []


def test_big_sum_takes_its_closed_form() -> None:
    src = HEAD + "EQ[e1]: b = Sum(k, (k, 1, 10**12)) = 500000000000500000000000\nANS: b\n"
    start = time.perf_counter()
    assert te.lint(src, CONFIG).at() == []
    assert time.perf_counter() - start < 5.0


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n",
        "\x00\x00\x00",
        "\ufeff",
        "GIVEN:\n" + "x" * 5000 + "\n",
        "EQ[e1]: " + "a" * 4001,
        "\udcff\udcfe garbage",
        "GIVEN:\n  a := " + "(" * 60 + "1" + ")" * 60 + "\nGOAL: a\nANS: a\n",
        "\u2028\u2029\x1c\x1d\x1e\x85\v\f",
        "GOAL:\nGOAL:\nANS:\nANS:\nOPEN[o1]:\nRESOLVE[o1]: by\nRESOLVE[o1]: by o1\n",
        "CHECK[c]: unit: unit(unit(x)) == [[m]]\n",
    ],
)
def test_garbage_gives_a_report_not_an_exception(text: str) -> None:
    report = te.check(text, config=CONFIG)
    assert report.verdict in ("pass", "fail")
    assert all(f.code != "TE_X001" for f in report.findings)


def test_long_line_is_skipped_with_e014_and_no_cascade() -> None:
    long_body = "b = " + " + ".join(["a"] * 1500)
    src = f"{HEAD}EQ[e1]: {long_body}\nEQ[e2]: c = b + 1\nANS: c\n"
    result = te.lint(src, CONFIG)
    assert result.at() == ["TE_E014@4"]


def test_trace_size_caps() -> None:
    many = HEAD + "".join(f"STEP[s{i}]: note\n" for i in range(2100)) + "ANS: a\n"
    assert te.lint(many, CONFIG).at() == ["TE_E014@1"]
    big = HEAD + ("STEP[s1]: " + "x" * 3000 + "\n") * 90
    assert te.lint(big, CONFIG).at() == ["TE_E014@1"]


def test_unreadable_file_is_exit_2_without_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.te"
    bad.write_bytes(b"GIVEN:\n  a := \xff\xfe\n")
    proc = subprocess.run(
        [sys.executable, "-m", "cotaudit", "check", str(bad)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1


def test_hostile_example_runs_in_the_worker_too() -> None:
    src = (Path(__file__).parents[2] / "examples" / "te" / "S_hostile.te").read_text()
    assert te.lint(src).at() == te.lint(src, CONFIG).at() == ["TE_E013@4", "TE_E014@5", "TE_E014@6"]


@pytest.mark.parametrize("mode", ["worker", "inprocess"])
@pytest.mark.parametrize(
    "text",
    [
        "GIVEN:\ud800\n",
        "GIVEN:\n  a := 2\ud800\nGOAL: c\nEQ[e1]: c = a\udfff + 1 = 3\nANS: c\n",
        "GIVEN:\n  a\udfff := 2\nGOAL: c [\ud800]\nSTEP[s\ud800]: x (from a\ud800)\nEQ[e1]: c = sqrt(2)*a = 3\nANS: \ud800\n",
        "GIVEN:\n  a := 2\nGOAL: c\nEQ[\ud800]: c = pi * a ≈ 6.28\nCHECK[c1]: unit: e1.unit == \ud800\nANS: c\n",
        "\ud800" * 5000,
    ],
)
def test_lone_surrogates_give_diagnostics_not_exceptions(text: str, mode: str) -> None:
    """The engine itself never raises on a lone surrogate, in either symbolic mode (the worker
    protocol escapes it); writing it out is the writers' business."""
    result = te.lint(text, te.LintConfig(symbolic=mode))  # type: ignore[arg-type]
    assert result.diagnostics and "TE_X001" not in result.codes
    assert te.check(text, config=te.LintConfig(symbolic=mode)).verdict == "fail"  # type: ignore[arg-type]
