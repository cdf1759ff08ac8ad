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


# -- issue 14: the caller's budget, lone surrogates, linear parsing ---------------------------

BUSY = [
    "T q : Q",
    "T p1 : x",
    "T THEN p2 : y",
    "T THEN p3 : z",
    "T K p4 : w",
    "Uk R : back",
    "T p1 : x2",
    "F K p3 : flip",
    "T B p3 : again",
    *(["T p5 : y", "T p1 : x"] * 40),
    "T THEN a : A",
]


def test_every_long_loop_calls_the_budget_checkpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    """cotaudit.limits stops an engine only where it looks: parsing, the sequential pass,
    back-propagation, the Y-46 upstream search, both path searches, projection, cross-path
    signals, the coherence report and each listing must all call ``checkpoint``."""
    import sys

    import cotaudit.limits

    seen: set[str] = set()
    monkeypatch.setattr(cotaudit.limits, "checkpoint", lambda: seen.add(sys._getframe(1).f_code.co_name))
    r = type6.verify("\n".join(BUSY), type6.Config(max_expansions=20_000, max_walk_steps=20_000))
    assert r.summary["paths"]["mode"] == "sampled"  # both searches ran
    cut = type6.verify("\n".join(BUSY), type6.Config(report_floor_bytes=0, report_bytes_per_input_byte=0))
    assert cut.document["truncated"]  # the listings that charge records one by one ran too
    assert seen >= {
        "parse_t6",
        "run_sequential",
        "backpropagate",
        "upstream_changed",
        "enumerate_paths",
        "sample_paths",
        "project",
        "cross_path",
        "coherence_report",
        "span",
        "_charged",
        "_prefix",
        "_paths",
    }


def test_a_tiny_api_budget_makes_a_big_trace_abstain() -> None:
    import cotaudit
    from cotaudit.limits import Limits

    text = "\n".join(BUSY * 50)
    report = cotaudit.check(text, engine="type6", limits=Limits(wall_s=1e-9))
    assert report.verdict == "abstain" and [f.code for f in report.findings] == ["COTAUDIT_W001"]
    # near miss: the default budget lets it finish with a verdict
    assert cotaudit.check(text, engine="type6").verdict in ("pass", "fail")


@pytest.mark.parametrize(
    "text",
    [
        "T \ud800 p0 : f",
        "T p\udfff : f",
        "\ud800 : x",
        "T q : \ud800\nT THEN a : \udc80\n",
        "#@ id: \ud800\n#@ k\udfff: v\ud800\nT q : x\nT K \ud800 : y\nT THEN a : z",
        '{"id": "\\ud800", "statements": ["T q : x", {"alpha": "T", "ops": ["\\ud800"], "prop": "a"}]}',
        '{"statements": [{"alpha": "\\udfff", "prop": "a"}]}',
        "T K\ud800NOT p1 : x\nT THEN a : y",
    ],
)
def test_lone_surrogates_give_diagnostics_not_exceptions(text: str) -> None:
    r = type6.verify(text)
    assert r.status in ("ok", "invalid")
    r.model_dump_json()
    type6.to_svg(r)
    report = type6.check(text)
    assert report.verdict in ("pass", "fail", "invalid") and "error" not in report.details


MIB = 1 << 20


@pytest.mark.parametrize(
    "line",
    [
        "T " + "a" * MIB + " : x",  # one huge proposition symbol
        "T " + "K " * (MIB // 2) + "p : x",  # far too many operator tokens
        "T " + " " * MIB + "p : x",  # a blank run before the proposition
        "T p " + " " * MIB,  # no colon after a blank run
        "T p : " + ":" * MIB,  # colons in the text
        "T " + "?" * MIB + " : x",  # a doubt suffix of a million question marks
        "\t" * MIB + "x",
    ],
)
def test_parse_line_is_linear_on_one_mebibyte(line: str) -> None:
    from cotaudit.type6.parse import Limits, parse_line

    start = time.perf_counter()
    parse_line(line, 1, Limits(max_line_chars=4 * MIB))
    type6.parse_t6(line + "\n" + line, limits=Limits(max_line_chars=4 * MIB))
    assert time.perf_counter() - start < 60  # linear: well under a second; a backstop only
