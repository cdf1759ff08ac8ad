"""Task inputs and steps in shapes the visible files do not use (issue: freshly generated data).

Each defect class has a firing test (a correct trace in another shape is not a finding, and a
real mistake in that shape still is) and a near-miss (the same shape, one thing changed, that
must not be read the same way). The items are written here for the tests.
"""

from __future__ import annotations

import json
import random
import time

import pytest
from tests.cot.fresh.gen import GENERATORS

from cotaudit.cot.engine import audit
from cotaudit.cot.replay import deduction, dyck, multistep, shuffle, wordsort
from cotaudit.cot.replay.ordering import parse_puzzle
from cotaudit.cot.replay.shape import payload, unmark


def bad(r: object) -> list[tuple[int, str]]:
    return [(c.step, c.what) for c in r.checks if not c.ok]  # type: ignore[attr-defined]


def verdict(record: dict[str, object]) -> dict[str, object]:
    return audit(json.dumps(record), record=True)


# ----------------------------------------------------------------------------- shape helpers


def test_payload_takes_the_labelled_part_with_the_tasks_form() -> None:
    brackets = dyck._dyck_input
    assert payload("[ ( < >", brackets) == "[ ( < >"
    assert payload("Complete the sequence. Input: [ ( < >", brackets) == "[ ( < >"
    assert payload("Q: Close these.\nSequence: { [\nA:", brackets) == "{ ["
    # near miss: a label whose text is not all brackets is not the input
    assert payload("Input: [ ( then stop", brackets) is None


def test_unmark_blanks_list_markers_and_keeps_offsets() -> None:
    for text, rest in [("1: [ ; stack: [", "[ ; stack: ["), ("2) The owl", "The owl"), ("- x", "x")]:
        out = unmark(text)
        assert len(out) == len(text) and out.strip() == rest
    # near misses: a number and a closing symbol are not markers
    assert unmark("12.5 = 3") == "12.5 = 3"
    assert unmark("> ; stack: [") == "> ; stack: ["
    assert unmark(") ; stack: [") == ") ; stack: ["


# ----------------------------------------------------------------------------- Dyck

INSTRUCTION = (
    "Complete the rest of the sequence, making sure that the parentheses are closed properly. Input: "
)
NUMBERED = [
    "We should process each input one by one and keep track of the stack configuration.",
    "0: empty stack",
    "1: [ ; stack: [",
    "2: ( ; stack: [ (",
    "3: < ; stack: [ ( <",
    "4: > ; stack: [ (",
    'Now, we have reached the end. The final stack is "[ (".',
    'We will need to pop out "(", "[" one by one in that order.',
    "So, we need ) ]. So the answer is ) ]",
]


def test_dyck_input_with_its_instruction_is_read() -> None:
    r = dyck.REPLAYER.replay(INSTRUCTION + "[ ( < >", NUMBERED)
    assert bad(r) == [] and len(r.checks) == 8  # 4 stacks, final stack, pops, closers, answer
    assert dyck.REPLAYER.recognises(INSTRUCTION + "[ ( < >", NUMBERED)


def test_dyck_numbered_steps_are_read_and_a_wrong_stack_still_caught() -> None:
    wrong = [*NUMBERED[:4], "3: < ; stack: [ <", *NUMBERED[5:]]
    assert bad(dyck.REPLAYER.replay("[ ( < >", wrong)) == [(4, "the stack after <")]
    arrows = ["start -> empty", "[ -> [", "( -> [ (", "< -> [ ( <", "> -> [ (", "Final stack: [ (."]
    assert bad(dyck.REPLAYER.replay("[ ( < >", arrows)) == []


def test_dyck_unread_symbol_steps_lose_the_count_not_a_finding() -> None:
    """Defect: unread symbol steps left the count at 0 and "reached the end" became a finding."""
    prose = [
        "Push [ first.",
        "Then push ( and < on top.",
        "The > closes the < .",
        'Now, we have reached the end. The final stack is "[ (".',
        "So the answer is ) ]",
    ]
    r = dyck.REPLAYER.replay("[ ( < >", prose)
    assert bad(r) == [] and any("lost" in n for n in r.notes)
    # the closing statements are still judged against the stack the whole input leaves
    wrong = [*prose[:3], 'Now, we have reached the end. The final stack is "[ <".', prose[4]]
    assert bad(dyck.REPLAYER.replay("[ ( < >", wrong)) == [(3, "the final stack")]


def test_dyck_end_reached_early_is_still_a_finding_when_the_count_is_intact() -> None:
    """Near miss: symbol steps read, one symbol left, "reached the end": a finding as before."""
    early = [
        "[ ; stack: [",
        "( ; stack: [ (",
        "< ; stack: [ ( <",
        'Now, we have reached the end. The final stack is "[ ( <".',
    ]
    assert bad(dyck.REPLAYER.replay("[ ( < >", early)) == [(3, "reached the end of the input")]


