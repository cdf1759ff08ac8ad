"""A plain-arithmetic view of a step: LaTeX and Unicode notation rewritten, offsets kept.

``math_view(text)`` returns the rewritten text and, for every character of it, the offset in
``text`` it came from, so a claim found in the view points at the step's own column.

What is rewritten (nothing else is interpreted; an unknown command stays a ``\\name``
identifier, which stops any expression it touches):

- ``\\frac{a}{b}`` (``\\dfrac``, ``\\tfrac``) → ``((a)/(b))``; ``\\binom{n}{k}`` →
  ``binomial((n),(k))``; ``\\sqrt{x}`` → ``sqrt(x)``; ``x^{e}`` → ``x**(e)``, ``x^e`` → ``x**e``;
- ``\\cdot`` ``\\times`` ``\\ast`` ``×`` ``·`` ``⋅`` ``∗`` → ``*``; ``\\div`` ``÷`` → ``/``;
  ``−`` ``–`` → ``-``; ``\\approx`` → ``≈``; ``\\%`` → ``%``; ``\\$`` → ``$``;
- ``\\text{…}`` and friends keep their words (they are unit words to the claim reader) and
  lose the command; ``\\boxed{…}`` and bare braces are transparent (``18{,}000`` → ``18,000``);
- ``\\left`` / ``\\right`` / ``\\big…`` sizing disappears; ``\\,`` ``\\;`` ``\\ `` and
  ``\\quad`` become a thin space (``18\\,000`` is one numeral); ``\\(`` ``\\)`` ``\\[`` ``\\]``
  become a line break (no claim runs across two formulas);
- inside ``\\( … \\)`` and ``\\[ … \\]`` a letter is a variable (``ξ``), never a unit word, so
  ``\\(2n + 1 = 7\\)`` and ``\\(cs = 3\\)`` are not read; ``\\text{…}`` words stay words;
- ``4\\frac{5}{8}`` (a mixed number, or a product) is not rewritten.

Brace nesting deeper than :data:`MAX_BRACE_DEPTH` stops the rewrite of that step (the rest
is blanked), so hostile nesting costs linear time and yields no claims.
"""

from __future__ import annotations

import re

MAX_BRACE_DEPTH = 64
THIN = "\u2009"

