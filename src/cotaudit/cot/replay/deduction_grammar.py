"""The grammar of a logical-deduction trace (:mod:`.deduction`): its sentence and clause
patterns, number words and position lists, and the claims a step reading yields.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from cotaudit.cot.replay.ordering import (
    ORD_ALT,
    ORDINALS,
    Fact,
    any_of,
)

MAX_STEP_CHARS = 4000
MAX_CONJUNCTS = 8  # "A and B" splits tried in one clause (each re-reads the clause)

SENTENCE = re.compile(r"[^.;!?]+[.;!?]?")
SPLIT = re.compile(
    # a match starts only at the first blank of a run: linear on long blank runs
    r"(?<!\s),?\s+(?:so|therefore|thus|hence|which means|meaning)\s+|,\s+(?:because|since|as|but)\s+"
)
NUMBERS = {
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
NUM_ALT = "|".join(NUMBERS)
COUNT = re.compile(rf"there (?:is|are) ({NUM_ALT}) (.+)")
ONE_OF = re.compile(rf"(.+?) (?:is|are) (?:one|two|three) of (?:the )?({NUM_ALT}) (.+)")
OR_BEYOND = re.compile(r"(.+?) or (higher|above|better|earlier|lower|below|worse|later)")
LEAD = re.compile(
    r"^(?:(?:so|then|therefore|thus|hence|and|but|also|now|finally|again|in other words|"
    r"by (?:the )?process of elimination|according to (?:this|our|the|that) ordering|"
    r"(?:we )?(?:previously|already|also)?\s?(?:know|knew|concluded|found|determined|established) that|"
    r"previously,? we concluded that|since|because|given that)[, ]+)+"
)
VERB = re.compile(
    r"\b(must have finished|must have been|must be|has to be|have to be|cannot be|can not be|"
    r"can't be|could not be|couldn't be|must not be|is not|are not|isn't|aren't|"
    r"did not finish|didn't finish|finished|is also|are also|is either|are either|is|are|"
    r"can only be|can be|could be|was|were|should be)\b"
)
SUBJECT_VERB = re.compile(rf"(.+?) {VERB.pattern}(?: (?:to the|to))?")
NEGATIVE = frozenset(
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
POSSIBLE = frozenset({"can be", "could be"})
ONLY_POS_FIRST = re.compile(
    r"only (?:[a-z]+ )?(?:that|who|which) (?:can|could) (?:be|finish|have finished|have been) (.+?) "
    r"(?:is|are) (.+)"
)
ONLY_OBJ_FIRST = re.compile(
    r"(.+?) (?:is|are) (?:the )?only (?:[a-z]+ )?(?:that|who|which) (?:can|could) "
    r"(?:be|finish|have finished|have been) (.+)"
)
ANSWER = re.compile(r"(?:so )?(?:the )?(?:final )?answer is\s*(.*)")
OPTION = re.compile(r"\(([a-z])\)")
PRONOUNS = frozenset({"it", "they", "this", "that", "he", "she", "them"})
LIST_ITEM = re.compile(
    rf"((?:(?:{ORD_ALT}|last)(?:\s*,\s*|\s+(?:and|or|to|through)\s+|\s*,\s*(?:and|or)\s+)?)+)\s+"
    r"(is|are|can be|must be|could be|can only be|is either|are either)\s+(.+)"
)
ANY = re.compile(r"(?:any|anyone|anything)(?: (?:of )?(?:remaining |other )?[a-z]+)?(?: except (.+))?")
POSITION_WORDS = re.compile(
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


def either_claim(text: str, offset: int, facts: Sequence[Fact]) -> Claim:
    """A claim that one of ``facts`` holds, each of them said to be possible."""
    return Claim(text, offset, any_of(facts), alternatives=tuple(facts) if len(facts) > 1 else ())


@dataclass(slots=True)
class StepReading:
    claims: list[Claim] = field(default_factory=list)
    complete: bool = True
    unread: list[str] = field(default_factory=list)


def lower_ascii(text: str) -> str:
    """Lower case with the length kept (offsets stay valid for any Unicode input)."""
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


RELATION_START = re.compile(
    r"[a-z]+(?: [a-z]+)? (?:is|are|finished) (?:to the )?"
    r"(?:above|below|left|right|newer|older|more|less|cheaper)\b"
)


def relation_pieces(chunk: str) -> list[tuple[str, int]]:
    """A list chunk may carry a second item or a clause after a comma ("…, and Joe is above Ada")."""
    cuts = [0]
    for m in re.finditer(r",\s*(?:and\s+|but\s+)?", chunk):
        rest = chunk[m.end() :]
        if not re.search(r"\b(?:is|are|can|must|could)\b", chunk[cuts[-1] : m.start()]):
            continue  # "third, fourth, and fifth can be …": the positions of one item
        if (
            m.group().strip(" ,").startswith("but")
            or re.match(rf"(?:{ORD_ALT}|last)\b[^,]*?\b(?:is|are|can|must|could)\b", rest)
            or re.match(RELATION_START, rest)
        ):
            cuts.append(m.end())
    out = []
    for a, b in zip(cuts, [*cuts[1:], len(chunk)], strict=True):
        out.append((chunk[a:b], a))
    return out


def read_positions(text: str, n: int) -> tuple[list[int], str] | None:
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