def test_dyck_prose_symbol_naming_another_symbol_is_not_read_as_a_skip() -> None:
    steps = [
        "[ ; stack: [",
        "We see ( so the stack: [ (",
        "The top ( is matched; stack: [",
        "So the answer is ]",
    ]
    assert bad(dyck.REPLAYER.replay("[ ( )", steps)) == []
    # near miss: the bare form naming the wrong symbol is a skipped symbol
    skip = ["[ ; stack: [", ") ; stack: ["]
    assert bad(dyck.REPLAYER.replay("[ ( )", skip)) == [(1, "the next input symbol")]


def test_dyck_python_list_stacks_are_read_by_their_quotes() -> None:
    """A list's own brackets are not stack symbols: ``['[', '(']`` is the stack ``[ (``."""
    steps = ["stack = []", "[ -> stack = ['[']", "( -> stack = ['[', '(']", ") -> stack = ['[']"]
    r = dyck.REPLAYER.replay("[ ( )", steps)
    assert bad(r) == [] and len(r.checks) == 4
    # near miss: unquoted, a closer written into the stack is a wrong stack (BBM's own mistakes)
    assert bad(dyck.REPLAYER.replay("[ ( )", ["[ ; stack: [", "( ; stack: [ ( )"])) == [
        (1, "the stack after (")
    ]


def test_dyck_seed_record_is_not_a_false_alarm() -> None:
    record = {"input": INSTRUCTION + "[ ( < >", "task": "dyck_languages", "steps": NUMBERED, "target": ") ]"}
    assert verdict(record)["verdict"] == "pass"


# ----------------------------------------------------------------------------- word sorting

WS_IN = "plum apricot mango cherry"
WS = [
    'The first letter: "plum": "p" (16). "apricot": "a" (1). "mango": "m" (13). "cherry": "c" (3).',
    'We now have: (1) "apricot" < (3) "cherry" < (13) "mango" < (16) "plum".',
    "I have now sorted all the words. The answer is apricot cherry mango plum",
]


def test_wordsort_input_with_its_instruction_is_read() -> None:
    problem = "Sort the following words alphabetically: List: " + WS_IN
    r = wordsort.REPLAYER.replay(problem, WS)
    assert bad(r) == [] and len(r.checks) >= 6 and wordsort.REPLAYER.recognises(problem, WS)
    # and a swapped answer is still caught in that shape
    swapped = [*WS[:2], "The answer is apricot mango cherry plum"]
    assert bad(wordsort.REPLAYER.replay(problem, swapped)) == [(2, "the answer: the words sorted")]


@pytest.mark.parametrize(
    "answer",
    [
        "The answer is **apricot cherry mango plum**",
        "The answer is: apricot, cherry, mango, plum.",
        'The answer is "apricot" "cherry" "mango" "plum". I hope this helps.',
        "The answer is apricot cherry mango plum.\nThat is the sorted list.",
    ],
)
def test_wordsort_answer_is_read_past_marks_and_trailing_prose(answer: str) -> None:
    r = wordsort.REPLAYER.replay(WS_IN, [*WS[:2], answer])
    assert bad(r) == [] and any(c.what.startswith("the answer") for c in r.checks)


def test_wordsort_answer_with_a_token_that_is_no_word_is_not_judged() -> None:
    r = wordsort.REPLAYER.replay(WS_IN, [*WS[:2], "The answer is [apricot, cherry, mango, plum] (4 words)"])
    assert bad(r) == [] and not any(c.what.startswith("the answer") for c in r.checks)
    # near miss: a plain word that is not in the list is a finding
    r = wordsort.REPLAYER.replay(WS_IN, [*WS[:2], "The answer is apricot cherry mango peach plum"])
    assert bad(r) == [(2, "the answer: the words sorted")]


def test_wordsort_other_quotes_are_not_read_as_missing_words() -> None:
    single = [WS[0], "We now have: (1) 'apricot' < (3) 'cherry' < (13) 'mango' < (16) 'plum'.",
              "Hence, we have 'apricot' < 'cherry' < 'mango' < 'plum'."]  # fmt: skip
    assert bad(wordsort.REPLAYER.replay(WS_IN, single)) == []
    # near miss: the same buckets in double quotes with one word lost are a finding
    lost = [WS[0], 'We now have: (1) "apricot" < (3) "cherry" < (16) "plum".']
    assert bad(wordsort.REPLAYER.replay(WS_IN, lost)) == [(1, "the words in the buckets")]


