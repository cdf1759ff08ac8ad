"""Units of the TE linter: TE's unit parser and printer (te.md §5) over the curated vocabulary
of :mod:`cotaudit.te.unittable`; the exact unit vectors they produce are
:mod:`cotaudit.te.unitvec`'s (re-exported here).

* TE-37: the only unit vocabulary is ``data/units.txt``, pint's definition syntax for an empty
  pint registry (no prefixes). Every name's exact factor and dimensionality is pint's, read from
  a table generated from pint (``data/units.tsv``), so no lookup imports pint.
* TE-38: unit text from a trace is parsed here, never by pint's string parser (TE-18). Names
  that the curated file does not define are count nouns with their own base dimension.
* TE-40: two units are compatible iff they have the same dimensions and a factor ratio of 1.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Final, NamedTuple

from cotaudit.errors import CotauditError
from cotaudit.te.unittable import IDENTITY, alias_table, vector
from cotaudit.te.unitvec import COUNT_PREFIX, DIMENSIONLESS, UnitVec, exact_text, quotient_text, unit_ratio

__all__ = [
    "DIMENSIONLESS",
    "IRREGULAR_PLURALS",
    "UnitSyntaxError",
    "UnitVec",
    "format_unit",
    "parse_unit",
    "singularize",
    "unit_ratio",
]


# ---- names: curated units and count nouns (TE-38) --------------------------------------------

# plural -> singular; an entry mapping to itself protects a singular ending in "s".
_IRREGULAR_PAIRS: Final = """
calves=calf elves=elf halves=half hooves=hoof knives=knife leaves=leaf lives=life loaves=loaf
scarves=scarf shelves=shelf thieves=thief wives=wife wolves=wolf
buffaloes=buffalo dominoes=domino echoes=echo heroes=hero mangoes=mango mosquitoes=mosquito
potatoes=potato tomatoes=tomato volcanoes=volcano
aunties=auntie brownies=brownie calories=calorie cookies=cookie goalies=goalie hoodies=hoodie
movies=movie pixies=pixie prairies=prairie rookies=rookie selfies=selfie smoothies=smoothie
veggies=veggie zombies=zombie
analyses=analysis atlases=atlas bonuses=bonus buses=bus busses=bus cactuses=cactus caches=cache
campuses=campus canvases=canvas circuses=circus crises=crisis gases=gas headaches=headache
lenses=lens niches=niche octopuses=octopus quizzes=quiz statuses=status theses=thesis
viruses=virus walruses=walrus
bikinis=bikini emus=emu gurus=guru haikus=haiku kiwis=kiwi martinis=martini menus=menu
safaris=safari skis=ski taxis=taxi
cacti=cactus children=child dice=die fungi=fungus geese=goose men=man mice=mouse oxen=ox
people=person teeth=tooth women=woman
atlas=atlas canvas=canvas gas=gas lens=lens means=means news=news series=series species=species
"""
IRREGULAR_PLURALS: Final[Mapping[str, str]] = {
    plural: singular for plural, _, singular in (p.partition("=") for p in _IRREGULAR_PAIRS.split())
}


def singularize(word: str) -> str:
    """Lowercase ``word`` and singularize it by TE-38's first applicable rule."""
    word = word.lower()
    irregular = IRREGULAR_PLURALS.get(word)
    if irregular is not None:
        return irregular
    if len(word) < 2 or word.endswith(("ss", "us", "is")):
        return word  # one letter: never strip a word to nothing
    if word.endswith("ies") and len(word) >= 5:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes", "zzes")):
        return word[:-2]
    if word.endswith("s"):
        return word[:-1]
    return word


def _count_noun_key(name: str) -> str:
    head, sep, last = name.lower().rpartition("_")
    return head + sep + singularize(last)


@functools.lru_cache(maxsize=4096)
def _resolve_name(name: str) -> UnitVec:
    table = alias_table()
    target = table.get(name)
    if target is None:
        key = _count_noun_key(name)
        target = table.get(key) if len(key) >= 2 else None
        if target is None:
            return UnitVec._canonical(Fraction(1), {COUNT_PREFIX + key: Fraction(1)})
    return DIMENSIONLESS if target == IDENTITY else vector(target)


# ---- TE's unit grammar (TE-38): a hand-written parser, bounded, linear-time -------------------

_MAX_TEXT: Final = 200
_MAX_DEPTH: Final = 10
_MAX_EXPONENT: Final = 100
_MAX_FACTOR_BITS: Final = 8192  # any curated unit ** 100 fits; nested ** could otherwise explode

# One alternative per token class, each a single character class: linear-time.
_TOKEN_RE: Final = re.compile(
    r"(?P<ws>\s+)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<int>[0-9]+)|(?P<op>\*\*|[*/^()\-])|(?P<sym>[$%])"
)


class UnitSyntaxError(CotauditError, ValueError):
    """Malformed unit text; ``offset`` is 0-based into the text given to :func:`parse_unit`."""

    def __init__(self, offset: int, reason: str) -> None:
        super().__init__(f"offset {offset}: {reason}")
        self.offset = offset
        self.reason = reason


