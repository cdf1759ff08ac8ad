"""Logical deduction (BIG-bench ``logical_deduction``): placement claims against the puzzle.

The puzzle lists n objects in a fixed order and statements about them: relative ("the bus is
newer than the sedan", "the owl is to the left of the crow", "the kiwis are less expensive
than the plums", "Eve finished above Ana") and absolute ("the gray book is the second from
the left", "the minivan is the fourth-newest", "the apples are the cheapest"). Each object
gets a position 1…n on one axis (left→right, newest→oldest, most→least expensive,
first→last); the statements become constraints over those positions, solved with Z3 through
:mod:`cotaudit.vericot.smt` (the project's one Z3 module).

The trace places objects step by step ("So from newest to oldest: first can be any vehicle,
then second is the station wagon, then third can be the convertible or the truck, …") and
concludes ("The only vehicle that can be third-newest is the convertible", "the apples
cannot be the second-most expensive"). Every such claim is checked for *entailment by the
statements the trace has quoted so far*: a placement that does not follow from what the
trace has used is a mistake at that step, even when it happens to be true in the final
order. "Can be any" is no claim. A position past n is wrong.

If a statement of the puzzle cannot be read, the replay does nothing (no claim is judged).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import cotaudit.limits as limits
from cotaudit.cot.replay import Check, Replay

_ORD = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12,
}  # fmt: skip
_ORD_ALT = "|".join(_ORD)
_OBJECTS = re.compile(r"(?:there (?:are|were)|sells|has) (?:three|four|five|six|seven) [a-z]+: ([^.\n]*)\.")
_RELATIVE = [
    (re.compile(r"is (?:to the )?left of"), "<"),
    (re.compile(r"is (?:to the )?right of"), ">"),
    (re.compile(r"(?:is|are) newer than"), "<"),
    (re.compile(r"(?:is|are) older than"), ">"),
    (re.compile(r"(?:is|are) more expensive than"), "<"),
    (re.compile(r"(?:is|are) (?:less expensive|cheaper) than"), ">"),
    (re.compile(r"finished above"), "<"),
    (re.compile(r"finished below"), ">"),
]
# Absolute positions: (pattern, function of (k, n) -> canonical position); k from the ordinal.
_ABSOLUTE: list[tuple[re.Pattern[str], Callable[[int, int], int]]] = [
    (re.compile(rf"the ({_ORD_ALT}) from the left"), lambda k, n: k),
    (re.compile(rf"the ({_ORD_ALT}) from the right"), lambda k, n: n + 1 - k),
    (re.compile(r"the leftmost"), lambda k, n: 1),
    (re.compile(r"the rightmost"), lambda k, n: n),
    (re.compile(rf"the ({_ORD_ALT})-newest"), lambda k, n: k),
    (re.compile(rf"the ({_ORD_ALT})-oldest"), lambda k, n: n + 1 - k),
    (re.compile(r"the newest"), lambda k, n: 1),
    (re.compile(r"the oldest"), lambda k, n: n),
    (re.compile(rf"the ({_ORD_ALT})-most expensive"), lambda k, n: k),
    (re.compile(rf"the ({_ORD_ALT})-cheapest"), lambda k, n: n + 1 - k),
    (re.compile(r"the most expensive"), lambda k, n: 1),
    (re.compile(r"the cheapest"), lambda k, n: n),
    (re.compile(rf"finished ({_ORD_ALT})-to-last"), lambda k, n: n + 1 - k),
    (re.compile(r"finished last"), lambda k, n: n),
    (re.compile(rf"finished ({_ORD_ALT})"), lambda k, n: k),
]
# "from newest to oldest" etc.: whether the trace's ordinals run along the canonical axis.
_ORIENTATION = re.compile(
    r"from (left to right|right to left|newest to oldest|oldest to newest|most to least expensive|"
    r"least to most expensive|cheapest to most expensive|most expensive to cheapest|first to last|last to first)"
)
_FORWARD = {
    "left to right",
    "newest to oldest",
    "most to least expensive",
    "most expensive to cheapest",
    "first to last",
}
_PLACE = re.compile(
    rf"\b({_ORD_ALT}) (is|can be) ((?:(?:the |an? )?[a-z][a-z ]*?)(?: or (?:the |an? )?[a-z][a-z ]*?)*)(?=,|\.|$| then)"
)
_ONLY = re.compile(r"the only [a-z]+ that can be (.+?) is (?:the )?([a-z][a-z ]*?)(?=[.,]|$)")
_CANNOT = re.compile(r"(?:the )?([a-z][a-z ]*?) (?:cannot|can not|can't) be (.+?)(?=[.,]|$)")


def _norm(text: str) -> str:
    return " ".join(re.sub(r"\b(the|a|an)\b", " ", text.lower()).split())


class Puzzle:
    """The objects, the statements as constraints, and a Z3 session to ask entailment."""

    def __init__(self, objects: list[str], statements: list[tuple[str, str]]) -> None:
        from cotaudit.vericot.smt import Z3Session

        self.objects = objects
        self.n = len(objects)
        self.statements = statements  # (normalised text, SMT-LIB assertion)
        self.session = Z3Session(timeout_ms=2000)
        decls = "".join(f"(declare-const o{j} Int)" for j in range(self.n))
        self.decls = decls
        base = "".join(f"(assert (and (<= 1 o{j}) (<= o{j} {self.n})))" for j in range(self.n))
        base += "(assert (distinct " + " ".join(f"o{j}" for j in range(self.n)) + "))"
        self.base_tags = [self.session.new_tag(t) for t in self.session.parse(decls + base)]
        self.tags = [
            self.session.new_tag(self.session.parse(decls + f"(assert {a})")[0]) for _, a in statements
        ]

    def entailed(self, used: list[int], claim: str) -> bool | None:
        """Does ``claim`` (an SMT-LIB Boolean term) follow from the statements ``used``?"""
        limits.checkpoint()
        goal = self.session.parse(self.decls + f"(assert (not {claim}))")[0]
        left = limits.remaining(2.0) or 2.0
        raw = self.session.check(
            self.base_tags + [self.tags[k] for k in used], goal, max(1, int(left * 1000))
        )
        if raw.result == "unsat":
            return True
        if raw.result == "sat":
            return False
        return None


def _object_index(objects: list[str], text: str) -> int | None:
    t = _norm(text)
    hits = [j for j, o in enumerate(objects) if _norm(o) == t]
    return hits[0] if len(hits) == 1 else None


def _absolute(text: str, n: int) -> int | None:
    for pattern, fn in _ABSOLUTE:
        m = pattern.fullmatch(text.strip())
        if m is not None:
            k = _ORD.get(m.group(1), 0) if m.groups() else 0
            pos = fn(k, n)
            return pos if 1 <= pos <= n else None
    return None


def _statement(objects: list[str], line: str) -> str | None:
    """One puzzle statement as an SMT-LIB assertion, or ``None`` when it cannot be read."""
    text = line.strip().rstrip(".").lower()
    for pattern, op in _RELATIVE:
        m = pattern.search(text)
        if m is not None:
            a = _object_index(objects, text[: m.start()])
            b = _object_index(objects, text[m.end() :])
            if a is None or b is None:
                return None
            return f"({op} o{a} o{b})"
    m = re.fullmatch(r"(.+?) (?:is|are) (.+)", text) or re.fullmatch(r"(.+?) (finished .+)", text)
    if m is None:
        return None
    a = _object_index(objects, m.group(1))
    pos = _absolute(m.group(2), len(objects))
    if a is None or pos is None:
        return None
    return f"(= o{a} {pos})"


def parse_puzzle(problem: str) -> Puzzle | None:
    m = _OBJECTS.search(problem)
    if m is None:
        return None
    objects = [
        re.sub(r"^(?:a|an|the)\s+", "", p.strip()) for p in re.split(r",\s*(?:and\s+)?|\s+and\s+", m.group(1))
    ]
    objects = [o for o in objects if o]
    if not 3 <= len(objects) <= 9 or len(set(map(_norm, objects))) != len(objects):
        return None
    statements = []
    for line in problem.split("\n"):
        line = line.strip()
        if not line.startswith("- ") or _OBJECTS.search(line):
            continue
        smt = _statement(objects, line[2:])
        if smt is None:
            return None
        statements.append((_norm(line[2:].rstrip(".")), smt))
    if not statements:
        return None
    return Puzzle(objects, statements)


class LogicalDeduction:
    name = "logical_deduction"

    def recognises(self, problem: str, steps: Sequence[str]) -> bool:
        return "arranged in a fixed order" in problem and _OBJECTS.search(problem) is not None

    def replay(self, problem: str, steps: Sequence[str]) -> Replay:
        out = Replay()
        puzzle = parse_puzzle(problem)
        if puzzle is None:
            out.notes.append("the puzzle's objects or statements could not be read")
            return out
        used: list[int] = []
        for i, step in enumerate(steps):
            low = step.lower()
            for k, (text, _) in enumerate(puzzle.statements):
                if k not in used and text in _norm(low):
                    used.append(k)
            for claim, what, col in self._claims(puzzle, low):
                if claim == "out-of-range":
                    out.checks.append(
                        Check(i, False, "a position in the order", what, f"positions 1 to {puzzle.n}", col)
                    )
                    continue
                verdict = puzzle.entailed(sorted(used), claim)
                if verdict is None:
                    continue
                out.checks.append(
                    Check(i, verdict, "a placement that must follow from the statements used so far", what,
                          "follows" if verdict else "does not follow from the statements quoted so far", col)
                )  # fmt: skip
        return out

    def _claims(self, puzzle: Puzzle, low: str) -> list[tuple[str, str, int]]:
        claims: list[tuple[str, str, int]] = []
        n = puzzle.n
        orient = _ORIENTATION.search(low)
        forward = orient is None or orient.group(1) in _FORWARD
        if orient is not None:
            for m in _PLACE.finditer(low, orient.end()):
                k = _ORD[m.group(1)]
                names = re.split(r"\s+or\s+", m.group(3))
                if any(w.strip().startswith("any") for w in names):
                    continue
                idx = [_object_index(puzzle.objects, w) for w in names]
                if k > n:
                    claims.append(("out-of-range", f"{m.group(1)} is {m.group(3)}", m.start() + 1))
                    continue
                if any(j is None for j in idx):
                    continue
                pos = k if forward else n + 1 - k
                terms = " ".join(f"(= o{j} {pos})" for j in idx)
                claims.append((f"(or {terms})" if len(idx) > 1 else terms, m.group(0), m.start() + 1))
        for m in _ONLY.finditer(low):
            at = _absolute(m.group(1) if m.group(1).startswith("the ") else "the " + m.group(1), n)
            j = _object_index(puzzle.objects, m.group(2))
            if at is not None and j is not None:
                claims.append((f"(= o{j} {at})", m.group(0), m.start() + 1))
        for m in _CANNOT.finditer(low):
            at = _absolute(m.group(2) if m.group(2).startswith("the ") else "the " + m.group(2), n)
            j = _object_index(puzzle.objects, m.group(1).split(",")[-1].split(" so ")[-1])
            if at is not None and j is not None:
                claims.append((f"(not (= o{j} {at}))", m.group(0), m.start() + 1))
        return claims


REPLAYER = LogicalDeduction()
