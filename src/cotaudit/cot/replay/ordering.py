"""The language of ordering puzzles (BIG-bench ``logical_deduction``): objects on one axis.

A puzzle names n objects (3 to 9) arranged in a fixed order on one axis and states facts about
them. Every fact becomes a :class:`Fact` over *canonical positions* 1…n, where 1 is the left
end, the newest, the most expensive, or the first to finish:

- relative: "A is (to the) left / right of B", "A is newer / older than B", "A is more / less
  expensive than B" (or "cheaper than"), "A finished / is above / below B";
- absolute: "the k-th from the left / right", "the leftmost / rightmost", "the k-th-newest /
  -oldest", "the newest / oldest", "the k-th-most expensive / -cheapest", "the most expensive /
  cheapest", "finished k-th / last / k-th-to-last", "in the middle", and a bare ordinal
  ("the third book", "fourth") read along the orientation the trace last declared ("from right
  to left: …"), or along the finishing order for golfers.

Facts become Z3 terms in a :mod:`cotaudit.vericot.smt` session (the project's one Z3 module:
the verdicts come from Z3), render to SMT-LIB for display, and evaluate on a concrete order in
plain Python, which is how a "does not follow" verdict is shown: the first order (in
enumeration order) that satisfies the premises and breaks the claim, found over every order
(n ≤ 7) with one bit set per fact, without Z3.

All matching is on whole words after lower-casing; every regex here is linear-time.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cotaudit.limits as limits

ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12,
    "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5, "6th": 6, "7th": 7, "8th": 8, "9th": 9,
}  # fmt: skip
ORD_ALT = "|".join(ORDINALS)
MAX_OBJECTS = 9
MAX_ENUMERATED = 7  # counter-orders are searched for by enumeration up to 7! orders
MAX_QUERIES = 4000  # Z3 queries per trace (a BIG-bench trace asks about 60); past it, nothing is judged

# An end of the axis, as a trace names it in "from <end> to <end>": True = canonical start.
_ENDS = {
    "left": True, "leftmost": True, "newest": True, "most expensive": True, "first": True,
    "top": True, "best": True, "highest": True, "right": False, "rightmost": False,
    "oldest": False, "least expensive": False, "cheapest": False, "last": False, "bottom": False,
    "worst": False, "lowest": False,
}  # fmt: skip
_END_ALT = "|".join(sorted(map(re.escape, _ENDS), key=len, reverse=True))
ORIENTATION = re.compile(rf"\bfrom (?:the )?({_END_ALT})(?: one)? to (?:the )?({_END_ALT})\b(?: one)?\s*:?")
_SHARED_ORIENTATION = re.compile(r"\bfrom (most|least) to (?:most|least) expensive\b\s*:?")

# Relations: phrase -> True when "A <phrase> B" puts A before B on the canonical axis.
_RELATIONS = {
    "to the left of": True, "left of": True, "to the right of": False, "right of": False,
    "newer than": True, "older than": False, "more expensive than": True,
    "less expensive than": False, "cheaper than": False, "pricier than": True,
    "above": True, "below": False, "ahead of": True, "behind": False,
    "higher than": True, "lower than": False, "before": True, "after": False,
}  # fmt: skip
_REL_ALT = "|".join(sorted(map(re.escape, _RELATIONS), key=len, reverse=True))


# ---------------------------------------------------------------------------- facts


@dataclass(frozen=True, slots=True)
class Fact:
    """A proposition about positions: ``at`` (object, k), ``before`` (a, b), or a connective.

    ``args`` holds ints for ``at``/``before`` and Facts for ``not``/``or``/``and``.
    """

    op: str
    args: tuple[object, ...]

    def smt(self, var: str = "o") -> str:
        """SMT-LIB over the Int constants ``<var>0 … <var>(n-1)`` (object j's position)."""
        if self.op == "at":
            return f"(= {var}{self.args[0]} {self.args[1]})"
        if self.op == "before":
            return f"(< {var}{self.args[0]} {var}{self.args[1]})"
        if self.op == "true":
            return "true"
        inner = " ".join(_fact(a).smt(var) for a in self.args)
        return f"({self.op} {inner})"

    def holds(self, order: Sequence[int]) -> bool:
        """Truth on ``order`` (``order[j]`` is object j's canonical position)."""
        if self.op == "at":
            return order[_int(self.args[0])] == self.args[1]
        if self.op == "before":
            return order[_int(self.args[0])] < order[_int(self.args[1])]
        if self.op == "true":
            return True
        if self.op == "not":
            return not _fact(self.args[0]).holds(order)
        if self.op == "or":
            return any(_fact(a).holds(order) for a in self.args)
        return all(_fact(a).holds(order) for a in self.args)

    def compile(self) -> Callable[[Sequence[int]], bool]:
        """``holds`` as a closure (for enumerating orders quickly)."""
        if self.op == "at":
            j, k = _int(self.args[0]), _int(self.args[1])
            return lambda o: o[j] == k
        if self.op == "before":
            a, b = _int(self.args[0]), _int(self.args[1])
            return lambda o: o[a] < o[b]
        if self.op == "true":
            return lambda o: True
        parts = [_fact(a).compile() for a in self.args]
        if self.op == "not":
            inner = parts[0]
            return lambda o: not inner(o)
        if self.op == "or":
            return lambda o: any(p(o) for p in parts)
        return lambda o: all(p(o) for p in parts)

    def objects(self) -> set[int]:
        if self.op in ("at",):
            return {_int(self.args[0])}
        if self.op == "before":
            return {_int(self.args[0]), _int(self.args[1])}
        out: set[int] = set()
        for a in self.args:
            if isinstance(a, Fact):
                out |= a.objects()
        return out


def _fact(x: object) -> Fact:
    assert isinstance(x, Fact)
    return x


def _int(x: object) -> int:
    assert isinstance(x, int)
    return x


def at(obj: int, k: int) -> Fact:
    return Fact("at", (obj, k))


def before(a: int, b: int) -> Fact:
    return Fact("before", (a, b))


def neg(f: Fact) -> Fact:
    return f.args[0] if f.op == "not" and isinstance(f.args[0], Fact) else Fact("not", (f,))


def any_of(facts: Sequence[Fact]) -> Fact:
    return facts[0] if len(facts) == 1 else Fact("or", tuple(facts))


def all_of(facts: Sequence[Fact]) -> Fact:
    return facts[0] if len(facts) == 1 else Fact("and", tuple(facts))


TRUE = Fact("true", ())


# ---------------------------------------------------------------------------- words


def norm(text: str) -> str:
    """Lower case, hyphens as spaces, articles dropped, whitespace collapsed."""
    t = text.lower().replace("-", " ").replace("\u2019", "'")
    return " ".join(w for w in re.split(r"[\s,]+", t) if w and w not in ("the", "a", "an"))


def one_edit(a: str, b: str) -> bool:
    """At most one insertion, deletion or substitution apart ("motorcyle" for "motorcycle")."""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    return a[i + 1 :] == b[i + 1 :] or a[i:] == b[i + 1 :] or a[i + 1 :] == b[i:]


@dataclass(slots=True)
class Frame:
    """What the trace has declared so far that a bare ordinal depends on."""

    forward: bool | None = None  # the orientation of the last "from X to Y" the trace wrote


class Lexicon:
    """The objects of one puzzle and how its words name objects and positions."""

    def __init__(self, objects: list[str], noun: str) -> None:
        self.objects = objects
        self.n = len(objects)
        self.keys = [norm(o) for o in objects]
        noun = noun.lower()
        singular = noun[:-1] if noun.endswith("s") else noun
        self.nouns = {noun, singular, "one", "ones", "object", "objects", "item", "position", "spot", "place"}
        if singular == "golfer":
            self.nouns |= {"person", "player", "people"}
        # golfers are ranked by finishing order: a bare ordinal counts from the first
        self.bare_forward: bool | None = True if singular == "golfer" else None
        self.noun_words = {singular, noun}
        self._memo: dict[str, int | None] = {}

    # -- objects

    def object_of(self, text: str) -> int | None:
        """The object ``text`` names (articles and a trailing class noun ignored), or ``None``."""
        if text in self._memo:
            return self._memo[text]
        found = self._object_of(text)
        if len(self._memo) < 4096:
            self._memo[text] = found
        return found

    def _object_of(self, text: str) -> int | None:
        t = norm(text)
        if not t:
            return None
        hits = [j for j, k in enumerate(self.keys) if k == t]
        if not hits:
            words = t.split()
            if len(words) > 1 and words[-1] in self.noun_words:
                return self._object_of(" ".join(words[:-1]))
            hits = [j for j, k in enumerate(self.keys) if len(k) >= 5 and one_edit(k, t)]
        return hits[0] if len(hits) == 1 else None

    def objects_of(self, text: str) -> list[int] | None:
        """``A``, ``A or B``, ``either A, B, or C``, ``A and B``: the objects, or ``None``."""
        t = re.sub(r"^(?:either|one of|both)\s+", "", text.strip())
        parts = [p for p in re.split(r",\s*(?:or|and)\s+|,\s*|\s+or\s+|\s+and\s+", t) if p.strip()]
        out = [self.object_of(p) for p in parts]
        if not out or any(o is None for o in out):
            return None
        return [o for o in out if o is not None]

    # -- positions

    def position(self, text: str, frame: Frame | None = None) -> int | None:
        """The canonical position a phrase names ("the second from the right", "the
        third-newest", "last", "the fifth book"), or ``None``; a position past n is ``-k``."""
        words = [w for w in norm(text).split() if w not in self.nouns and w not in ("in", "at", "of")]
        n = self.n
        if not words:
            return None
        k = ORDINALS.get(words[0])
        rest = words[1:] if k is not None else words
        if k is None:
            k = 1
            explicit = False
        else:
            explicit = True
        phrase = " ".join(rest)
        pos: int | None
        if phrase in ("from left", "leftmost"):
            pos = k
        elif phrase in ("from right", "rightmost", "from last", "to last", "last"):
            pos = n + 1 - k
        elif phrase in ("newest", "most expensive", "best", "highest"):
            pos = k
        elif phrase in ("oldest", "cheapest", "least expensive", "worst", "lowest"):
            pos = n + 1 - k
        elif phrase == "" and explicit:
            forward = frame.forward if frame is not None and frame.forward is not None else self.bare_forward
            if forward is None:
                return None
            pos = k if forward else n + 1 - k
        elif phrase == "middle" and not explicit and n % 2 == 1:
            pos = (n + 1) // 2
        else:
            return None
        if explicit and k > n:
            return -k
        return pos

    def orientation(self, text: str) -> tuple[bool, int, int] | None:
        """``from X to Y``: (runs along the canonical axis, start, end offsets) or ``None``."""
        m = _SHARED_ORIENTATION.search(text)
        if m is not None:  # "from most to least expensive"
            return m.group(1) == "most", m.start(), m.end()
        m = ORIENTATION.search(text)
        if m is None:
            return None
        a, b = _ENDS[m.group(1)], _ENDS[m.group(2)]
        if a == b:
            return None
        return a, m.start(), m.end()

    # -- relations

    def relation(self, text: str) -> tuple[str, bool, str] | None:
        """Split ``"<A> <relation> <B>"`` into (A, A-before-B, B) at the relation phrase."""
        m = re.search(rf"\b({_REL_ALT})\b", text)
        if m is None:
            return None
        return text[: m.start()].strip(), _RELATIONS[m.group(1)], text[m.end() :].strip()


# ---------------------------------------------------------------------------- statements

_OBJECTS = re.compile(
    r"(?:there (?:are|were)|sells|has|had) (?:three|four|five|six|seven|eight|nine) ([a-z]+): ([^.\n]*)\."
)
_STATEMENT = re.compile(
    r"(.+?) (?:is|are|was|were|finished|came in|came|placed) (.+)"
)  # "<subject> <verb> <predicate>"


def statement_fact(lex: Lexicon, sentence: str) -> Fact | None:
    """One sentence of a puzzle (or an option) as a Fact, or ``None`` if it cannot be read."""
    text = sentence.strip().rstrip(".").lower()
    rel = lex.relation(text)
    if rel is not None:
        left, forward, right = rel
        left = re.sub(r"\s+(?:is|are|was|were|finished|came|placed)(?:\s+(?:to\s+the|to))?$", "", left)
        a, b = lex.object_of(left), lex.object_of(right)
        if a is None or b is None or a == b:
            return None
        return before(a, b) if forward else before(b, a)
    m = _STATEMENT.fullmatch(text)
    if m is None:
        return None
    a = lex.object_of(m.group(1))
    pos = lex.position(m.group(2))
    if a is None or pos is None or pos < 1:
        return None
    return at(a, pos)


@dataclass(slots=True)
class Puzzle:
    """The parsed puzzle: lexicon, statements (text, fact) and options (letter -> fact)."""

    lex: Lexicon
    statements: list[tuple[str, Fact]]
    options: dict[str, Fact]


def parse_puzzle(problem: str) -> Puzzle | None:
    """Objects, statements and options of an ordering puzzle; ``None`` if any cannot be read.

    The statements are the ``- `` lines (BIG-Bench Mistake's shape) or, when there are none,
    the sentences after the objects in the same paragraph (BIG-bench's own shape)."""
    m = _OBJECTS.search(problem)
    if m is None:
        return None
    names = [
        re.sub(r"^(?:a|an|the)\s+", "", p.strip()) for p in re.split(r",\s*(?:and\s+)?|\s+and\s+", m.group(2))
    ]
    names = [x for x in names if x]
    if not 3 <= len(names) <= MAX_OBJECTS or len({norm(x) for x in names}) != len(names):
        return None
    lex = Lexicon(names, m.group(1))
    statements: list[tuple[str, Fact]] = []
    options: dict[str, Fact] = {}
    for line in problem.split("\n"):
        line = line.strip()
        if line.startswith("- ") and not _OBJECTS.search(line):
            fact = statement_fact(lex, line[2:])
            if fact is None:
                return None
            statements.append((line[2:].rstrip("."), fact))
        opt = re.fullmatch(r"\(([A-Z])\)\s+(.{1,200})", line)
        if opt is not None:
            fact = statement_fact(lex, opt.group(2))
            if fact is not None:
                options[opt.group(1)] = fact
    if not statements:
        # BIG-bench's own shape: the statements follow the objects in one paragraph
        paragraph = problem[m.end() :].split("\n", 1)[0]
        for sentence in (p for p in paragraph.split(".") if any(c.isalpha() for c in p)):
            fact = statement_fact(lex, sentence)
            if fact is None:
                return None
            statements.append((sentence.strip().rstrip("."), fact))
    if not statements:
        return None
    return Puzzle(lex, statements, options)


# ---------------------------------------------------------------------------- solving


class Solver:
    """Entailment over the orders of one puzzle, decided by Z3 (:mod:`cotaudit.vericot.smt`)."""

    def __init__(self, puzzle: Puzzle, timeout_ms: int = 2000) -> None:
        from cotaudit.vericot.smt import Z3Session

        self.puzzle = puzzle
        n = puzzle.lex.n
        self.n = n
        self.session = Z3Session(timeout_ms=timeout_ms)
        decls = "".join(f"(declare-const o{j} Int)" for j in range(n))
        base = "".join(f"(assert (and (<= 1 o{j}) (<= o{j} {n})))" for j in range(n))
        base += "(assert (distinct " + " ".join(f"o{j}" for j in range(n)) + "))"
        self.base = [self.session.new_tag(t) for t in self.session.parse(decls + base)]
        self.positions = self.session.ints([f"o{j}" for j in range(n)])  # the constants above
        self._tags: dict[Fact, int] = {}
        self._terms: dict[Fact, object] = {}
        self._cache: dict[tuple[tuple[int, ...], Fact], bool | None] = {}
        self._bitsets: dict[Fact, int] = {}
        self.queries = 0

    def _tag(self, fact: Fact) -> int:
        if fact not in self._tags:
            self._tags[fact] = self.session.new_tag(self._term(fact))
        return self._tags[fact]

    def _term(self, fact: Fact) -> object:
        """``fact`` as a Z3 term over the position constants, built through the API (the same
        term SMT-LIB ``fact.smt()`` parses to; parsing text cost more than the solving)."""
        term = self._terms.get(fact)
        if term is None:
            term = self._terms[fact] = self._build(fact)
        return term

    def _build(self, fact: Fact) -> object:
        op, args = fact.op, fact.args
        if op == "at":
            return self.positions[_int(args[0])] == _int(args[1])
        if op == "before":
            return self.positions[_int(args[0])] < self.positions[_int(args[1])]
        if op == "true":
            return self.session.true()
        parts = [self._term(_fact(a)) for a in args]
        if op == "not":
            return self.session.neg(parts[0])
        if op == "or":
            return self.session.disj(parts)
        return self.session.conj(parts)

    def _premise_tags(self, premises: Sequence[int]) -> list[int]:
        return [self._tag(self.puzzle.statements[k][1]) for k in premises]

    def _unsat(self, tags: list[int], goal: Fact) -> bool | None:
        key = (tuple(sorted(set(tags))), goal)
        if key in self._cache:
            return self._cache[key]
        if self.queries >= MAX_QUERIES:
            return None  # past the per-trace bound: not decided, so not judged
        self.queries += 1
        limits.checkpoint()
        left = limits.remaining(2.0) or 2.0
        raw = self.session.check(self.base + list(key[0]), self._term(goal), max(1, int(left * 1000)))
        verdict = True if raw.result == "unsat" else False if raw.result == "sat" else None
        self._cache[key] = verdict
        return verdict

    def entails(self, premises: Sequence[int], claim: Fact, extra: Sequence[Fact] = ()) -> bool | None:
        """Do statements ``premises`` (indices) and the facts ``extra`` entail ``claim``?
        ``None`` when Z3 could not decide in time."""
        # Extra facts go into the pushed goal, not into tags: tags stay one per statement, so
        # the solver does not grow with every fact a trace concludes.
        goal = Fact("not", (claim,))
        if extra:
            goal = Fact("and", (*extra, goal))
        return self._unsat(self._premise_tags(premises), goal)

    def _bits(self, fact: Fact) -> int:
        """The orders where ``fact`` holds, as a bit set over ``_orders(n)`` (bit i: order i)."""
        bits = self._bitsets.get(fact)
        if bits is None:
            op, args = fact.op, fact.args
            full = (1 << len(_orders(self.n))) - 1
            if op in ("at", "before"):
                bits = _atom_bits(self.n, op, _int(args[0]), _int(args[1]))
            elif op == "true":
                bits = full
            elif op == "not":
                bits = full & ~self._bits(_fact(args[0]))
            elif op == "or":
                bits = 0
                for part in args:
                    bits |= self._bits(_fact(part))
            else:
                bits = full
                for part in args:
                    bits &= self._bits(_fact(part))
            self._bitsets[fact] = bits
        return bits

    def counter_order(
        self, premises: Sequence[int], claim: Fact, extra: Sequence[Fact] = ()
    ) -> list[int] | None:
        """An order where every premise holds and ``claim`` fails, found without Z3 (over every
        order, n ≤ 7), as the shown reason a claim does not follow; else ``None``. The first
        such order in enumeration order, so the same claim always shows the same one."""
        if self.n > MAX_ENUMERATED:
            return None
        limits.checkpoint()
        left = (1 << len(_orders(self.n))) - 1
        for fact in [self.puzzle.statements[k][1] for k in premises] + list(extra):
            left &= self._bits(fact)
        left &= ~self._bits(claim)
        if not left:
            return None
        return list(_orders(self.n)[(left & -left).bit_length() - 1])

    def describe(self, order: Sequence[int]) -> str:
        """``order`` (object -> position) as the objects from position 1 to n."""
        by_pos = sorted(range(self.n), key=lambda j: order[j])
        return ", ".join(self.puzzle.lex.objects[j] for j in by_pos)


@functools.lru_cache(maxsize=MAX_ENUMERATED)
def _orders(n: int) -> tuple[tuple[int, ...], ...]:
    """Every order of n objects (``order[j]`` = object j's position), at most 7! of them."""
    return tuple(itertools.permutations(range(1, n + 1)))


@functools.lru_cache(maxsize=2 * MAX_ENUMERATED**3)
def _atom_bits(n: int, op: str, a: int, b: int) -> int:
    """The orders of n objects where ``at(a, b)`` (object a at place b) or ``before(a, b)``
    holds, as a bit set over ``_orders(n)``: bit i stands for order i."""
    orders = _orders(n)
    if op == "at":
        flags = ["1" if o[a] == b else "0" for o in reversed(orders)]
    else:
        flags = ["1" if o[a] < o[b] else "0" for o in reversed(orders)]
    return int("".join(flags), 2)
