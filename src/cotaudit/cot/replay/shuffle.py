"""Tracking shuffled objects (BIG-bench ``tracking_shuffled_objects``): who holds what.

The problem names the people, what each holds at the start (``Alice gets Lolita, Bob gets
The Great Gatsby``; ``Alice has a orange ball``; ``Alice is playing striker``), the swaps in
order (``First, Alice and Claire swap books. Then, …``), the question (``At the end of the
semester, Bob has``) and the options. The replayer swaps as it reads and checks each step:

- every swap a step names (``Alice and Claire swap``, ``A and C swap``, ``C D:``) is the next
  swap of the problem, in order, and happens;
- a step that lists holdings without naming a swap, after a state was listed, performs the
  next swap (traces written as one state per line);
- every holding a step states (``Alice: Moby Dick``, ``Alice has pink ball``, ``C Black``,
  ``Claire is playing striker``) is the replayed one after that step's swaps;
- "the answer is (X)" names the option that is what the person asked about holds at the end.

Objects are recognised by their full name or by a word of it that no other object shares
(``Gatsby`` for "The Great Gatsby"); a holding whose object cannot be told apart is skipped.
A step is *complete* when it states everyone's holding and each one holds (or it names only
swaps, or it is the answer and the answer holds).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from cotaudit.cot.replay.model import Check, Replay

_PEOPLE = re.compile(r"^((?:[A-Z][a-z]+, )+(?:and )?[A-Z][a-z]+) (?:are|were) ")
_START = re.compile(r"(?:each|the start[^:]*?)\s[^:.]*:\s*([^.]*)\.")
_SWAP = re.compile(r"\b([A-Z][a-z]+) and ([A-Z][a-z]+) (?:swap|switch|trade)")
_STOP = frozenset({"the", "a", "an", "of", "ball", "present", "book", "with", "playing", "is", "has", "gets"})
_QUESTION = re.compile(r"At the end of the [a-z]+, ([A-Z][a-z]+) (?:has|is)")
_OPTION = re.compile(r"^\(([A-Z])\)\s+(.{1,200})$", re.MULTILINE)
_ANSWER = re.compile(r"the answer is\s*\(([A-Z])\)")


@dataclass(frozen=True, slots=True)
class _Puzzle:
    people: list[str]
    start: dict[str, str]
    swaps: list[tuple[str, str]]
    asked: str | None
    options: dict[str, str]


def _split_list(text: str) -> list[str]:
    return [p.strip() for p in re.split(r",\s*(?:and\s+)?|\s+and\s+(?=[A-Z])", text) if p.strip()]


def _parse(problem: str) -> _Puzzle | None:
    people_m = _PEOPLE.search(problem)
    start_m = _START.search(problem)
    if people_m is None or start_m is None:
        return None
    people = [p.replace("and ", "").strip() for p in people_m.group(1).split(", ")]
    rests: list[tuple[str, list[str]]] = []
    for part in _split_list(start_m.group(1)):
        name, _, rest = part.partition(" ")
        if name not in people:
            return None
        rests.append((name, rest.split()))
    if len(rests) != len(people):
        return None
    prefix = 0
    while all(len(r) > prefix + 1 for _, r in rests) and len({r[prefix] for _, r in rests}) == 1:
        prefix += 1
    start = {who: " ".join(words[prefix:]) for who, words in rests}
    if len(set(start.values())) != len(start):
        return None
    body = problem[start_m.end() :]
    end = body.find("At the end")
    swaps = list(_SWAP.findall(body[: end if end >= 0 else len(body)]))
    if any(a not in people or b not in people for a, b in swaps):
        return None
    question = _QUESTION.search(problem)
    asked = question.group(1) if question is not None and question.group(1) in people else None
    options = {m.group(1): m.group(2).strip().rstrip(".") for m in _OPTION.finditer(problem)}
    return _Puzzle(people, start, swaps, asked, options)


class TrackingShuffledObjects:
    name = "tracking_shuffled_objects"

    def recognises(self, problem: str, steps: Sequence[str]) -> bool:
        return _PEOPLE.search(problem) is not None and _SWAP.search(problem) is not None

    def replay(self, problem: str, steps: Sequence[str]) -> Replay:
        out = Replay()
        puzzle = _parse(problem)
        if puzzle is None:
            out.notes.append("the problem's people, holdings or swaps could not be read")
            return out
        people, swaps = puzzle.people, puzzle.swaps
        state = dict(puzzle.start)
        aliases = self._aliases(list(state.values()))
        initials = {p[0]: p for p in people} if len({p[0] for p in people}) == len(people) else {}
        names = "|".join(map(re.escape, [*people, *initials]))
        swap_re = re.compile(rf"\b({names}) and ({names}) (?:swap|switch|trade)")
        compact = re.compile(rf"\s*(?:\(\d+\)\s*)?({names})\s+({names})\s*:") if initials else None
        next_swap = 0
        seen_state = False
        for i, step in enumerate(steps):
            named = [(m.group(1), m.group(2), m.start(), m.end()) for m in swap_re.finditer(step)]
            cm = compact.match(step) if compact is not None and not named else None
            if cm is not None:
                named = [(cm.group(1), cm.group(2), cm.start(1), cm.end())]
            after = named[-1][3] if named else 0
            holdings = self._holdings(step[after:], people, aliases, initials, bare=cm is not None)
            closing = _ANSWER.search(step) or re.search(r"\b(?:end|final|finally)\b", step, re.I)
            if not named and seen_state and len(holdings) >= 2 and next_swap < len(swaps) and not closing:
                a, b = swaps[next_swap]  # a state listed with no swap named: the next swap happened
                state[a], state[b] = state[b], state[a]
                next_swap += 1
            seen_state = seen_state or len(holdings) >= 2
            for x, y, at, _ in named:
                pair = {initials.get(x, x), initials.get(y, y)}
                if next_swap >= len(swaps) or pair != set(swaps[next_swap]):
                    want = " and ".join(swaps[next_swap]) if next_swap < len(swaps) else "no further swap"
                    out.checks.append(Check(i, False, "the next swap", f"{x} and {y}", want, at + 1))
                    return out
                a, b = swaps[next_swap]
                state[a], state[b] = state[b], state[a]
                next_swap += 1
                out.checks.append(Check(i, True, "the next swap", f"{a} and {b}", f"{a} and {b}", at + 1))
            for name, item, col in holdings:
                good = state[name] == item
                out.checks.append(Check(i, good, f"what {name} holds", item, state[name], after + col + 1))
                if not good:
                    return out
            answered = self._answer(i, step, puzzle, state, aliases, out)
            if answered is False:
                return out
            stated = {n for n, _, _ in holdings}
            swapped = {initials.get(x, x) for x, _, _, _ in named} | {
                initials.get(y, y) for _, y, _, _ in named
            }
            everyone = stated == set(people) or (bool(named) and stated == swapped)
            if len(holdings) >= 2 and not everyone:
                left_out = ", ".join(p for p in people if p not in stated)
                out.notes.append(f"step {i}: the state leaves out {left_out}")
            if everyone or (named and not holdings) or (answered and len(holdings) <= 1):
                out.complete.add(i)
        return out

    def _answer(
        self,
        i: int,
        step: str,
        puzzle: _Puzzle,
        state: dict[str, str],
        aliases: list[tuple[str, str]],
        out: Replay,
    ) -> bool | None:
        """ "The answer is (X)": option X must be what the person asked about holds now."""
        m = _ANSWER.search(step)
        if m is None or puzzle.asked is None or m.group(1) not in puzzle.options:
            return None
        text = puzzle.options[m.group(1)].lower()
        named = {item for alias, item in aliases if re.search(rf"\b{re.escape(alias)}\b", text)}
        if len(named) != 1:
            return None
        item = named.pop()
        want = state[puzzle.asked]
        what = f"the answer: what {puzzle.asked} holds at the end"
        out.checks.append(Check(i, item == want, what, f"({m.group(1)}) {item}", want, m.start() + 1))
        return item == want

    def _aliases(self, items: list[str]) -> list[tuple[str, str]]:
        """(alias, item): each full name, and each word of a name that no other name has."""
        out = [(item.lower(), item) for item in items]
        for item in items:
            for word in item.lower().split():
                if word in _STOP or len(word) < 3:
                    continue
                if sum(word in other.lower().split() for other in items) == 1:
                    out.append((word, item))
        out.sort(key=lambda a: -len(a[0]))
        return out

    def _holdings(
        self,
        text: str,
        people: list[str],
        aliases: list[tuple[str, str]],
        initials: dict[str, str],
        bare: bool = False,
    ) -> list[tuple[str, str, int]]:
        """(person, item, offset) for each holding stated; ``bare``: "C Black" (compact notation)."""
        found = []
        names = "|".join(map(re.escape, [*people, *initials]))
        verbs = r"(?::| has| now has| gets| is(?: now)? (?:playing|dancing with|holding)| holds"
        verbs += r"| )" if bare else r")"
        pattern = re.compile(rf"\b({names}){verbs}\s*")
        matches = list(pattern.finditer(text))
        for k, m in enumerate(matches):
            end = matches[k + 1].start() if k + 1 < len(matches) else len(text)
            segment = text[m.end() : end].lower()
            segment = re.split(r"[.;]|, so\b|\bso the answer", segment)[0]
            hits = {item for alias, item in aliases if re.search(rf"\b{re.escape(alias)}\b", segment)}
            if len(hits) == 1:
                found.append((initials.get(m.group(1), m.group(1)), hits.pop(), m.start()))
        return found


REPLAYER = TrackingShuffledObjects()
