"""ProofWriter's closed lexicon (V-38, :mod:`cotaudit.lexicons.proofwriter`): sentences → AST →
SMT-LIB, both semantics.

An unknown word or shape is a :class:`ParseFailure` naming the first unusable token, so the
step becomes ``untranslatable``. Nothing calls ``eval``.
"""

from __future__ import annotations

import re

from cotaudit.lexicons import proofwriter as lexicon
from cotaudit.vericot.formalizers import sentences as sentence_text
from cotaudit.vericot.formalizers.ast import VAR, Atom, Fact, ParseFailure, Rule, Sentence, Smt, atoms_of
from cotaudit.vericot.formalizers.ast import to_smt as _to_smt
from cotaudit.vericot.formalizers.sentences import split_sentences as split_sentences

ADJECTIVES = frozenset(lexicon.ADJECTIVES)
VERBS = tuple(sorted(lexicon.VERBS))
VERB_FORMS = {**{v: v for v in VERBS}, **{v + "s": v for v in VERBS}}
NAMES = lexicon.NAMES
ANIMALS = lexicon.ANIMALS
VAR_WORDS = frozenset(lexicon.VARIABLE_WORDS)
QUESTION_PREFIX = "based on the above information, is the following statement true, false, or unknown?"


class _Fail(Exception):
    def __init__(self, token: str, message: str) -> None:
        super().__init__(message)
        self.token = token
        self.message = message


class _Parser:
    def __init__(self, sentence: str) -> None:
        text = sentence.strip()
        if not text.endswith("."):
            raise _Fail(text[-1:] or "", "a sentence must end with '.'")
        self.toks = re.findall(r"[a-z]+|,", text[:-1].lower())
        self.raw = text
        self.i = 0

    def peek(self, k: int = 0) -> str | None:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def take(self, word: str | None = None) -> str:
        tok = self.peek()
        if tok is None:
            raise _Fail("<end>", "the sentence ends too early")
        if word is not None and tok != word:
            raise _Fail(tok, f"expected '{word}', found '{tok}'")
        self.i += 1
        return tok

    def fail(self, what: str) -> _Fail:
        tok = self.peek() or "<end>"
        return _Fail(tok, f"unexpected '{tok}' where {what} was expected")

    def entity(self) -> str | None:
        tok = self.peek()
        if tok in NAMES:
            self.i += 1
            return tok
        if tok == "the":
            if self.peek(1) == "bald" and self.peek(2) == "eagle":
                self.i += 3
                return "the_bald_eagle"
            nxt = self.peek(1)
            if nxt in ANIMALS:
                self.i += 2
                return f"the_{nxt}"
        return None

    def term(self, allow_var: bool) -> str | None:
        e = self.entity()
        if e is not None:
            return e
        if allow_var and self.peek() in VAR_WORDS:
            self.i += 1
            return VAR
        return None

    def predicate(self, subject: str, elided: bool) -> Atom:
        tok = self.peek()
        if tok in ("is", "are"):
            self.i += 1
            positive = True
            if self.peek() == "not":
                self.i += 1
                positive = False
            adj = self.peek()
            if adj not in ADJECTIVES:
                raise self.fail("an adjective")
            self.i += 1
            return Atom(adj, (subject,), positive)
        if tok in ("does", "do"):
            self.i += 1
            self.take("not")
            verb = self.peek()
            if verb not in VERBS:
                raise self.fail("a verb")
            self.i += 1
            return Atom(verb, (subject, self.object()), False)
        if tok in VERB_FORMS:
            self.i += 1
            return Atom(VERB_FORMS[tok], (subject, self.object()), True)
        if elided and (tok == "not" or tok in ADJECTIVES):
            positive = tok != "not"
            if not positive:
                self.i += 1
            adj = self.peek()
            if adj not in ADJECTIVES:
                raise self.fail("an adjective")
            self.i += 1
            return Atom(adj, (subject,), positive)
        raise self.fail("'is', 'does not' or a verb")

    def object(self) -> str:
        obj = self.term(allow_var=True)
        if obj is None:
            raise self.fail("an entity")
        return obj

    def clause(self, prev: str | None) -> tuple[Atom, str]:
        subject = self.term(allow_var=True)
        if subject is None:
            if prev is None:
                raise self.fail("a subject")
            return self.predicate(prev, elided=True), prev
        return self.predicate(subject, elided=False), subject

    def rule(self) -> Rule:
        self.take("if")
        conds: list[Atom] = []
        atom, subj = self.clause(None)
        conds.append(atom)
        while self.peek() == "and":
            self.i += 1
            atom, subj = self.clause(subj)
            conds.append(atom)
        if self.peek() != "then":
            raise self.fail("'and' or 'then'")
        self.i += 1
        concl, _ = self.clause(None)
        return Rule(tuple(conds), concl)

    def generic(self) -> Rule:
        if self.peek() == "all":
            self.i += 1
        adjs: list[str] = []
        while self.peek() in ADJECTIVES:
            adjs.append(self.take())
            if self.peek() == ",":
                self.i += 1
        if not adjs:
            raise self.fail("an adjective")
        if self.peek() not in ("things", "people"):
            raise self.fail("'things' or 'people'")
        self.i += 1
        concl = self.predicate(VAR, elided=False)
        return Rule(tuple(Atom(a, (VAR,)) for a in adjs), concl)

    def sentence(self) -> Sentence:
        first = self.peek()
        if first == "if":
            s: Sentence = self.rule()
        elif first == "all" or first in ADJECTIVES:
            s = self.generic()
        else:
            subject = self.entity()
            if subject is None:
                raise self.fail("an entity, 'If' or an adjective")
            s = Fact(self.predicate(subject, elided=False))
        if self.peek() is not None:
            raise self.fail("the end of the sentence")
        return s


