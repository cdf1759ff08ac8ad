"""ProofWriter's closed lexicon (certify.md C-95, vericot.md V-38): 8 names, 10 animals,
14 adjectives, 6 verbs and the words that stand for a variable subject.

The order is the one certify's adapter builds its sentence patterns and interface from; vericot
uses the same words as sets. Verbs are given in their base form ("like"); the third person adds
an ``s`` ("likes") for every one of them.
"""

from __future__ import annotations

NAMES = ("anne", "bob", "charlie", "dave", "erin", "fiona", "gary", "harry")
ANIMALS = ("bald eagle", "bear", "cat", "cow", "dog", "lion", "mouse", "rabbit", "squirrel", "tiger")
ADJECTIVES = (
    "big",
    "blue",
    "cold",
    "furry",
    "green",
    "kind",
    "nice",
    "quiet",
    "red",
    "rough",
    "round",
    "smart",
    "white",
    "young",
)
VERBS = ("like", "chase", "visit", "need", "eat", "see")
VARIABLE_WORDS = ("something", "someone", "it", "they")

__all__ = ["ADJECTIVES", "ANIMALS", "NAMES", "VARIABLE_WORDS", "VERBS"]
