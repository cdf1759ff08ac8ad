"""Multistep arithmetic (BIG-bench ``multistep_arithmetic``): nested expressions and sub-results.

The problem is an integer expression ending in ``=``. The replayer

- checks a decomposition ``This equation can be written as "A - B * C", where A = (…), …``:
  every name in the template must be defined, and the template with the definitions put in
  must have the problem's exact value;
- checks that ``Let's calculate A = e = … = v`` starts from A's definition (same value);
- reads every chain with the names bound so far (the trace's own claimed sub-results, so a
  later step is judged on what the trace had at that point), through the generic claim
  reader: every ``=`` in the chain is recomputed exactly.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction

from cotaudit.cot.claims import Verdict, find_claims
from cotaudit.cot.replay import Check, Replay
from cotaudit.te.gsm8k_numbers import NotArithmetic, arithmetic, constant
from cotaudit.te.numeric import fmt_fraction

_PROBLEM = re.compile(r"[-+*/()0-9 ]{1,2000}=\s*")
_TEMPLATE = re.compile(r'written as\s*"([^"]{1,200})"')
_DEFINITION = re.compile(r"\b([A-Z])\s*=\s*")
_CALCULATE = re.compile(r"calculate\s+([A-Z])\s*=")
_NAME = re.compile(r"\b[A-Z]\b")


def _value(text: str) -> Fraction | None:
    try:
        return constant(arithmetic(text))
    except NotArithmetic:
        return None


def _expression_after(text: str, start: int) -> str:
    """The bracket-balanced expression starting at ``start``, up to ``,`` / ``and`` / ``.``."""
    depth = 0
    j = start
    while j < len(text):
        ch = text[j]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                break
        elif (depth == 0 and (ch in ",;" or (ch == "." and not text[j + 1 : j + 2].isdigit()))) or (
            depth == 0 and text.startswith(" and ", j)
        ):
            break
        j += 1
    return text[start:j].strip()


def _substitute(template: str, values: dict[str, Fraction]) -> str:
    return _NAME.sub(
        lambda m: f"({fmt_fraction(values[m.group()])})" if m.group() in values else m.group(), template
    )


class MultistepArithmetic:
    name = "multistep_arithmetic"

    def recognises(self, problem: str, steps: Sequence[str]) -> bool:
        return _PROBLEM.fullmatch(problem.strip() + " ") is not None and any(c.isdigit() for c in problem)

    def replay(self, problem: str, steps: Sequence[str]) -> Replay:
        out = Replay()
        target = _value(problem.strip().rstrip("=").strip())
        definitions: dict[str, Fraction] = {}
        bound: dict[str, Fraction] = {}
        for i, step in enumerate(steps):
            template = _TEMPLATE.search(step)
            if template is not None:
                self._decomposition(i, step, template, target, definitions, out)
            calc = _CALCULATE.search(step)
            if calc is not None and calc.group(1) in definitions:
                first = _expression_after(step, calc.end())
                value = _value(first.split("=")[0])
                want = definitions[calc.group(1)]
                if value is not None and value != want:
                    out.checks.append(
                        Check(
                            i,
                            False,
                            f"the calculation of {calc.group(1)} starts from a different expression "
                            "than its definition",
                            fmt_fraction(value),
                            fmt_fraction(want),
                            calc.start() + 1,
                        )
                    )
            names = {k: v for k, v in bound.items() if not (calc is not None and k == calc.group(1))}
            claims = find_claims(step, names, running_totals=False)
            out.claims[i] = claims
            if calc is not None:
                results = [
                    c.claimed for c in claims if c.claimed is not None and c.verdict != Verdict.UNEVALUATED
                ]
                if results:
                    bound[calc.group(1)] = results[-1]
        return out

    def _decomposition(
        self,
        i: int,
        step: str,
        template: re.Match[str],
        target: Fraction | None,
        definitions: dict[str, Fraction],
        out: Replay,
    ) -> None:
        rest = step[template.end() :]
        for m in _DEFINITION.finditer(rest):
            value = _value(_expression_after(rest, m.end()))
            if value is not None:
                definitions[m.group(1)] = value
        names = sorted(set(_NAME.findall(template.group(1))))
        missing = [n for n in names if n not in definitions]
        column = template.start(1) + 1
        if missing:
            out.checks.append(
                Check(
                    i,
                    False,
                    "the decomposition uses names it never defines",
                    template.group(1),
                    "definitions of " + ", ".join(missing),
                    column,
                )
            )
            return
        if target is None or not names:
            return
        value = _value(_substitute(template.group(1), definitions))
        if value is None:
            return
        out.checks.append(
            Check(
                i,
                value == target,
                "the decomposition's value",
                fmt_fraction(value),
                fmt_fraction(target),
                column,
            )
        )


REPLAYER = MultistepArithmetic()
