"""The BIG-bench task replayers: what each checks, which steps it reads in full, and a near-miss for
each behaviour. The items are written for the tests in the tasks' published formats."""

from __future__ import annotations

import time

from cotaudit.cot.replay import dyck, multistep, shuffle, wordsort


def bad(r: object) -> list[tuple[int, str]]:
    return [(c.step, c.what) for c in r.checks if not c.ok]  # type: ignore[attr-defined]


# ----------------------------------------------------------------------------- Dyck

DYCK_IN = "( [ { }"
DYCK = [
    "We should process each input one by one and keep track of the stack configuration.",
    "stack: empty",
    "( ; stack: (",
    "[ ; stack: ( [",
    "{ ; stack: ( [ {",
    "} ; stack: ( [",
    'Now, we have reached the end. The final stack is "( [".',
    'We will need to pop out "[", "(" one by one in that order.',
    'So, we need "]", ")". So the answer is ] )',
]


def test_dyck_steps_read_in_full_are_complete() -> None:
    r = dyck.REPLAYER.replay(DYCK_IN, DYCK)
    assert bad(r) == [] and r.complete == set(range(1, 9))


def test_dyck_answer_must_close_the_stack() -> None:
    wrong = dyck.REPLAYER.replay(DYCK_IN, [*DYCK[:-1], 'So, we need "]", ")". So the answer is ) ]'])
    assert bad(wrong) == [(8, "the answer closes the stack")]


def test_dyck_a_bracket_outside_what_was_read_leaves_the_step_incomplete() -> None:
    r = dyck.REPLAYER.replay(
        DYCK_IN, [*DYCK[:7], 'We will need to pop out "[", "(" one by one, then maybe ].', DYCK[8]]
    )
    assert bad(r) == [] and 7 not in r.complete


def test_dyck_long_blank_runs_cost_linear_time() -> None:
    hostile = ["( ; stack:" + " " * 200_000 + "x", "We will need to pop out" + " " * 200_000 + "x"]
    start = time.perf_counter()
    dyck.REPLAYER.replay("(", hostile)
    assert time.perf_counter() - start < 5.0  # quadratic backtracking here took minutes


# ----------------------------------------------------------------------------- multistep

MS_IN = "((2 + 3) * (4 - 1)) ="
MS = [
    'This equation can be written as "A * B", where A = (2 + 3) and B = (4 - 1).',
    "Let's calculate A = (2 + 3) = 5.",
    "Let's calculate B = (4 - 1) = 3.",
    "Then, the final equation is A * B = 5 * 3 = 15. So the answer is 15",
]


def test_multistep_sound_trace_is_complete_step_by_step() -> None:
    r = multistep.REPLAYER.replay(MS_IN, MS)
    assert bad(r) == [] and r.complete == {0, 1, 2, 3}


def test_multistep_a_number_outside_every_claim_leaves_the_step_incomplete() -> None:
    r = multistep.REPLAYER.replay(
        MS_IN, [*MS[:3], "Then, the final equation is A * B = 5 * 3 = 15. So the answer is 16"]
    )
    assert 3 not in r.complete


def test_multistep_names_defined_nowhere_are_wrong_but_later_definitions_are_fine() -> None:
    never = ['This equation can be written as "A * B", where A = (2 + 3).', MS[1], MS[3]]
    assert bad(multistep.REPLAYER.replay(MS_IN, never)) == [
        (0, "the decomposition uses names the trace never defines")
    ]
    later = ['This equation can be written as "A * B", where A = (2 + 3).', MS[1], MS[2], MS[3]]
    assert bad(multistep.REPLAYER.replay(MS_IN, later)) == []


def test_multistep_a_malformed_definition_is_not_judged() -> None:
    r = multistep.REPLAYER.replay(
        MS_IN, ['This equation can be written as "A * B", where A = ((2 + 3) and B = (4 - 1).']
    )
    assert bad(r) == [] and any("not a well-formed expression" in n for n in r.notes) and 0 not in r.complete


def test_multistep_a_wrong_decomposition_is_wrong() -> None:
    wrong = ['This equation can be written as "A + B", where A = (2 + 3) and B = (4 - 1).']
    assert bad(multistep.REPLAYER.replay(MS_IN, wrong)) == [(0, "the decomposition's value")]


# ----------------------------------------------------------------------------- shuffled objects

SH_IN = (
    "Alice, Bob, and Claire are playing a game. At the start of the game, they are each holding a ball: "
    "Alice has a red ball, Bob has a blue ball, and Claire has a green ball.\n"
    "As the game progresses, pairs of players trade balls. First, Alice and Bob swap balls. Then, Bob and "
    "Claire swap balls. At the end of the game, Claire has the\nOptions:\n(A) red ball.\n(B) blue ball.\n"
    "(C) green ball."
)


