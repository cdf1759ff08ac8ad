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

from cotaudit.cot.claims import Claim, Verdict, find_claims
from cotaudit.cot.replay.model import Check, Replay
from cotaudit.te.corpus.gsm8k_numbers import NotArithmetic, arithmetic, constant
from cotaudit.te.numeric import fmt_fraction

_PROBLEM = re.compile(r"[-+*/()0-9 ]{1,2000}=\s*")
_TEMPLATE = re.compile(r'written as\s*"([^"]{1,200})"')
_DEFINITION = re.compile(r"\b([A-Z])\s*=\s*")
_CALCULATE = re.compile(r"calculate\s+([A-Z])\s*=")
_NAME = re.compile(r"\b[A-Z]\b")
# a name defined at the start of a clause: "where A = …", ", B = …", "and C = …", "calculate D ="
_DEFINED = re.compile(r"(?:\bwhere|\band|,|\bcalculate)\s+([A-Z])\s*=")
_ANSWER = re.compile(r"the answer is\s*(-?[0-9]{1,30})[\s.]*$")
# "calculate A =" and "the final equation is A * B =": a name (or names) and "=" before a chain
_LABEL = re.compile(r"\b(?:calculate|is)\s+[-+*/() A-Z]{1,60}=")


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
        written: set[str] = set()  # names the trace gives a definition or a calculation anywhere
        for step in steps:
            written |= set(_DEFINED.findall(step))
        bound: dict[str, Fraction] = {}
        for i, step in enumerate(steps):
            template = _TEMPLATE.search(step)
            anchored = True
            if template is not None:
                anchored = self._decomposition(i, step, template, target, definitions, written, out)
            calc = _CALCULATE.search(step)
            if calc is not None:
                anchored = calc.group(1) in definitions
                first = _expression_after(step, calc.end())
                value = _value(first.split("=")[0])
                want = definitions.get(calc.group(1))
                if value is not None and want is not None and value != want:
                    what = f"the calculation of {calc.group(1)} starts from another expression than its own"
                    out.checks.append(
                        Check(i, False, what, fmt_fraction(value), fmt_fraction(want), calc.start() + 1)
                    )
                    anchored = False
            names = {k: v for k, v in bound.items() if not (calc is not None and k == calc.group(1))}
            claims = find_claims(step, names, running_totals=False)
            out.claims[i] = claims
            results = [
                c.claimed for c in claims if c.claimed is not None and c.verdict != Verdict.UNEVALUATED
            ]
            if calc is not None and results:
                bound[calc.group(1)] = results[-1]
            if anchored and (template is not None or claims) and _fully_read(step, claims, template, results):
                out.complete.add(i)
        return out

    def _decomposition(
        self,
        i: int,
        step: str,
        template: re.Match[str],
        target: Fraction | None,
        definitions: dict[str, Fraction],
        written: set[str],
        out: Replay,
    ) -> bool:
        """Check ``written as "A - B", where A = …``; ``True`` when its value was checked and holds."""
        rest = step[template.end() :]
        malformed = []
        for m in _DEFINITION.finditer(rest):
            value = _value(_expression_after(rest, m.end()))
            if value is not None:
                definitions[m.group(1)] = value
            else:
                malformed.append(m.group(1))
        names = sorted(set(_NAME.findall(template.group(1))))
        column = template.start(1) + 1
        never = [n for n in names if n not in written and n not in definitions]
        if never:  # used in the template, defined nowhere in the whole trace
            what = "the decomposition uses names the trace never defines"
            out.checks.append(
                Check(i, False, what, template.group(1), "definitions of " + ", ".join(never), column)
            )
            return False
        if malformed or target is None or not names or any(n not in definitions for n in names):
            if malformed:
                out.notes.append(
                    f"step {i}: the definition of {', '.join(malformed)} is not a well-formed expression"
                )
            return False
        value = _value(_substitute(template.group(1), definitions))
        if value is None:
            return False
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
        return value == target


def _fully_read(
    step: str, claims: Sequence[Claim], template: re.Match[str] | None, results: list[Fraction]
) -> bool:
    """Every number and ``=`` of the step is inside a claim that holds exactly (or inside the
    checked decomposition), and a closing "the answer is v" repeats the last result."""
    if any(c.verdict != Verdict.TRUE for c in claims):
        return False
    text = step
    if template is not None:
        text = text[: template.start()] + " " * (len(text) - template.start())
    spans = [(c.offset, c.end) for c in claims]
    answer = _ANSWER.search(text)
    if answer is not None:
        said = _value(answer.group(1))
        if said is None or not results or said != results[-1]:
            return False
        spans.append(answer.span())
    kept = list(text)
    for a, b in spans:
        kept[a:b] = " " * (b - a)
    left = "".join(kept)
    left = _LABEL.sub(" ", left)  # "calculate A =", "equation is (A * B) ="
    return not any(ch.isdigit() or ch == "=" for ch in left)


REPLAYER = MultistepArithmetic()
