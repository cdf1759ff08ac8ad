"""Word sorting (BIG-bench ``word_sorting``): letters, buckets and orderings claimed.

The trace reads the k-th letter of each word (``"kitten": "k" (11)``), groups words into
buckets by that letter (``(2) ["being" ? "bellyache"] < (3) "cider"``), sorts each bucket by
the next letter, and merges (``Hence, we have "a" < "b" < …``). The replayer checks:

- every letter claimed is the word's k-th letter, and its number is its place in the alphabet;
- the words listed are exactly the list being sorted (none lost, none added);
- a bucket holds words with that letter, buckets come in increasing order, and a bucket's
  words are exactly the sub-list being sorted;
- the sub-list sorted next is the first unresolved bucket of the current ordering, by a
  letter no later than the first one where its words differ;
- in a merged ordering, the words are a permutation of the input and every ``<`` holds
  (each word on the left sorts before each word on the right).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from cotaudit.cot.replay.model import Check, Replay

_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12,
}  # fmt: skip
_WORD = re.compile(r"[a-z][a-z'&.-]*")
_LETTER_STEP = re.compile(r"The ([a-z]+) letter:", re.I)
_LETTER = re.compile(r'"([^"]+)":\s*"([^"]*)"\s*\((\d+)\)')
_SUBPART = re.compile(r"sort this subpart \[([^\]]*)\] by looking at their ([a-z]+) letters", re.I)
_END = re.compile(r"\.(?:\s|$)")
_ANSWER = re.compile(r"[Tt]he answer is:?")


@dataclass(frozen=True, slots=True)
class _Span:
    """A phrase's body and its offset in the step (``group(1)`` / ``start(1)`` like a match)."""

    body: str
    at: int

    def group(self, _: int = 1) -> str:
        return self.body

    def start(self, _: int = 1) -> int:
        return self.at


def _now(step: str) -> _Span | None:
    """``We now have: <buckets> [for the subpart].`` (found with linear scans, no backtracking)."""
    k = step.find("We now have:")
    if k < 0:
        return None
    at = k + len("We now have:")
    while at < len(step) and step[at].isspace():
        at += 1
    end = _END.search(step, at)
    body = step[at : end.start() if end is not None else len(step)].rstrip()
    if end is None:
        return None
    body = body.removesuffix("for the subpart").rstrip()
    return _Span(body, at)


def _hence(step: str) -> _Span | None:
    """``Hence, we have <ordering>.`` to the end of the step."""
    k = step.find("Hence, we have")
    if k < 0:
        return None
    at = k + len("Hence, we have")
    while at < len(step) and step[at].isspace():
        at += 1
    return _Span(step[at:].rstrip().removesuffix(".").rstrip(), at)


_GROUP = re.compile(r'\((\d+)\)\s*((?:\[[^\]]*\]|"[^"]+")(?:\s*\?\s*"[^"]+")*)')
_QUOTED = re.compile(r'"([^"]+)"')


def _items(ordering: str) -> list[list[str]]:
    """``"a" < ["b" ? "c"] < "d"`` → ``[["a"], ["b", "c"], ["d"]]``."""
    return [_QUOTED.findall(part) for part in ordering.split("<") if _QUOTED.findall(part)]


def _common_prefix(words: Sequence[str]) -> int:
    n = 0
    while all(len(w) > n for w in words) and len({w[n] for w in words}) == 1:
        n += 1
    return n


