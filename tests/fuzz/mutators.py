"""Mutators: hostile variants of a seed text, every choice drawn from one ``random.Random``.

A mutator is ``fn(rng, text, ctx) -> text``. Nothing here reads global random state, the
clock or the hash seed, so ``(seed, target, index)`` always gives the same input (see
:func:`tests.fuzz.inputs.make_input`). Two families:

- text mutators (every target): byte flips, line insert/delete/duplicate, splices of lines
  from other formats, huge numbers, deep nesting, confusables, control characters (NUL,
  U+2028/U+2029, BOMs), lone surrogates, CR/CRLF, random Unicode, and the two size stressors
  (100k-line inputs, 1 MiB lines);
- structure-aware JSON mutators (vericot, ``.cert.json``, certificates): parse, change one
  value inside (type swapped, number replaced by a huge/negative/float/bool one, string by a
  hostile one, key dropped/duplicated/renamed, element repeated, value nested 100k deep) and
  serialise again, so the input gets past the JSON parser and reaches the engine.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

MAX_INPUT_CHARS = 4 * 1024 * 1024  # a mutated input never grows past this (the guard's memory stays sane)
BIG_LINES = 100_000
MIB = 1024 * 1024


@dataclass(frozen=True)
class Context:
    """What a mutator may draw on besides the text: same-format seeds and other formats' lines."""

    same_format: Sequence[str] = ()
    foreign_lines: Sequence[str] = ()


Mutator = Callable[[random.Random, str, Context], str]


# --------------------------------------------------------------------------- hostile atoms

HUGE_NUMBERS = (
    "10**10**10",
    "10**10**10.10",
    "9**9**9**9",
    "2**-1074",
    "(-8)**(1/3)",
    "7" * 5000,
    "-" + "9" * 5000,
    "0." + "3" * 5000,
    "1e400",
    "-1e400",
    "1e-400",
    "1" + "0" * 400 + "e-400",
    "1/0",
    "0**-1",
    "0/0",
    "nan",
    "inf",
    "-0.0",
    "1_000_000",
    "0x7fffffffffffffff",
    "18446744073709551617",
    "factorial(10**9)",
    "99999999999999999999999999999999999999999999999999!",
    "１２３",  # fullwidth digits
    "٣٤٥",  # Arabic-Indic digits (str.isdigit() is True)
    "\u22121",  # U+2212 MINUS SIGN
)

HOSTILE_STRINGS = (
    "",
    " ",
    "\x00",
    "\u2028",
    "\u2029",
    "\ufeff",
    "\ud800",
    "\udfff",
    "\udc00\ud800",
    "\x07\x1b[2J\x7f",
    "\u202e",
    "\u200b",
    "\r",
    "\r\n",
    '"',
    "\\",
    "%",
    "%%",
    "@",
    "</script><script>alert(1)</script>",
    "__import__('os').system('true')",
    "${jndi:x}",
    "(" * 50 + ")" * 49,
    "a" * 5000,
    "é" * 3000,
    "𝟘𝟙𝟚",
    "Ω≈ç√∫",
    "null",
    "NaN",
    "-Infinity",
)

CONFUSABLES: dict[str, tuple[str, ...]] = {
    "a": ("а", "ɑ", "α"),
    "c": ("с", "ϲ"),
    "e": ("е", "ε"),
    "i": ("і", "ι"),
    "o": ("о", "ο", "0"),
    "p": ("р", "ρ"),
    "x": ("х", "χ"),
    "y": ("у",),
    "s": ("ѕ",),
    "A": ("А", "Α"),
    "B": ("В", "Β"),
    "E": ("Е", "Ε"),
    "H": ("Н", "Η"),
    "K": ("К", "Κ"),
    "M": ("М", "Μ"),
    "O": ("О", "Ο"),
    "P": ("Р", "Ρ"),
    "T": ("Т", "Τ"),
    "X": ("Х", "Χ"),
    "-": ("\u2212", "\u2010", "\u2013"),
    "*": ("\u00d7", "\u2217"),
    "/": ("\u2215", "\u00f7"),
    "=": ("\uff1d", "\u2261"),
    ":": ("\ua789", "\uff1a"),
    "(": ("\uff08",),
    ")": ("\uff09",),
    ".": ("\u2024", "\uff0e"),
    " ": ("\u00a0", "\u2003", "\u3000"),
    **{d: (chr(0xFF10 + int(d)), chr(0x0660 + int(d))) for d in "0123456789"},
}

