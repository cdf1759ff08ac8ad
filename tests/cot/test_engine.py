"""The cot engine end to end: verdicts, codes (each firing and a near-miss), locations, inputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cotaudit import api
from cotaudit.cot import Check, Replay, register_replayer
from cotaudit.cot.replay import unregister_replayer
from cotaudit.report import Report

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "cot"


def run(text: str, **options: object) -> Report:
    return api.check(text, "cot", **options)


def codes(report: Report) -> list[str]:
    return [f.code for f in report.findings]


def test_clean_chain_passes_with_coverage() -> None:
    r = run((EXAMPLES / "bakery.txt").read_text())
    assert r.verdict == "pass"
    assert r.details["coverage"] == {"checked": 4, "steps": 4}  # the answer line ends step 4
    assert [s["status"] for s in r.details["steps"]] == ["verified"] * 4
    assert "COT_I001" in codes(r) and "COT_E001" not in codes(r)


def test_slip_fails_at_its_line_and_column() -> None:
    text = (EXAMPLES / "bakery_slip.txt").read_text()
    r = run(text, path="bakery_slip.txt")
    [f] = [f for f in r.findings if f.code == "COT_E001"]
    assert r.verdict == "fail" and r.details["first_wrong_step"] == 2
    assert f.location.line == 3 and f.location.step == "2"
    assert f.evidence["column"] == text.split("\n")[2].index("36 - 7") + 1
    assert (f.evidence["computed"], f.evidence["claimed"]) == ("29", "28")
    assert r.details["steps"][3]["status"] == "verified"  # judged on its own numbers


def test_nothing_checkable_abstains() -> None:
    r = run("First we think about the problem.\nThen we conclude it is large.\n")
    assert r.verdict == "abstain" and r.details["coverage"]["checked"] == 0


def test_gold_answer_match_and_contradiction() -> None:
    text = (EXAMPLES / "bakery.txt").read_text()
    record = {"steps": text.strip().split("\n"), "gold": "72.5"}
    ok = run(json.dumps(record))
    assert ok.verdict == "pass" and "COT_I002" in codes(ok)
    bad = run(json.dumps({**record, "gold": "$80"}))
    assert bad.verdict == "fail" and "COT_E003" in codes(bad)
    assert bad.details["first_wrong_step"] is None  # the steps themselves hold


def test_answer_not_found_or_not_compared_abstains() -> None:
    no_letter = run(json.dumps({"steps": ["3 + 4 = 7"], "gold": "(B)"}))
    assert "COT_W004" in codes(no_letter) and no_letter.verdict == "abstain"
    none = run(json.dumps({"steps": ["3 + 4 = 7", "   "], "gold": "7"}))
    assert "COT_W003" in codes(none) and none.verdict == "abstain"
    found = run(json.dumps({"steps": ["3 + 4 = 7", "So 7."], "gold": "7"}))
    assert found.verdict == "pass" and not {"COT_W003", "COT_W004"} & set(codes(found))


def test_choice_answers() -> None:
    base = {"steps": ["2 + 2 = 4", "So the answer is (C)"]}
    assert run(json.dumps({**base, "target": "(C)"})).verdict == "pass"
    assert run(json.dumps({**base, "target": "(A)"})).verdict == "fail"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{not json", "not a JSON record"),
        ("[1, 2]", "JSON list"),
        ('{"steps": "a"}', "list of strings"),
        ('{"steps": []}', "empty"),
        ("abc\x00def", "binary"),
        ("   \n  ", "empty chain"),
    ],
)
def test_bad_input_is_invalid_with_a_reason(text: str, why: str) -> None:
    r = run(text)
    assert r.verdict == "invalid" and codes(r) == ["COT_E004"] and why in r.details["error"]


def test_cot_json_path_is_a_record() -> None:
    r = run('{"steps": ["2 + 3 = 5"]}', path="x.cot.json")
    assert r.verdict == "pass" and r.details["segmentation"] == "record"


def test_size_limits_warn_and_stay_bounded() -> None:
    long_step = "Step 1: " + "word " * 5000 + "2 + 2 = 4\nStep 2: 3 + 3 = 6\n"
    r = run(long_step)
    assert "COT_W001" in codes(r) and r.verdict == "pass"


@pytest.mark.parametrize(
    "text",
    [
        "So 10**10**10 = 7 and 2 + 2 = 4.",
        "x" * (1 << 20) + " 2 + 2 = 4",
        "(" * 5000 + "1" + ")" * 5000 + " = 1",
        "{" * 5000 + r"\frac{1}{2}" + "}" * 5000 + " = 0.5",
        "\ud800 2 + 2 = 4 \udfff",
        "".join(chr(c) for c in range(1, 2000)),
    ],
)
def test_hostile_text_gives_a_bounded_report(text: str) -> None:
    r = run(text)
    assert r.verdict in ("pass", "fail", "abstain", "invalid")


@pytest.mark.parametrize(
    ("record", "why"),
    [
        ('{"steps": ["2 + 2 = 4"], "meta": ' + "7" * 5000 + "}", "5000 characters"),
        ('{"steps": ["2 + 2 = 4"], "x": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested"),
        ('{"steps": ["2 + 2 = 4"], "score": NaN}', "NaN"),
    ],
)
def test_hostile_records_are_a_diagnostic(record: str, why: str) -> None:
    # found by the fuzzer: a 5,000-digit integer raised ValueError out of json.loads (an
    # internal error); deep nesting and NaN are the same class (the JSON decoder's own limits)
    r = run(record, path="x.cot.json")
    assert r.verdict == "invalid" and codes(r) == ["COT_E004"] and why in r.findings[0].message


def test_a_long_number_within_the_bound_is_read() -> None:  # near miss of the above
    r = run('{"steps": ["2 + 2 = 4"], "meta": ' + "7" * 900 + "}", path="x.cot.json")
    assert r.verdict == "pass"
    json.dumps(r.to_dict())


def test_unevaluated_claim_is_a_warning_not_a_verdict() -> None:
    r = run("Then 10**10**10 = 7.")
    assert "COT_W002" in codes(r) and r.verdict == "abstain"


def test_rounding_and_doubt_are_info() -> None:
    assert "COT_I003" in codes(run("100/3 = 33.33"))
    assert "COT_I004" in codes(run("10/3 = 3"))
    assert run("10/3 = 3").verdict == "abstain"


def test_reports_are_deterministic() -> None:
    text = (EXAMPLES / "bakery_slip.txt").read_text()
    a = run(text).to_dict(timing=False)
    b = run(text).to_dict(timing=False)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def test_user_replayer_is_used() -> None:
    class Countdown:
        name = "countdown"

        def recognises(self, problem: str, steps: object) -> bool:
            return problem.startswith("Count down from")

        def replay(self, problem: str, steps: list[str]) -> Replay:
            checks = []
            expected = int(problem.split()[3])
            for i, step in enumerate(steps):
                if step.strip().isdigit():
                    checks.append(Check(i, int(step) == expected, "count", step, str(expected)))
                    expected = int(step) - 1
            return Replay(checks)

    register_replayer(Countdown())
    try:
        good = run(json.dumps({"problem": "Count down from 3", "steps": ["3", "2", "1"]}))
        bad = run(json.dumps({"problem": "Count down from 3", "steps": ["3", "1", "0"]}))
    finally:
        unregister_replayer("countdown")
    assert good.verdict == "pass" and good.details["task"] == "countdown"
    assert bad.verdict == "fail" and bad.details["first_wrong_step"] == 1 and "COT_E002" in codes(bad)


def test_unknown_task_is_invalid() -> None:
    r = run(json.dumps({"steps": ["1 + 1 = 2"], "task": "no-such-task"}))
    assert r.verdict == "invalid" and "unknown task" in r.details["error"]


def test_txt_maps_to_cot_and_md_needs_engine() -> None:
    assert api.engine_for_path("chain.txt") == "cot"
    assert api.engine_for_path("x.cot.json") == "cot"
    assert api.engine_for_path("README.md") is None


def test_step_rewards_beside_the_trace_reward() -> None:
    from cotaudit.rewards import step_rewards

    per_step, trace = step_rewards((EXAMPLES / "bakery_slip.txt").read_text())
    assert per_step == [1.0, 1.0, 0.0, 1.0] and trace == 0.0
    per_step, trace = step_rewards((EXAMPLES / "bakery.txt").read_text())
    assert per_step == [1.0] * 4 and trace == 1.0
    # nothing checkable: every step unchecked (0.5), and the trace could not be checked (None)
    assert step_rewards("Just words.\nMore words.") == ([0.5, 0.5], None)


def test_html_marks_each_step(tmp_path: Path) -> None:
    from cotaudit.report.html import render_html

    text = (EXAMPLES / "bakery_slip.txt").read_text()
    page = render_html([run(text)], sources=[text], timing=False)
    assert page.count('class="step-ok') == 3 and 'class="sev-error flagged-step"' in page
    assert ">wrong</td>" in page and ">verified</td>" in page