def _close(a: str, b: str) -> bool:
    """At most one edit apart (a misspelt copy of a word is still that word)."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return a == b
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    return a[i + 1 :] == b[i + 1 :] or a[i:] == b[i + 1 :] or a[i + 1 :] == b[i:]


def _respell(step: str, words: Sequence[str]) -> tuple[str, list[str]]:
    """Quoted words that are one edit from exactly one input word (and are not input words
    themselves) are read as that word: the ordering, not the spelling, is being checked (the
    annotators of BIG-Bench Mistake mostly let such copies pass). Returns the text and what was
    read so; a step with a respelling is never counted as fully checked."""
    known = set(words)
    read: list[str] = []

    def fix(m: re.Match[str]) -> str:
        w = m.group(1)
        if w in known:
            return m.group(0)
        near = [x for x in known if _close(w, x)]
        if len(near) == 1 and len(w) >= 4:
            read.append(f"{w!r} read as {near[0]!r}")
            return f'"{near[0]}"'
        return m.group(0)

    return _QUOTED.sub(fix, step), read


def _replace_item(ordering: list[list[str]], old: list[str], new: list[list[str]]) -> list[list[str]]:
    """The ordering with the bucket holding exactly ``old`` replaced by ``new`` (if there is one)."""
    for j, item in enumerate(ordering):
        if sorted(item) == sorted(old):
            return [*ordering[:j], *new, *ordering[j + 1 :]]
    return ordering


def _difference(said: list[str], want: list[str]) -> str:
    """How an answer differs from the sorted list: words left out, words added, or the order."""
    missing = [w for w in want if w not in said]
    extra = [w for w in said if w not in want]
    if missing or extra:
        parts = [
            f"leaves out {' '.join(missing)}" if missing else "",
            f"adds {' '.join(extra)}" if extra else "",
        ]
        return "; ".join(p for p in parts if p)[:200]
    first = next(k for k, (a, b) in enumerate(zip(said, want, strict=False)) if a != b)
    return f"out of order from {said[first]!r}: sorted is {' '.join(want[first : first + 4])} …"[:200]


def _inside(step: str, spans: Sequence[tuple[int, int]]) -> bool:
    """Is every quoted word of ``step`` inside a span the checks read?"""
    return all(any(a <= m.start() and m.end() <= b for a, b in spans) for m in _QUOTED.finditer(step))


class WordSorting:
    name = "word_sorting"

    def recognises(self, problem: str, steps: Sequence[str]) -> bool:
        words = problem.split()
        return (
            len(words) >= 2 and all(_WORD.fullmatch(w) for w in words) and any("letter" in s for s in steps)
        )

    def replay(self, problem: str, steps: Sequence[str]) -> Replay:
        out = Replay()
        words = problem.split()
        respelt = [_respell(step, words) for step in steps]
        steps = [text for text, _ in respelt]
        for i, (_, read) in enumerate(respelt):
            out.notes.extend(f"step {i}: {r}" for r in read)
        current: list[str] = list(words)  # the list being sorted now
        k = 1
        ordering: list[list[str]] | None = None
        for i, step in enumerate(steps):
            before = len(out.checks)
            spans: list[tuple[int, int]] = [m.span() for m in _LETTER.finditer(step)]
            sub = _SUBPART.search(step)
            if sub is not None:
                spans.append(sub.span())
                named = _QUOTED.findall(sub.group(1))
                k = _ORDINALS.get(sub.group(2).lower(), 0)
                if ordering is not None:
                    first = next((item for item in ordering if len(item) > 1), None)
                    if first is not None and sorted(first) != sorted(named):
                        out.checks.append(
                            Check(
                                i,
                                False,
                                "the next sub-list to sort (the first unresolved bucket)",
                                " ? ".join(named),
                                " ? ".join(first),
                                sub.start() + 1,
                            )
                        )
                    elif first is not None:
                        limit = _common_prefix(first) + 1
                        out.checks.append(
                            Check(
                                i,
                                k <= limit,
                                "the letter to sort the bucket by",
                                f"letter {k}",
                                f"letter {limit} or earlier",
                                sub.start() + 1,
                            )
                        )
                current = named
            elif _LETTER_STEP.search(step) is not None:
                m = _LETTER_STEP.search(step)
                assert m is not None
                k = _ORDINALS.get(m.group(1).lower(), 0)
            if k:
                self._letters(i, step, current, k, out)
            now = _now(step)
            previous, sub_result = ordering, None
            if now is not None and k:
                self._buckets(i, now.group(1), now.start(1) + 1, current, k, out)
                found = [_QUOTED.findall(body) for _, body in _GROUP.findall(now.group(1))]
                sub_result = found
                if ordering is None:
                    ordering = found
                elif _hence(step) is None:
                    ordering = _replace_item(ordering, current, found)
            if now is not None:
                spans.append((now.at, now.at + len(now.body)))
            hence = _hence(step)
            if hence is not None:
                spans.append((hence.at, hence.at + len(hence.body)))
                merged = _items(hence.group(1))
                self._merged(i, merged, hence.start(1) + 1, words, out)
                if now is not None and previous is not None and sub_result is not None:
                    want = _replace_item(previous, current, sub_result)
                    if want is not previous and [sorted(x) for x in want] != [sorted(x) for x in merged]:
                        out.checks.append(
                            Check(
                                i,
                                False,
                                "the merged order takes in the sub-list just sorted",
                                " < ".join(map(" ? ".join, merged))[:200],
                                " < ".join(map(" ? ".join, want))[:200],
                                hence.start(1) + 1,
                            )
                        )
                ordering = merged
            answer = _ANSWER.search(step)
            if answer is not None:
                said = [w for w in re.split(r"[\s,]+", step[answer.end() :].strip().rstrip(".")) if w]
                in_order = sorted(words)
                spans.append((answer.start(), len(step)))
                if said != in_order:
                    diff = _difference(said, in_order)
                    where = answer.start() + 1
                    out.checks.append(
                        Check(i, False, "the answer: the words sorted", " ".join(said)[:200], diff, where)
                    )
                else:
                    out.checks.append(
                        Check(
                            i,
                            True,
                            "the answer: the words sorted",
                            " ".join(said)[:200],
                            "sorted",
                            answer.start() + 1,
                        )
                    )
            mine = out.checks[before:]
            if mine and all(c.ok for c in mine) and _inside(step, spans) and not respelt[i][1]:
                out.complete.add(i)
        return out

    def _letters(self, i: int, step: str, current: list[str], k: int, out: Replay) -> None:
        listed = []
        for m in _LETTER.finditer(step):
            word, letter, number = m.group(1), m.group(2), int(m.group(3))
            listed.append(word)
            if len(word) < k:
                continue
            want = word[k - 1]
            if letter != want or (want.isalpha() and number != ord(want.lower()) - 96):
                out.checks.append(
                    Check(
                        i,
                        False,
                        f"letter {k} of {word!r}",
                        f"{letter} ({number})",
                        f"{want} ({ord(want.lower()) - 96})",
                        m.start() + 1,
                    )
                )
            else:
                out.checks.append(Check(i, True, f"letter {k} of {word!r}", letter, want, m.start() + 1))
        if listed and sorted(listed) != sorted(current):
            out.checks.append(
                Check(i, False, "the words whose letters are read", " ".join(listed), " ".join(current), 1)
            )

    def _buckets(self, i: int, text: str, column: int, current: list[str], k: int, out: Replay) -> None:
        groups = [(int(n), _QUOTED.findall(body)) for n, body in _GROUP.findall(text)]
        if not groups:
            return
        seen = [w for _, ws in groups for w in ws]
        if sorted(seen) != sorted(current):
            out.checks.append(
                Check(i, False, "the words in the buckets", " ".join(seen), " ".join(current), column)
            )
            return
        keys = [n for n, _ in groups]
        if keys != sorted(keys) or len(set(keys)) != len(keys):
            out.checks.append(
                Check(i, False, "the order of the buckets", str(keys), str(sorted(set(keys))), column)
            )
            return
        for n, ws in groups:
            for w in ws:
                if len(w) < k:
                    continue
                want = ord(w[k - 1].lower()) - 96
                if want != n:
                    out.checks.append(
                        Check(i, False, f"the bucket of {w!r} (letter {k})", str(n), str(want), column)
                    )
                    return
        out.checks.append(Check(i, True, "the buckets", text[:80], text[:80], column))

    def _merged(self, i: int, merged: list[list[str]], column: int, words: list[str], out: Replay) -> None:
        flat = [w for item in merged for w in item]
        if sorted(flat) != sorted(words):
            out.checks.append(
                Check(
                    i, False, "the words in the merged order", " ".join(flat), " ".join(sorted(words)), column
                )
            )
            return
        for a, b in itertools.pairwise(merged):
            if max(a) >= min(b):
                out.checks.append(
                    Check(
                        i,
                        False,
                        "an ordering claimed with '<'",
                        f"{' ? '.join(a)} < {' ? '.join(b)}",
                        f"{max(a)} sorts after {min(b)}" if max(a) > min(b) else "equal words",
                        column,
                    )
                )
                return
        out.checks.append(
            Check(i, True, "the merged order", " < ".join(map("?".join, merged))[:80], "", column)
        )


REPLAYER = WordSorting()
