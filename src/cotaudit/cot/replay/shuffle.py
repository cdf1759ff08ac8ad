"""Tracking shuffled objects (BIG-bench ``tracking_shuffled_objects``): who holds what.

The problem names the people, what each holds at the start (``Alice gets Lolita, Bob gets
The Great Gatsby``; ``Alice has a orange ball``; ``Alice is playing striker``) and the swaps in
order (``First, Alice and Claire swap books. Then, …``). The replayer swaps as it reads and
checks each step:

- a swap a step names is the next swap of the problem (same two people, in order);
- every holding a step states (``Alice: Moby Dick``, ``Alice has pink ball``, ``Claire is
  playing striker``) is the replayed one after that step's swap.

Objects are recognised by their full name or by a word of it that no other object shares
(``Gatsby`` for "The Great Gatsby"); a holding whose object cannot be told apart is skipped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from cotaudit.cot.replay import Check, Replay

_PEOPLE = re.compile(r"^((?:[A-Z][a-z]+, )+(?:and )?[A-Z][a-z]+) (?:are|were) ")
_START = re.compile(r"(?:each|the start[^:]*?)\s[^:.]*:\s*([^.]*)\.")
_SWAP = re.compile(r"\b([A-Z][a-z]+) and ([A-Z][a-z]+) (?:swap|switch|trade)")
_STOP = frozenset({"the", "a", "an", "of", "ball", "present", "book", "with", "playing", "is", "has", "gets"})


_CLOSING = re.compile(r"\b(?:end|answer|final|finally)\b", re.I)


def _swap_pattern(people: list[str], initials: dict[str, str]) -> re.Pattern[str]:
    """``Alice and Claire swap`` / ``A and C swap`` (initials when every person's is unique)."""
    names = "|".join(map(re.escape, [*people, *initials]))
    return re.compile(rf"\b({names}) and ({names}) (?:swap|switch|trade)")


def _split_list(text: str) -> list[str]:
    return [p.strip() for p in re.split(r",\s*(?:and\s+)?|\s+and\s+(?=[A-Z])", text) if p.strip()]


class TrackingShuffledObjects:
    name = "tracking_shuffled_objects"

    def recognises(self, problem: str, steps: Sequence[str]) -> bool:
        return _PEOPLE.search(problem) is not None and _SWAP.search(problem) is not None

    def _parse(self, problem: str) -> tuple[list[str], dict[str, str], list[tuple[str, str]]] | None:
        people_m = _PEOPLE.search(problem)
        start_m = _START.search(problem)
        if people_m is None or start_m is None:
            return None
        people = [p.replace("and ", "").strip() for p in people_m.group(1).split(", ")]
        parts = _split_list(start_m.group(1))
        holdings: dict[str, str] = {}
        rests: list[tuple[str, list[str]]] = []
        for part in parts:
            name, _, rest = part.partition(" ")
            if name not in people:
                return None
            rests.append((name, rest.split()))
        if len(rests) != len(people):
            return None
        prefix = 0
        while all(len(r) > prefix + 1 for _, r in rests) and len({r[prefix] for _, r in rests}) == 1:
            prefix += 1
        for who, words in rests:
            holdings[who] = " ".join(words[prefix:])
        if len(set(holdings.values())) != len(holdings):
            return None
        body = problem[start_m.end() :]
        end = body.find("At the end")
        swaps = [(a, b) for a, b in _SWAP.findall(body[: end if end >= 0 else len(body)])]
        if any(a not in people or b not in people for a, b in swaps):
            return None
        return people, holdings, swaps

    def replay(self, problem: str, steps: Sequence[str]) -> Replay:
        out = Replay()
        parsed = self._parse(problem)
        if parsed is None:
            out.notes.append("the problem's people, holdings or swaps could not be read")
            return out
        people, state, swaps = parsed
        aliases = self._aliases(list(state.values()))
        initials = {p[0]: p for p in people} if len({p[0] for p in people}) == len(people) else {}
        swap_re = _swap_pattern(people, initials)
        next_swap = 0
        seen_state = False
        for i, step in enumerate(steps):
            m = swap_re.search(step)
            holdings = self._holdings(step[m.end() :] if m is not None else step, people, aliases, initials)
            if (
                m is None
                and seen_state
                and len(holdings) >= 2
                and next_swap < len(swaps)
                and not _CLOSING.search(step)
            ):
                a, b = swaps[next_swap]  # a state listed with no swap named: the next swap happened
                state[a], state[b] = state[b], state[a]
                next_swap += 1
            seen_state = seen_state or len(holdings) >= 2
            if m is not None:
                pair = {initials.get(m.group(1), m.group(1)), initials.get(m.group(2), m.group(2))}
                if next_swap >= len(swaps) or pair != set(swaps[next_swap]):
                    want = " and ".join(swaps[next_swap]) if next_swap < len(swaps) else "no further swap"
                    out.checks.append(
                        Check(
                            i, False, "the next swap", f"{m.group(1)} and {m.group(2)}", want, m.start() + 1
                        )
                    )
                    return out
                a, b = swaps[next_swap]
                state[a], state[b] = state[b], state[a]
                next_swap += 1
                out.checks.append(
                    Check(i, True, "the next swap", f"{a} and {b}", f"{a} and {b}", m.start() + 1)
                )
            offset = m.end() if m is not None else 0
            for name, item, col in holdings:
                ok = state[name] == item
                out.checks.append(Check(i, ok, f"what {name} holds", item, state[name], offset + col + 1))
                if not ok:
                    return out
        return out

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
        self, text: str, people: list[str], aliases: list[tuple[str, str]], initials: dict[str, str]
    ) -> list[tuple[str, str, int]]:
        found = []
        names = "|".join(map(re.escape, [*people, *initials]))
        pattern = re.compile(
            rf"\b({names})(?::| has| now has| gets| is(?: now)? (?:playing|dancing with|holding)| holds)\s+"
        )
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
