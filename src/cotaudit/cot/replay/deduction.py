"""Logical deduction (BIG-bench ``logical_deduction``): every placement claim against the puzzle.

The puzzle (:mod:`cotaudit.cot.replay.ordering`) lists n objects in a fixed order and
statements about them. The trace restates statements and draws conclusions, in prose
("the blue book must be the leftmost", "the kiwis cannot be the most expensive", "the only
vehicle that can be third-newest is the convertible", "it is the third-oldest") and in
position lists ("So from newest to oldest: first can be any vehicle, then second is the
station wagon, then third can be the convertible or the truck, then fourth and fifth can be
any vehicle", "third to seventh can be any golfer except Eve"), and ends "So the answer is
(C)".

**What a claim is checked against.** The labelling guideline of BIG-Bench Mistake (its
mistake-finding prompts walk through it) counts a statement as correct when it "can be found
in the original question" or follows from "the information in previous Thoughts". So:

- a clause that says what a statement of the puzzle says (in any wording the grammar reads:
  "the loquats are the second-cheapest" is "second is the loquats" in a cheapest-first list)
  is a *restatement*: it holds, and from then on that statement is a premise;
- every other claim must be *entailed* by the statements restated so far (this step
  included), asked of Z3; a claim that does not follow is wrong at that step even when it
  happens to be true of the final order, and the finding shows an order that satisfies those
  premises and breaks the claim;
- "can be any …" asserts nothing; "… except Eve" asserts Eve is in none of those places; a
  position past n is wrong; an answer must name an option whose statement is entailed.

**Coverage.** A step is *complete* when every sentence in it was read (into restatements,
claims, or sentences that name no object and no position) and no "can be any" stands at a
position the premises already fix. Only complete steps are marked so for the evaluation's
"label looks wrong" class; anything the grammar cannot read leaves the step incomplete and is
never a finding.

If a statement of the puzzle cannot be read, nothing is judged.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import cotaudit.limits as limits
from cotaudit.cot.replay.model import Check, Replay
from cotaudit.cot.replay.ordering import (
    MAX_QUERIES,
    ORD_ALT,
    ORDINALS,
    TRUE,
    Fact,
    Frame,
    Lexicon,
    Puzzle,
    Solver,
    all_of,
    any_of,
    at,
    before,
    neg,
    parse_puzzle,
)

MAX_STEP_CHARS = 4000
MAX_CONJUNCTS = 8  # "A and B" splits tried in one clause (each re-reads the clause)

_SENTENCE = re.compile(r"[^.;!?]+[.;!?]?")
_SPLIT = re.compile(
    # a match starts only at the first blank of a run: linear on long blank runs
    r"(?<!\s),?\s+(?:so|therefore|thus|hence|which means|meaning)\s+|,\s+(?:because|since|as|but)\s+"
)
_NUMBERS = {
    "no": 0,
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
}
_NUM_ALT = "|".join(_NUMBERS)
_COUNT = re.compile(rf"there (?:is|are) ({_NUM_ALT}) (.+)")
_ONE_OF = re.compile(rf"(.+?) (?:is|are) (?:one|two|three) of (?:the )?({_NUM_ALT}) (.+)")
_OR_BEYOND = re.compile(r"(.+?) or (higher|above|better|earlier|lower|below|worse|later)")
_LEAD = re.compile(
    r"^(?:(?:so|then|therefore|thus|hence|and|but|also|now|finally|again|in other words|"
    r"by (?:the )?process of elimination|according to (?:this|our|the|that) ordering|"
    r"(?:we )?(?:previously|already|also)?\s?(?:know|knew|concluded|found|determined|established) that|"
    r"previously,? we concluded that|since|because|given that)[, ]+)+"
)
_VERB = re.compile(
    r"\b(must have finished|must have been|must be|has to be|have to be|cannot be|can not be|"
    r"can't be|could not be|couldn't be|must not be|is not|are not|isn't|aren't|"
    r"did not finish|didn't finish|finished|is also|are also|is either|are either|is|are|"
    r"can only be|can be|could be|was|were|should be)\b"
)
_SUBJECT_VERB = re.compile(rf"(.+?) {_VERB.pattern}(?: (?:to the|to))?")
_NEGATIVE = frozenset(
    {
        "cannot be",
        "can not be",
        "can't be",
        "could not be",
        "couldn't be",
        "must not be",
        "is not",
        "are not",
        "isn't",
        "aren't",
        "did not finish",
        "didn't finish",
    }
)
_POSSIBLE = frozenset({"can be", "could be"})
_ONLY_POS_FIRST = re.compile(
    r"only (?:[a-z]+ )?(?:that|who|which) (?:can|could) (?:be|finish|have finished|have been) (.+?) "
    r"(?:is|are) (.+)"
)
_ONLY_OBJ_FIRST = re.compile(
    r"(.+?) (?:is|are) (?:the )?only (?:[a-z]+ )?(?:that|who|which) (?:can|could) "
    r"(?:be|finish|have finished|have been) (.+)"
)
_ANSWER = re.compile(r"(?:so )?(?:the )?(?:final )?answer is\s*(.*)")
_OPTION = re.compile(r"\(([a-z])\)")
_PRONOUNS = frozenset({"it", "they", "this", "that", "he", "she", "them"})
_LIST_ITEM = re.compile(
    rf"((?:(?:{ORD_ALT}|last)(?:\s*,\s*|\s+(?:and|or|to|through)\s+|\s*,\s*(?:and|or)\s+)?)+)\s+"
    r"(is|are|can be|must be|could be|can only be|is either|are either)\s+(.+)"
)
_ANY = re.compile(r"(?:any|anyone|anything)(?: (?:of )?(?:remaining |other )?[a-z]+)?(?: except (.+))?")
_POSITION_WORDS = re.compile(
    rf"\b(?:{ORD_ALT}|leftmost|rightmost|newest|oldest|cheapest|expensive|last|middle|left|right|"
    r"above|below|newer|older|cheaper)\b"
)


@dataclass(slots=True)
class Claim:
    """One thing a step asserts: a fact to be entailed (or to be possible), at an offset."""

    text: str
    offset: int
    fact: Fact | None = None
    mode: str = "entails"  # entails | possible | range | not-an-option | any
    positions: tuple[int, ...] = ()  # for "any": the canonical positions said to be open
    others: tuple[int, ...] = ()  # for "any": the objects its list does not place elsewhere
    # "third can be the convertible or the truck": each alternative is said to be possible
    alternatives: tuple[Fact, ...] = ()
    role: str = "cite"  # cite (states a fact) | so (concluded from what the step cites) | list


def _either(text: str, offset: int, facts: Sequence[Fact]) -> Claim:
    """A claim that one of ``facts`` holds, each of them said to be possible."""
    return Claim(text, offset, any_of(facts), alternatives=tuple(facts) if len(facts) > 1 else ())


@dataclass(slots=True)
class StepReading:
    claims: list[Claim] = field(default_factory=list)
    complete: bool = True
    unread: list[str] = field(default_factory=list)


def _lower(text: str) -> str:
    """Lower case with the length kept (offsets stay valid for any Unicode input)."""
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


class _Reader:
    """Reads one step's sentences into claims (see the module doc)."""

    def __init__(self, puzzle: Puzzle, frame: Frame) -> None:
        self.puzzle = puzzle
        self.lex: Lexicon = puzzle.lex
        self.frame = frame

    def read(self, step: str) -> StepReading:
        out = StepReading()
        low = _lower(step[:MAX_STEP_CHARS])
        if len(step) > MAX_STEP_CHARS:
            out.complete = False
        for m in _SENTENCE.finditer(low):
            sentence = m.group()
            if not sentence.strip(" .;!?\n\t"):
                continue
            if not self._sentence(sentence, m.start(), out):
                out.complete = False
                out.unread.append(sentence.strip()[:120])
        return out

    # -- sentences

    def _sentence(self, sentence: str, offset: int, out: StepReading) -> bool:
        orient = self.lex.orientation(sentence)
        if orient is not None and sentence[orient[2] - 1 : orient[2]] == ":":
            forward, start, end = orient
            head = sentence[:start].strip(" ,")
            self.frame.forward = forward
            ok = head in ("", "so", "then", "therefore", "thus", "hence", "now")
            return self._list(sentence[end:], offset + end, forward, out) and ok
        subject: list[int] | None = None
        ok = True
        for text, at_, role in self._clauses(sentence):
            claims, subject = self._clause(text, offset + at_, subject)
            if claims is None:
                claims = self._conjuncts(text, offset + at_, subject)
            if claims is None:
                if not self._content_free(text):
                    ok = False
                continue
            for c in claims:
                c.role = role
            out.claims.extend(claims)
        return ok

    def _conjuncts(self, text: str, offset: int, subject: list[int] | None) -> list[Claim] | None:
        """``A, and B`` / ``A and B`` where each side is a clause of its own."""
        for m in itertools.islice(re.finditer(r",?\s+and\s+", text), MAX_CONJUNCTS):
            left, right = text[: m.start()], text[m.end() :]
            a, subj = self._clause(left, offset, subject)
            if a is None:
                continue
            b, _ = self._clause(right, offset + m.end(), subj)
            if b is not None:
                return a + b
        return None

    def _clauses(self, sentence: str) -> list[tuple[str, int, str]]:
        """Split at "so" / "therefore" / "because" …, and a leading "Since X, Y"; each clause
        with its role: ``cite`` (it states a fact) or ``so`` (it concludes from what the step
        cited before it)."""
        spans: list[tuple[str, int, str]] = []
        last = 0
        role = "cite"
        for m in _SPLIT.finditer(sentence):
            spans.append((sentence[last : m.start()], last, role))
            word = m.group().strip(" ,")
            role = "cite" if word in ("because", "since", "as", "but") else "so"
            last = m.end()
        spans.append((sentence[last:], last, role))
        out: list[tuple[str, int, str]] = []
        for text, at_, r in spans:
            lead = re.match(r"\s*(?:since|because|given that|as)\s+([^,]+),\s*", text)
            if lead is not None:
                out.append((lead.group(1), at_ + lead.start(1), "cite"))
                out.append((text[lead.end() :], at_ + lead.end(), "so"))
                continue
            opener = re.match(
                r"\s*(so|therefore|thus|hence|by (?:the )?process of elimination|according to)\b", text
            )
            if opener is not None and r == "cite":
                r = "so" if opener.group(1) in ("so", "therefore", "thus", "hence") else "derived"
            out.append((text, at_, r))
        return out

    def _content_free(self, text: str) -> bool:
        """A clause that names no object, no position and no option states nothing checkable."""
        t = text.strip(" .,;!?\n\t")
        if not t:
            return True
        if _OPTION.search(t) or _POSITION_WORDS.search(t) or "contradict" in t or "answer" in t:
            return False
        words = set(re.findall(r"[a-z']+", t))
        return not any(set(k.split()) <= words for k in self.lex.keys)

    # -- prose clauses

    def _clause(
        self, text: str, offset: int, subject: list[int] | None
    ) -> tuple[list[Claim] | None, list[int] | None]:
        raw = text
        t = raw.strip()
        lead = _LEAD.match(t)
        shift = len(raw) - len(raw.lstrip())
        if lead is not None:
            shift += lead.end()
            t = t[lead.end() :]
        t = t.strip().rstrip(".;!? ").strip()
        col = offset + shift
        if not t:
            return [], subject
        answer = _ANSWER.fullmatch(t)
        if answer is not None:
            return self._answer(answer.group(1), t, col), subject
        for pattern, pos_group, obj_group in ((_ONLY_POS_FIRST, 1, 2), (_ONLY_OBJ_FIRST, 2, 1)):
            m = pattern.fullmatch(t) if pattern is _ONLY_OBJ_FIRST else pattern.search(t)
            if m is not None:
                pos = self.lex.position(m.group(pos_group), self.frame)
                objs = self._objects(m.group(obj_group), subject)
                if pos is not None and pos > 0 and objs:
                    return [_either(t, col, [at(o, pos) for o in objs])], objs
                return None, subject
        return self._assertion(t, col, subject)

    def _objects(self, text: str, subject: list[int] | None) -> list[int] | None:
        t = text.strip()
        if t in _PRONOUNS:
            return subject
        return self.lex.objects_of(t)

    def _count(self, number: str, text: str) -> Fact | None:
        """``<k> [objects] <relation> <object>``: exactly k objects stand that way to it."""
        rel = self.lex.relation(text)
        if rel is None:
            return None
        noun = rel[0].strip()
        if noun and not set(noun.split()) <= self.lex.nouns | {"other"}:
            return None
        b = self.lex.object_of(rel[2])
        k = _NUMBERS[number]
        if b is None or k >= self.lex.n:
            return None
        return at(b, k + 1) if rel[1] else at(b, self.lex.n - k)

    def _assertion(
        self, t: str, col: int, subject: list[int] | None
    ) -> tuple[list[Claim] | None, list[int] | None]:
        count = _COUNT.fullmatch(t) or re.fullmatch(rf"({_NUM_ALT}) (.+)", t)
        if count is not None:
            fact = self._count(count.group(1), count.group(2))
            return ([Claim(t, col, fact)] if fact is not None else None), subject
        one_of = _ONE_OF.fullmatch(t)
        if one_of is not None:
            subs = self._objects(one_of.group(1), subject)
            fact = self._count(one_of.group(2), one_of.group(3))
            rel = self.lex.relation(one_of.group(3))
            b = self.lex.object_of(rel[2]) if rel is not None else None
            if not subs or fact is None or rel is None or b is None:
                return None, subject
            facts = [before(a, b) if rel[1] else before(b, a) for a in subs]
            return [Claim(t, col, all_of([*facts, fact]))], subs
        rel = self.lex.relation(t)
        if rel is not None:
            left, forward, right = rel
            # blanks collapsed first: "(.+?)\s+" would otherwise retry every split of a long blank run
            vm = _SUBJECT_VERB.fullmatch(" ".join(left.split()))
            b = self.lex.object_of(right)
            if vm is None:
                return None, subject
            subs = self._objects(vm.group(1), subject)
            if not subs:
                return None, subject
            if b is None:  # "the minivan is older than the fourth-oldest vehicle"
                place = self.lex.position(right, self.frame)
                if place is None or place < 1:
                    return None, subject
                n = self.lex.n
                span = range(1, place) if forward else range(place + 1, n + 1)
                facts = [any_of([at(a, p) for p in span]) if span else neg(TRUE) for a in subs]
                if vm.group(2) in _POSSIBLE:
                    return None, subject
                fact = all_of([neg(f) for f in facts]) if vm.group(2) in _NEGATIVE else all_of(facts)
                return [Claim(t, col, fact)], subs
            if b in subs:
                return None, subject
            facts = [before(a, b) if forward else before(b, a) for a in subs]
            verb = vm.group(2)
            if verb in _POSSIBLE:
                return [Claim(t, col, all_of(facts), "possible")], subs
            fact = all_of([neg(f) for f in facts]) if verb in _NEGATIVE else all_of(facts)
            return [Claim(t, col, fact)], subs
        for vm in _VERB.finditer(t):
            left, verb, right = t[: vm.start()].strip(), vm.group(1), t[vm.end() :].strip()
            if not left or not right:
                continue
            subs = self._objects(left, subject)
            if subs:
                claims = self._placed(subs, verb, right, t, col)
                return claims, subs if claims is not None else subject
            pos = self.lex.position(left, self.frame)
            if pos is not None:
                objs = self.lex.objects_of(right)
                if objs is None:
                    return None, subject
                if pos < 0:
                    return [Claim(t, col, None, "range")], objs
                if verb in _NEGATIVE:
                    return [Claim(t, col, all_of([neg(at(o, pos)) for o in objs]))], objs
                if verb in _POSSIBLE and len(objs) == 1:
                    return [Claim(t, col, at(objs[0], pos), "possible")], objs
                return [_either(t, col, [at(o, pos) for o in objs])], objs
            return None, subject
        return None, subject

    def _placed(self, subs: list[int], verb: str, pred: str, t: str, col: int) -> list[Claim] | None:
        """``<objects> <verb> <position(s)>``: "the owl must be the leftmost", "Eve is third or
        fourth", "it cannot be the oldest", "the gray book is the second from the left and the
        sixth from the right"."""
        beyond = _OR_BEYOND.fullmatch(pred)
        if beyond is not None:  # "third or higher" (a finishing order: higher is nearer first)
            k = self.lex.position(beyond.group(1), self.frame)
            if k is None or k < 1 or self.lex.bare_forward is None:
                return None
            up = beyond.group(2) in ("higher", "above", "better", "earlier")
            span = range(1, k + 1) if up else range(k, self.lex.n + 1)
            if len(subs) > 1 and verb not in _NEGATIVE:
                return None
            facts = [any_of([at(o, p) for p in span]) for o in subs]
            if verb in _NEGATIVE:
                return [Claim(t, col, all_of([neg(f) for f in facts]))]
            return [Claim(t, col, all_of(facts))]
        alts = re.split(r"\s+or\s+|,\s*or\s+", pred)
        conj = re.split(r"\s+and\s+(?=(?:the\s+)?(?:" + ORD_ALT + r"|leftmost|rightmost|last))", pred)
        if len(alts) > 1:
            positions = [self.lex.position(p, self.frame) for p in alts]
            joined = "or"
        elif len(conj) > 1:
            positions = [self.lex.position(p, self.frame) for p in conj]
            joined = "and"
        else:
            positions = [self.lex.position(pred, self.frame)]
            joined = "or"
        if any(p is None for p in positions):
            return None
        ps = [p for p in positions if p is not None]
        if any(p < 0 for p in ps):
            return [Claim(t, col, None, "range")]
        if len(subs) > 1 and verb not in _NEGATIVE:
            return None  # "A, B and C must be in the last three positions": not read
        facts = []
        for o in subs:
            options = [at(o, p) for p in ps]
            facts.append(any_of(options) if joined == "or" else all_of(options))
        if verb in _NEGATIVE:
            return [Claim(t, col, all_of([neg(f) for f in facts]))]
        if verb in _POSSIBLE and len(ps) == 1:
            return [Claim(t, col, facts[0], "possible")]
        if joined == "or" and len(ps) > 1:
            return [_either(t, col, [at(subs[0], p) for p in ps])]
        return [Claim(t, col, all_of(facts))]

    def _answer(self, rest: str, t: str, col: int) -> list[Claim] | None:
        letters = [x.upper() for x in _OPTION.findall(rest)]
        if not letters or _OPTION.sub("", rest).strip(" ,.or") != "":
            return None
        options = self.puzzle.options
        if len(options) != self.lex.n:
            return None  # the options were not all read: an answer cannot be judged
        if any(x not in options for x in letters):
            return [Claim(t, col, None, "not-an-option")]
        return [Claim(t, col, any_of([options[x] for x in letters]))]

    # -- position lists

    def _list(self, body: str, offset: int, forward: bool, out: StepReading) -> bool:
        n = self.lex.n
        ok = True
        pos = 0
        first = len(out.claims)
        for chunk in re.split(r"(,?\s*\bthen\b\s*|,\s*and\s+(?=then\b))", body):
            start = body.find(chunk, pos)
            pos = start + len(chunk) if start >= 0 else pos
            if start < 0 or re.fullmatch(r",?\s*\bthen\b\s*|,\s*and\s+|\s*", chunk):
                continue
            for piece, at_ in _pieces(chunk):
                item = piece.strip().rstrip(".,;").strip()
                item = re.sub(r"^(?:and|but)\s+", "", item)
                if not item:
                    continue
                claims = self._item(item, offset + start + at_, forward, n)
                if claims is None:
                    claims, _ = self._assertion(item, offset + start + at_, None)
                if claims is None:
                    ok = False
                    continue
                for c in claims:
                    c.role = "list"
                out.claims.extend(claims)
        # "k can be any …" speaks of the objects the list does not name elsewhere; when part of
        # the list was not read, which those are is not known, and the item is not judged.
        words = set(re.findall(r"[a-z']+", body))
        others = tuple(o for o, key in enumerate(self.lex.keys) if not set(key.split()) <= words)
        for c in out.claims[first:]:
            if c.mode == "any":
                c.others = others if ok else ()
                c.mode = "any" if ok else "any-unread"
        return ok

    def _item(self, item: str, col: int, forward: bool, n: int) -> list[Claim] | None:
        m = _LIST_ITEM.fullmatch(item)
        if m is None:
            return None
        keys = _positions(m.group(1), n)
        if keys is None:
            return None
        ranks, joined = keys
        if any(k > n for k in ranks):
            return [Claim(item, col, None, "range")]
        canon = [k if forward else n + 1 - k for k in ranks]
        value = m.group(3).strip()
        anym = _ANY.fullmatch(value)
        if anym is not None:
            if anym.group(1) is None:
                return [Claim(item, col, None, "any", tuple(canon))]
            excluded = self.lex.objects_of(anym.group(1))
            if excluded is None:
                return None
            return [Claim(item, col, all_of([neg(at(o, p)) for o in excluded for p in canon]))]
        if re.fullmatch(r"(?:an? )?(?:unknown|remaining|unplaced) [a-z]+", value):
            return [Claim(item, col, None, "any", tuple(canon))]
        objs = self.lex.objects_of(value)
        if objs is None:
            where = self.lex.position(value, Frame(forward))
            if where is None or len(canon) != 1:
                return None
            if where < 0:
                return [Claim(item, col, None, "range")]
            return [
                Claim(
                    item,
                    col,
                    TRUE if where == canon[0] else None,
                    "entails" if where == canon[0] else "range",
                )
            ]
        ors = " or " in value
        if len(canon) == 1:
            return [_either(item, col, [at(o, canon[0]) for o in objs])]
        if joined == "or" and len(objs) == 1:
            return [_either(item, col, [at(objs[0], p) for p in canon])]
        if joined == "and" and ors:
            return [Claim(item, col, all_of([any_of([at(o, p) for o in objs]) for p in canon]))]
        if joined == "and" and len(objs) == len(canon):
            return [Claim(item, col, all_of([any_of([at(o, p) for p in canon]) for o in objs]))]
        return None