CONTROL = ("\x00", "\x01", "\x07", "\x08", "\x0b", "\x0c", "\x1b", "\x7f", "\x85", "\u2028", "\u2029", "\t")
BOMS = ("\ufeff", "\ufffe", "\ufeff\ufeff")
SURROGATES = ("\ud800", "\udbff", "\udc00", "\udfff", "\udc80", "\udcff")
BRACKETS = (("(", ")"), ("[", "]"), ("{", "}"), ('{"a":', "}"), ("[[", "]]"))

_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


# --------------------------------------------------------------------------- helpers


def _cap(text: str) -> str:
    return text if len(text) <= MAX_INPUT_CHARS else text[:MAX_INPUT_CHARS]


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _pos(rng: random.Random, text: str) -> int:
    return rng.randint(0, len(text))


def _insert(rng: random.Random, text: str, piece: str) -> str:
    at = _pos(rng, text)
    return text[:at] + piece + text[at:]


def _some_match(rng: random.Random, text: str, pattern: re.Pattern[str]) -> re.Match[str] | None:
    """A random match of ``pattern`` (on a big text: the first one after a random place)."""
    if len(text) > 100_000:  # listing every match of a 4 MiB text costs seconds
        return pattern.search(text, rng.randrange(len(text))) or pattern.search(text)
    matches = list(pattern.finditer(text))
    return rng.choice(matches) if matches else None


def _replace_match(rng: random.Random, text: str, pattern: re.Pattern[str], new: str) -> str | None:
    """``text`` with one random match of ``pattern`` replaced by ``new`` (``None`` if no match)."""
    m = _some_match(rng, text, pattern)
    if m is None:
        return None
    return text[: m.start()] + new + text[m.end() :]


def random_char(rng: random.Random) -> str:
    """Any code point, surrogates and noncharacters included, weighted towards the odd planes."""
    kind = rng.randrange(6)
    if kind == 0:
        return chr(rng.randrange(0x20, 0x7F))
    if kind == 1:
        return chr(rng.randrange(0, 0x20))
    if kind == 2:
        return chr(rng.randrange(0xD800, 0xE000))  # lone surrogate
    if kind == 3:
        return chr(rng.choice((0xFFFE, 0xFFFF, 0x1FFFE, 0x10FFFF, 0xFDD0, 0x0300, 0x0301, 0x034F)))
    if kind == 4:
        return chr(rng.randrange(0x80, 0x3000))
    return chr(rng.randrange(0x10000, 0x110000))


def hostile_atom(rng: random.Random) -> str:
    """One short hostile piece: a huge number, a hostile string, a control char or a surrogate."""
    pool = rng.randrange(4)
    if pool == 0:
        return rng.choice(HUGE_NUMBERS)
    if pool == 1:
        return rng.choice(HOSTILE_STRINGS)
    if pool == 2:
        return rng.choice(CONTROL)
    return rng.choice(SURROGATES)


# --------------------------------------------------------------------------- text mutators


def byte_flip(rng: random.Random, text: str, ctx: Context) -> str:
    """Flip 1-8 bits of the UTF-8 bytes; invalid bytes come back as lone surrogates (surrogateescape)
    or U+FFFD, as an API or service caller could pass them."""
    data = bytearray(text.encode("utf-8", "surrogatepass"))
    if not data:
        return chr(rng.randrange(256))
    for _ in range(rng.randint(1, 8)):
        i = rng.randrange(len(data))
        data[i] ^= 1 << rng.randrange(8)
    return data.decode("utf-8", rng.choice(("surrogateescape", "replace")))


