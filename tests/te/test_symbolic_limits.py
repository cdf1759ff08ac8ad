"""TE-24/TE-25 on the symbolic path: sizes are estimated before SymPy (or mpmath, or Fraction)
computes anything, for every kind of exponent, and every SymPy call stays under its deadline
and under the caller's budget (issue 14).

Each refused input must come back as TE_E014 whose ``limit`` names the *estimate* that refused
it (``exponent``, ``result_bits``, …), never the deadline (``sympy_time``, ``trace_time``) and
never TE_X001: an input refused by its estimate costs milliseconds on any machine. The time
bounds below are generous backstops (the old code spent 10 s and 0.5–1 GiB on each of these).
"""

from __future__ import annotations

import time

import pytest

import cotaudit
from cotaudit import limits, te
from cotaudit.te import compare, worker
from cotaudit.te import symbolic as sym

HEAD = "GIVEN:\n  n := param(integer, positive)\n  x := param(real)\n  a := 2\nGOAL: c\n"
ESTIMATES = {"exponent", "result_bits", "digits", "precision"}


def lint(body: str, **config: object) -> te.LintResult:
    return te.lint(HEAD + body, te.LintConfig(**config))  # type: ignore[arg-type]


def e014(result: te.LintResult) -> list[tuple[int, str]]:
    return [(d.line, d.evidence_dict().get("limit", "")) for d in result.diagnostics if d.code == "TE_E014"]


REFUSED = {
    "float-exponent-tower": "10**10**10.10",
    "negative-float-tower": "10**(-10**10.1)",
    "e-to-a-float-power": "e**(10**10.1)",
    "param-base-float-exponent": "x**(10**10.1)",
    "exp-of-huge": "exp(10**10)",
    "exp-of-exp": "exp(exp(100))",
    "sin-of-tower": "sin(10**10**10.1)",
    "floor-of-tower": "floor(10**10**10.1)",
    "mod-of-tower": "mod(10**10**10.1, 7)",
    "round-of-tower": "round(10**10**10.1, 2)",
    "symbolic-binomial": "binomial(10**10.1, 10**5)",
    "factorial-of-factorial": "factorial(factorial(3000))",
    "binomial-of-factorial": "binomial(factorial(3000), 3)",
    "long-product": "Product(k, (k, 1, 10**6))",
    "geometric-sum": "Sum(10**k, (k, 1, 10**10))",
    "sqrt-of-huge": "sqrt(10**100000)",
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_huge_magnitudes_are_refused_by_their_estimate(name: str) -> None:
    start = time.perf_counter()
    result = lint(f"EQ[e1]: c = {REFUSED[name]} = 5\nANS: c\n")
    assert time.perf_counter() - start < 30  # refused in milliseconds; a backstop only
    found = e014(result)
    assert found and found[0][0] == 6 and found[0][1] in ESTIMATES, result.at()
    assert "TE_X001" not in result.codes


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # bounded towers and float exponents are computed, not refused
        ("EQ[e1]: c = 10**10**0.5 ≈ 1453.04\nANS: c\n", []),
        ("EQ[e1]: c = 10**10**10**0.5 = 5\nANS: c\n", ["TE_E006@6"]),
        ("EQ[e1]: c = 2**9999.5 / 2**9999 ≈ 1.41421\nANS: c\n", []),
        ("EQ[e1]: c = exp(40000)\nCHECK[c1]: arith: e1.value > 3\nANS: c\n", []),
        ("EQ[e1]: c = Sum(k, (k, 1, 10**12)) = 500000000000500000000000\nANS: c\n", []),
        # results beyond Python's 4,300-digit str(int) limit are printed, not TE_X001
        ("EQ[e1]: c = 3**9999 = 5\nANS: c\n", ["TE_E006@6"]),
        ("EQ[e1]: c = 10**9999.5 = 5\nANS: c\n", ["TE_E006@6"]),
    ],
)
def test_near_misses_are_computed(body: str, expected: list[str]) -> None:
    assert lint(body).at() == expected


