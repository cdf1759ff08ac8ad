"""ProntoQA's open lexicon (V-39): ``Every|Each C is [not] a|an W.``, ``Cs are [not] W.`` and
``Name is [not] a|an W.``. Class nouns end in ``pus`` (plural ``puses``); any other W is an
adjective. New words get new predicates, so an unseen predicate ends ``ungrounded``.
"""

from __future__ import annotations

import re

from cotaudit.vericot.formalizers.ast import VAR, Atom, Fact, ParseFailure, Rule, Sentence, Smt, atoms_of
from cotaudit.vericot.formalizers.ast import to_smt as _to_smt

QUESTION_PREFIX = "is the following statement true or false?"
_WORD = re.compile(r"^[a-z][a-z-]*$")
_NAME = re.compile(r"^[A-Z][a-z]+$")


def _singular(plural: str) -> str | None:
    return plural[:-2] if plural.endswith("puses") else None


def _pred(word: str) -> str:
    return word.replace("-", "_")


def parse_sentence(sentence: str) -> Sentence | ParseFailure:
    """The AST of one ProntoQA sentence, or a :class:`ParseFailure`."""
    text = sentence.strip()
    if not text.endswith("."):
        return ParseFailure(sentence, text[-1:], "a sentence must end with '.'")
    words = text[:-1].split()
    if len(words) < 3:
        return ParseFailure(sentence, words[-1] if words else "", "too short")
    first = words[0]
    rest = [w.lower() for w in words[1:]]

    def predicate(tokens: list[str], subject: str) -> Atom | ParseFailure:
        positive = True
        if tokens and tokens[0] == "not":
            positive = False
            tokens = tokens[1:]
        if tokens and tokens[0] in ("a", "an"):
            tokens = tokens[1:]
            if len(tokens) != 1 or not _WORD.match(tokens[0]):
                return ParseFailure(sentence, tokens[0] if tokens else "<end>", "expected one class noun")
            return Atom(_pred(tokens[0]), (subject,), positive)
        if len(tokens) != 1 or not _WORD.match(tokens[0]):
            return ParseFailure(sentence, tokens[0] if tokens else "<end>", "expected one word")
        word = tokens[0]
        noun = _singular(word)
        return Atom(_pred(noun or word), (subject,), positive)

    lower_first = first.lower()
    if lower_first in ("every", "each"):
        if len(rest) < 3 or rest[1] != "is" or not _WORD.match(rest[0]):
            return ParseFailure(sentence, rest[1] if len(rest) > 1 else "<end>", "expected 'Every C is ...'")
        concl = predicate(rest[2:], VAR)
        if isinstance(concl, ParseFailure):
            return concl
        return Rule((Atom(_pred(rest[0]), (VAR,)),), concl)
    noun = _singular(lower_first)
    if noun is not None:
        if rest[0] != "are":
            return ParseFailure(sentence, rest[0], "expected 'are'")
        concl = predicate(rest[1:], VAR)
        if isinstance(concl, ParseFailure):
            return concl
        return Rule((Atom(_pred(noun), (VAR,)),), concl)
    if _NAME.match(first):
        if rest[0] != "is":
            return ParseFailure(sentence, rest[0], "expected 'is'")
        atom = predicate(rest[1:], first.lower())
        if isinstance(atom, ParseFailure):
            return atom
        return Fact(atom)
    return ParseFailure(sentence, first, "expected 'Every', 'Each', a plural class noun or a name")


def _np(word: str) -> str:
    w = word.replace("_", "-")
    if w.endswith("pus"):
        return ("an " if w[0] in "aeiou" else "a ") + w
    return w


def realize(s: Sentence) -> str:
    """Canonical English (``Every C is …`` for rules)."""
    if isinstance(s, Fact):
        a = s.atom
        return f"{a.args[0].capitalize()} is {'' if a.positive else 'not '}{_np(a.pred)}."
    c = s.conditions[0].pred.replace("_", "-")
    a = s.conclusion
    return f"Every {c} is {'' if a.positive else 'not '}{_np(a.pred)}."


def split_sentences(context: str) -> list[str]:
    return [p for p in re.split(r"(?<=\.)\s+", context.strip()) if p]


def question_statement(question: str) -> str:
    q = question.strip()
    if q.lower().startswith(QUESTION_PREFIX):
        return q[len(QUESTION_PREFIX) :].strip()
    return q.rsplit("?", 1)[-1].strip()


def negate_text(sentence: str) -> str:
    """NT perturbation (V-52): "is" ↔ "is not", "are" ↔ "are not"."""
    for a, b in ((" is not ", " is "), (" are not ", " are ")):
        if a in sentence:
            return sentence.replace(a, b, 1)
    for a, b in ((" is ", " is not "), (" are ", " are not ")):
        if a in sentence:
            return sentence.replace(a, b, 1)
    return sentence


def entities_of(sentences: list[Sentence]) -> tuple[str, ...]:
    return tuple(sorted({a for s in sentences for at in atoms_of(s) for a in at.args if a != VAR}))


def to_smt(
    sentence: Sentence, semantics: str = "classical", encoding: str = "forall", entities: tuple[str, ...] = ()
) -> Smt:
    return _to_smt(sentence, semantics, encoding, entities)
