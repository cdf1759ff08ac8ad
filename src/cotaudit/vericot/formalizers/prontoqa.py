"""ProntoQA's open lexicon (V-39), read from the grammar of the generator's sentences.

A sentence is ``SUBJECT COPULA [not] PREDICATE.`` and the words may be anything:

- ``Every|Each NP is …`` and ``All NPs are …`` (rules), ``No NP is …`` / ``No NPs are …``
  (a rule with the conclusion negated), ``NPs are …`` (a generic plural: a rule);
- ``Name is …`` (a fact), where the name is one or more capitalised words (*Max*, *Mary Ann*)
  or a numeral (*31*);
- after ``is``: ``a|an NP`` is a class noun, anything else an adjective (*six-legged*);
  after ``are``: a plural NP (its head singularised) or an adjective.

A noun phrase is any number of words (*natural number*, *Mersenne prime*, *painted lady*);
its predicate is the lower-cased singular. The one ambiguous position is a bare word after
``are`` (*insects* or *luminous*?): a :class:`Lexicon` of what the rest of the text attests
in unambiguous positions decides it, and English morphology (:mod:`.morphology`) when the text
is silent. New words get new predicates, so an unseen predicate ends ``ungrounded``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from cotaudit.vericot.formalizers import morphology
from cotaudit.vericot.formalizers import sentences as sentence_text
from cotaudit.vericot.formalizers.ast import VAR, Atom, Fact, ParseFailure, Rule, Sentence, Smt, atoms_of
from cotaudit.vericot.formalizers.ast import to_smt as _to_smt
from cotaudit.vericot.formalizers.sentences import split_sentences as split_sentences

QUESTION_PREFIX = "is the following statement true or false?"
FUNCTION_WORDS = frozenset(
    {
        "is",
        "are",
        "not",
        "a",
        "an",
        "the",
        "and",
        "or",
        "either",
        "neither",
        "nor",
        "no",
        "every",
        "each",
        "all",
    }
)
_NUMERAL = re.compile(r"^[+-]?\d+(?:[.,]\d+)*$")


@dataclass(frozen=True, slots=True)
class Lexicon:
    """What a text uses in unambiguous positions: class nouns in the singular (after an article
    or a quantifier), plural noun phrases (subjects of 'are'), adjectives (bare, after 'is')."""

    nouns: frozenset[str] = frozenset()
    plurals: frozenset[str] = frozenset()
    adjectives: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class _Phrase:
    words: tuple[str, ...]  # lower-cased
    article: bool = False  # "a|an NP"


@dataclass(frozen=True, slots=True)
class _Shape:
    """A sentence's constituents before the ambiguous readings are resolved."""

    kind: str  # "name" | "singular" (Every/Each NP) | "plural" (NPs / All NPs)
    subject: tuple[str, ...]  # lower-cased words
    plural: bool  # the copula is "are"
    positive: bool
    predicate: _Phrase


def _word_ok(token: str) -> bool:
    """A word: letters and digits of any script, with inner hyphens or apostrophes."""
    if not token or not token[0].isalnum() or not token[-1].isalnum():
        return False
    return all(ch.isalnum() or ch in "-'’" for ch in token)


def _is_name_token(token: str) -> bool:
    if _NUMERAL.match(token):
        return True
    return _word_ok(token) and (token[0].isupper() or token[0].istitle())


def _words(sentence: str, tokens: list[str], what: str) -> tuple[str, ...] | ParseFailure:
    if not tokens:
        return ParseFailure(sentence, "<end>", f"expected {what}")
    out = []
    for tok in tokens:
        low = tok.lower()
        if low in FUNCTION_WORDS or not _word_ok(tok):
            return ParseFailure(sentence, tok, f"expected {what}")
        out.append(low)
    return tuple(out)


def _shape(sentence: str) -> _Shape | ParseFailure:
    text = sentence.strip()
    if not text.endswith("."):
        return ParseFailure(sentence, text[-1:], "a sentence must end with '.'")
    tokens = text[:-1].split()
    cop = next((i for i, t in enumerate(tokens) if t.lower() in ("is", "are")), None)
    if cop is None:
        return ParseFailure(sentence, tokens[-1] if tokens else "<end>", "expected 'is' or 'are'")
    subject, plural, rest = tokens[:cop], tokens[cop].lower() == "are", tokens[cop + 1 :]
    positive = True
    if rest and rest[0].lower() == "not":
        positive, rest = False, rest[1:]
    article = bool(rest) and rest[0].lower() in ("a", "an")
    if article:
        if plural:
            return ParseFailure(sentence, rest[0], "a plural subject takes no article ('Cats are mammals')")
        rest = rest[1:]
    pred = _words(sentence, rest, "a noun phrase" if article else "an adjective or a noun phrase")
    if isinstance(pred, ParseFailure):
        return pred
    phrase = _Phrase(pred, article)
    if not subject:
        return ParseFailure(sentence, tokens[cop], "expected a subject before the copula")
    first = subject[0].lower()
    if first in ("every", "each", "all", "no"):
        want_plural = {"every": False, "each": False, "all": True}.get(first, plural)
        if plural != want_plural:
            return ParseFailure(
                sentence, tokens[cop], f"'{subject[0]}' takes '{'are' if want_plural else 'is'}'"
            )
        np = _words(sentence, subject[1:], "a noun phrase")
        if isinstance(np, ParseFailure):
            return np
        if first == "no":
            positive = not positive
        return _Shape("plural" if plural else "singular", np, plural, positive, phrase)
    if plural:
        np = _words(sentence, subject, "'Every', 'Each', a plural noun phrase or a name")
        if isinstance(np, ParseFailure):
            return np
        return _Shape("plural", np, plural, positive, phrase)
    bad = next((t for t in subject if not _is_name_token(t) or t.lower() in FUNCTION_WORDS), None)
    if bad is not None:
        return ParseFailure(sentence, bad, "expected 'Every', 'Each', a plural noun phrase or a name")
    return _Shape("name", tuple(t.lower() for t in subject), plural, positive, phrase)