_RELATION_START = re.compile(
    r"[a-z]+(?: [a-z]+)? (?:is|are|finished) (?:to the )?"
    r"(?:above|below|left|right|newer|older|more|less|cheaper)\b"
)


def _pieces(chunk: str) -> list[tuple[str, int]]:
    """A list chunk may carry a second item or a clause after a comma ("…, and Joe is above Ada")."""
    cuts = [0]
    for m in re.finditer(r",\s*(?:and\s+|but\s+)?", chunk):
        rest = chunk[m.end() :]
        if not re.search(r"\b(?:is|are|can|must|could)\b", chunk[cuts[-1] : m.start()]):
            continue  # "third, fourth, and fifth can be …": the positions of one item
        if (
            m.group().strip(" ,").startswith("but")
            or re.match(rf"(?:{ORD_ALT}|last)\b[^,]*?\b(?:is|are|can|must|could)\b", rest)
            or re.match(_RELATION_START, rest)
        ):
            cuts.append(m.end())
    out = []
    for a, b in zip(cuts, [*cuts[1:], len(chunk)], strict=True):
        out.append((chunk[a:b], a))
    return out


def _positions(text: str, n: int) -> tuple[list[int], str] | None:
    """``third``, ``third, fourth, and fifth``, ``second or third``, ``third to seventh``."""
    tokens = [t for t in re.split(r"\s*,\s*|\s+", text.strip()) if t]
    ranks: list[int] = []
    joined = "and"
    span = False
    for tok in tokens:
        if tok in ("and",):
            continue
        if tok == "or":
            joined = "or"
            continue
        if tok in ("to", "through"):
            span = True
            continue
        k = n if tok == "last" else ORDINALS.get(tok)
        if k is None:
            return None
        if span and ranks:
            if k < ranks[-1]:
                return None
            ranks.extend(range(ranks[-1] + 1, k + 1))
            span = False
        else:
            ranks.append(k)
    if not ranks or span:
        return None
    return ranks, joined