def parse_sentence(sentence: str) -> Sentence | ParseFailure:
    """The AST of one ProofWriter sentence, or a :class:`ParseFailure`."""
    try:
        return _Parser(sentence).sentence()
    except _Fail as exc:
        return ParseFailure(sentence, exc.token, exc.message)


def _ent_text(e: str, initial: bool) -> str:
    if e.startswith("the_"):
        words = "the " + e[4:].replace("_", " ")
        return words[0].upper() + words[1:] if initial else words
    return e.capitalize()


def _clause_text(a: Atom, subj_word: str | None, initial: bool) -> str:
    s = a.args[0]
    subj = subj_word if s == VAR and subj_word else _ent_text(s, initial)
    if len(a.args) == 1:
        return f"{subj} is {'' if a.positive else 'not '}{a.pred}"
    obj = "it" if a.args[1] == VAR else _ent_text(a.args[1], False)
    if a.positive:
        return f"{subj} {a.pred}s {obj}"
    return f"{subj} does not {a.pred} {obj}"


def realize(s: Sentence) -> str:
    """Canonical English for an AST (``parse_sentence(realize(a)) == a``)."""
    if isinstance(s, Fact):
        return _clause_text(s.atom, None, True) + "."
    conds = [_clause_text(a, "something" if i == 0 else "it", False) for i, a in enumerate(s.conditions)]
    concl = _clause_text(s.conclusion, "it", False)
    return f"If {' and '.join(conds)} then {concl}."


def question_statement(question: str) -> str:
    """The statement a question asks about (by this data set's :data:`QUESTION_PREFIX`)."""
    return sentence_text.question_statement(question, QUESTION_PREFIX)


def entities_of(sentences: list[Sentence]) -> tuple[str, ...]:
    return tuple(sorted({a for s in sentences for at in atoms_of(s) for a in at.args if a != VAR}))


def to_smt(
    sentence: Sentence, semantics: str = "classical", encoding: str = "forall", entities: tuple[str, ...] = ()
) -> Smt:
    return _to_smt(sentence, semantics, encoding, entities)