class _Token(NamedTuple):  # private records are NamedTuples: cheaper to define at import
    kind: str  # ws is dropped; name, int, op, sym, end
    text: str
    offset: int


def _tokenize(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN_RE.match(text, pos)
        if match is None:
            raise UnitSyntaxError(pos, f"unexpected character {text[pos]!r}")
        kind = match.lastgroup
        if kind is not None and kind != "ws":
            tokens.append(_Token(kind, match.group(), pos))
        pos = match.end()
    tokens.append(_Token("end", "", len(text)))
    return tokens


def _is_word(tok: _Token) -> bool:
    return tok.kind == "name" and tok.text != "per"


class _Parser:
    """unit := power (('*' | '/' | 'per') power)*;  power := atom [('**' | '^') exponent];
    atom := word+ | '1' | '$' | '%' | '(' unit ')';  exponent := ['-'] int | '(' ['-'] int ')'."""

    def __init__(self, tokens: list[_Token]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.depth = 0

    def _peek(self) -> _Token:
        return self.tokens[self.pos]

    def _take(self) -> _Token:
        tok = self.tokens[self.pos]
        if tok.kind != "end":
            self.pos += 1
        return tok

    def parse(self) -> UnitVec:
        if self._peek().kind == "end":
            raise UnitSyntaxError(0, "empty unit")
        vec = self._unit()
        tok = self._peek()
        if tok.kind != "end":
            raise UnitSyntaxError(tok.offset, f"expected an operator, found {tok.text!r}")
        return vec

    def _unit(self) -> UnitVec:
        vec = self._power()
        while True:
            tok = self._peek()
            if tok.kind == "op" and tok.text == "*":
                self._take()
                vec = _bounded(vec * self._power(), tok)
            elif (tok.kind == "op" and tok.text == "/") or (tok.kind == "name" and tok.text == "per"):
                self._take()
                vec = _bounded(vec / self._power(), tok)
            else:
                return vec

    def _power(self) -> UnitVec:
        base = self._atom()
        tok = self._peek()
        if tok.kind != "op" or tok.text not in ("**", "^"):
            return base
        self._take()
        k = self._exponent()
        bits = max(base.factor.numerator.bit_length(), base.factor.denominator.bit_length())
        if bits * abs(k) > _MAX_FACTOR_BITS:
            raise UnitSyntaxError(tok.offset, "unit factor too large")
        return _bounded(base**k, tok)

    def _atom(self) -> UnitVec:
        tok = self._take()
        if _is_word(tok):
            words = [tok.text]
            while _is_word(self._peek()):  # whitespace-separated words form one name
                words.append(self._take().text)
            return _resolve_name("_".join(words))
        if tok.kind == "sym":
            return _resolve_name(tok.text)
        if tok.kind == "int":
            if tok.text != IDENTITY:
                raise UnitSyntaxError(tok.offset, "the only number allowed in a unit is 1")
            return DIMENSIONLESS
        if tok.kind == "op" and tok.text == "(":
            self.depth += 1
            if self.depth > _MAX_DEPTH:
                raise UnitSyntaxError(tok.offset, f"parentheses nested deeper than {_MAX_DEPTH}")
            vec = self._unit()
            self._expect(")")
            self.depth -= 1
            return vec
        found = "end of unit" if tok.kind == "end" else repr(tok.text)
        raise UnitSyntaxError(tok.offset, f"expected a unit name, found {found}")

    def _exponent(self) -> int:
        paren = self._peek().text == "(" and self._peek().kind == "op"
        if paren:
            self._take()
        sign = 1
        if self._peek().kind == "op" and self._peek().text == "-":
            self._take()
            sign = -1
        tok = self._take()
        if tok.kind != "int":
            raise UnitSyntaxError(tok.offset, "expected an integer exponent")
        if len(tok.text) > 3 or int(tok.text) > _MAX_EXPONENT:
            raise UnitSyntaxError(tok.offset, f"exponent above {_MAX_EXPONENT}")
        if paren:
            self._expect(")")
        return sign * int(tok.text)

    def _expect(self, text: str) -> None:
        tok = self._take()
        if tok.kind != "op" or tok.text != text:
            found = "end of unit" if tok.kind == "end" else repr(tok.text)
            raise UnitSyntaxError(tok.offset, f"expected {text!r}, found {found}")


def _bounded(vec: UnitVec, at: _Token) -> UnitVec:
    if any(abs(e) > _MAX_EXPONENT for _, e in vec.exps):
        raise UnitSyntaxError(at.offset, f"exponent above {_MAX_EXPONENT}")
    return vec


def parse_unit(text: str) -> UnitVec:
    """Parse the text inside ``[...]`` (TE-38). Raises :class:`UnitSyntaxError` and nothing else."""
    if len(text) > _MAX_TEXT:
        raise UnitSyntaxError(_MAX_TEXT, f"unit longer than {_MAX_TEXT} characters")
    return _parse_cached(text)


@functools.lru_cache(maxsize=4096)
def _parse_cached(text: str) -> UnitVec:
    return _Parser(_tokenize(text)).parse()


# ---- display -----------------------------------------------------------------------------------

# Fixed preference order: the first unit whose vector equals the one shown names it, and
# single-dimension units are tried in this order when a vector is spelled as a product.
# fmt: off
_DISPLAY_ORDER: Final = (
    "m", "km", "cm", "mm", "mile", "ft", "inch", "yd",
    "kg", "g", "mg", "tonne", "lb", "oz",
    "s", "min", "h", "day", "week", "month", "year",
    "L", "mL", "gallon", "quart", "pint", "cup", "tablespoon", "teaspoon",
    "mph", "kph", "N", "J", "W", "Pa", "A", "V", "K", "bit", "byte",
    "USD", "cent", "EUR", "GBP", "JPY", "INR", "CNY", "degC", "degF",
)
# fmt: on
_MAX_COMBINATIONS: Final = 4096
_EXACT_BITS: Final = 50  # about 15 digits; longer numbers get 10 significant digits, marked "~"


class _Spelling(NamedTuple):
    symbol: str
    factor: Fraction
    exp: Fraction  # the unit is (its single dimension) ** exp, e.g. 3 for gallon


class _DisplayTable(NamedTuple):
    whole: Mapping[UnitVec, str]
    per_dim: Mapping[str, tuple[_Spelling, ...]]  # preferred first


@functools.cache
def _display_table() -> _DisplayTable:
    """Spellings for output."""
    whole: dict[UnitVec, str] = {}
    per_dim: dict[str, list[_Spelling]] = {}
    for symbol in _DISPLAY_ORDER:
        vec = _resolve_name(symbol)
        whole.setdefault(vec, symbol)
        if len(vec.exps) == 1 and vec.exps[0][1] > 0:
            dim, exp = vec.exps[0]
            per_dim.setdefault(dim, []).append(_Spelling(symbol, vec.factor, exp))
    return _DisplayTable(whole, {d: tuple(c) for d, c in per_dim.items()})


def _number_text(f: Fraction, *, prefix: bool) -> str:
    """Exact when short (``1609.344``, ``1/60``), else 10 significant digits (``~40.11663``)."""
    num, den = f.numerator, f.denominator
    if max(num.bit_length(), den.bit_length()) <= _EXACT_BITS:
        text = exact_text(f)
        return f"({text})" if prefix and "/" in text else text
    from decimal import MAX_EMAX, MIN_EMIN, Decimal, localcontext

    # Keep ~200 leading bits of each part: converting a huge int to Decimal is quadratic.
    num_shift, den_shift = max(0, num.bit_length() - 200), max(0, den.bit_length() - 200)
    with localcontext(prec=10, Emax=MAX_EMAX, Emin=MIN_EMIN):
        approx = Decimal(num >> num_shift) / Decimal(den >> den_shift)
        return f"~{approx * Decimal(2) ** (num_shift - den_shift)}"


def _candidates(dim: str, exp: Fraction, table: _DisplayTable | None) -> list[tuple[str, Fraction, Fraction]]:
    """(symbol, its power, factor contributed) for each way to spell ``dim ** exp``."""
    if dim.startswith(COUNT_PREFIX):
        word = dim.removeprefix(COUNT_PREFIX)
        symbol = dim if word in alias_table() else word  # keep [count:m] apart from the metre
        return [(symbol, exp, Fraction(1))]
    out = []
    for sp in table.per_dim.get(dim, ()) if table is not None else ():
        power = exp / sp.exp
        if power.denominator == 1 and abs(power) <= _MAX_EXPONENT:
            out.append((sp.symbol, power, sp.factor ** int(power)))
    return out


def _base_symbol(dim: str, table: _DisplayTable | None) -> str:
    return next((s for s, _, f in _candidates(dim, Fraction(1), table) if f == 1), f"[{dim}]")


@functools.lru_cache(maxsize=4096)
def format_unit(u: UnitVec) -> str:
    """Deterministic readable form: ``mile``, ``m/s``, ``USD/h``, ``cup/day``, ``1609.344*m``, ``1``."""
    if not u.exps:
        return _number_text(u.factor, prefix=False)
    named = any(not d.startswith(COUNT_PREFIX) for d, _ in u.exps)
    table = _display_table() if named else None  # count-only units need no curated name
    if table is not None and u in table.whole:
        return table.whole[u]
    options = [_candidates(d, e, table) for d, e in u.exps]
    combinations = 1
    for opts in options:
        combinations *= len(opts)
    small = all(abs(e) <= _MAX_EXPONENT for _, e in u.exps)  # keeps the factor powers cheap
    if small and 0 < combinations <= _MAX_COMBINATIONS:
        for choice in itertools.product(*options):
            product = Fraction(1)
            for _, _, f in choice:
                product *= f
            if product == u.factor:
                return quotient_text([(s, p) for s, p, _ in choice], None)
    # Base symbols with an explicit factor, e.g. 1609.344*m or (1/60)*USD.
    parts = [(_base_symbol(dim, table), exp) for dim, exp in u.exps]
    return quotient_text(parts, None if u.factor == 1 else _number_text(u.factor, prefix=True))