SUB_IN = "bhutan bareback amoeba cohn colza"
SUB = [
    'The first letter: "bhutan": "b" (2). "bareback": "b" (2). "amoeba": "a" (1). "cohn": "c" (3). "colza": "c" (3).',
    'We now have: (1) "amoeba" < (2) ["bhutan" ? "bareback"] < (3) ["cohn" ? "colza"].',
    'Now let\'s sort this subpart ["bhutan" ? "bareback"] by looking at their second letters. '
    'The second letter: "bhutan": "h" (8). "bareback": "a" (1).',
]


def test_wordsort_next_sublist_not_judged_on_a_stale_ordering() -> None:
    """The sub-list's result written in a notation not read: the ordering is stale, so the next
    sub-list named is not compared with it."""
    unread = "So that part is bareback, then bhutan."
    nxt = 'Now let\'s sort this subpart ["cohn" ? "colza"] by looking at their third letters.'
    assert bad(wordsort.REPLAYER.replay(SUB_IN, [*SUB, unread, nxt])) == []
    # near miss: with the result read, naming the sorted bucket again is a finding
    read = 'We now have: (1) "bareback" < (8) "bhutan" for the subpart.'
    again = 'Now let\'s sort this subpart ["bhutan" ? "bareback"] by looking at their second letters.'
    assert bad(wordsort.REPLAYER.replay(SUB_IN, [*SUB, read, again])) == [
        (4, "the next sub-list to sort (the first unresolved bucket)")
    ]


# ----------------------------------------------------------------------------- shuffled objects

SH_IN = (
    "Alice, Bob, and Claire are playing a game. At the start of the game, they are each holding a ball: "
    "Alice has a red ball, Bob has a teal ball, and Claire has a olive ball.\nAs the game progresses, "
    "pairs of players trade balls. First, Alice and Bob swap balls. Then, Bob and Claire swap balls. "
    "Finally, Alice and Claire swap balls. At the end of the game, Bob has the\nOptions:\n(A) red ball\n"
    "(B) teal ball\n(C) olive ball"
)
# after the swaps: Alice teal/red/…: (A,B) -> A teal, B red; (B,C) -> B olive, C red; (A,C) -> A red, C teal


def test_shuffle_problem_with_a_q_label_is_read() -> None:
    steps = ["Alice and Bob swap balls: Alice: teal, Bob: red, Claire: olive.", "So the answer is (C)"]
    r = shuffle.REPLAYER.replay("Q: " + SH_IN, steps)
    assert bad(r) == [] and len(r.checks) >= 4


def test_shuffle_unread_swaps_lose_track_instead_of_judging_a_stale_state() -> None:
    """Defect: swaps in a notation not read left the start state, and the end was judged on it."""
    steps = [
        "- Alice ↔ Bob → Alice = teal, Bob = red, Claire = olive",
        "- Bob ↔ Claire → Alice = teal, Bob = olive, Claire = red",
        "- Alice ↔ Claire → Alice = red, Bob = olive, Claire = teal",
        "At the end of the game, Bob has olive. So the answer is (C)",
    ]
    r = shuffle.REPLAYER.replay(SH_IN, steps)
    assert bad(r) == [] and any("not judged" in n for n in r.notes)
    # the answer is still judged, against the end of the story
    wrong = [*steps[:3], "At the end of the game, Bob has olive. So the answer is (B)"]
    assert bad(shuffle.REPLAYER.replay(SH_IN, wrong)) == [(3, "the answer: what Bob holds at the end")]


def test_shuffle_one_person_in_prose_does_not_lose_track() -> None:
    """Near miss: a step naming one person (BBM's prose style) keeps the count; a wrong holder after
    a swap is still a finding."""
    steps = ["Alice has red ball.", "Alice and Bob swap balls, Alice has red ball."]
    assert bad(shuffle.REPLAYER.replay(SH_IN, steps)) == [(1, "what Alice holds")]


# ----------------------------------------------------------------------------- logical deduction

LD_BBM = (
    "The following statements each describe a set of three objects arranged in a fixed order. "
    "The statements are logically consistent.\n- On a branch, there are three birds: an owl, a crow, and a robin.\n"
    "- The owl is the leftmost.\n- The crow is to the left of the robin.\n"
    "Q: Given the above statements, which of the following is correct?\nOptions:\n"
    "(A) The owl is the second from the left.\n(B) The crow is the second from the left.\n"
    "(C) The robin is the second from the left."
)
LD_BIGBENCH = (
    "The following paragraphs each describe a set of three objects arranged in a fixed order. The statements "
    "are logically consistent within each paragraph. On a branch, there are three birds: an owl, a crow, and "
    "a robin. The owl is the leftmost. The crow is to the left of the robin.\nOptions:\n"
    "(A) The owl is the second from the left\n(B) The crow is the second from the left\n"
    "(C) The robin is the second from the left"
)


