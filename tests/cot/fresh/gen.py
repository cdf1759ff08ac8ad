"""Independent generators of BIG-bench-style items and chain-of-thought traces.

Nothing here is copied from the benchmark files: every item is made from a seeded random source,
and every trace is written by a small solver in one of several styles — the BIG-Bench Mistake
style (docs/cot.md) and variations another model would write (numbering, markdown bullets,
arrows, quotes, capitals, extra prose). Each item comes in the BIG-Bench Mistake input shape
(the bare symbols / words / puzzle) and in the original BIG-Bench shape (with its instruction,
a ``Q:`` prefix, and a first step that starts "A: Let's think step by step.").

A generated trace is correct unless ``mistake`` is set: then exactly one step (``mistake``) says
something false (a wrong stack, a wrong letter, a wrong holder, a wrong sub-result, a placement
that does not follow, a false equation) and the steps after it go on consistently.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from fractions import Fraction

QA_CUE = "A: Let's think step by step."


@dataclass(slots=True)
class Item:
    task: str  # a replayer name, or "arithmetic"
    style: str
    phrasing: str  # bbm | bigbench | qa
    problem: str
    steps: list[str]
    answer: str | None = None
    target: str | None = None
    mistake: int | None = None  # the step with the one injected mistake
    meta: dict[str, object] = field(default_factory=dict)

    def record(self, with_task: bool = True) -> dict[str, object]:
        out: dict[str, object] = {"input": self.problem, "steps": self.steps}
        if with_task and self.task != "arithmetic":
            out["task"] = self.task
        if self.answer is not None:
            out["answer"] = self.answer
        if self.target is not None:
            out["target"] = self.target
        return out


def _qa(problem: str, steps: list[str], phrasing: str) -> tuple[str, list[str]]:
    if phrasing != "qa":
        return problem, steps
    return "Q: " + problem, [f"{QA_CUE}\n{steps[0]}", *steps[1:]]


# ---------------------------------------------------------------------------- Dyck

CLOSE = {"(": ")", "[": "]", "{": "}", "<": ">"}
DYCK_STYLES = (
    "bbm", "numbered", "arrow", "bullets", "prose", "quoted", "stepword", "compact_end", "pylist", "stack_after",
)  # fmt: skip
DYCK_INSTRUCTIONS = (
    "Complete the rest of the sequence, making sure that the parentheses are closed properly. Input: ",
    "Finish this bracket sequence so that every bracket is closed in the right order.\nSequence: ",
)


def _dyck_seq(rng: random.Random) -> list[str]:
    seq: list[str] = []
    stack: list[str] = []
    n = rng.randint(3, 22)
    while len(seq) < n:
        if stack and rng.random() < 0.45:
            seq.append(CLOSE[stack.pop()])
        else:
            o = rng.choice("([{<")
            stack.append(o)
            seq.append(o)
    if not stack:
        o = rng.choice("([{<")
        seq.append(o)
    return seq


def _stacks(seq: list[str]) -> list[list[str]]:
    out, stack = [], []
    for s in seq:
        if s in CLOSE:
            stack.append(s)
        else:
            stack.pop()
        out.append(list(stack))
    return out


def dyck(rng: random.Random, style: str, phrasing: str, mistake: bool) -> Item:
    seq = _dyck_seq(rng)
    stacks = _stacks(seq)
    claimed = [list(s) for s in stacks]
    kind = rng.choice(("stack", "stack", "answer")) if mistake else ""
    bad_at = rng.randrange(len(seq)) if kind == "stack" else -1
    if bad_at >= 0:
        st = claimed[bad_at]
        if st and rng.random() < 0.5:
            st.pop()
        else:
            st.append(rng.choice([o for o in "([{<" if not st or o != st[-1]]))
    final = stacks[-1]
    pops = list(reversed(final))
    closers = [CLOSE[p] for p in pops]
    answer = list(closers)
    if kind == "answer":
        answer = list(reversed(closers)) if len(set(closers)) > 1 else [*closers, ")"]
    sp = " ".join
    steps: list[str] = []
    head = "We should process each input one by one and keep track of the stack configuration."
    if style in ("bbm", "quoted", "compact_end"):
        steps += [head, "stack: empty" if style != "quoted" else 'Stack: "empty"']
    elif style == "numbered":
        steps += [head, "0: empty stack"]
    elif style == "arrow":
        steps += [
            "Let me track the stack symbol by symbol (the stack is written bottom to top).",
            "start -> empty",
        ]
    elif style == "bullets":
        steps += ["**Tracking the stack**", "- start: stack is empty"]
    elif style == "prose":
        steps += ["I will push every opening bracket and pop it when its closer comes."]
    elif style == "stepword":
        steps += ["Let's go through the input one symbol at a time."]
    elif style == "pylist":
        steps += ["I keep the stack as a Python list (bottom first).", "stack = []"]
    elif style == "stack_after":
        steps += ["Input: " + " ".join(seq)]
    first_symbol_step = len(steps)
    for k, (s, st) in enumerate(zip(seq, claimed, strict=True)):
        if style in ("bbm", "compact_end"):
            steps.append(f"{s} ; stack: {sp(st) or 'empty'}")
        elif style == "numbered":
            steps.append(f"{k + 1}: {s} ; stack: {sp(st) or 'empty'}")
        elif style == "arrow":
            steps.append(f"{s} -> {sp(st) or 'empty'}")
        elif style == "bullets":
            steps.append(f"- `{s}` ; stack: `{sp(st) or 'empty'}`")
        elif style == "quoted":
            steps.append(f'"{s}" ; Stack: "{sp(st) or "empty"}"')
        elif style == "stepword":
            steps.append(f"Step {k + 1}: read {s}; the stack is now: {sp(st) or 'empty'}.")
        elif style == "pylist":
            items = ", ".join(f"'{x}'" for x in st)
            steps.append(f"{s} -> stack = [{items}]")
        elif style == "stack_after":
            steps.append(f"Stack after {s}: {sp(st) or 'empty'} (top on the right).")
        elif style == "prose":
            if s in CLOSE:
                steps.append(f"Next symbol: {s}. We push it. Stack: {sp(st) or 'empty'}.")
            else:
                top = stacks[k - 1][-1] if k else "?"
                steps.append(f"Next symbol: {s}, which closes the {top} on top. Stack: {sp(st) or 'empty'}.")
    final_txt = sp(final)
    ans = sp(answer)
    if style in ("bbm", "numbered", "quoted"):
        q = ", ".join(f'"{p}"' for p in pops)
        steps.append(f'Now, we have reached the end. The final stack is "{final_txt}".')
        steps.append(f"We will need to pop out {q} one by one in that order.")
        need = ", ".join(f'"{c}"' for c in closers) if style != "numbered" else sp(closers)
        steps.append(f"So, we need {need}. So the answer is {ans}")
    elif style == "compact_end":
        steps.append(f'Now, we have reached the end. The final stack is "{final_txt}".')
        steps.append(
            f"We will need to pop out {', '.join(pops)} one by one in that order. So the answer is {ans}"
        )
    elif style == "arrow":
        steps.append(f"End of input -> final stack: {final_txt}.")
        steps.append(f"Closing from the top: {sp(closers)}. So the answer is {ans}")
    elif style == "bullets":
        steps.append(f"- We have reached the end. Final stack: `{final_txt}`")
        steps.append(f"- Pop order (top first): {sp(pops)}")
        steps.append(f"**So the answer is {ans}**")
    else:
        steps.append(f"We have reached the end of the input. The final stack is {final_txt}.")
        steps.append(f"So the answer is {ans}.")
    problem = sp(seq)
    if phrasing in ("bigbench", "qa"):
        problem = DYCK_INSTRUCTIONS[0] + problem
    elif phrasing == "other":
        problem = DYCK_INSTRUCTIONS[1] + problem
    problem, steps = _qa(problem, steps, phrasing)
    wrong = None
    if kind == "stack":
        wrong = first_symbol_step + bad_at
    elif kind == "answer":
        wrong = len(steps) - 1
    return Item("dyck_languages", style, phrasing, problem, steps, ans, sp(closers), wrong)


# ---------------------------------------------------------------------------- word sorting

WORD_STYLES = ("bbm", "numbered", "lowercase", "bold_answer", "comma_answer", "single_quotes", "prose")
_CONS = "bcdfghjklmnprstvwz"
_VOW = "aeiou"


def _words(rng: random.Random) -> list[str]:
    firsts = rng.sample("abcdefghijklmnoprstw", rng.randint(3, 8))
    out: set[str] = set()
    n = rng.randint(4, 12)
    while len(out) < n:
        w = rng.choice(firsts)
        for j in range(rng.randint(2, 8)):
            w += rng.choice(_VOW if j % 2 == (w[0] in _VOW) else _CONS)
        if not any(w.startswith(o) or o.startswith(w) for o in out):
            out.add(w)
    words = list(out)
    rng.shuffle(words)
    return words


def _sort_trace(words: list[str]) -> list[tuple[str, object]]:
    """The BBM procedure as events: ("letters", (ws, k)), ("buckets", (groups, k, sub)),
    ("hence", ordering), ("answer", words)."""
    events: list[tuple[str, object]] = []

    def group(ws: list[str], k: int) -> list[list[str]]:
        by: dict[str, list[str]] = {}
        for w in ws:
            by.setdefault(w[k - 1], []).append(w)
        return [by[c] for c in sorted(by)]

    events.append(("letters", (words, 1)))
    ordering = group(words, 1)
    level = {tuple(b): 1 for b in ordering if len(b) > 1}
    events.append(("buckets", (ordering, 1, False)))
    while any(len(b) > 1 for b in ordering):
        b = next(b for b in ordering if len(b) > 1)
        k = level[tuple(b)] + 1
        events.append(("letters", (b, k)))
        sub = group(b, k)
        for s in sub:
            if len(s) > 1:
                level[tuple(s)] = k
        j = ordering.index(b)
        ordering = [*ordering[:j], *sub, *ordering[j + 1 :]]
        events.append(("buckets", (sub, k, True)))
        events.append(("hence", [list(x) for x in ordering]))
    events.append(("answer", sorted(words)))
    return events


ORD = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"]


def wordsort(rng: random.Random, style: str, phrasing: str, mistake: bool) -> Item:
    words = _words(rng)
    events = _sort_trace(words)
    q = "'" if style == "single_quotes" else '"'

    def qt(w: str) -> str:
        return f"{q}{w}{q}"

    def item(b: list[str]) -> str:
        return qt(b[0]) if len(b) == 1 else "[" + " ? ".join(map(qt, b)) + "]"

    steps: list[str] = []
    kinds: list[str] = []
    pending_sub = ""
    for ev, data in events:
        if ev == "letters":
            ws, k = data  # type: ignore[misc]
            claims = " ".join(f"{qt(w)}: {qt(w[k - 1])} ({ord(w[k - 1]) - 96})." for w in ws)
            if k == 1:
                lead = "I should start by looking at the first letter of the words in the list. "
                if style == "prose":
                    lead = "Sorting works letter by letter, so I look at the first letters. "
                steps.append(f"{lead}The first letter: {claims}")
            else:
                sub = "[" + " ? ".join(map(qt, ws)) + "]"
                steps.append(
                    f"Now let's sort this subpart {sub} by looking at their {ORD[k - 1]} letters. "
                    f"The {ORD[k - 1]} letter: {claims}"
                )
            kinds.append("letters")
        elif ev == "buckets":
            groups, k, sub = data  # type: ignore[misc]
            body = " < ".join(f"({ord(g[0][k - 1]) - 96}) {item(g)}" for g in groups)
            now = "we now have:" if style == "lowercase" else "We now have:"
            if sub:
                pending_sub = f"{now} {body} for the subpart."
            else:
                steps.append(f"{now} {body}.")
                kinds.append("buckets")
        elif ev == "hence":
            ordering = data
            body = " < ".join(item(b) for b in ordering)  # type: ignore[union-attr]
            hence = "Hence we have" if style == "lowercase" else "Hence, we have"
            sep = "\n" if style == "prose" else " "
            steps.append(f"{pending_sub}{sep}{hence} {body}.")
            kinds.append("hence")
        else:
            ans = " ".join(data)  # type: ignore[arg-type]
            if style == "bold_answer":
                steps.append(f"I have now sorted all the words. The answer is **{ans}**")
            elif style == "comma_answer":
                steps.append(f"I have now sorted all the words. The answer is: {', '.join(data)}.")  # type: ignore[arg-type]
            else:
                steps.append(f"I have now sorted all the words. The answer is {ans}")
            kinds.append("answer")
    if style == "numbered":
        steps = [f"{n + 1}. {s}" for n, s in enumerate(steps)]
    if style == "prose":
        steps.insert(1, "Next I group the words by that letter.")
        kinds.insert(1, "prose")
    wrong = None
    if mistake:
        choices = [j for j, kd in enumerate(kinds) if kd in ("letters", "hence", "answer")]
        wrong = rng.choice(choices)
        steps[wrong] = _wordsort_mistake(rng, steps[wrong], kinds[wrong], words)
        if steps[wrong] is None:  # type: ignore[comparison-overlap]
            wrong = None
    problem = " ".join(words)
    if phrasing in ("bigbench", "qa"):
        problem = "Sort the following words alphabetically: List: " + problem
    elif phrasing == "other":
        problem = "Put these words in alphabetical order.\nWords: " + problem
    problem, steps = _qa(problem, steps, phrasing)
    target = " ".join(sorted(words))
    return Item("word_sorting", style, phrasing, problem, steps, target, target, wrong)


def _wordsort_mistake(rng: random.Random, step: str, kind: str, words: list[str]) -> str:
    if kind == "letters":
        # one letter claim names the next letter of the alphabet
        import re

        m = list(re.finditer(r'["\']: ["\']([a-y])["\'] \((\d+)\)', step))
        pick = rng.choice(m)
        c = chr(ord(pick.group(1)) + 1)
        return (
            step[: pick.start(1)]
            + c
            + step[pick.end(1) : pick.start(2)]
            + str(ord(c) - 96)
            + step[pick.end(2) :]
        )
    if kind == "hence":
        at = step.rfind("ave ")  # "Hence, we have …": swap the first two adjacent words there
        head, tail = step[: at + 4], step[at + 4 :]
        parts = tail.split(" < ")
        if len(parts) < 2:
            return step.replace(" < ", " < ", 1)
        j = rng.randrange(len(parts) - 1)
        parts[j], parts[j + 1] = parts[j + 1].rstrip("."), parts[j] + ("." if j + 1 == len(parts) - 1 else "")
        return head + " < ".join(parts)
    # the answer: two adjacent words swapped
    srt = sorted(words)
    j = rng.randrange(len(srt) - 1)
    bad = [*srt[:j], srt[j + 1], srt[j], *srt[j + 2 :]]
    for sep in (", ", " "):
        good = sep.join(srt)
        if good in step:
            return step.replace(good, sep.join(bad))
    return step


# ---------------------------------------------------------------------------- shuffled objects

PEOPLE = (
    ("Alice", "Bob", "Claire", "Dave", "Eve", "Fred", "Gertrude"),
    ("Hana", "Ivan", "Jorge", "Kemal", "Lena", "Mira", "Noor"),
)
SCENES = {
    "ball": (
        "are playing a game. At the start of the game, they are each holding a ball: ",
        "{p} has a {x} ball",
        "As the game progresses, pairs of players trade balls.",
        "{a} and {b} swap balls",
        "At the end of the game, {p} has the",
        "{x} ball",
        ["red", "teal", "olive", "amber", "navy", "coral", "ivory", "lilac", "rust"],
    ),
    "present": (
        "are holding a white elephant gift exchange. At the start of the event, they are each "
        "holding a present of a different color: ",
        "{p} has a {x} present",
        "As the event progresses, pairs of people swap gifts.",
        "{a} and {b} swap their gifts",
        "At the end of the event, {p} has the",
        "{x} present",
        ["violet", "beige", "green", "maroon", "silver", "golden", "cyan", "plum", "sand"],
    ),
    "book": (
        "are friends and avid readers who occasionally trade books. At the start of the semester, "
        "they each buy one new book: ",
        "{p} gets {x}",
        "As the semester proceeds, they start trading around the new books.",
        "{a} and {b} swap books",
        "At the end of the semester, {p} has",
        "{x}",
        ["Paper Moons", "The Salt Road", "Winter Harbor", "Glass Orchard", "The Iron Kite",
         "Quiet Rivers", "Nightfall Station", "The Copper Bell", "Lantern Street"],
    ),
    "dance": (
        "are dancers at a square dance. At the start of a song, they each have a partner: ",
        "{p} is dancing with {x}",
        "Throughout the song, the dancers often trade partners.",
        "{a} and {b} switch partners",
        "At the end of the dance, {p} is dancing with",
        "{x}",
        ["Tomas", "Priya", "Oskar", "Yuki", "Ramon", "Sofia", "Bruno", "Wanda", "Elif"],
    ),
    "soccer": (
        "are on the same team in a soccer match. At the start of the match, they are each assigned "
        "to a position: ",
        "{p} is playing {x}",
        "As the game progresses, pairs of players occasionally swap positions.",
        "{a} and {b} trade positions",
        "At the end of the match, {p} is playing",
        "{x}",
        ["goalkeeper", "sweeper", "left back", "center forward", "right wing", "stopper",
         "attacking midfielder", "libero", "second striker"],
    ),
}  # fmt: skip
SHUFFLE_STYLES = ("bbm_state", "bbm_prose", "numbered", "compact", "states_only", "now_has", "bullets_eq")


def _join(parts: list[str]) -> str:
    return ", ".join(parts[:-1]) + (", and " if len(parts) > 2 else " and ") + parts[-1]


def shuffle(rng: random.Random, style: str, phrasing: str, mistake: bool) -> Item:
    n = rng.choice((3, 5, 7))
    people = list(rng.choice(PEOPLE)[:n])
    scene = rng.choice(sorted(SCENES))
    intro, has, progress, swap_fmt, question, opt_fmt, pool = SCENES[scene]
    items = rng.sample(pool, n)
    state = dict(zip(people, items, strict=True))
    swaps = []
    for _ in range(n):
        a, b = rng.sample(people, 2)
        swaps.append((a, b))
    asked = rng.choice(people)
    order_words = ["First"] + ["Then"] * (len(swaps) - 2) + ["Finally"]
    sw = " ".join(f"{w}, {swap_fmt.format(a=a, b=b)}." for w, (a, b) in zip(order_words, swaps, strict=True))
    start = _join([has.format(p=p, x=state[p]) for p in people])
    letters = "ABCDEFG"
    options = "\n".join(f"({letters[j]}) {opt_fmt.format(x=x)}" for j, x in enumerate(items))
    problem = (
        f"{_join(people)} {intro}{start}.\n{progress} {sw} {question.format(p=asked)}\nOptions:\n{options}"
    )
    # replay
    states = [dict(state)]
    for a, b in swaps:
        s = dict(states[-1])
        s[a], s[b] = s[b], s[a]
        states.append(s)
    claimed = [dict(s) for s in states]
    kind = rng.choice(("holder", "holder", "answer")) if mistake else ""
    bad_swap = rng.randrange(len(swaps)) if kind == "holder" else -1
    if bad_swap >= 0:  # after this swap, the trace did not swap (a wrong holder), then goes on
        s = claimed[bad_swap + 1]
        a, b = swaps[bad_swap]
        s[a], s[b] = s[b], s[a]
        for later in range(bad_swap + 2, len(claimed)):
            prev = dict(claimed[later - 1])
            x, y = swaps[later - 1]
            prev[x], prev[y] = prev[y], prev[x]
            claimed[later] = prev
    final = claimed[-1][asked]
    ans_letter = letters[items.index(final)]
    if kind == "answer":
        ans_letter = letters[(items.index(states[-1][asked]) + 1) % n]
    verb = {"dance": "is dancing with", "soccer": "is playing"}.get(scene, "has")

    def listing(s: dict[str, str], sep: str = ": ") -> str:
        return ", ".join(f"{p}{sep}{s[p]}" for p in people)

    steps: list[str] = []
    if style == "bbm_state":
        steps.append(f"At the start: {listing(claimed[0])}.")
        for k, (a, b) in enumerate(swaps):
            steps.append(f"{swap_fmt.format(a=a, b=b)}: {listing(claimed[k + 1])}.")
    elif style == "bbm_prose":
        steps.append(f"{asked} {verb} {claimed[0][asked]}.")
        for k, (a, b) in enumerate(swaps):
            s = claimed[k + 1]
            steps.append(f"{swap_fmt.format(a=a, b=b)}, {a} {verb} {s[a]} and {b} {verb} {s[b]}.")
    elif style == "numbered":
        steps.append(f"0. Start: {listing(claimed[0])}")
        for k, (a, b) in enumerate(swaps):
            steps.append(f"{k + 1}. After {a} and {b} swap: {listing(claimed[k + 1])}")
    elif style == "compact":
        steps.append("At the start: " + ", ".join(f"{p[0]}: {claimed[0][p]}" for p in people) + ".")
        for k, (a, b) in enumerate(swaps):
            s = claimed[k + 1]
            steps.append(f"{a[0]} {b[0]}: " + ", ".join(f"{p[0]} {s[p]}" for p in people))
    elif style == "states_only":
        for s in claimed:
            steps.append(listing(s))
    elif style == "now_has":
        steps.append("Let's follow each trade.")
        for k, (a, b) in enumerate(swaps):
            s = claimed[k + 1]
            steps.append(
                f"Trade {k + 1}: {a} and {b} swap, so {a} now has {s[a]} and {b} now has {s[b]}."
                if verb == "has"
                else f"Trade {k + 1}: {a} and {b} swap, so {a} {verb} {s[a]} and {b} {verb} {s[b]}."
            )
    elif style == "bullets_eq":
        steps.append("- Start → " + ", ".join(f"{p} = {claimed[0][p]}" for p in people))
        for k, (a, b) in enumerate(swaps):
            steps.append(f"- {a} ↔ {b} → " + ", ".join(f"{p} = {claimed[k + 1][p]}" for p in people))
    end = question.format(p=asked).removesuffix(" the")
    steps.append(f"{end} {final}. So the answer is ({ans_letter})")
    lead = 0 if style not in ("now_has",) else 1
    wrong = None
    if kind == "holder":
        wrong = lead + bad_swap + (1 if style != "now_has" else 0)
        if style == "states_only":
            wrong = bad_swap + 1
    elif kind == "answer":
        wrong = len(steps) - 1
    if phrasing in ("qa",):
        problem, steps = _qa(problem, steps, phrasing)
    target = f"({letters[items.index(states[-1][asked])]})"
    return Item(
        "tracking_shuffled_objects", style, phrasing, problem, steps, f"({ans_letter})", target, wrong
    )


# ---------------------------------------------------------------------------- multistep arithmetic

MULTI_STYLES = ("bbm", "numbered", "no_lets", "unicode", "prose", "bold_answer")


def _ev(tokens: list[object]) -> tuple[int, list[str]]:
    """Evaluate ``n op n op n …`` with * first, then left to right; the rewrites made."""
    toks = list(tokens)
    shown: list[str] = []

    def fmt(ts: list[object]) -> str:
        return " ".join(str(t) for t in ts)

    while "*" in toks:
        j = toks.index("*")
        toks[j - 1 : j + 2] = [int(toks[j - 1]) * int(toks[j + 1])]  # type: ignore[call-overload]
        shown.append(fmt(toks))
    while len(toks) > 1:
        a, op, b = int(toks[0]), toks[1], int(toks[2])  # type: ignore[call-overload]
        toks[0:3] = [a + b if op == "+" else a - b]
        shown.append(fmt(toks))
    return int(toks[0]), shown  # type: ignore[call-overload]


def multistep(rng: random.Random, style: str, phrasing: str, mistake: bool) -> Item:
    parts = []
    for _ in range(2):
        toks: list[object] = [rng.randint(-9, 9)]
        for _ in range(rng.randint(2, 3)):
            toks += [rng.choice("+-*"), rng.randint(-9, 9)]
        parts.append(toks)
    outer = rng.choice("+-*")
    texts = ["(" + " ".join(str(t) for t in p) + ")" for p in parts]
    problem = f"({texts[0]} {outer} {texts[1]}) ="
    vals = []
    calcs = []
    bad_part = rng.randrange(2) if mistake else -1
    for j, p in enumerate(parts):
        v, shown = _ev(p)
        chain = [texts[j], *[f"({s})" if " " in s else s for s in shown[:-1]], shown[-1] if shown else str(v)]
        if j == bad_part:
            v += rng.choice((-2, -1, 1, 2))
            chain[-1] = str(v)
        vals.append(v)
        calcs.append(chain)
    a, b = vals
    res = a + b if outer == "+" else a - b if outer == "-" else a * b
    bs = f"({b})" if b < 0 else str(b)
    steps: list[str] = []
    mul, minus = ("×", "−") if style == "unicode" else ("*", "-")

    def u(s: str) -> str:
        return s.replace("*", mul).replace(" - ", f" {minus} ") if style == "unicode" else s

    steps.append(f'This equation can be written as "A {outer} B", where A = {texts[0]} and B = {texts[1]}.')
    for name, chain in zip("AB", calcs, strict=True):
        body = " = ".join(chain)
        if style in ("bbm", "numbered", "bold_answer", "unicode"):
            steps.append(u(f"Let's calculate {name} = {body}."))
        elif style == "no_lets":
            steps.append(f"{name} = {body}.")
        else:
            steps.append(f"Working out {name} step by step: {name} = {body}.")
    final = f"Then, the final equation is A {outer} B = {a} {outer} {bs} = {res}."
    if style == "bold_answer":
        steps.append(f"{final} So the answer is **{res}**.")
    elif style == "prose":
        steps.append(f"Putting the two parts together, A {outer} B = {a} {outer} {bs} = {res}.")
        steps.append(f"So the answer is {res}")
    else:
        steps.append(u(final) + f" So the answer is {res}")
    if style == "numbered":
        steps = [f"Step {k + 1}: {s}" for k, s in enumerate(steps)]
    wrong = 1 + bad_part if mistake else None
    problem, steps = _qa(problem, steps, phrasing)
    tv = _ev(parts[0])[0], _ev(parts[1])[0]
    truth = tv[0] + tv[1] if outer == "+" else tv[0] - tv[1] if outer == "-" else tv[0] * tv[1]
    return Item("multistep_arithmetic", style, phrasing, problem, steps, str(res), str(truth), wrong)


# ---------------------------------------------------------------------------- logical deduction

DOMAINS = {
    "book": ("On a shelf, there are {n} books: {objs}.", "book", "left to right", "LR",
             ["red", "green", "blue", "white", "black", "orange", "gray", "yellow", "brown"]),
    "bird": ("On a branch, there are {n} birds: {objs}.", "bird", "left to right", "LR",
             ["owl", "crow", "robin", "finch", "heron", "quail", "raven", "hawk", "wren"]),
    "vehicle": ("In an antique car show, there are {n} vehicles: {objs}.", "vehicle", "newest to oldest", "NO",
                ["bus", "truck", "sedan", "tractor", "limousine", "minivan", "coupe", "jeep", "van"]),
    "fruit": ("A fruit stand sells {n} fruits: {objs}.", "fruit", "most expensive to least expensive", "ME",
              ["apples", "pears", "plums", "kiwis", "mangoes", "figs", "limes", "melons", "cherries"]),
    "golfer": ("In a golf tournament, there were {n} golfers: {objs}.", "golfer", "first to last", "FL",
               ["Ana", "Rob", "Mel", "Joe", "Ada", "Eli", "Ivy", "Dan", "Sue"]),
}  # fmt: skip
NUM = {3: "three", 5: "five", 7: "seven"}
DED_STYLES = ("bbm", "prose", "numbered", "final_only")


def _name(domain: str, o: str) -> str:
    if domain in ("book",):
        return f"the {o} book"
    if domain == "golfer":
        return o
    return f"the {o}"


def _pos_phrase(axis: str, k: int, n: int) -> str:
    """A predicate placing an object at position k (1 = canonical start)."""
    o = ORD[k - 1]
    if axis == "LR":
        return "the leftmost" if k == 1 else "the rightmost" if k == n else f"the {o} from the left"
    if axis == "NO":
        return "the newest" if k == 1 else "the oldest" if k == n else f"the {o}-newest"
    if axis == "ME":
        return "the most expensive" if k == 1 else "the cheapest" if k == n else f"the {o}-most expensive"
    return "first" if k == 1 else "last" if k == n else o


def _rel(axis: str, before: bool) -> str:
    return {
        "LR": ("to the left of", "to the right of"),
        "NO": ("newer than", "older than"),
        "ME": ("more expensive than", "less expensive than"),
        "FL": ("above", "below"),
    }[axis][0 if before else 1]


def _sentence(domain: str, subj: str, pred: str, rel: bool = False) -> str:
    verb = "finished" if domain == "golfer" else ("are" if domain == "fruit" else "is")
    s = f"{subj} {verb} {pred}."
    return s[0].upper() + s[1:]


def deduction(rng: random.Random, style: str, phrasing: str, mistake: bool) -> Item:
    domain = rng.choice(sorted(DOMAINS))
    tmpl, noun, axis_words, axis, pool = DOMAINS[domain]
    n = rng.choice((3, 5, 7))
    objs = rng.sample(pool, n)
    order = list(objs)
    rng.shuffle(order)
    pos = {o: k + 1 for k, o in enumerate(order)}  # 1 = canonical start
    facts: list[tuple[str, object]] = []  # ("at", (o, k)) | ("before", (a, b))
    perms = list(itertools.permutations(range(1, n + 1)))

    def models(fs: list[tuple[str, object]]) -> list[tuple[int, ...]]:
        out = []
        for p in perms:
            pp = dict(zip(objs, p, strict=True))
            if all((pp[x[0]] == x[1]) if op == "at" else (pp[x[0]] < pp[x[1]]) for op, x in fs):  # type: ignore[index]
                out.append(p)
        return out

    while len(models(facts)) > 1:
        if rng.random() < 0.35:
            o = rng.choice(objs)
            f: tuple[str, object] = ("at", (o, pos[o]))
        else:
            a, b = rng.sample(objs, 2)
            if pos[a] > pos[b]:
                a, b = b, a
            f = ("before", (a, b))
        if f not in facts and len(models([*facts, f])) < len(models(facts)):
            facts.append(f)
    rng.shuffle(facts)
    facts.sort(key=lambda f: f[0] != "at")  # absolute statements first, as the BBM prompt does

    def say(f: tuple[str, object]) -> str:
        op, x = f
        if op == "at":
            o, k = x  # type: ignore[misc]
            return _sentence(domain, _name(domain, o), _pos_phrase(axis, k, n))
        a, b = x  # type: ignore[misc]
        flip = rng.random() < 0.5
        if flip:
            return _sentence(domain, _name(domain, b), f"{_rel(axis, False)} {_name(domain, a)}")
        return _sentence(domain, _name(domain, a), f"{_rel(axis, True)} {_name(domain, b)}")

    sentences = [say(f) for f in facts]

    def listed(o: str) -> str:
        if domain in ("fruit", "golfer"):
            return o
        word = f"{o} book" if domain == "book" else o
        return f"{'an' if word[0] in 'aeiou' else 'a'} {word}"

    objs_txt = _join([listed(o) for o in objs])
    objs_sentence = tmpl.format(n=NUM[n], objs=objs_txt)
    ask = rng.randint(1, n)
    target_obj = order[ask - 1]
    letters = "ABCDEFG"
    opts = [_sentence(domain, _name(domain, o), _pos_phrase(axis, ask, n)) for o in objs]
    if phrasing == "bbm":
        problem = (
            f"The following statements each describe a set of {NUM[n]} objects arranged in a fixed order. "
            "The statements are logically consistent.\n- "
            + objs_sentence
            + "\n"
            + "\n".join("- " + s for s in sentences)
            + "\nQ: Given the above statements, which of the following is correct?\nOptions:\n"
            + "\n".join(f"({letters[j]}) {o}" for j, o in enumerate(opts))
        )
    else:
        problem = (
            f"The following paragraphs each describe a set of {NUM[n]} objects arranged in a fixed order. "
            "The statements are logically consistent within each paragraph. "
            + objs_sentence
            + " "
            + " ".join(sentences)
            + "\nOptions:\n"
            + "\n".join(f"({letters[j]}) {o.rstrip('.')}" for j, o in enumerate(opts))
        )
    # the trace: restate each statement, then the list of places that follow so far
    steps = [
        f"To answer the question, I need to identify the positions of all {NUM[n]} {noun}s. I will go "
        "through the statements and keep track of the places they fix."
    ]
    stated: list[tuple[str, object]] = []
    wrong = None
    bad_step = rng.randrange(len(facts)) if mistake else -1
    for j, (f, s) in enumerate(zip(facts, sentences, strict=True)):
        stated.append(f)
        ms = models(stated)
        known = {
            k: objs[list(ms[0]).index(k)]
            for k in range(1, n + 1)
            if len({objs[list(m).index(k)] for m in ms}) == 1
        }
        if j == bad_step:
            free = [k for k in range(1, n + 1) if k not in known]
            if free:
                k = rng.choice(free)
                cands = [
                    o
                    for o in objs
                    if o not in known.values() and not all(objs[list(m).index(k)] == o for m in ms)
                ]
                # an object that the statements so far do not put at k
                cands = [o for o in cands if not all(m[objs.index(o)] == k for m in ms)]
                if cands:
                    known = {**known, k: rng.choice(cands)}
                    wrong = len(steps)
        parts = []
        unplaced = [o for o in objs if o not in known.values()]
        for k in range(1, n + 1):
            if k in known:
                parts.append(f"{ORD[k - 1]} is {_name(domain, known[k])}")
                continue
            possible = [o for o in unplaced if any(m[objs.index(o)] == k for m in ms)]
            if len(possible) == len(unplaced):  # "can be any": every unplaced object fits here
                parts.append(f"{ORD[k - 1]} can be any {noun}")
            else:
                parts.append(
                    f"{ORD[k - 1]} can be "
                    + _join([_name(domain, o) for o in possible]).replace(" and ", " or ")
                )
        if style in ("bbm", "numbered"):
            steps.append(f"{s} So from {axis_words}: " + ", then ".join(parts) + ".")
        elif style == "prose":
            new = [f"{_name(domain, o)} must be {_pos_phrase(axis, k, n)}" for k, o in known.items()]
            tail = (" So " + ", and ".join(new) + ".") if new else " This does not fix any place yet."
            steps.append(f"{s}{tail}")
        else:
            steps.append(s)
    final_list = ", then ".join(f"{ORD[k]} is {_name(domain, order[k])}" for k in range(n))
    ans_letter = letters[objs.index(target_obj)]
    if mistake and wrong is None:
        ans_letter = letters[(objs.index(target_obj) + 1) % n]
    steps.append(f"So from {axis_words}: {final_list}.")
    who = _name(domain, target_obj)
    steps.append(f"So {who} is {_pos_phrase(axis, ask, n)}. So the answer is ({ans_letter})")
    if mistake and wrong is None:
        wrong = len(steps) - 1
    if style == "numbered":
        steps = [f"{k + 1}) {s}" for k, s in enumerate(steps)]
    problem, steps = _qa(problem, steps, phrasing)
    return Item("logical_deduction", style, phrasing, problem, steps, f"({ans_letter})",
                f"({letters[objs.index(target_obj)]})", wrong)  # fmt: skip


# ---------------------------------------------------------------------------- arithmetic chains

ARITH_STYLES = (
    "currency",
    "percent",
    "thousands",
    "mixed",
    "latex",
    "units",
    "approx",
    "gsm8k_tags",
    "traps",
)


def _traps(rng: random.Random) -> list[tuple[str, str]]:
    """(correct line, the same line with its result off): notations a solution may use."""
    a, b = rng.randint(2, 9), rng.randint(11, 40)
    c = 4 * rng.randint(2, 30)
    k = rng.randint(2, 9) * 1000
    price = rng.randint(2, 9)
    return [
        (f"The share is {c // 4}/{c} = 25%.", f"The share is {c // 4}/{c} = 20%."),
        (
            f"At ${price}/lb, {a} lb cost ${price} × {a} = ${price * a}.",
            f"At ${price}/lb, {a} lb cost ${price} × {a} = ${price * a + 1}.",
        ),
        (
            f"Then {k // 1000:d} 000 + 2 000 = {k // 1000 + 2} 000 people.",
            f"Then {k // 1000:d} 000 + 2 000 = {k // 1000 + 3} 000 people.",
        ),
        (f"So (-{a}) × 4 = -{4 * a}.", f"So (-{a}) × 4 = -{4 * a + 1}."),
        (f"Three quarters: 3/4 of {c} = {3 * c // 4}.", f"Three quarters: 3/4 of {c} = {3 * c // 4 + 1}."),
        (f"$0.75 × {c} = ${0.75 * c:.2f}.", f"$0.75 × {c} = ${0.75 * c + 1:.2f}."),
        (
            f"That is \\dfrac{{{a}}}{{1}} \\times {b} = {a * b}.",
            f"That is \\dfrac{{{a}}}{{1}} \\times {b} = {a * b + 2}.",
        ),
        ("In scientific form, 1.5 × 10^3 = 1500 grams.", "In scientific form, 1.5 × 10^3 = 1600 grams."),
        (
            f"{7 * a}/2 = {7 * a // 2} {'1/2' if a % 2 else ''}".rstrip() + " cups.",
            f"{7 * a}/2 = {7 * a // 2 + 1} cups.",
        ),
        (
            f"A {b}% rise on {c} is {c} × {1 + b / 100:g} = {c * (100 + b) / 100:g}.",
            f"A {b}% rise on {c} is {c} × {1 + b / 100:g} = {c * (100 + b) / 100 + 1:g}.",
        ),
        (
            f"The ratio {a}:{b} means {a} + {b} = {a + b} parts.",
            f"The ratio {a}:{b} means {a} + {b} = {a + b + 1} parts.",
        ),
        (
            f"From 2:15 pm to 4:45 pm is 2.5 hours, and 2.5 × {a} = {2.5 * a:g} dollars.",
            f"From 2:15 pm to 4:45 pm is 2.5 hours, and 2.5 × {a} = {2.5 * a + 1:g} dollars.",
        ),
        (
            f"He pays **${a * b}** in total: {a} × ${b} = ${a * b}.",
            f"He pays **${a * b}** in total: {a} × ${b} = ${a * b + 1}.",
        ),
        (f"- Step total: {a} + {b} = {a + b} (apples)", f"- Step total: {a} + {b} = {a + b + 1} (apples)"),
        (
            f"{c} ÷ 4 = {c // 4} per box; {c // 4} × 2 = {c // 2}.",
            f"{c} ÷ 4 = {c // 4} per box; {c // 4} × 2 = {c // 2 + 1}.",
        ),
    ]


def _money(x: Fraction) -> str:
    return f"${float(x):,.2f}" if x.denominator != 1 else f"${int(x):,}"


def arithmetic(rng: random.Random, style: str, phrasing: str, mistake: bool) -> Item:
    """A short word-problem solution with several equations; ``mistake``: one result is off."""
    eqs: list[tuple[str, Fraction, str]] = []  # (left, value, template with {v})
    if style == "currency":
        p, q = Fraction(rng.randint(105, 2999), 100), rng.randint(2, 9)
        t = p * q
        extra = Fraction(rng.randint(1, 40))
        eqs = [
            (f"{q} x {_money(p)}", t, "Each ticket costs {p}, so {q} tickets cost {l} = {v}."),
            (f"{_money(t)} + {_money(extra)}", t + extra, "Adding the {e} fee gives {l} = {v}."),
        ]
        fmt = _money
        ctx = {"p": _money(p), "q": q, "e": _money(extra)}
    elif style == "percent":
        base = rng.choice([40, 60, 80, 120, 150, 200, 250, 400])
        pct = rng.choice([5, 10, 15, 20, 25, 30, 40, 75])
        off = Fraction(base * pct, 100)
        eqs = [
            (f"{pct}% of {base}", off, "The discount is {l} = {v} dollars."),
            (f"{base} - {_plain(off)}", base - off, "So the price is {l} = {v} dollars."),
        ]
        fmt, ctx = _plain, {}
    elif style == "thousands":
        a, b = rng.randint(1200, 98000), rng.randint(1100, 50000)
        eqs = [
            (f"{a:,} + {b:,}", Fraction(a + b), "Together they have {l} = {v} people."),
            (f"{a + b:,} x 3", Fraction(3 * (a + b)), "Over three days that is {l} = {v} visits."),
        ]
        fmt, ctx = (lambda x: f"{int(x):,}"), {}
    elif style == "mixed":
        w1, w2 = rng.randint(1, 5), rng.randint(1, 5)
        f1, f2 = Fraction(1, rng.choice([2, 4])), Fraction(rng.choice([1, 3]), 4)
        s = w1 + f1 + w2 + f2
        eqs = [
            (f"{_mixed(w1 + f1)} + {_mixed(w2 + f2)}", s, "She walks {l} = {v} miles in total."),
            (f"{_mixed(s)} x 2", 2 * s, "Both ways, that is {l} = {v} miles."),
        ]
        fmt, ctx = _mixed, {}
    elif style == "latex":
        d = rng.choice([2, 3, 4, 5, 6, 8])
        m = d * rng.randint(2, 9)
        k = rng.randint(1, d - 1)
        eqs = [
            (
                f"\\frac{{{k}}}{{{d}}} \\cdot {m}",
                Fraction(k * m, d),
                "We need $\\frac{{{k}}}{{{d}}}$ of them: ${l} = {v}$.",
            ),
            (f"{m} - {_plain(Fraction(k * m, d))}", m - Fraction(k * m, d), "The rest is ${l} = {v}$."),
        ]
        fmt, ctx = _plain, {"k": k, "d": d}
    elif style == "units":
        speed, hours = rng.randint(30, 90), rng.randint(2, 6)
        eqs = [
            (f"{speed} km/h × {hours} h", Fraction(speed * hours), "The car covers {l} = {v} km."),
            (
                f"{speed * hours} km ÷ {hours}",
                Fraction(speed),
                "Back again at the same speed: {l} = {v} km/h.",
            ),
        ]
        fmt, ctx = (lambda x: _plain(x)), {}
    elif style == "approx":
        a, b = rng.randint(10, 99), rng.choice([3, 6, 7, 9])
        v = Fraction(a, b)
        eqs = [
            (f"{a} / {b}", v, "Each share is {l} ≈ {v}."),
            (f"{a} + {b}", Fraction(a + b), "Together {l} = {v}."),
        ]
        fmt, ctx = (lambda x: f"{float(x):.2f}" if x.denominator != 1 else str(int(x))), {}
    elif style == "traps":
        lines = rng.sample(_traps(rng), 3)
        bad = rng.randrange(3) if mistake else -1
        steps = [wrong if j == bad else good for j, (good, wrong) in enumerate(lines)]
        steps.append("The answer is 5.")
        return Item("arithmetic", style, phrasing, "A word problem (generated).", steps, None, None,
                    bad if bad >= 0 else None)  # fmt: skip
    else:  # GSM8K calculator annotations
        a, b, c = rng.randint(2, 30), rng.randint(2, 12), rng.randint(1, 50)
        eqs = [
            (f"{a}*{b}", Fraction(a * b), "He buys {a} boxes of {b}, so {a}*{b}=<<{a}*{b}={v}>>{v} eggs."),
            (f"{a * b}+{c}", Fraction(a * b + c), "With {c} more, {l}=<<{l}={v}>>{v} eggs."),
        ]
        fmt, ctx = (lambda x: str(int(x))), {"a": a, "b": b, "c": c}
    bad = rng.randrange(len(eqs)) if mistake else -1
    steps = []
    for j, (left, value, template) in enumerate(eqs):
        shown = value + (rng.choice((1, 2, 3)) if j == bad else 0)
        steps.append(template.format(l=left, v=fmt(shown), **ctx))
    final = eqs[-1][1]
    steps.append(f"The answer is {fmt(final)}.")
    problem = "A short word problem (generated)."
    return Item("arithmetic", style, phrasing, problem, steps, None, None, bad if bad >= 0 else None)


def _plain(x: Fraction) -> str:
    return (
        str(x.numerator) if x.denominator == 1 else f"{float(x):g}" if (x * 100).denominator == 1 else str(x)
    )


def _mixed(x: Fraction) -> str:
    w, r = divmod(x.numerator, x.denominator)
    if r == 0:
        return str(w)
    return f"{w} {r}/{x.denominator}" if w else f"{r}/{x.denominator}"


GENERATORS = {
    "dyck_languages": (dyck, DYCK_STYLES, ("bbm", "bigbench", "qa", "other")),
    "word_sorting": (wordsort, WORD_STYLES, ("bbm", "bigbench", "qa", "other")),
    "tracking_shuffled_objects": (shuffle, SHUFFLE_STYLES, ("bbm", "qa")),
    "multistep_arithmetic": (multistep, MULTI_STYLES, ("bbm", "qa")),
    "logical_deduction": (deduction, DED_STYLES, ("bbm", "bigbench", "qa")),
    "arithmetic": (arithmetic, ARITH_STYLES, ("text",)),
}


def items(seed: int = 0, per_cell: int = 6, tasks: tuple[str, ...] = tuple(GENERATORS)) -> list[Item]:
    """``per_cell`` correct and ``per_cell`` mistaken items for every (task, style, phrasing)."""
    out = []
    for task in tasks:
        fn, styles, phrasings = GENERATORS[task]
        for style in styles:
            for phrasing in phrasings:
                rng = random.Random(f"{seed}/{task}/{style}/{phrasing}")
                for _ in range(per_cell):
                    out.append(fn(rng, style, phrasing, False))
                    out.append(fn(rng, style, phrasing, True))
    return out
