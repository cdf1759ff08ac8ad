"""Bad input (issue 4, Y-13, Y-14, Y-98): a diagnostic and a bounded run, never an exception."""

from __future__ import annotations

import time

import pytest

from cotaudit import type6


def test_unknown_tokens_everywhere() -> None:
    r = type6.verify("T q : Q\nT ~~ $$ <<>> p1 : x\nT @@ THEN a : y\n")
    # @@ comes first, so THEN is misplaced too and `a` is a bare assertion: avoidance.
    assert r.at() == ["T6_W01@2/p1"] * 3 + ["T6_W01@3/a"] * 2 + ["T6_H05@-/a"]


def test_long_tokens_do_not_reach_messages() -> None:
    token = "X" * 5000
    r = type6.verify(f"T q : Q\nT {token} p1 : x\nT THEN a : y\n")
    (w01,) = [e for e in r.events if e["code"] == "T6_W01"]
    assert len(w01["message"]) < 120 and w01["data"]["token"] == token


def test_long_surface_text_never_in_messages() -> None:
    r = type6.verify("T q : Q\nT p1 : " + "blah " * 1000 + "\nF THEN a : no\n")
    assert all("blah" not in e["message"] for e in r.events)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "T6_E04"),
        ("\n\n# nothing\n", "T6_E04"),
        ("T q : only the question\n", "T6_E04"),
        ("T q : Q\nT IF : x\n", "T6_E04"),
        ("\x00\x01 : \x02", "T6_E01"),
        ("T " + "K " * 40 + "p : x\n", "T6_E05"),
        ("T p : " + "x" * 100_001, "T6_E05"),
    ],
)
def test_invalid_inputs(text: str, code: str) -> None:
    r = type6.verify(text)
    assert r.status == "invalid" and code in [d["code"] for d in r.diagnostics] and r.events == []


def test_statement_limit() -> None:
    text = "T p : x\n" * 50
    r = type6.verify(text, type6.Config(max_statements=10))
    assert [d["code"] for d in r.diagnostics] == ["T6_E05"]


def test_no_source_is_a_warning_not_an_error() -> None:
    r = type6.verify("T a : x\nT a : y\n")
    assert r.status == "ok" and "T6_W08@-/-" in r.at() and r.summary["paths"]["mode"] == "skipped"


@pytest.mark.slow
def test_adversarial_revisits_stay_within_budgets() -> None:
    """Y-98: many revisits and parallel edges → W07, bounded work (counted in steps)."""
    lines = ["T q : Q", "T p1 : x"]
    for _ in range(40):
        lines += ["T p2 : y", "T p1 : x"]
    text = "\n".join([*lines, "T THEN a : A"])
    start = time.perf_counter()
    r = type6.verify(text, type6.Config(max_expansions=200_000, max_walk_steps=200_000))
    assert time.perf_counter() - start < 60
    w07 = r.events[-1]
    assert w07["code"] == "T6_W07" and w07["data"]["mode"] == "sampled"
    assert r.document["per_path"]["budget_exhausted"] or r.document["per_path"]["truncated"]


def test_parallel_self_loops_sampling_is_bounded() -> None:
    text = "\n".join(["T q : Q", "T p1 : x", *(["T p1 : x"] * 300), "T THEN a : A"])
    r = type6.verify(text, type6.Config(path_mode="sample", samples=20, max_walk_steps=50_000))
    assert r.summary["paths"]["mode"] == "sampled" and r.summary["paths"]["count"] <= 20


def test_enumeration_budget_counts_recorded_path_length() -> None:
    text = "\n".join(["T q : Q", *(f"T p{k} : x" for k in range(200)), "T p0 : back", "T THEN a : A"])
    r = type6.verify(text, type6.Config(path_mode="enumerate", max_expansions=300))
    assert r.document["per_path"]["budget_exhausted"] is True


def test_deep_json_and_odd_json() -> None:
    for text in ("[" * 50_000, '{"statements": [' + "[" * 50_000 + "]}", "{}", '{"statements": null}'):
        assert type6.verify(text).status == "invalid"


def test_backpropagation_work_limit_makes_the_trace_invalid() -> None:
    """A proposition mentioned by many constraints and flipped many times: every flip flips
    every status, so the event log grows as constraints × flips; past the budget → T6_E05."""
    lines = ["T q : Q"]
    for k in range(60):
        lines += ["T p1 : x", f"T THEN x{k} : y"]
    lines += [f"{'F' if k % 2 == 0 else 'T'} p1 : flip" for k in range(60)]
    text = "\n".join([*lines, "T THEN a : A"])
    assert type6.verify(text).status == "ok"
    r = type6.verify(text, type6.Config(max_evaluations=1_000))
    assert r.status == "invalid" and [d["code"] for d in r.diagnostics] == ["T6_E05"]
    assert "constraint evaluations" in r.diagnostics[0]["message"] and r.diagnostics[0]["line"] is not None


@pytest.mark.slow
def test_deep_revised_chain_is_bounded() -> None:
    """Every link of a long derivation chain revised K → B: the Y-46 (b) searches share a budget."""
    m = 3000
    lines = ["T q : Q", "T p1 : x", *(f"T THEN p{k} : x" for k in range(2, m + 1))]
    for k in range(m, 0, -1):
        lines += [f"T K p{k} : x", f"T x{k} : new", f"T B p{k} : x"]
    start = time.perf_counter()
    r = type6.verify(
        "\n".join([*lines, "T THEN a : A"]), type6.Config(path_mode="off", max_upstream_visits=200_000)
    )
    assert time.perf_counter() - start < 60
    assert r.summary["event_counts"]["T6_W09"] == 1 and r.summary["event_counts"]["T6_S03"] == m
