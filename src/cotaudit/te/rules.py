r"""The TE rules as registered units (TE-41), each with its docstring examples.

Every rule names its code, its layer (which decides the M1 preset) and, in its docstring,
``Okay:`` examples that must not fire and ``TE_Exxx@L:`` examples that must fire on line
``L``, written as one line with ``\n`` for newlines (pycodestyle's convention). One test runs
every example of every rule. The checks themselves live where the data is: structural rules
in :mod:`cotaudit.te.structure`, semantic rules in the one semantic pass
(:mod:`cotaudit.te.semantic` and the EQ/CHECK/ANS modules), because they share the two
worlds and each root cause must be reported exactly once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cotaudit.codes import CODES


@dataclass(frozen=True, slots=True)
class Example:
    """One docstring example: the trace, and the (code, line) it must (or must not) produce."""

    rule: str
    code: str | None  # None for Okay: the rule's code must not appear
    line: int | None
    text: str


class Rule:
    code: str = ""

    @property
    def name(self) -> str:
        return CODES[self.code].name

    @property
    def layer(self) -> str:
        return CODES[self.code].layer


RULES: dict[str, Rule] = {}


def register(cls: type[Rule]) -> type[Rule]:
    RULES[cls.code] = cls()
    return cls


_EXAMPLE = re.compile(r"^\s*(Okay|TE_[EWX]\d{3}(?:@(\d+))?):\s?(.*)$")


def examples(rule: Rule) -> list[Example]:
    """Parse the docstring examples of one rule."""
    out = []
    for raw in (type(rule).__doc__ or "").splitlines():
        m = _EXAMPLE.match(raw)
        if not m:
            continue
        head, line, body = m.group(1), m.group(2), m.group(3)
        text = body.replace("\\n", "\n").replace("\\t", "\t") + "\n"
        code = None if head == "Okay" else head.split("@")[0]
        out.append(Example(rule.code, code, int(line) if line else None, text))
    return out


_H = "GIVEN:\\n  a := 4\\n  b := 6\\nGOAL: total\\n"


@register
class HeaderOrder(Rule):
    r"""GIVEN, GOAL and ANS exist once each, in that order; ANS is the last tagged line.

    Okay: GIVEN:\n\n  a := 4\n  b := 6\nGOAL: total\nEQ[e1]: total = a + b = 10\nANS: total
    TE_E001@1: GOAL: total\nGIVEN:\n  a := 4\n  b := 6\nEQ[e1]: total = a + b = 10\nANS: total
    TE_E001@1: \n\n
    TE_E001@6: GIVEN:\n  a := 4\nGOAL: total\nEQ[e1]: total = a + 1 = 5\nANS: total\nEQ[e2]: x = 1
    """

    code = "TE_E001"


@register
class DuplicateId(Rule):
    r"""STEP, EQ, CHECK and OPEN share one ID namespace; IDs and symbols do not clash.

    Okay: GIVEN:\n  a := 5\n  b := 7\nGOAL: total\nEQ[total]: total = a + b = 12\nANS: total
    TE_E002@6: GIVEN:\n  a := 5\n  b := 7\nGOAL: c\nEQ[e1]: c = a + b = 12\nCHECK[e1]: arith: e1.value == 12\nANS: c
    """

    code = "TE_E002"


@register
class UnresolvedReference(Rule):
    r"""`from` names, RESOLVE targets and `ID.value` point at something defined earlier.

    Okay: GIVEN:\n  a := 5\nGOAL: d\nSTEP[s1]: double the input (from a)\nEQ[e1]: d = 2 * a = 10\nANS: d
    TE_E003@4: GIVEN:\n  a := 5\nGOAL: d\nSTEP[s1]: double the input (from e7)\nEQ[e1]: d = 2 * a = 10\nANS: d
    TE_E003@5: GIVEN:\n  a := 5\nGOAL: d\nSTEP[s1]: double it\nEQ[e1]: d = 2 * s1.value = 10\nANS: d
    """

    code = "TE_E003"


@register
class UndeclaredSymbol(Rule):
    r"""Every symbol is declared in GIVEN or bound by an earlier EQ.

    Okay: GIVEN:\n  n := 5\nGOAL: S\nEQ[e1]: S = Sum(k, (k, 1, n)) = 15\nANS: S
    TE_E004@5: GIVEN:\n  total := 16\n  eaten := 3\nGOAL: sold\nEQ[e1]: sold = total - eaten - baked = 9\nANS: sold
    """

    code = "TE_E004"


@register
class UnitMismatch(Rule):
    r"""A declared unit equals the computed one (same dimension, conversion factor 1).

    Okay: GIVEN:\n  speed := 12 [m/s]\n  time := 600 [s]\nGOAL: d [m]\nEQ[e1]: d = speed * time = 7200 [meters]\nANS: d [m]
    TE_E005@5: GIVEN:\n  speed := 12 [m/s]\n  time := 600 [s]\nGOAL: d [miles]\nEQ[e1]: d = speed * time = 7200 [miles]\nANS: d [miles]
    TE_E005@7: GIVEN:\n  a := 3 [USD]\n  b := 4 [USD]\nGOAL: c\nEQ[e1]: k = 7\nEQ[e2]: c = a + b = 7\nANS: c [cent]
    Okay: GIVEN:\n  a := 3 [USD]\n  b := 4 [USD]\nGOAL: c\nEQ[e1]: k = 7\nEQ[e2]: c = a + b = 7\nANS: c [USD]
    """

    code = "TE_E005"


@register
class NumericMismatch(Rule):
    r"""Every equation re-computes exactly; a bound name is never contradicted.

    Okay: GIVEN:\n  a := 10\nGOAL: r\nEQ[e1]: r = a / 3 = 3.333333\nANS: r
    Okay: GIVEN:\n  a := 10\nGOAL: r\nEQ[e1]: r = a / 3 ≈ 3.33\nANS: r
    TE_E006@4: GIVEN:\n  a := 10\nGOAL: r\nEQ[e1]: r = a / 3 = 3.33\nANS: r
    TE_E006@5: GIVEN:\n  price := 2 [USD]\nGOAL: revenue [USD]\nSTEP[s1]: eggs left\nEQ[e3]: total = 16-3-4 = 8\nEQ[e4]: revenue = total * price = 16 [USD]\nANS: revenue [USD]
    """

    code = "TE_E006"


@register
class CheckDisagrees(Rule):
    r"""A CHECK claim is recomputed from the trace; the model's "yes" is never trusted.

    Okay: GIVEN:\n  c := 100\n  n := 3\nGOAL: p\nEQ[e4]: p = c / n ≈ 33.3\nCHECK[c1]: arith: e4.value == 33 ± 0.5\nANS: p
    TE_E007@5: GIVEN:\n  a := 4\nGOAL: b\nEQ[e1]: b = a * 2 = 8\nCHECK[c1]: arith: e1.value == 9\nANS: b

    A unit claim is false only between known units; on a value without a known unit (gradual
    typing, TE-39) it cannot be decided and is TE_W001, never E007 (docs/te.md, issue 19).

    TE_E007@5: GIVEN:\n  h := 2 [h]\nGOAL: t\nEQ[e1]: t = h * 4 = 8\nCHECK[c1]: unit: e1.unit == USD\nANS: t
    Okay: GIVEN:\n  a := 2\nGOAL: t\nEQ[e1]: t = a * 4 = 8\nCHECK[c1]: unit: e1.unit == USD\nANS: t
    """

    code = "TE_E007"


@register
class UnresolvedOpen(Rule):
    r"""Every OPEN case block is RESOLVEd before ANS.

    Okay: GIVEN:\n  x := 7\nGOAL: y\nOPEN[o1]: case x > 5\nEQ[e1]: y = x - 5 = 2\nRESOLVE[o1]: by e1\nANS: y
    TE_E008@4: GIVEN:\n  x := 7\nGOAL: y\nOPEN[o1]: case x > 5\nEQ[e1]: y = x - 5 = 2\nANS: y
    """

    code = "TE_E008"


@register
class DimensionError(Rule):
    r"""Units inside one expression are consistent (no metres plus seconds).

    Okay: GIVEN:\n  w := 3 [m]\n  l1 := 4 [m]\n  l2 := 5 [m]\nGOAL: area [m^2]\nEQ[e1]: area = w * (l1 + l2) = 27 [m^2]\nANS: area [m^2]
    TE_E009@6: GIVEN:\n  w := 3 [m]\n  l1 := 4 [m]\n  t := 2 [s]\nGOAL: odd\nEQ[e1]: odd = w * (l1 + t) = 18\nANS: odd
    """

    code = "TE_E009"


@register
class UntaggedLine(Rule):
    r"""Every non-blank line carries a tag; there is no comment syntax.

    Okay: GIVEN:\n  a := 4\n  b := 6\nGOAL: total\nEQ[e1]: total = a + b = 10\nSTEP[s1]: So the total is ten.\nANS: total
    TE_E010@6: GIVEN:\n  a := 4\n  b := 6\nGOAL: total\nEQ[e1]: total = a + b = 10\nSo the total is ten.\nANS: total
    TE_E010@2: GIVEN:\n# a := 4\n  b := 6\nGOAL: total\nEQ[e1]: total = b + 4 = 10\nANS: total
    """

    code = "TE_E010"


@register
class AnswerNotDerived(Rule):
    r"""ANS equals a value some EQ produced (GIVEN values alone are not derived).

    Okay: GIVEN:\n  a := 4\n  b := 6\nGOAL: total\nEQ[e1]: total = a + b = 10\nANS: 10
    TE_E011@6: GIVEN:\n  a := 4\n  b := 6\nGOAL: total\nEQ[e1]: total = a + b = 10\nANS: 12
    TE_E011@6: GIVEN:\n  a := 4\n  b := 6\nGOAL: total\nEQ[e1]: total = a + b = 10\nANS: a
    """

    code = "TE_E011"


@register
class HedgingToken(Rule):
    r"""No hedging on tagged lines: a self-correction, not the word (:mod:`cotaudit.te.hedges`).

    ``maybe`` and ``hmm`` are hedges anywhere outside a STRING; ``wait`` and ``actually`` only
    where they open a clause and are set off by punctuation or followed by a correction.

    Okay: GIVEN:\n  wait_time := 4\nGOAL: t\nEQ[e1]: t = wait_time * 2 = 8\nSTEP[s1]: awaiting the result (from e1)\nANS: t
    Okay: GIVEN:\n  d := 3\n  note := "hmm, check the rate"\nGOAL: t\nEQ[e1]: t = d * 7 = 21\nANS: t
    Okay: GIVEN:\n  d := 3\nGOAL: t\nSTEP[s1]: they wait for 3*7=21 more days (from d)\nEQ[e1]: t = d * 7 = 21\nANS: t
    Okay: GIVEN:\n  d := 3\nGOAL: t\nSTEP[s1]: after the final wait, she actually walks 21 km\nEQ[e1]: t = d * 7 = 21\nANS: t
    Okay: GIVEN:\n  d := 3\nGOAL: t\nSTEP[s1]: Wait time is three weeks. But he actually rides the bus\nEQ[e1]: t = d * 7 = 21\nANS: t
    Okay: GIVEN:\n  wait := 3\nGOAL: t\nEQ[e1]: t = max(1, wait, 2) * 7 = 21\nANS: t
    TE_E012@5: GIVEN:\n  bill := 40\nGOAL: t\nEQ[e1]: t = bill + 6 = 46\nSTEP[s1]: wait, the tip goes on top (from e1)\nANS: t
    TE_E012@4: GIVEN:\n  d := 3\nGOAL: t\nSTEP[s1]: 3 weeks is 20 days, actually, no: 21\nEQ[e1]: t = d * 7 = 21\nANS: t
    TE_E012@4: GIVEN:\n  d := 3\nGOAL: t\nSTEP[s1]: hmm, let me redo the weeks\nEQ[e1]: t = d * 7 = 21\nANS: t
    TE_E012@4: GIVEN:\n  d := 3\nGOAL: t\nSTEP[s1]: maybe I made a mistake (from d)\nEQ[e1]: t = d * 7 = 21\nANS: t
    TE_E012@4: GIVEN:\n  d := 3\nGOAL: t\nSTEP[s1]: That is 20. Oh wait that is wrong\nEQ[e1]: t = d * 7 = 21\nANS: t
    TE_E012@4: GIVEN:\n  d := 3\nGOAL: t\nSTEP[s1]: Actually I need days, not weeks\nEQ[e1]: t = d * 7 = 21\nANS: t
    TE_E012@5: GIVEN:\n  d := 3\nGOAL: t\nEQ[e1]: t = d * 7 = 21\nEQ[e2]: maybe = t + 0 = 21\nANS: t
    """

    code = "TE_E012"


@register
class MalformedLine(Rule):
    r"""Lines and expressions fit the grammar; nothing outside the whitelist is accepted.

    Okay: GIVEN:\n  a := 4\nGOAL: b\nEQ[e1]: b = sqrt(a) + e1x = 2\nANS: b
    TE_E013@4: GIVEN:\n  a := 2\nGOAL: b\nEQ[e1]: b = __import__("os").system("id")\nANS: b
    TE_E013@4: GIVEN:\n  x := 2\nGOAL: y\nEQ[e1]: y = 2x = 4\nANS: y
    """

    code = "TE_E013"


@register
class LimitExceeded(Rule):
    r"""Every computation stays within its size and time bounds, and fails closed.

    Okay: GIVEN:\n  a := 2\nGOAL: c\nEQ[e1]: c = mod(2**1000000, 7) = 2\nEQ[e2]: d = factorial(20) + 2**100 - 2**100 = 2432902008176640000\nANS: c
    TE_E014@4: GIVEN:\n  a := 2\nGOAL: c\nEQ[e1]: c = 10**10**10\nANS: c
    TE_E014@4: GIVEN:\n  a := 2\nGOAL: d\nEQ[e1]: d = factorial(10**9)\nANS: d
    """

    code = "TE_E014"


@register
class UndecidableClaim(Rule):
    r"""A CHECK over free parameters that can be neither proved nor refuted is a warning.

    Okay: GIVEN:\n  n := param(integer, positive)\nGOAL: S\nEQ[e1]: S = n*(n + 1)/2\nCHECK[c1]: domain: is_positive(e1.value)\nANS: S
    TE_W001@5: GIVEN:\n  n := param(integer, positive)\nGOAL: S\nEQ[e1]: S = n*(n + 1)/2\nCHECK[c1]: domain: is_integer(e1.value)\nANS: S
    TE_W001@5: GIVEN:\n  a := 2\nGOAL: t\nEQ[e1]: t = a * 4 = 8\nCHECK[c1]: unit: e1.unit == USD\nANS: t
    TE_W001@5: GIVEN:\n  a := 2\nGOAL: t\nEQ[e1]: t = 3 * 4 = 12\nCHECK[c1]: unit: e1.unit != USD\nANS: t
    Okay: GIVEN:\n  a := 2 [USD]\nGOAL: t\nEQ[e1]: t = a * 4 = 8 [USD]\nCHECK[c1]: unit: e1.unit == USD\nANS: t
    """

    code = "TE_W001"