def _attested_singular(words: tuple[str, ...], lexicon: Lexicon | None) -> str | None:
    """The singular of a plural noun phrase if the text uses one of its candidates as a noun."""
    if lexicon is None:
        return None
    head, before = words[-1], words[:-1]
    for cand in (*morphology.singular_candidates(head), head):
        lemma = " ".join((*before, cand))
        if lemma in lexicon.nouns:
            return lemma
    return None


def _singular_np(words: tuple[str, ...], lexicon: Lexicon | None) -> str:
    """The singular lemma of a plural noun phrase (its head singularised)."""
    attested = _attested_singular(words, lexicon)
    if attested is not None:
        return attested
    return " ".join((*words[:-1], morphology.singular(words[-1]) or words[-1]))


def _plural_predicate(phrase: _Phrase, lexicon: Lexicon | None) -> tuple[str, bool]:
    """A bare predicate after 'are': (lemma, is a noun). The text's own usage decides first."""
    words = phrase.words
    text = " ".join(words)
    attested = _attested_singular(words, lexicon)
    if attested is not None:
        return attested, True
    if lexicon is not None:
        if text in lexicon.adjectives:
            return text, False
        if text in lexicon.plurals:  # used as a plural subject elsewhere: a noun
            return _singular_np(words, None), True
    head = morphology.singular(words[-1])
    if head is None:
        return text, False
    return " ".join((*words[:-1], head)), True


def _resolve(shape: _Shape, lexicon: Lexicon | None) -> Sentence:
    subject_arg = " ".join(shape.subject) if shape.kind == "name" else VAR
    ph = shape.predicate
    if ph.article or not shape.plural:
        pred, noun = " ".join(ph.words), ph.article
    else:
        pred, noun = _plural_predicate(ph, lexicon)
    atom = Atom(pred, (subject_arg,), shape.positive, noun)
    if shape.kind == "name":
        return Fact(atom)
    cond = " ".join(shape.subject) if shape.kind == "singular" else _singular_np(shape.subject, lexicon)
    return Rule((Atom(cond, (VAR,), True, True),), atom)


def parse_sentence(sentence: str, lexicon: Lexicon | None = None) -> Sentence | ParseFailure:
    """The AST of one ProntoQA sentence, or a :class:`ParseFailure` naming the first unusable
    token. ``lexicon`` (from :func:`lexicon_of` over the same text) settles bare plurals."""
    shape = _shape(sentence)
    if isinstance(shape, ParseFailure):
        return shape
    return _resolve(shape, lexicon)


def lexicon_of(sentences: Iterable[str]) -> Lexicon:
    """What ``sentences`` attest without ambiguity: singular nouns after an article or a
    quantifier, plural noun phrases as subjects of 'are', adjectives after 'is'. Unparsable
    sentences are skipped."""
    nouns: set[str] = set()
    plurals: set[str] = set()
    adjectives: set[str] = set()
    for s in sentences:
        shape = _shape(s)
        if isinstance(shape, ParseFailure):
            continue
        if shape.kind == "singular":
            nouns.add(" ".join(shape.subject))
        elif shape.kind == "plural":
            plurals.add(" ".join(shape.subject))
        ph = shape.predicate
        if ph.article:
            nouns.add(" ".join(ph.words))
        elif not shape.plural:
            adjectives.add(" ".join(ph.words))
    return Lexicon(frozenset(nouns), frozenset(plurals), frozenset(adjectives - nouns))


def _article(phrase: str) -> str:
    return ("an " if phrase[:1] in ("a", "e", "i", "o", "u") else "a ") + phrase


def _display_name(key: str) -> str:
    return " ".join(w[:1].upper() + w[1:] for w in key.split(" "))


def _predicate_text(a: Atom) -> str:
    return f"{'' if a.positive else 'not '}{_article(a.pred) if a.noun else a.pred}"


def realize(s: Sentence) -> str:
    """Canonical English: ``Name is …`` for facts, ``Every C is …`` for rules."""
    if isinstance(s, Fact):
        a = s.atom
        return f"{_display_name(a.args[0])} is {_predicate_text(a)}."
    return f"Every {s.conditions[0].pred} is {_predicate_text(s.conclusion)}."


def with_predicate(s: Sentence, pred: str, *, noun: bool = True) -> Sentence:
    """``s`` with the predicate of its fact or conclusion replaced (the U perturbation, V-52)."""
    if isinstance(s, Fact):
        return Fact(replace(s.atom, pred=pred, noun=noun))
    return Rule(s.conditions, replace(s.conclusion, pred=pred, noun=noun))


def question_statement(question: str) -> str:
    """The statement a question asks about (by this data set's :data:`QUESTION_PREFIX`)."""
    return sentence_text.question_statement(question, QUESTION_PREFIX)


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
