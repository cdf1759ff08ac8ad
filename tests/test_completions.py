"""cotaudit.completions: the one place that finds a trace in what a model wrote."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cotaudit import api, cli
from cotaudit.completions import after_reasoning, completion_text, find_trace, parse_messages

ROOT = Path(__file__).resolve().parents[1]
GOOD = (
    "GIVEN:\n  total := 16\n  eaten := 3\n  baked := 4\n  price := 2 [USD]\nGOAL: revenue [USD]\n"
    "STEP[s1]: subtract the eggs used (from total, eaten, baked)\n"
    "EQ[e1]: sold = total - eaten - baked = 9\nCHECK[c1]: arith: e1.value == 9\n"
    "EQ[e2]: revenue = sold * price = 18 [USD]\nANS: revenue [USD]\n"
)
WRONG = GOOD.replace("= 9\n", "= 8\n", 1)
VERICOT = (ROOT / "examples" / "vericot" / "A_sara_valid.vcot.json").read_text(encoding="utf-8")


def test_messages_give_the_last_assistant_text() -> None:
    chat = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "GIVEN: in the question"},
        {
            "role": "assistant",
            "content": [{"type": "thinking", "thinking": "hm"}, {"type": "text", "text": GOOD}],
        },
        {"role": "user", "content": "thanks"},
    ]
    assert completion_text(chat) == GOOD
    assert completion_text([{"role": "user", "content": "only"}]) == "only"  # no assistant: the last
    assert completion_text({"role": "assistant", "content": "one"}) == "one"
    assert completion_text(None) == "" and completion_text([]) == "[]"


def test_a_trace_in_prose_a_fence_or_after_think_keeps_its_line_numbers() -> None:
    cases = {
        "prose": ("Sure! Here it is:\n" + GOOD + "So she makes $18.\n", 1),
        "fence": ("Here is the trace.\n\n```te\n" + GOOD + "```\nDone.", 3),
        "think": ("<think>\n16 - 3 - 4 = 9, 9 * 2 = 18\n</think>\n" + GOOD, 3),
        "think-inline": ("<think>draft</think>" + GOOD, 0),
        "thinking-tag": ("<thinking>\nx\n</thinking>\n\n" + GOOD, 4),
    }
    for name, (text, offset) in cases.items():
        found = find_trace(text, "te")
        assert found.found and found.how == "span", name
        assert found.text == GOOD, name
        assert found.line_offset == offset, name
        # line n of the trace is line n + offset of the completion
        assert text.split("\n")[found.line_offset + 7] == "EQ[e1]: sold = total - eaten - baked = 9", name


def test_the_answer_after_the_reasoning_wins_over_a_draft_inside_it() -> None:
    text = "<think>\n" + WRONG + "</think>\n" + GOOD
    found = find_trace(text, "te")
    assert found.text == GOOD and found.line_offset == WRONG.count("\n") + 2
    # a trace only inside the reasoning still counts (near miss: no trace anywhere)
    inside = find_trace("<think>\n" + GOOD + "</think>\nThe answer is 18.", "te")
    assert inside.found and inside.text == GOOD and inside.line_offset == 1
    assert not find_trace("<think>\nhmm\n</think>\nThe answer is 18.", "te").found
    assert after_reasoning("no tags") is None


def test_no_given_line_is_no_trace() -> None:
    prose = find_trace("Janet makes 16 - 3 - 4 = 9 eggs, so $18.", "te")
    assert not prose.found and prose.how == "none"
    assert find_trace("GIVEN:\n  a := 1\n", "te").found  # a GIVEN line is a trace, even a broken one


def test_vericot_json_in_a_fence_or_in_prose() -> None:
    fenced = find_trace("Here:\n```json\n" + VERICOT + "```\n", "vericot")
    assert fenced.found and fenced.how == "fence" and json.loads(fenced.text) == json.loads(VERICOT)
    bare = find_trace("<think>x</think>The trace: " + VERICOT.strip() + " -- done", "vericot")
    assert bare.found and bare.how == "json"
    assert json.loads(bare.text) == json.loads(VERICOT)
    assert not find_trace("no json here", "vericot").found


def test_cot_keeps_the_reasoning_and_blanks_only_the_tags() -> None:
    text = "<think>\nStep 1: 3 + 4 = 7.\n</think>\nThe answer is 7."
    found = find_trace(text, "cot")
    assert found.found and "3 + 4 = 7" in found.text and "<think>" not in found.text
    assert len(found.text) == len(text)  # columns stay put
    assert api.check(found.text, "cot").verdict == "pass"
    assert not find_trace("  \n", "cot").found


def test_other_engines_take_the_first_fence_or_the_text() -> None:
    t6 = (ROOT / "examples" / "type6" / "memories.t6").read_text(encoding="utf-8")
    assert find_trace("```\n" + t6 + "```\n", "type6").text == t6
    assert find_trace(t6, "type6").text == t6
    assert find_trace("```\nunclosed", "type6").how == "whole"


def test_parse_messages_reads_a_json_transcript_and_leaves_text_alone() -> None:
    chat = [{"role": "assistant", "content": GOOD}]
    assert parse_messages(json.dumps(chat)) == chat
    assert parse_messages(json.dumps({"messages": chat})) == chat
    assert parse_messages(json.dumps(chat[0])) == chat
    assert parse_messages(GOOD) == GOOD
    assert parse_messages('{"not": "messages"}') == '{"not": "messages"}'
    assert parse_messages("[broken") == "[broken"


def test_te_extract_is_the_same_extraction(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = tmp_path / "raw.txt"
    raw.write_text("<think>\nscratch\n</think>\nHere:\n```\n" + GOOD + "```\n", encoding="utf-8")
    assert cli.main(["te", "extract", str(raw)]) == 0
    captured = capsys.readouterr()
    assert captured.out == find_trace(raw.read_text(), "te").text == GOOD
    assert "line 6" in captured.err
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([{"role": "user", "content": "q"}, {"role": "assistant", "content": GOOD}]))
    assert cli.main(["te", "extract", str(chat)]) == 0
    assert capsys.readouterr().out == GOOD
    prose = tmp_path / "prose.txt"
    prose.write_text("The answer is 18.\n", encoding="utf-8")
    assert cli.main(["te", "extract", str(prose)]) == 1
    assert "no TE trace found" in capsys.readouterr().err
