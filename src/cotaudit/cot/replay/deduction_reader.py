"""Reading one step of a logical-deduction trace (:mod:`.deduction`): sentences into
restatements, claims and content-free sentences, by the patterns of :mod:`.deduction_grammar`.
"""

from __future__ import annotations

import itertools
import re

from cotaudit.cot.replay.deduction_grammar import (
    ANSWER,
    ANY,
    COUNT,
    LEAD,
    LIST_ITEM,
    MAX_CONJUNCTS,
    MAX_STEP_CHARS,
    NEGATIVE,
    NUM_ALT,
    NUMBERS,
    ONE_OF,
    ONLY_OBJ_FIRST,
    ONLY_POS_FIRST,
    OPTION,
    OR_BEYOND,
    POSITION_WORDS,
    POSSIBLE,
    PRONOUNS,
    SENTENCE,
    SPLIT,
    SUBJECT_VERB,
    VERB,
    Claim,
    StepReading,
    either_claim,
    lower_ascii,
    read_positions,
    relation_pieces,
)
from cotaudit.cot.replay.ordering import (
    ORD_ALT,
    TRUE,
    Fact,
    Frame,
    Lexicon,
    Puzzle,
    all_of,
    any_of,
    at,
    before,
    neg,
)


class StepReader:
    """Reads one step's sentences into claims (see the module doc)."""

    def __init__(self, puzzle: Puzzle, frame: Frame) -> None:
        self.puzzle = puzzle
        self.lex: Lexicon = puzzle.lex
        self.frame = frame

    def read(self, step: str) -> StepReading:
        out = StepReading()
        low = lower_ascii(step[:MAX_STEP_CHARS])
        if len(step) > MAX_STEP_CHARS:
            out.complete = False
        for m in SENTENCE.finditer(low):
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
        for m in SPLIT.finditer(sentence):
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
        if OPTION.search(t) or POSITION_WORDS.search(t) or "contradict" in t or "answer" in t:
            return False
        words = set(re.findall(r"[a-z']+", t))
        return not any(set(k.split()) <= words for k in self.lex.keys)

    # -- prose clauses

    def _clause(
        self, text: str, offset: int, subject: list[int] | None
    ) -> tuple[list[Claim] | None, list[int] | None]:
        raw = text
        t = raw.strip()
        lead = LEAD.match(t)
        shift = len(raw) - len(raw.lstrip())
        if lead is not None:
            shift += lead.end()
            t = t[lead.end() :]
        t = t.strip().rstrip(".;!? ").strip()
        col = offset + shift
        if not t:
            return [], subject
        answer = ANSWER.fullmatch(t)
        if answer is not None:
            return self._answer(answer.group(1), t, col), subject
        for pattern, pos_group, obj_group in ((ONLY_POS_FIRST, 1, 2), (ONLY_OBJ_FIRST, 2, 1)):
            m = pattern.fullmatch(t) if pattern is ONLY_OBJ_FIRST else pattern.search(t)
            if m is not None:
                pos = self.lex.position(m.group(pos_group), self.frame)
                objs = self._objects(m.group(obj_group), subject)
                if pos is not None and pos > 0 and objs:
                    return [either_claim(t, col, [at(o, pos) for o in objs])], objs
                return None, subject
        return self._assertion(t, col, subject)

    def _objects(self, text: str, subject: list[int] | None) -> list[int] | None:
        t = text.strip()
        if t in PRONOUNS:
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
        k = NUMBERS[number]
        if b is None or k >= self.lex.n:
            return None
        return at(b, k + 1) if rel[1] else at(b, self.lex.n - k)

    def _assertion(
        self, t: str, col: int, subject: list[int] | None
    ) -> tuple[list[Claim] | None, list[int] | None]:
        count = COUNT.fullmatch(t) or re.fullmatch(rf"({NUM_ALT}) (.+)", t)
        if count is not None:
            fact = self._count(count.group(1), count.group(2))
            return ([Claim(t, col, fact)] if fact is not None else None), subject
        one_of = ONE_OF.fullmatch(t)
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
            vm = SUBJECT_VERB.fullmatch(" ".join(left.split()))
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
                if vm.group(2) in POSSIBLE:
                    return None, subject
                fact = all_of([neg(f) for f in facts]) if vm.group(2) in NEGATIVE else all_of(facts)
                return [Claim(t, col, fact)], subs
            if b in subs:
                return None, subject
            facts = [before(a, b) if forward else before(b, a) for a in subs]
            verb = vm.group(2)
            if verb in POSSIBLE:
                return [Claim(t, col, all_of(facts), "possible")], subs
            fact = all_of([neg(f) for f in facts]) if verb in NEGATIVE else all_of(facts)
            return [Claim(t, col, fact)], subs
        for vm in VERB.finditer(t):
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
                if verb in NEGATIVE:
                    return [Claim(t, col, all_of([neg(at(o, pos)) for o in objs]))], objs
                if verb in POSSIBLE and len(objs) == 1:
                    return [Claim(t, col, at(objs[0], pos), "possible")], objs
                return [either_claim(t, col, [at(o, pos) for o in objs])], objs
            return None, subject
        return None, subject

    def _placed(self, subs: list[int], verb: str, pred: str, t: str, col: int) -> list[Claim] | None:
        """``<objects> <verb> <position(s)>``: "the owl must be the leftmost", "Eve is third or
        fourth", "it cannot be the oldest", "the gray book is the second from the left and the
        sixth from the right"."""
        beyond = OR_BEYOND.fullmatch(pred)
        if beyond is not None:  # "third or higher" (a finishing order: higher is nearer first)
            k = self.lex.position(beyond.group(1), self.frame)
            if k is None or k < 1 or self.lex.bare_forward is None:
                return None
            up = beyond.group(2) in ("higher", "above", "better", "earlier")
            span = range(1, k + 1) if up else range(k, self.lex.n + 1)
            if len(subs) > 1 and verb not in NEGATIVE:
                return None
            facts = [any_of([at(o, p) for p in span]) for o in subs]
            if verb in NEGATIVE:
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
        if len(subs) > 1 and verb not in NEGATIVE:
            return None  # "A, B and C must be in the last three positions": not read
        facts = []
        for o in subs:
            options = [at(o, p) for p in ps]
            facts.append(any_of(options) if joined == "or" else all_of(options))
        if verb in NEGATIVE:
            return [Claim(t, col, all_of([neg(f) for f in facts]))]
        if verb in POSSIBLE and len(ps) == 1:
            return [Claim(t, col, facts[0], "possible")]
        if joined == "or" and len(ps) > 1:
            return [either_claim(t, col, [at(subs[0], p) for p in ps])]
        return [Claim(t, col, all_of(facts))]

    def _answer(self, rest: str, t: str, col: int) -> list[Claim] | None:
        letters = [x.upper() for x in OPTION.findall(rest)]
        if not letters or OPTION.sub("", rest).strip(" ,.or") != "":
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
            for piece, at_ in relation_pieces(chunk):
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
        m = LIST_ITEM.fullmatch(item)
        if m is None:
            return None
        keys = read_positions(m.group(1), n)
        if keys is None:
            return None
        ranks, joined = keys
        if any(k > n for k in ranks):
            return [Claim(item, col, None, "range")]
        canon = [k if forward else n + 1 - k for k in ranks]
        value = m.group(3).strip()
        anym = ANY.fullmatch(value)
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
            return [either_claim(item, col, [at(o, canon[0]) for o in objs])]
        if joined == "or" and len(objs) == 1:
            return [either_claim(item, col, [at(objs[0], p) for p in canon])]
        if joined == "and" and ors:
            return [Claim(item, col, all_of([any_of([at(o, p) for o in objs]) for p in canon]))]
        if joined == "and" and len(objs) == len(canon):
            return [Claim(item, col, all_of([any_of([at(o, p) for p in canon]) for o in objs]))]
        return None