def test_probe_points_are_estimated_before_substitution() -> None:
    """``10**10**n`` at the probe point n = 5 is 10^100000: refused, not computed exactly."""
    result = lint("EQ[e1]: c = 10**10**n = 10**10**n + 1\nANS: c\n")
    assert e014(result) == [(6, "result_bits")], result.at()
    result = lint("EQ[e1]: c = exp(exp(n))\nCHECK[c1]: arith: e1.value > 3\nANS: c\n")
    assert e014(result) == [(7, "result_bits")], result.at()
    # near miss: a small tower over a param is checked at every probe point
    assert lint("EQ[e1]: c = 2**n = 2**(n - 1) * 2\nANS: c\n").at() == []


def test_a_deadline_outside_evaluation_is_e014_not_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def times_out(x: object, y: object) -> compare.Decision:
        raise sym.SymbolicTimeout()

    monkeypatch.setattr(compare, "_identity", times_out)
    result = lint("EQ[e1]: c = (n + 1)**2 = n**2 + 2*n + 1\nANS: c\n", symbolic="inprocess")
    assert e014(result) == [(6, "sympy_time")] and "TE_X001" not in result.codes


def test_sympy_deadline_never_outlives_the_callers_budget() -> None:
    """Under ``limits.budget`` the per-call deadline is the smaller of 2 s and what is left, and
    a deadline that fired because the caller's budget is spent raises BudgetExceeded."""
    sym.reset_counter(2.0)
    start = time.perf_counter()
    with pytest.raises(limits.BudgetExceeded), limits.budget(limits.Limits(wall_s=0.2)):
        sym.guarded(lambda: time.sleep(5), counted=False)
    assert time.perf_counter() - start < 1.9  # well before the 2 s per-call deadline
    with pytest.raises(sym.SymbolicTimeout):  # near miss: without a budget, the 2 s deadline
        sym.reset_counter(0.05)
        sym.guarded(lambda: time.sleep(5), counted=False)
    sym.reset_counter(2.0)


def test_api_budget_stops_the_linter_between_lines() -> None:
    src = "GIVEN:\n  a := 1\nGOAL: r\n" + "".join(f"EQ[e{k}]: r{k} = a + {k}\n" for k in range(400))
    src += "ANS: r399\n"
    report = cotaudit.check(src, engine="te", limits=limits.Limits(wall_s=1e-9))
    assert report.verdict == "abstain" and [f.code for f in report.findings] == ["COTAUDIT_W001"]
    assert cotaudit.check(src, engine="te").verdict == "pass"  # near miss: the default budget


def test_zero_trace_budget_fails_closed_without_the_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """A budget of zero can never be met, whatever the machine's speed: the first symbolic line
    is TE_E014 and the worker is neither used nor killed (it was before, then respawned)."""
    src = "GIVEN:\n  r := 2\nGOAL: c\nEQ[e1]: a = r + 1 = 3\nEQ[e2]: c = 2 * pi * r ≈ 12.57\nANS: c\n"
    te.lint(src)  # the worker is up
    pid = worker.worker_pid()

    def slow_parent(*args: object) -> str | None:  # the parent kept off the CPU (issue 14)
        time.sleep(0.3)
        return reader(*args)  # type: ignore[arg-type]

    reader = worker._readline
    monkeypatch.setattr(worker, "_readline", slow_parent)
    result = te.lint(src, te.LintConfig(limits=te.Limits(trace_timeout=0.0)))
    assert result.at() == ["TE_E014@5"] and result.verdict == "FLAG"
    assert worker.worker_pid() == pid


def test_the_worker_never_outlives_the_callers_budget() -> None:
    """A symbolic trace the worker cannot finish (this sum runs into the 2 s per-call
    deadline): under a 0.5 s budget the parent stops waiting at 0.5 s and the report is
    abstain COTAUDIT_W001, not TE_E014 after the worker's own deadlines."""
    src = HEAD + "EQ[e1]: c = Sum(k**sin(log(sqrt(2))), (k, 1, 1e300)) = 5\nANS: c\n"
    te.lint(HEAD + "EQ[e1]: c = sqrt(2) ≈ 1.414\nANS: c\n")  # the worker is up
    report = cotaudit.check(src, engine="te", limits=limits.Limits(wall_s=0.3))
    # TE_E014 would mean the parent waited for the worker's 2 s deadline
    assert report.verdict == "abstain" and [f.code for f in report.findings] == ["COTAUDIT_W001"]
