"""Every te parser regex runs in linear time (issue 14).

Each parser, and each regex the parsers apply, is run on adversarial 1 MiB lines: runs of the
worst character, and long runs of blanks before a character that does not match (the classic
super-linear backtracking of ``\\s*(?:X)?\\s*``, ``\\s*\\)?\\s*\\.?\\s*`` or a ``finditer`` that
restarts inside a blank run). A linear pass over 1 MiB takes well under a second here; the
quadratic and cubic patterns this replaced needed minutes for 4,000 characters, so the bound
(60 s per case, on a loaded 2-core machine) only separates linear from super-linear.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

import pytest

from cotaudit.te import checkline, config, fastparse, grammar, units
from cotaudit.te.corpus import gsm8k, gsm8k_numbers, gsm8k_write, perturb
from cotaudit.te.structure import hedging, parse_bodies, structural

MIB = 1 << 20
BOUND_S = 60.0
FILLERS = (" ", "\t", "a", "0", "(", ",", "[", "<")
TAILS = ("x", "")


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _trace_pass(line: str) -> None:
    """Classification, body parsing, structural rules and hedging of a one-line trace."""
    lines = grammar.classify(["GIVEN:", line, "GOAL: a", "ANS: a"], 10 * MIB)
    pre = parse_bodies(lines)
    structural(lines, pre, config.LintConfig(), lambda d: None)
    hedging(lines, config.LintConfig(), lambda d: None, line)


# Line heads that route the rest of the line to each body parser (decl, param, EQ, CHECK,
# RESOLVE, ANS, STEP's from-clause, GOAL, untagged).
HEADS = (
    "  a",
    "  n := param",
    "  f(x",
    "EQ[e1]: b =",
    "CHECK[c1]: arith:",
    "RESOLVE[o1]: by a",
    "ANS: a",
    "STEP[s1]: x from a",
    "STEP[s1]: x (from a, b",
    "GOAL: a",
    "",
)


@pytest.mark.parametrize("head", HEADS)
def test_trace_parsers_are_linear_on_long_lines(head: str) -> None:
    for filler in FILLERS:
        for tail in TAILS:
            line = head + filler * (MIB - len(head) - len(tail)) + tail
            assert _timed(lambda line=line: _trace_pass(line)) < BOUND_S, (head, filler, tail)


SPACES = " " * MIB


def _unit(text: str) -> None:
    with contextlib.suppress(units.UnitSyntaxError):  # a diagnostic, as it should be
        units.parse_unit(text)


CASES: dict[str, Callable[[], object]] = {
    # the rewritten patterns, on exactly what made them super-linear
    "decl-head": lambda: grammar._DECL_HEAD.match("a" + SPACES + "x"),
    "param": lambda: grammar._PARAM.fullmatch("param" + SPACES + "x"),
    "resolve": lambda: grammar._RESOLVE_ID.fullmatch("by a" + SPACES + "x"),
    "from-tail": lambda: grammar._FROM_TAIL.fullmatch("from a" + SPACES + "x"),
    "step-refs": lambda: grammar.step_refs("x (from a" + SPACES + "x", 0),
    "fastparse-blanks": lambda: fastparse.parse_plain("1" + "\t" * MIB + "\n", {}),
    "fastparse-unknown": lambda: fastparse.parse_plain(SPACES + "1 + ?", {}),
    "unit-call": lambda: checkline._UREF_CALL.fullmatch(("unit(" + ")" * MIB + SPACES + "x").rstrip()),
    "unit-attr": lambda: checkline._UREF_ATTR.fullmatch("a" + SPACES + ".unit" + SPACES + "x"),
    "unit-claim": lambda: checkline._UNIT_CLAIM.match("a" * MIB + " x"),
    "unit-text": lambda: _unit("m" + SPACES + "/" + SPACES + "x"),
    "gsm8k-from": lambda: gsm8k_write._defuse_from("so from a" + SPACES + "x"),
    "gsm8k-annotations": lambda: gsm8k._annotations("<<" * (MIB // 2)),
    "gsm8k-bare": lambda: gsm8k_numbers.bare_equations("1 + " * (MIB // 4) + ")"),
    "gsm8k-numerals": lambda: gsm8k_numbers.scan_question("1 1 " * (MIB // 16) + "1/"),  # 256 KiB
    "perturb-unit-blanks": lambda: perturb._trailing_unit("x" + SPACES + "y"),
    "perturb-unit-brackets": lambda: perturb._trailing_unit("[" * MIB + "]"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_rewritten_regex_is_linear(name: str) -> None:
    assert _timed(CASES[name]) < BOUND_S


def test_the_linter_on_lines_at_the_length_cap() -> None:
    """Through the public API: 4,000-character lines (the cap) with the patterns' worst
    inputs. The old from-clause pattern alone needed 131 s for the first one."""
    from cotaudit import te

    pad = " " * 3_950
    body = (
        f"GIVEN:\n  a{pad}x\n  n := param{pad}x\nGOAL: b\nSTEP[s1]: x from a{pad}x\n"
        f"OPEN[o1]: case\nRESOLVE[o1]: by a{pad}x\nEQ[e1]: b = 1{pad[:3_900]}?\nANS: b\n"
    )
    start = time.perf_counter()
    result = te.lint(body, te.LintConfig(symbolic="inprocess"))
    assert time.perf_counter() - start < BOUND_S
    assert "TE_X001" not in result.codes