class LogicalDeduction:
    name = "logical_deduction"

    def recognises(self, problem: str, steps: Sequence[str]) -> bool:
        return "arranged in a fixed order" in problem and parse_puzzle(problem) is not None

    def replay(self, problem: str, steps: Sequence[str]) -> Replay:
        out = Replay()
        puzzle = parse_puzzle(problem)
        if puzzle is None:
            out.notes.append("the puzzle's objects or statements could not be read")
            return out
        solver = Solver(puzzle)
        frame = Frame()
        used: list[int] = []  # the statements the trace has stated so far
        for i, step in enumerate(steps):
            limits.checkpoint()
            reading = _Reader(puzzle, frame).read(step)
            out.notes.extend(f"step {i}: not read: {u!r}" for u in reading.unread)
            complete = reading.complete
            claims = sorted(reading.claims, key=lambda c: c.offset)
            quoted: dict[int, int] = {}  # claim index -> statement
            for j, claim in enumerate(claims):
                hit = _restated(puzzle, claim.fact) if claim.mode == "entails" else None
                if hit is not None and claim.role == "cite":
                    quoted[j] = hit
                    if hit not in used:
                        used.append(hit)
            premises = sorted(used)
            for j, claim in enumerate(claims):
                if j in quoted:
                    out.checks.append(
                        Check(
                            i,
                            True,
                            "a statement of the puzzle, stated",
                            claim.text[:200],
                            puzzle.statements[quoted[j]][0],
                            claim.offset + 1,
                        )
                    )
                    continue
                explain = not any(c.step == i and not c.ok for c in out.checks[-8:])
                check, unsure = _judge(solver, premises, claim, i, explain)
                if check is not None:
                    out.checks.append(check)
                if check is None or unsure:
                    complete = False
                elif check.ok and claim.role == "so":
                    reasons = sorted({quoted[k] for k in quoted if claims[k].offset < claim.offset})
                    if reasons and _needless(solver, premises, reasons, claim):
                        complete = False
                        out.notes.append(f"step {i}: {claim.text[:80]!r} holds, but not by the reason given")
            if complete and reading.claims:
                out.complete.add(i)
        if solver.queries >= MAX_QUERIES:
            out.notes.append(f"over {MAX_QUERIES} solver queries: later claims were not judged")
        return out


