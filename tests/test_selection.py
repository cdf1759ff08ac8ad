"""Rule selection (issue 18): selectors, ruff's precedence, and one verdict rule for every engine."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from cotaudit.errors import UsageError
from cotaudit.report import Finding, Location, Report
from cotaudit.selection import ALL, Selection, apply_selection, check_selector, exceeds, fails, ignored_counts


def test_selectors_are_codes_prefixes_or_all() -> None:
    assert check_selector("te_e006") == "TE_E006"
    assert check_selector("TE_E0") == "TE_E0"
    assert check_selector("T6_W") == "T6_W"
    assert check_selector("all") == ALL
    with pytest.raises(UsageError, match=r"unknown code or prefix 'TE_E999'.*did you mean"):
        check_selector("TE_E999")
    with pytest.raises(UsageError, match="unknown code or prefix"):
        check_selector("")


@pytest.mark.parametrize(
    ("select", "extend", "ignore", "code", "enabled"),
    [
        (None, (), (), "TE_E006", True),  # default: everything
        (["TE_E0"], (), (), "TE_E006", True),
        (["TE_E0"], (), (), "TE_W001", False),  # near miss: outside the prefix
        (["TE_E0"], ["TE_W"], (), "TE_W001", True),  # extend-select adds
        (None, (), ["TE_E0"], "TE_E006", False),
        (None, (), ["TE_E0"], "TE_W001", True),  # near miss: outside the ignored prefix
        (["TE"], (), ["TE_E"], "TE_E006", False),  # the more specific selector wins
        (["TE_E006"], (), ["TE_E"], "TE_E006", True),  # ... in both directions
        (["TE_E006"], (), ["TE_E006"], "TE_E006", False),  # a tie goes to ignore (ruff)
        (["T6"], (), (), "TE_E006", False),
    ],
)
def test_precedence(
    select: list[str] | None, extend: list[str], ignore: list[str], code: str, enabled: bool
) -> None:
    assert Selection.of(select, extend, ignore).enabled(code) is enabled


def test_codes_outside_the_table_follow_the_same_rule() -> None:
    assert Selection.of(None, (), ["TE"]).enabled("FAKE_E001")  # a plug-in engine's own code, under ALL
    assert not Selection.of(["TE"]).enabled("FAKE_E001")  # near miss: an explicit select leaves it out


def _report(make_report: Callable[..., Report], verdict: str, *findings: tuple[str, str]) -> Report:
    return make_report(
        verdict=verdict,
        findings=tuple(Finding(code, sev, Location(line=1), "m", {}) for code, sev in findings),  # type: ignore[arg-type]
    )


def test_a_deselected_error_does_not_fail_the_item(make_report: Callable[..., Report]) -> None:
    report = _report(make_report, "fail", ("TE_E006", "error"), ("TE_W001", "warning"))
    out = apply_selection(report, Selection.of(None, (), ["TE_E006"]))
    assert out.verdict == "pass"
    assert [f.code for f in out.findings] == ["TE_W001"]
    assert out.details["selection"] == {"ignored": {"TE_E006": 1}, "verdict_before": "fail"}
    assert out.details["verdict"] == report.details.get("verdict")  # the engine's own word is kept
    # near miss: another selected error still fails it
    two = _report(make_report, "fail", ("TE_E006", "error"), ("TE_E007", "error"))
    assert apply_selection(two, Selection.of(None, (), ["TE_E006"])).verdict == "fail"


def test_a_remaining_abstention_makes_it_abstain_never_pass(make_report: Callable[..., Report]) -> None:
    report = _report(make_report, "fail", ("VC_E002", "error"), ("VC_W001", "warning"))
    assert apply_selection(report, Selection.of(None, (), ["VC_E"])).verdict == "abstain"


@pytest.mark.parametrize("verdict", ["abstain", "invalid", "pass"])
def test_other_verdicts_never_change(make_report: Callable[..., Report], verdict: str) -> None:
    report = _report(make_report, verdict, ("COTAUDIT_W001", "warning"), ("T6_E001", "error"))
    out = apply_selection(report, Selection.of(None, (), ["COTAUDIT", "T6"]))
    assert out.verdict == verdict and out.findings == ()
    assert "verdict_before" not in out.details["selection"]


def test_nothing_hidden_leaves_the_report_alone(make_report: Callable[..., Report]) -> None:
    report = _report(make_report, "fail", ("TE_E006", "error"))
    assert apply_selection(report, Selection.of(["TE"])) is report


def test_fail_on(make_report: Callable[..., Report]) -> None:
    warned = _report(make_report, "pass", ("TE_W001", "warning"))
    clean = _report(make_report, "pass")
    assert not exceeds([warned, clean], "error")
    assert exceeds([warned, clean], "warning")
    assert not exceeds([clean], "warning")  # near miss: no warning at all
    assert exceeds([_report(make_report, "abstain")], "error")


def test_fails_is_fail_on_for_one_item_from_its_verdict_and_warnings() -> None:
    assert not fails("pass", 2, "error") and fails("pass", 2, "warning")
    assert not fails("pass", 0, "warning")  # near miss: no warning
    assert all(fails(v, 0, "error") for v in ("fail", "abstain", "invalid"))


def test_normalized_sorts_and_drops_repeats_only() -> None:
    selection = Selection.of(["TE", "T6"], ["VC_W", "VC_W"], ["TE_W001", "TE_E006", "TE_W001"])
    normal = selection.normalized()
    assert normal == Selection(("T6", "TE"), ("VC_W",), ("TE_E006", "TE_W001"))
    assert normal.normalized() == normal and Selection().normalized().is_default
    assert all(
        selection.enabled(c) == normal.enabled(c) for c in ("TE_E006", "TE_W001", "TE_E007", "VC_W001")
    )


def test_ignored_counts(make_report: Callable[..., Report]) -> None:
    selection = Selection.of(None, (), ["TE_E006"])
    reports = [
        apply_selection(_report(make_report, "fail", ("TE_E006", "error")), selection) for _ in range(3)
    ]
    assert ignored_counts(reports) == {"TE_E006": 3}