_SCAN = re.compile(
    r"(?P<cmd>\\[A-Za-z]+)|(?P<esc>\\[^A-Za-z])|(?P<open>\{)|(?P<close>\})|(?P<caret>\^)"
    r"|(?P<run>[^\\{}^]+)",
    re.DOTALL,
)
_UNICODE = str.maketrans(
    {
        "\u00d7": "*",
        "\u00b7": "*",
        "\u22c5": "*",
        "\u2217": "*",
        "\u2715": "*",
        "\u00f7": "/",
        "\u2212": "-",
        "\u2013": "-",
        "\u2014": " ",
        "\u2009": THIN,
        "\u202f": THIN,
        "\u00a0": THIN,
        "\u2248": "\u2248",
        "\uff1d": "=",
    }
)
# Commands that print an operator or a symbol the claim reader knows.
_SYMBOL = {
    "cdot": " * ",
    "times": " * ",
    "ast": " * ",
    "div": " / ",
    "approx": " \u2248 ",
    "simeq": " \u2248 ",
    "neq": " \u2260 ",
    "ne": " \u2260 ",
    "le": " \u2264 ",
    "leq": " \u2264 ",
    "ge": " \u2265 ",
    "geq": " \u2265 ",
    "lt": " < ",
    "gt": " > ",
    "pm": " \u00b1 ",
    "mp": " \u00b1 ",
    "equiv": " \u2261 ",
    "dots": " \u2026 ",
    "ldots": " \u2026 ",
    "cdots": " \u2026 ",
    "quad": THIN,
    "qquad": THIN,
    "enspace": THIN,
    "thinspace": THIN,
    "colon": ":",
    "implies": " \u21d2 ",
    "Rightarrow": " \u21d2 ",
    "rightarrow": " \u2192 ",
    "to": " \u2192 ",
}
_SIZING = frozenset(
    {"left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "displaystyle", "limits"}
)
_TEXTLIKE = frozenset(
    {
        "text",
        "textrm",
        "textbf",
        "textit",
        "mathrm",
        "mathbf",
        "mathit",
        "mbox",
        "textnormal",
        "textsf",
        "mathsf",
    }
)
_TRANSPARENT = frozenset({"boxed", "fbox", "underline", "overbrace", "underbrace", "color"})
_ESCAPES = {
    "\\%": "%",
    "\\$": "$",
    "\\,": THIN,
    "\\;": THIN,
    "\\:": THIN,
    "\\!": "",
    "\\ ": THIN,
    "\\(": "\n",
    "\\)": "\n",
    "\\[": "\n",
    "\\]": "\n",
    "\\{": "{",
    "\\}": "}",
    "\\\\": "\n",
}


class _View:
    __slots__ = ("out", "where")

    def __init__(self) -> None:
        self.out: list[str] = []
        self.where: list[int] = []

    def emit(self, text: str, pos: int) -> None:
        if text:
            self.out.append(text)
            self.where.extend([pos] * len(text))

    def ends_with_digit(self) -> bool:
        return bool(self.out) and self.out[-1][-1:].isdigit()

    def emit_run(self, text: str, pos: int) -> None:
        """Source text copied one character for one: each keeps its own offset."""
        self.out.append(text)
        self.where.extend(range(pos, pos + len(text)))


def math_view(text: str, blank_boxes: bool = False) -> tuple[str, list[int]]:
    """The rewritten text and, per character, its offset in ``text`` (see the module doc).

    ``blank_boxes``: ``\\boxed{…}`` is a blank to fill in (the problem uses a box so), not a
    highlighted answer: its content becomes a variable's argument, so no claim runs through it.
    """
    if "\\" not in text and "{" not in text and "^" not in text and text.isascii():
        return text, list(range(len(text)))
    view = _View()
    stack: list[str] = []  # the closer to emit for each open brace
    # (opener, closer) for a command's next brace groups, by the brace depth they open at
    pending: dict[int, list[tuple[str, str]]] = {}
    suppress_words = 0  # inside \text{...}: keep the words, drop operators and digits
    math_mode = False  # inside \( \) or \[ \]: letters are variables, not unit words
    for m in _SCAN.finditer(text):
        kind = m.lastgroup
        tok, pos = m.group(), m.start()
        if kind == "run":
            if pending.get(len(stack)) and not tok.isspace():
                pending[len(stack)] = []  # \frac12 and the like: the digits stand as written
            if suppress_words:
                view.emit_run(_words_only(tok), pos)
            elif math_mode:
                view.emit_run(_LETTERS.sub(_as_variables, tok.translate(_UNICODE)), pos)
            else:
                view.emit_run(tok.translate(_UNICODE), pos)
        elif kind == "open":
            if len(stack) >= MAX_BRACE_DEPTH:
                view.emit(" " * (len(text) - pos), pos)
                break
            opener, closer = ("", "")
            waiting = pending.get(len(stack))
            if waiting:
                opener, closer = waiting.pop(0)
            if opener == "\x00text":
                suppress_words += 1
                opener, closer = " ", " \x00"
            view.emit(opener, pos)
            stack.append(closer)
        elif kind == "close":
            closer = stack.pop() if stack else ""
            if closer.endswith("\x00"):
                suppress_words = max(0, suppress_words - 1)
                closer = closer[:-1]
            view.emit(closer, pos)
        elif kind == "caret":
            view.emit("**", pos)
            if _next_is_brace(text, m.end()):
                pending[len(stack)] = [("(", ")"), *pending.get(len(stack), [])]
        elif kind == "esc":
            if tok in ("\\(", "\\["):
                math_mode = True
            elif tok in ("\\)", "\\]"):
                math_mode = False
            view.emit(_ESCAPES.get(tok, " "), pos)
        else:  # a command
            name = tok[1:]
            groups = [(f"{VARIABLE}(", ")")] if blank_boxes and name in ("boxed", "fbox") else _groups(name)
            if groups is not None and name.endswith("frac") and view.ends_with_digit():
                view.emit(tok, pos)  # 4\frac{5}{8} is a mixed number or a product: not read
            elif groups is not None and _next_is_brace(text, m.end()):
                pending[len(stack)] = groups
            elif groups is not None:
                view.emit(tok, pos)  # \frac12 and the like are not rewritten: they stop a claim
            elif name in _SIZING:
                pass
            elif name in _SYMBOL:
                view.emit(_SYMBOL[name], pos)
            else:
                view.emit(tok, pos)
    return "".join(view.out), view.where


def _next_is_brace(text: str, at: int) -> bool:
    while at < len(text) and text[at] == " ":
        at += 1
    return at < len(text) and text[at] == "{"


def _groups(name: str) -> list[tuple[str, str]] | None:
    """The (opener, closer) pairs a command gives its brace groups, or ``None``."""
    if name in ("frac", "dfrac", "tfrac", "cfrac"):
        return [("((", ")"), ("/(", "))")]
    if name == "binom":
        return [("binomial((", ")"), (",(", "))")]
    if name == "sqrt":
        return [("sqrt(", ")")]
    if name in _TEXTLIKE:
        return [("\x00text", "")]
    if name in _TRANSPARENT:
        return [("", "")]
    return None


_NOT_WORD = re.compile(r"[^A-Za-z/ ]")
_LETTERS = re.compile(r"[A-Za-z]")
VARIABLE = "\u03be"  # what a letter in math mode becomes: an identifier that stops a claim


def _as_variables(m: re.Match[str]) -> str:
    return VARIABLE


def _words_only(run: str) -> str:
    """Text inside ``\\text{}``: letters, ``/`` and spaces survive (unit words); the rest is blank."""
    return _NOT_WORD.sub(" ", run)