def _needless(solver: Solver, premises: list[int], reasons: list[int], claim: Claim) -> bool:
    """ "P, so Q" where Q follows from the earlier statements without P: the conclusion holds but
    the stated reason does not support it. Not a finding (the claim is true); the step is then
    not counted as fully checked."""
    assert claim.fact is not None
    rest = [k for k in premises if k not in reasons]
    return solver.entails(rest, claim.fact) is True


def _restated(puzzle: Puzzle, fact: Fact | None) -> int | None:
    if fact is None:
        return None
    for k, (_, f) in enumerate(puzzle.statements):
        if f == fact:
            return k
    return None


def _judge(
    solver: Solver, premises: list[int], claim: Claim, step: int, explain: bool = True
) -> tuple[Check | None, bool]:
    """The check for one claim, and whether it leaves the step incomplete. ``explain``: search
    for an order that shows a claim that does not follow (done for a step's first finding)."""
    n = solver.n
    col = claim.offset + 1
    said = claim.text[:200]
    if claim.mode == "range":
        return Check(step, False, "a position in the order", said, f"positions 1 to {n} only", col), False
    if claim.mode == "not-an-option":
        return Check(
            step, False, "the answer names an option of the question", said, "no such option", col
        ), False
    if claim.mode == "any-unread":
        return None, True
    if claim.mode == "any":
        # "k can be any …": every object the list leaves unplaced must be possible at k.
        for p in claim.positions:
            for o in claim.others:
                excluded = solver.entails(premises, neg(at(o, p)))
                if excluded is None:
                    return None, True
                if excluded:
                    name = solver.puzzle.lex.objects[o]
                    return Check(
                        step,
                        False,
                        "a place said to be open to any object",
                        said,
                        f"the {name} cannot be there, by the statements stated so far",
                        col,
                    ), False
        return Check(step, True, "a place said to be open to any object", said, "open", col), False
    fact = claim.fact
    if fact is None:
        return None, True
    if fact == TRUE:
        return Check(step, True, "a position named two ways", said, "the same position", col), False
    if claim.mode == "possible":
        verdict = solver.entails(premises, neg(fact))
        if verdict is None:
            return None, True
        if verdict:
            return Check(
                step,
                False,
                "a placement said to be possible",
                said,
                "impossible given the statements stated so far",
                col,
            ), False
        return Check(step, True, "a placement said to be possible", said, "possible", col), False
    verdict = solver.entails(premises, fact)
    if verdict is None:
        return None, True
    if verdict:
        for alt in claim.alternatives:
            ruled_out = solver.entails(premises, neg(alt))
            if ruled_out is None:
                return None, True
            if ruled_out:
                return Check(
                    step,
                    False,
                    "an alternative said to be possible",
                    said,
                    f"{_say(solver, alt)} is ruled out by the statements stated so far",
                    col,
                ), False
        return Check(
            step, True, "a claim that must follow from the statements stated so far", said, "follows", col
        ), False
    counter = solver.counter_order(premises, fact) if explain else None
    note = f"the order {solver.describe(counter)} satisfies them and breaks it" if counter else ""
    stated = "; ".join(solver.puzzle.statements[k][0] for k in premises) or "none"
    return Check(
        step,
        False,
        "a claim that must follow from the statements stated so far",
        said,
        f"does not follow from: {stated}"[:300],
        col,
        note,
    ), False


def _say(solver: Solver, fact: Fact) -> str:
    if fact.op == "at":
        obj, k = fact.args
        assert isinstance(obj, int)
        return f"the {solver.puzzle.lex.objects[obj]} at place {k} of {solver.n} (from the start)"
    return fact.smt()


REPLAYER = LogicalDeduction()