def byte_insert(rng: random.Random, text: str, ctx: Context) -> str:
    """Insert a few random bytes (decoded with surrogateescape: stray bytes become surrogates)."""
    data = bytearray(text.encode("utf-8", "surrogatepass"))
    at = rng.randint(0, len(data))
    data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 6)))
    return data.decode("utf-8", "surrogateescape")


def truncate(rng: random.Random, text: str, ctx: Context) -> str:
    return text[: _pos(rng, text)]


def delete_lines(rng: random.Random, text: str, ctx: Context) -> str:
    lines = _lines(text)
    a = rng.randrange(len(lines))
    b = min(len(lines), a + rng.randint(1, 3))
    return "\n".join(lines[:a] + lines[b:])


def duplicate_lines(rng: random.Random, text: str, ctx: Context) -> str:
    lines = _lines(text)
    a = rng.randrange(len(lines))
    b = min(len(lines), a + rng.randint(1, 3))
    times = rng.choice((1, 1, 2, 10))
    block = sum(len(line) + 1 for line in lines[a:b])
    times = max(0, min(times, (MAX_INPUT_CHARS - len(text)) // block))
    return "\n".join(lines[:b] + lines[a:b] * times + lines[b:])


def swap_lines(rng: random.Random, text: str, ctx: Context) -> str:
    lines = _lines(text)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def insert_line(rng: random.Random, text: str, ctx: Context) -> str:
    """A new line made of a seed line with a hostile atom in it, or a hostile atom alone."""
    lines = _lines(text)
    base = rng.choice(lines)
    new = _insert(rng, base, hostile_atom(rng)) if rng.random() < 0.7 else hostile_atom(rng)
    lines.insert(rng.randint(0, len(lines)), new)
    return "\n".join(lines)


def splice_foreign(rng: random.Random, text: str, ctx: Context) -> str:
    """1-5 consecutive lines of another format (te lines into a .kb, JSON into a .t6 …)."""
    if not ctx.foreign_lines:
        return text
    start = rng.randrange(len(ctx.foreign_lines))
    block = list(ctx.foreign_lines[start : start + rng.randint(1, 5)])
    lines = _lines(text)
    at = rng.randint(0, len(lines))
    return "\n".join(lines[:at] + block + lines[at:])


def crossover(rng: random.Random, text: str, ctx: Context) -> str:
    """The head of this seed joined to the tail of another seed of the same format."""
    if not ctx.same_format:
        return text
    other = _lines(rng.choice(ctx.same_format))
    lines = _lines(text)
    return "\n".join(lines[: rng.randint(0, len(lines))] + other[rng.randint(0, len(other)) :])


def huge_number(rng: random.Random, text: str, ctx: Context) -> str:
    """Replace a number of the text (or insert one) with ``10**10**10``, 5,000 digits, ``1e400`` …"""
    big = rng.choice(HUGE_NUMBERS)
    replaced = _replace_match(rng, text, _NUMBER, big) if rng.random() < 0.8 else None
    return replaced if replaced is not None else _insert(rng, text, big)


def deep_nesting(rng: random.Random, text: str, ctx: Context) -> str:
    """Brackets 100 … 100,000 deep (balanced or not) around a number or a word of the text."""
    depth = rng.choice((100, 1000, 10_000, 100_000))
    opening, closing = rng.choice(BRACKETS)
    balanced = rng.random() < 0.7
    core = rng.choice(("1", "x", "a(b)", "true", '"s"'))
    piece = opening * depth + core + (closing * depth if balanced else closing * rng.randrange(depth))
    replaced = _replace_match(rng, text, _NUMBER, piece) if rng.random() < 0.5 else None
    return replaced if replaced is not None else _insert(rng, text, piece)


def confusables(rng: random.Random, text: str, ctx: Context) -> str:
    """Swap 1-20 characters for lookalikes: Cyrillic/Greek letters, fullwidth digits, U+2212."""
    if len(text) > 100_000:  # a big text: probe random places instead of listing every one
        # distinct places, sorted (a place probed twice must not be swapped twice: its second
        # look would find the lookalike, which has no entry of its own)
        spots = sorted({i for i in (rng.randrange(len(text)) for _ in range(500)) if text[i] in CONFUSABLES})
    else:
        spots = [i for i, ch in enumerate(text) if ch in CONFUSABLES]
    if not spots:
        return text
    chars = list(text)
    every = rng.random() < 0.2  # sometimes every occurrence of one character
    if every:
        target = text[rng.choice(spots)]
        new = rng.choice(CONFUSABLES[target])
        return text.replace(target, new)
    for i in rng.sample(spots, min(len(spots), rng.randint(1, 20))):
        chars[i] = rng.choice(CONFUSABLES[chars[i]])
    return "".join(chars)


def control_chars(rng: random.Random, text: str, ctx: Context) -> str:
    """NUL, U+2028/U+2029, ESC, DEL, NEL … inserted at 1-5 places."""
    for _ in range(rng.randint(1, 5)):
        text = _insert(rng, text, rng.choice(CONTROL))
    return text


def lone_surrogates(rng: random.Random, text: str, ctx: Context) -> str:
    for _ in range(rng.randint(1, 3)):
        text = _insert(rng, text, rng.choice(SURROGATES))
    return text


def bom(rng: random.Random, text: str, ctx: Context) -> str:
    mark = rng.choice(BOMS)
    return mark + text if rng.random() < 0.7 else _insert(rng, text, mark)


def line_endings(rng: random.Random, text: str, ctx: Context) -> str:
    """CRLF or bare CR everywhere, or mixed line by line, or the final newline removed/doubled."""
    mode = rng.randrange(4)
    if mode == 0:
        return text.replace("\n", "\r\n")
    if mode == 1:
        return text.replace("\n", "\r")
    if mode == 2:
        return "".join(ln + rng.choice(("\n", "\r\n", "\r", "\u2028", "\x85")) for ln in _lines(text))
    return text.rstrip("\n") if text.endswith("\n") else text + "\n\n"


def random_unicode(rng: random.Random, text: str, ctx: Context) -> str:
    for _ in range(rng.randint(1, 10)):
        text = _insert(rng, text, random_char(rng))
    return text


def hostile_word(rng: random.Random, text: str, ctx: Context) -> str:
    """Replace an identifier of the text with a hostile string (empty, quotes, markup, a surrogate …)."""
    replaced = _replace_match(rng, text, _WORD, rng.choice(HOSTILE_STRINGS))
    return replaced if replaced is not None else text


def many_lines(rng: random.Random, text: str, ctx: Context) -> str:
    """A 100k-line input: one seed line (or a blank or a comment) repeated, or the seed itself
    repeated (fewer lines when they are long: the result stays under :data:`MAX_INPUT_CHARS`)."""
    lines = _lines(text)
    mode = rng.randrange(3)
    if mode == 0:
        line = rng.choice(lines)
        at = rng.randint(0, len(lines))
        body = [line] * min(BIG_LINES, MAX_INPUT_CHARS // (len(line) + 1))
        return _cap("\n".join(lines[:at] + body + lines[at:]))
    if mode == 1:
        times = min(BIG_LINES // len(lines), MAX_INPUT_CHARS // (len(text) + 1))
        return _cap((text + "\n") * max(1, times))
    filler = rng.choice(("", " ", "%", "#", "\t", "x"))
    return _cap(text + "\n" + "\n".join([filler] * BIG_LINES))


def long_line(rng: random.Random, text: str, ctx: Context) -> str:
    """One line of 1 MiB: a token of the text, a digit run, spaces or one character repeated."""
    lines = _lines(text)
    word = _some_match(rng, text, _WORD)
    unit = rng.choice(
        ((word.group() if word else "x") + " ", "9", " ", "(", "a", rng.choice(lines) + " ", "é")
    )
    piece = (unit * (MIB // max(1, len(unit)) + 1))[:MIB]
    i = rng.randrange(len(lines))
    mode = rng.randrange(3)
    if mode == 0:
        lines[i] = lines[i] + piece
    elif mode == 1:
        lines.insert(i, piece)
    else:
        cut = rng.randint(0, len(lines[i]))
        lines[i] = lines[i][:cut] + piece + lines[i][cut:]
    return _cap("\n".join(lines))


def empty(rng: random.Random, text: str, ctx: Context) -> str:
    return rng.choice(("", " ", "\n", "\n" * 1000, "\x00", "\ufeff", "\ud800"))


# (mutator, weight, big): ``big`` ones make multi-MiB inputs and are applied at most once.
TEXT_MUTATORS: tuple[tuple[Mutator, int, bool], ...] = (
    (byte_flip, 8, False),
    (byte_insert, 3, False),
    (truncate, 3, False),
    (delete_lines, 5, False),
    (duplicate_lines, 5, False),
    (swap_lines, 3, False),
    (insert_line, 6, False),
    (splice_foreign, 6, False),
    (crossover, 3, False),
    (huge_number, 8, False),
    (deep_nesting, 4, False),
    (confusables, 6, False),
    (control_chars, 6, False),
    (lone_surrogates, 5, False),
    (bom, 3, False),
    (line_endings, 4, False),
    (random_unicode, 5, False),
    (hostile_word, 5, False),
    (empty, 1, False),
    (many_lines, 1, True),
    (long_line, 1, True),
)


# --------------------------------------------------------------------------- JSON mutators


class Raw:
    """JSON text spliced in as is (deep nesting, huge literals, ``NaN``)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


@dataclass
class DupKeys:
    """An object written with some keys twice (``json.dumps`` cannot write duplicates)."""

    items: list[tuple[str, Any]] = field(default_factory=list)


def dump(value: Any, *, ascii_only: bool) -> str:
    """Serialise a tree that may hold :class:`Raw` and :class:`DupKeys` nodes."""
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, DupKeys):
        inner = ",".join(
            f"{json.dumps(k, ensure_ascii=ascii_only)}:{dump(v, ascii_only=ascii_only)}"
            for k, v in value.items
        )
        return "{" + inner + "}"
    if isinstance(value, dict):
        inner = ",".join(
            f"{json.dumps(k, ensure_ascii=ascii_only)}:{dump(v, ascii_only=ascii_only)}"
            for k, v in value.items()
        )
        return "{" + inner + "}"
    if isinstance(value, list):
        return "[" + ",".join(dump(v, ascii_only=ascii_only) for v in value) + "]"
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)  # json.dumps would refuse ints past sys.get_int_max_str_digits
    return json.dumps(value, ensure_ascii=ascii_only)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every node's path (keys and indexes), root first, depth-first in document order."""
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*prefix, i))
    return out


def _get(root: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        root = root[step]
    return root


def _set(root: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    _get(root, path[:-1])[path[-1]] = new
    return root


def replacement_value(rng: random.Random, old: Any, size: int) -> tuple[Any, bool]:
    """A value to put where ``old`` was (another type, an edge number, a hostile string, deep
    nesting, a repetition) and whether it may make the document much larger.

    ``size`` (the document's length, an upper bound on ``old``'s) keeps a repetition under
    :data:`MAX_INPUT_CHARS`."""
    value = _replacement(rng, old, size)
    grows = isinstance(value, Raw) or (isinstance(value, list | str) and len(value) > 2 * len(str(old)) + 100)
    return value, grows


def _replacement(rng: random.Random, old: Any, size: int) -> Any:
    most = max(2, MAX_INPUT_CHARS // max(1, size))
    kind = rng.randrange(10)
    if kind == 0:
        return rng.choice((None, True, False, 0, -1, 1.5, "", [], {}))
    if kind == 1 or (kind == 2 and isinstance(old, int | float)):
        return rng.choice(
            (
                Raw("7" * 5000),
                Raw("-" + "9" * 5000),
                Raw("1e400"),
                Raw("-1e400"),
                Raw("NaN"),
                Raw("Infinity"),
                -(2**63),
                2**64 + 1,
                -1,
                0,
                0.5,
                -0.0,
                1e308,
                True,
                False,
            )
        )
    if kind == 3:
        depth = rng.choice((100, 1000, 10_000, 100_000))
        return Raw("[" * depth + "]" * depth if rng.random() < 0.5 else '{"a":' * depth + "1" + "}" * depth)
    if kind == 4:
        return rng.choice(HOSTILE_STRINGS)
    if kind == 5 and isinstance(old, str):
        # a text mutator applied inside the string: hostile SMT, facts, quotes …
        mutator = rng.choice([m for m, _, big in TEXT_MUTATORS if not big])
        return mutator(rng, old, Context())
    if kind == 6:
        return [old] if rng.random() < 0.5 else {"value": old}
    if kind == 7 and isinstance(old, list) and old:
        return old * min(most, rng.choice((2, 100, 10_000)))
    if kind == 8 and isinstance(old, str):
        return old * min(most, rng.choice((2, 1000)))
    return rng.choice((str(old)[:100], None, 10**5, -(10**5), "x" * 100))


def json_mutate(rng: random.Random, text: str, ctx: Context) -> str:
    """Change 1-3 values inside the parsed JSON and serialise it again (see the module docstring).

    Falls back to a byte flip when ``text`` is not JSON (any more). :class:`Raw` and
    :class:`DupKeys` nodes put in by an earlier step are leaves to the later ones."""
    try:
        root = json.loads(text)
    except (ValueError, RecursionError):
        return byte_flip(rng, text, ctx)
    for _ in range(rng.randint(1, 3)):
        paths = _paths(root)
        path = rng.choice(paths)
        node = _get(root, path)
        action = rng.randrange(6)
        parent = _get(root, path[:-1]) if path else None
        grows = False
        if action == 0 and isinstance(parent, dict):
            del parent[path[-1]]  # drop the key
        elif action == 1 and isinstance(parent, dict):
            new, grows = replacement_value(rng, node, len(text))
            root = _set(root, path[:-1], DupKeys([*parent.items(), (path[-1], new)]))  # the key twice
        elif action == 2 and isinstance(parent, dict):
            parent[rng.choice(HOSTILE_STRINGS) + str(path[-1])] = parent.pop(path[-1])  # rename
        elif action == 3 and isinstance(parent, list):
            new, grows = (node, False) if rng.random() < 0.5 else replacement_value(rng, node, len(text))
            parent.insert(path[-1], new)
        else:
            new, grows = replacement_value(rng, node, len(text))
            root = _set(root, path, new)
        if grows:
            break  # one size change per input: a second could multiply the first
    return _cap(dump(root, ascii_only=rng.random() < 0.5))


def mutate(
    rng: random.Random,
    text: str,
    ctx: Context,
    *,
    json_aware: bool,
) -> tuple[str, list[str]]:
    """Apply 1-4 mutators to ``text``; returns the result and the mutators' names, in order.

    For JSON formats, structure-aware mutation is chosen about half the time. At most one
    ``big`` mutator runs per input, and never before a structure-aware one (which would have
    to reparse megabytes)."""
    names: list[str] = []
    count = 1 + min(3, int(rng.expovariate(1.0)))
    big_done = False
    for _ in range(count):
        if json_aware and not big_done and rng.random() < 0.5:
            fn: Mutator = json_mutate
        else:
            table = [(m, w) for m, w, big in TEXT_MUTATORS if not (big and big_done)]
            fn = rng.choices([m for m, _ in table], weights=[w for _, w in table])[0]
            big_done = big_done or any(m is fn and big for m, _, big in TEXT_MUTATORS)
        text = _cap(fn(rng, text, ctx))
        names.append(fn.__name__)
    return text, names
