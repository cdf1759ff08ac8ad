"""English noun number for the open ProntoQA lexicon: which word is a plural, and its singular.

The singular of a plural common noun comes from ``inflect`` (regular plurals, ``-ies``,
``-ves``, irregulars such as *mice*, *geese*, *people*, invariant plurals such as *sheep*).
One rule is ours: a word ending in ``-ous`` is an adjective (*luminous*, *herbivorous*), not the
plural of a noun in ``-ou``, although ``inflect`` strips its ``s``. Which reading a bare word
after "are" takes is decided first by what the rest of the text attests (``prontoqa.Lexicon``);
this module is the fallback, so it only has to be right about English, not about one corpus.

``inflect`` costs about 1.5 s of CPU to import (its type-checking decorators), so it is
imported on first use, and answers are cached.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

NOT_PLURAL_SUFFIXES = ("ous",)
"""Endings of English adjectives that a plural rule would misread as ``-s`` plurals."""

MAX_WORD = 64
"""Longer tokens are not English words; they are never singularised (and never inflected)."""


@lru_cache(maxsize=1)
def _engine() -> Any:
    import inflect

    return inflect.engine()


@lru_cache(maxsize=8192)
def singular(word: str) -> str | None:
    """The singular of ``word`` read as a plural common noun, or ``None`` if it does not read as
    one (an adjective, a singular, a non-word). Invariant plurals give themselves (*sheep*)."""
    w = word.lower()
    if not w or len(w) > MAX_WORD or not w[-1].isalpha() or w.endswith(NOT_PLURAL_SUFFIXES):
        return None
    result = _engine().singular_noun(w)
    return result if isinstance(result, str) and result else None


def singular_candidates(word: str) -> tuple[str, ...]:
    """Possible singulars of ``word``, the morphological reading first, then the word minus ``-s``
    and minus ``-es``: a text that attests one of them as a noun settles a case the rules get
    wrong (``-ses`` is the usual one: *buses* → *bus* but *houses* → *house*)."""
    w = word.lower()
    out: list[str] = []
    first = singular(w)
    if first is not None:
        out.append(first)
    if w.endswith("s") and len(w) > 1:
        out.append(w[:-1])
        if w.endswith("es") and len(w) > 2:
            out.append(w[:-2])
    return tuple(dict.fromkeys(out))


__all__ = ["NOT_PLURAL_SUFFIXES", "singular", "singular_candidates"]
