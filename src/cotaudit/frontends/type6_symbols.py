"""The deterministic half of Type-6 annotation: sentences, proposition keys, symbols, ``.t6`` lines.

Stage 2 of the paper maps recurring propositions to one symbol. Here normalisation decides
first: two claims with the same :func:`proposition_key` (lower case, punctuation, hedges and
filler words dropped) are the same proposition. Pairs whose keys differ but whose word sets
overlap a lot (Jaccard in ``[UNDECIDED_BELOW, 1)``) are *undecided*; only those go to the model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[a-z0-9]+")
_FILLER = frozenset(
    [
        "a", "an", "the", "so", "therefore", "thus", "hence", "then", "i", "we", "think", "know",
        "believe", "maybe", "probably", "clearly", "actually", "wait", "that", "it", "is", "are",
        "be", "must", "also", "again", "just", "really", "well", "ok", "okay",
    ]
)  # fmt: skip
UNDECIDED_BELOW = 0.5
CONNECTIVES = ("IF", "THEN", "AND", "OR")
UNARY = ("K", "B", "?", "R", "N")
MAX_SENTENCES = 200  # a longer text is cut: annotation cost grows with every statement


def sentences(text: str) -> list[str]:
    """Sentences and lines of a raw chain of thought, whitespace-normalised, blanks dropped."""
    out = [" ".join(s.split()) for s in _SENTENCE.split(text)]
    return [s for s in out if s][:MAX_SENTENCES]


def proposition_key(claim: str) -> str:
    """The normalised form two claims must share to be one proposition without asking a model."""
    return " ".join(w for w in _WORD.findall(claim.lower()) if w not in _FILLER)


def _jaccard(a: str, b: str) -> float:
    sa, sb = set(a.split()), set(b.split())
    return len(sa & sb) / len(sa | sb) if sa | sb else 1.0


def undecided_pairs(keys: Sequence[str]) -> list[tuple[str, str]]:
    """Pairs of distinct keys similar enough that normalisation cannot decide (first-seen order)."""
    distinct = list(dict.fromkeys(k for k in keys if k))
    return [
        (a, b)
        for i, a in enumerate(distinct)
        for b in distinct[i + 1 :]
        if UNDECIDED_BELOW <= _jaccard(a, b) < 1.0
    ]


def assign_symbols(keys: Sequence[str], same: Mapping[tuple[str, str], bool]) -> dict[str, str]:
    """Key → symbol ``p1``, ``p2``, … in first-seen order; keys the model called the same share one."""
    parent: dict[str, str] = {}

    def find(k: str) -> str:
        while parent.get(k, k) != k:
            k = parent[k]
        return k

    for (a, b), merged in same.items():
        if merged:
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[rb] = ra
    symbols: dict[str, str] = {}
    by_root: dict[str, str] = {}
    for k in keys:
        if not k or k in symbols:
            continue
        root = find(k)
        if root not in by_root:
            by_root[root] = f"p{len(by_root) + 1}"
        symbols[k] = by_root[root]
    return symbols


@dataclass(frozen=True, slots=True)
class Draft:
    """One statement on its way to a ``.t6`` line."""

    text: str
    symbol: str | None
    negated: bool
    alpha: str = "Uk"
    ops: tuple[str, ...] = ()

    def line(self) -> str:
        """``alpha [connective] [unary…] [NOT] [symbol] : text`` — text kept opaque (Y-3)."""
        tokens = [self.alpha, *self.ops]
        if self.negated and self.symbol is not None:
            tokens.append("NOT")
        if self.symbol is not None:
            tokens.append(self.symbol)
        return f"{' '.join(tokens)} : {self.text}"


def canonical_ops(ops: Sequence[str]) -> tuple[tuple[str, ...], list[str]]:
    """Ops in parser order (one connective first, then unary operators, each once) and the
    tokens that had to be dropped: unknown words, ``NOT`` (polarity comes from stage 1), extra
    connectives."""
    dropped: list[str] = []
    connective: str | None = None
    unary: list[str] = []
    for raw in ops:
        token = raw.strip()
        if token in CONNECTIVES and connective is None:
            connective = token
        elif token in UNARY:
            if token not in unary:  # a repeated operator says nothing new
                unary.append(token)
        elif token:
            dropped.append(token)
    return ((connective,) if connective else ()) + tuple(unary), dropped


def sink_symbol(drafts: Sequence[Draft]) -> str | None:
    """The symbol of the last statement that has one: it becomes ``a``, the sink (Y-69)."""
    return next((d.symbol for d in reversed(drafts) if d.symbol is not None), None)