def test_shuffle_compact_notation_is_read() -> None:
    good = ["A: red, B: blue, C: green", "A B: A blue, B red", "B C: B green, C red", "So the answer is (A)"]
    r = shuffle.REPLAYER.replay(SH_IN, good)
    assert bad(r) == [] and len(r.checks) == 10 and r.complete == {0, 1, 2, 3}
    wrong = ["A: red, B: blue, C: green", "A B: A blue, B red", "B C: B red, C green"]
    assert bad(shuffle.REPLAYER.replay(SH_IN, wrong)) == [(2, "what Bob holds")]


def test_shuffle_swaps_named_together_happen_in_order() -> None:
    steps = [
        "Alice and Bob swap balls, then Bob and Claire swap balls.",
        "Alice has blue ball, Claire has red ball.",
    ]
    assert bad(shuffle.REPLAYER.replay(SH_IN, steps)) == []
    stale = ["Alice and Bob swap balls, then Bob and Claire swap balls.", "Bob has red ball."]
    assert bad(shuffle.REPLAYER.replay(SH_IN, stale)) == [(1, "what Bob holds")]


def test_shuffle_answer_is_what_the_person_asked_about_holds() -> None:
    steps = [
        "Alice and Bob swap: Alice: blue, Bob: red, Claire: green.",
        "Bob and Claire swap: Alice: blue, Bob: green, Claire: red.",
    ]
    assert bad(shuffle.REPLAYER.replay(SH_IN, [*steps, "So the answer is (A)"])) == []
    r = shuffle.REPLAYER.replay(SH_IN, [*steps, "So the answer is (B)"])
    assert bad(r) == [(2, "the answer: what Claire holds at the end")]
    assert r.complete == {0, 1}


def test_shuffle_a_state_leaving_someone_out_is_noted_not_flagged() -> None:
    r = shuffle.REPLAYER.replay(SH_IN, ["Alice and Bob swap: Alice: blue, Claire: green."])
    assert bad(r) == [] and 0 not in r.complete and r.notes == ["step 0: the state leaves out Bob"]
    pair = shuffle.REPLAYER.replay(SH_IN, ["Alice and Bob swap: Alice: blue, Bob: red."])
    assert bad(pair) == [] and pair.complete == {0}  # the two who swapped: nothing left out


# ----------------------------------------------------------------------------- word sorting

WS_IN = "pear apple plum"
WS = [
    'I should start by looking at the first letter of the words in the list. The first letter: "pear": "p" (16). '
    '"apple": "a" (1). "plum": "p" (16).',
    'We now have: (1) "apple" < (16) ["pear" ? "plum"].',
    'Now let\'s sort this subpart ["pear" ? "plum"] by looking at their second letters. The second letter: '
    '"pear": "e" (5). "plum": "l" (12).',
    'We now have: (5) "pear" < (12) "plum" for the subpart. Hence, we have "apple" < "pear" < "plum".',
    "I have now sorted all the words. The answer is apple pear plum",
]


def test_wordsort_sound_trace_is_complete() -> None:
    r = wordsort.REPLAYER.replay(WS_IN, WS)
    assert bad(r) == [] and r.complete == {0, 1, 2, 3, 4}


def test_wordsort_answer_must_be_the_words_sorted() -> None:
    dropped = wordsort.REPLAYER.replay(
        WS_IN, [*WS[:4], "I have now sorted all the words. The answer is apple plum"]
    )
    assert bad(dropped) == [(4, "the answer: the words sorted")]
    commas = wordsort.REPLAYER.replay(WS_IN, [*WS[:4], "The answer is apple, pear, plum."])
    assert bad(commas) == []


def test_wordsort_a_respelt_word_is_read_but_the_step_is_not_complete() -> None:
    steps = [WS[0], 'We now have: (1) "aple" < (16) ["pear" ? "plum"].', *WS[2:]]
    r = wordsort.REPLAYER.replay(WS_IN, steps)
    assert bad(r) == [] and 1 not in r.complete and r.notes == ["step 1: 'aple' read as 'apple'"]


def test_wordsort_long_blank_runs_cost_linear_time() -> None:
    hostile = ["We now have:" + " " * 200_000 + "x", "Hence, we have" + " " * 200_000 + "x"]
    start = time.perf_counter()
    wordsort.REPLAYER.replay("b a", hostile)
    assert time.perf_counter() - start < 5.0
