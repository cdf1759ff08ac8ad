"""ProntoQA's open lexicon (V-39, issue 19): the grammar of the generator's sentences, any words.

The sentences here are written for these tests in the generator's style (real nouns, multi-word
nouns, numerals as names, irregular plurals); none is copied from a data file.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from cotaudit.vericot.config import VerifierConfig
from cotaudit.vericot.formalizers import formalize_item, prontoqa
from cotaudit.vericot.formalizers.ast import VAR, Atom, Fact, ParseFailure, Rule, symbol_part, to_smt
from cotaudit.vericot.inject import inject_item
from cotaudit.vericot.pipeline import Verifier
from cotaudit.vericot.smtlib import SYMBOL


def rule(cond: str, pred: str, positive: bool = True, noun: bool = True) -> Rule:
    return Rule((Atom(cond, (VAR,), True, True),), Atom(pred, (VAR,), positive, noun))


def fact(name: str, pred: str, positive: bool = True, noun: bool = True) -> Fact:
    return Fact(Atom(pred, (name,), positive, noun))


SHAPES = {
    # quantified rules, singular and plural
    "Every falcon is a raptor.": rule("falcon", "raptor"),
    "Each raptor is not herbivorous.": rule("raptor", "herbivorous", False, False),
    "All geese are waterbirds.": rule("goose", "waterbird"),
    "No reptile is warm-blooded.": rule("reptile", "warm-blooded", False, False),
    "No lizards are mammals.": rule("lizard", "mammal", False),
    # generic plurals with irregular and invariant plurals
    "Mice are rodents.": rule("mouse", "rodent"),
    "Oxen are not carnivores.": rule("ox", "carnivore", False),
    "People are primates.": rule("person", "primate"),
    "Children are curious.": rule("child", "curious", noun=False),
    "Wolves are carnivorous.": rule("wolf", "carnivorous", noun=False),
    "Deer are ruminants.": rule("deer", "ruminant"),
    "Ponies are small.": rule("pony", "small", noun=False),
    # multi-word nouns, capitalised words inside a noun phrase
    "Square numbers are not prime numbers.": rule("square number", "prime number", False),
    "Every complex number is a quantity.": rule("complex number", "quantity"),
    "Fermat primes are odd.": rule("fermat prime", "odd", noun=False),
    "Sea otters are marine mammals.": rule("sea otter", "marine mammal"),
    # names: proper names (one or more words, any script) and numerals
    "42 is an even number.": fact("42", "even number"),
    "17 is not composite.": fact("17", "composite", False, False),
    "Mary Ann is a border collie.": fact("mary ann", "border collie"),
    "Zoë is a kestrel.": fact("zoë", "kestrel"),
    "Ōtani is not left-handed.": fact("ōtani", "left-handed", False, False),
}


def test_generator_shapes_with_real_words() -> None:
    for text, ast in SHAPES.items():
        assert prontoqa.parse_sentence(text) == ast, text


def test_fictional_words_still_read_as_before() -> None:
    assert prontoqa.parse_sentence("Tumpuses are not sour.") == rule("tumpus", "sour", False, False)
    assert prontoqa.parse_sentence("Wumpuses are yumpuses.") == rule("wumpus", "yumpus")
    assert prontoqa.parse_sentence("Max is a dumpus.") == fact("max", "dumpus")
    assert prontoqa.parse_sentence("Max is luminous.") == fact("max", "luminous", noun=False)
    # -ous is an adjective, not the plural of a noun in -ou
    assert prontoqa.parse_sentence("Impuses are nervous.") == rule("impus", "nervous", noun=False)


def test_out_of_grammar_names_the_token() -> None:
    cases = {
        "Max is a cat and a dog.": "and",
        "the heron is a bird.": "the",
        "Every heron are birds.": "are",
        "Herons are a bird.": "a",
        "Max runs fast.": "fast",
        "Max is a heron": "n",
        "Max is.": "<end>",
        "Is.": "<end>",
        "Every is a bird.": "<end>",
        "Max is a bird_watcher.": "bird_watcher",
    }
    for text, token in cases.items():
        r = prontoqa.parse_sentence(text)
        assert isinstance(r, ParseFailure), text
        assert r.token == token, (text, r)
    # near misses: the same sentences inside the grammar parse
    for text in ("Max is a cat.", "Heron is a bird.", "Every heron is a bird.", "Herons are birds."):
        assert not isinstance(prontoqa.parse_sentence(text), ParseFailure), text


def test_the_text_settles_a_bare_plural() -> None:
    """After 'are' a bare word may be a plural noun or an adjective: what the text attests
    elsewhere decides, morphology only when the text is silent."""
    # an adjective that looks like a plural, attested after "is"
    lex = prontoqa.lexicon_of(["Rex is blorks.", "Wumpuses are blorks."])
    assert prontoqa.parse_sentence("Wumpuses are blorks.", lex) == rule("wumpus", "blorks", noun=False)
    assert prontoqa.parse_sentence("Wumpuses are blorks.") == rule("wumpus", "blork")  # silent text
    # a singular that the rules get wrong, attested after a quantifier
    lex = prontoqa.lexicon_of(["Every florps is a dumpus.", "Florpses are red."])
    assert prontoqa.parse_sentence("Florpses are red.", lex) == rule("florps", "red", noun=False)
    assert prontoqa.parse_sentence("Dumpuses are florpses.", lex) == rule("dumpus", "florps")


def test_symbols_are_valid_and_distinct() -> None:
    for ast in SHAPES.values():
        smt = to_smt(ast)
        for sym in re.findall(r"\b[pe]_\S+?(?=[\s)])", smt.decls + " " + smt.smt):
            assert SYMBOL.match(sym), sym
    assert symbol_part("zoë") != symbol_part("zoe")
    assert symbol_part("x" * 500) != symbol_part("x" * 501)
    assert len(symbol_part("x" * 500)) <= 58


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_symbol_part_of_any_text_is_a_symbol(text: str) -> None:
    assert SYMBOL.match("p_not_" + symbol_part(text))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_characters=" -"), max_size=12), st.text(max_size=12))
def test_symbol_part_is_injective(a: str, b: str) -> None:
    b = b.replace(" ", "").replace("-", "")
    if a != b:
        assert symbol_part(a) != symbol_part(b)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_parse_never_raises(text: str) -> None:
    r = prontoqa.parse_sentence(text + ".")
    assert isinstance(r, ParseFailure | Fact | Rule)
    if not isinstance(r, ParseFailure):
        assert prontoqa.parse_sentence(prontoqa.realize(r)) == r


# A hand-written item in the style of the generator's true ontology: three hops, a numeral
# as the entity, multi-word nouns, an irregular plural and a distractor rule.
ITEM = {
    "id": "handwritten-real-1",
    "context": (
        "Mersenne primes are prime numbers. Every prime number is a natural number. "
        "Each natural number is not negative. Natural numbers are integers. Square numbers are "
        "not prime. Geese are birds. Each integer is a rational number. 127 is a Mersenne prime."
    ),
    "question": "Is the following statement true or false? 127 is negative.",
    "options": ["A) True", "B) False"],
    "answer": "B",
    "explanation": [
        "127 is a Mersenne prime.",
        "Mersenne primes are prime numbers.",
        "127 is a prime number.",
        "Every prime number is a natural number.",
        "127 is a natural number.",
        "Each natural number is not negative.",
        "127 is not negative.",
    ],
}


def _label(item: dict[str, object]) -> str:
    trace = formalize_item(item, dataset="prontoqa", mode="question")
    result = Verifier(VerifierConfig(premise_providers=())).run(trace)
    return result.steps[0].status


def test_real_ontology_item_labels() -> None:
    assert _label(ITEM) == "contradicted"  # B: False
    assert _label({**ITEM, "question": "Is the following statement true or false? 127 is an integer."}) == (
        "entailed"
    )
    # near miss: nothing in the context decides it
    assert _label({**ITEM, "question": "Is the following statement true or false? 127 is a goose."}) == (
        "ungrounded"
    )


def test_real_ontology_item_chain_and_perturbations() -> None:
    cases = inject_item(ITEM)
    by_kind: dict[str, list[str]] = {}
    for c in cases:
        assert c.flagged, c
        by_kind.setdefault(c.kind, []).append(c.status)
    assert by_kind["G0"] == ["entailed"] * 7
    assert by_kind["NT"] == ["contradicted"] * 7 and by_kind["NF"] == ["contradicted"] * 7
    assert set(by_kind["U"]) == {"ungrounded"} and set(by_kind["D"]) == {"ungrounded"}
