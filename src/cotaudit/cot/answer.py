"""The final answer of a chain: extracted, then compared with a gold answer when one is given.

Extraction, first that applies: the record's own ``answer`` field; the last ``\\boxed{…}``
(braces matched); the text after the last ``####``; after the last "the answer is" / "final
answer:"; else the last line of the last step.

Comparison by the gold answer's form:

- ``choice`` — gold is an option letter ``(C)``: the answer's option letters must name it;
- ``number`` — gold is a number (``1,260``, ``$18``, ``-2116``, ``3/4``, ``25%``): every number
  in the extracted answer is valued exactly; a match is any of them equal to gold, a
  contradiction is none of them equal (so extra numbers never cause a false "wrong");
- ``math`` — gold has LaTeX or symbols: math-verify (:mod:`cotaudit.cot.mathverify`);
- ``string`` — anything else: equal after collapsing whitespace and case.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from cotaudit.cot import mathverify
from cotaudit.cot.mathview import math_view

_ANSWER_IS = re.compile(
    r"(?:the\s{1,4}(?:final\s{1,4})?answer\s{1,4}(?:to\s[^\n]{0,80}?)?is|final\s{1,4}answer\s{0,4}:)", re.I
)
_HASHES = re.compile(r"####")
_CHOICE = re.compile(r"^\(?([A-Z])\)?\.?$")
_CHOICE_IN = re.compile(r"\(([A-Z])\)")
_NUMBER = re.compile(r"-?(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?(?:/[0-9]+)?")
# A plain number as gold, matched on the stripped text: at most one space between its parts, so
# no two quantifiers can share the same blanks (this pattern once took minutes on long blanks).
_PLAIN_GOLD = re.compile(r"\$? ?(-?(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?(?:/[0-9]+)?) ?(%?)\.?")
MAX_NUMBER_CHARS = 200


@dataclass(frozen=True, slots=True)
class AnswerCheck:
    """The extracted answer and how it compares with gold (``match`` None: not compared)."""

    extracted: str | None
    source: str | None  # field, boxed, hashes, answer-is, last-line
    gold: str | None
    kind: str | None  # choice, number, math, string
    match: bool | None
    reason: str = ""

    def to_dict(self) -> dict[str, object]:
        return {
            "extracted": self.extracted,
            "source": self.source,
            "gold": self.gold,
            "kind": self.kind,
            "match": self.match,
            "reason": self.reason,
        }


def last_boxed(text: str) -> str | None:
    """The content of the last ``\\boxed{…}`` / ``\\fbox{…}``, braces matched (``None`` if unclosed)."""
    at = max(text.rfind("\\boxed"), text.rfind("\\fbox"))
    if at < 0:
        return None
    brace = text.find("{", at)
    if brace < 0 or text[at:brace].removeprefix("\\boxed").removeprefix("\\fbox").strip():
        return None
    depth = 0
    for j in range(brace, min(len(text), brace + 10_000)):
        ch = text[j]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[brace + 1 : j].strip()
    return None


def extract(steps: list[str], field: str | None = None) -> tuple[str | None, str | None]:
    """The final answer of a chain and where it came from (see the module doc)."""
    if field is not None and field.strip():
        return field.strip(), "field"
    if not steps:
        return None, None
    tail = "\n".join(steps[-3:])[-20_000:]
    boxed = last_boxed(tail)
    if boxed is not None:
        return boxed, "boxed"
    hashes = list(_HASHES.finditer(tail))
    if hashes:
        rest = tail[hashes[-1].end() :].strip().split("\n")[0].strip()
        if rest:
            return rest, "hashes"
    said = list(_ANSWER_IS.finditer(tail))
    if said:
        rest = tail[said[-1].end() :].strip().split("\n")[0].strip()
        if rest:
            return rest.rstrip("."), "answer-is"
    last = steps[-1].strip().split("\n")[-1].strip()
    return (last, "last-line") if last else (None, None)


def gold_kind(gold: str) -> str:
    g = gold.strip()
    if _CHOICE.fullmatch(g):
        return "choice"
    if _PLAIN_GOLD.fullmatch(g):
        return "number"
    if "\\" in g or "^" in g or "$" in g or (re.search(r"[0-9]", g) and re.search(r"[a-z]", g) is None):
        return "math"
    return "string"


def _exact(numeral: str, percent: bool = False) -> Fraction | None:
    text = numeral.replace(",", "")
    if len(text) > MAX_NUMBER_CHARS:
        return None
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None
    return value / 100 if percent else value


def _numbers(answer: str) -> list[Fraction]:
    view, _ = math_view(answer[:2000])
    view = view.replace("((", "(").replace("))", ")")
    out = []
    for m in re.finditer(r"\(\s*(-?[0-9]+)\s*\)\s*/\s*\(\s*([0-9]+)\s*\)", view):  # \frac{a}{b}
        v = _exact(f"{m.group(1)}/{m.group(2)}")
        if v is not None:
            out.append(v)
    for m in _NUMBER.finditer(view):
        v = _exact(m.group())
        if v is not None:
            out.append(v)
            pct = view[m.end() : m.end() + 1] == "%"
            if pct:
                out.append(v / 100)
    return out


def numbers_in(answer: str) -> list[Fraction]:
    """Every number an answer states, valued exactly (``\\frac{a}{b}``, ``1,260``, ``25%`` too)."""
    return _numbers(answer)


def compare(answer: str | None, source: str | None, gold: str | None) -> AnswerCheck:
    """Compare an extracted answer with gold (see the module doc)."""
    if gold is None or not gold.strip():
        return AnswerCheck(answer, source, None, None, None)
    kind = gold_kind(gold)
    if answer is None:
        return AnswerCheck(None, None, gold, kind, None, "no final answer found")
    if kind == "choice":
        want = _CHOICE.fullmatch(gold.strip())
        assert want is not None
        letters = set(_CHOICE_IN.findall(answer)) or (
            {m.group(1)} if (m := _CHOICE.fullmatch(answer.strip())) else set()
        )
        if not letters:
            return AnswerCheck(answer, source, gold, kind, None, "no option letter in the answer")
        if len(letters) > 1:
            return AnswerCheck(answer, source, gold, kind, False, "the answer names several options")
        return AnswerCheck(answer, source, gold, kind, want.group(1) in letters)
    if kind == "number":
        m = _PLAIN_GOLD.fullmatch(gold.strip())
        assert m is not None
        target = _exact(m.group(1), bool(m.group(2)))
        found = _numbers(answer)
        if target is None or not found:
            return AnswerCheck(answer, source, gold, kind, None, "no number in the answer")
        return AnswerCheck(answer, source, gold, kind, target in found or target * 100 in found)
    if kind == "math":
        if not mathverify.available():
            return AnswerCheck(
                answer, source, gold, kind, None, f"math-verify is not installed ({mathverify.INSTALL_HINT})"
            )
        same = mathverify.equivalent(gold, answer)
        if same is None:
            return AnswerCheck(answer, source, gold, kind, None, "math-verify could not compare the answers")
        return AnswerCheck(answer, source, gold, kind, same)
    norm = " ".join(answer.split()).casefold().rstrip(".")
    return AnswerCheck(answer, source, gold, kind, norm == " ".join(gold.split()).casefold().rstrip("."))