def test_deduction_bigbench_paragraph_is_read_like_the_bullets() -> None:
    a, b = parse_puzzle(LD_BBM), parse_puzzle(LD_BIGBENCH)
    assert a is not None and b is not None
    assert [f for _, f in a.statements] == [f for _, f in b.statements] and a.options == b.options
    # near miss: a sentence of the paragraph that is not a statement leaves the puzzle unread
    assert parse_puzzle(LD_BIGBENCH.replace("The owl is the leftmost.", "The owl sings.")) is None


def test_deduction_numbered_steps_are_read() -> None:
    steps = ["1) The owl is the leftmost. So the owl is first.", "2) So the answer is (B)"]
    r = deduction.REPLAYER.replay(LD_BBM, steps)
    assert any(c.what == "a statement of the puzzle, stated" for c in r.checks)


def test_deduction_unread_restatement_does_not_make_its_consequence_wrong() -> None:
    """Defect: a restatement in a wording not read left its statement out of "stated so far", and
    what follows from it was reported as not following."""
    steps = ["We are told the owl sits at the far left end.", "So from left to right: first is the owl."]
    r = deduction.REPLAYER.replay(LD_BBM, steps)
    assert bad(r) == []
    # near miss: the unread sentence names only the crow, so it cannot have restated where the owl is
    other = ["We are told the crow sits somewhere on the branch.", steps[1]]
    assert bad(deduction.REPLAYER.replay(LD_BBM, other)) == [
        (1, "a claim that must follow from the statements stated so far")
    ]


# ----------------------------------------------------------------------------- multistep arithmetic

MS = [
    'This equation can be written as "A + B", where A = (1 + 2) and B = (3 * 4).',
    "Let's calculate A = (1 + 2) = 3.",
    "Let's calculate B = (3 * 4) = 12.",
    "Then, the final equation is A + B = 3 + 12 = 15. So the answer is 15",
]


def test_multistep_expression_after_a_q_label_is_read() -> None:
    r = multistep.REPLAYER.replay("Q: ((1 + 2) + (3 * 4)) =", MS)
    assert [(c.what, c.ok) for c in r.checks] == [("the decomposition's value", True)]
    assert bad(multistep.REPLAYER.replay("Q: ((1 + 2) - (3 * 4)) =", MS)) == [
        (0, "the decomposition's value")
    ]
    # near miss: a sentence before the colon is a word problem, not the task's input
    assert not multistep.REPLAYER.recognises("Evaluate the sum below: 2 + 3 =", MS)


# ----------------------------------------------------------------------------- fresh data


@pytest.mark.parametrize("task", sorted(GENERATORS))
def test_fresh_correct_traces_are_never_a_failure(task: str) -> None:
    """A few generated correct traces per style and phrasing: never ``fail``."""
    fn, styles, phrasings = GENERATORS[task]
    for style in styles:
        for phrasing in phrasings:
            rng = random.Random(f"test/{task}/{style}/{phrasing}")
            item = fn(rng, style, phrasing, False)
            if item.task == "arithmetic":
                got = audit("\n".join(item.steps), record=False)
            else:
                got = verdict(item.record())
            assert got["verdict"] != "fail", (style, phrasing, item.steps)


# ----------------------------------------------------------------------------- linear time

MIB = 1 << 20


@pytest.mark.parametrize("filler", [" ", "(", "stack ", "1: ", "->", "final stack: ", "Input: ", "- "])
def test_new_readers_are_linear_on_long_lines(filler: str) -> None:
    line = (filler * (MIB // len(filler)))[:MIB] + "x"
    start = time.perf_counter()
    unmark(line)
    payload(line, dyck._dyck_input)
    dyck._symbol_step(line)
    dyck._final(line)
    dyck._claimed_stack(line)
    dyck._content(line, 0)
    dyck._tokens(line[:65536])
    dyck.REPLAYER.replay("[ ( )", [line[:200_000]])
    wordsort._said(line)
    wordsort._now("We now have: " + line)
    wordsort._hence("hence we have " + line)
    wordsort._groups_read(line)
    wordsort.REPLAYER.replay("kiwi fig", [line[:200_000]])
    shuffle.REPLAYER.replay(SH_IN, [line[:200_000]])
    shuffle._PEOPLE.search(line)
    parse_puzzle(LD_BIGBENCH.replace("The owl is the leftmost.", line[:200_000]))
    deduction.REPLAYER.replay(LD_BBM, [line[:20_000]])
    assert time.perf_counter() - start < 60
