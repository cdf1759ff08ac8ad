"""Writing the TE trace of a read GSM8K solution (TE-50 steps 5–8): the STEP text, the seeded
style knobs (CHECK lines, ``e<k>.value`` references, currency units), and the records the
reading steps of :mod:`.gsm8k` hand over.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from cotaudit.te import ir
from cotaudit.te.config import LintConfig
from cotaudit.te.numeric import fmt_fraction

MAX_STEP_CHARS = 200


@dataclass(frozen=True)
class Style:
    """How a trace is written; ``checks`` and ``value_refs`` are seeded probabilities."""

    checks: float = 0.5
    value_refs: float = 0.25
    currency_units: bool = True
    steps: bool = True
    seed: int = 0


CORPUS_STYLE = Style()


@dataclass(frozen=True, slots=True)
class Given:
    name: str
    text: str
    value: Fraction
    dollar: bool  # every occurrence in the question carries '$'
    usd: bool  # the declaration gets [USD]


@dataclass(frozen=True, slots=True)
class Equation:
    index: int  # the k of e<k> and r<k>
    rhs: ir.Node  # the LHS with numerals rewritten to q / r names
    result: str  # the result as a TE numeral
    value: Fraction  # exact value of the LHS
    claimed: Fraction  # value of the result
    approx: bool
    source: str  # "annotation" | "prose"


@dataclass(frozen=True, slots=True)
class Solution:
    text: str  # the cleaned STEP text
    equations: list[Equation]


_HEDGE = re.compile(LintConfig().hedge_regex().pattern + r",?")  # "Actually, she" → "she"
_FROM_WORD = re.compile(r"\bfrom\b")
# A trailing bare or parenthesised `from a, b` clause, as TE-10 reads one.
# Linear: the optional ")" and "." carry their own trailing whitespace (``\s*\)?\s*\.?\s*``
# backtracks cubically on a long run of spaces).
_FROM_CLAUSE = re.compile(r"from\s+[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*\s*(?:\)\s*)?(?:\.\s*)?", re.ASCII)


# --- step 5: STEP text ---------------------------------------------------------------------


def clean_text(text: str) -> str:
    """Delete hedge tokens, collapse whitespace, cut to ≤ 200 characters at a word boundary."""
    text, hedges = _HEDGE.subn(" ", text)
    text = " ".join(text.split())
    if hedges:  # "Actually, wait: he has" would otherwise leave ": he has"
        text = text.lstrip(",;: ")
    if len(text) > MAX_STEP_CHARS:
        head = text[: MAX_STEP_CHARS + 1]
        space = head.rfind(" ")
        text = (head[:space] if space > 0 else text[:MAX_STEP_CHARS]).rstrip()
    return text


def _defuse_from(text: str) -> str:
    """Prose that ends like a ``from X`` clause would cite an undefined X: say ``out of``."""
    while True:
        starts = [m.start() for m in _FROM_WORD.finditer(text)]
        if not starts or _FROM_CLAUSE.fullmatch(text, starts[-1]) is None:
            return text
        text = text[: starts[-1]] + "out of" + text[starts[-1] + len("from") :]


# --- steps 5–8: writing the trace ----------------------------------------------------------


def _rng(style: Style, knob: str, question: str, answer: str) -> random.Random:
    key = f"{style.seed}\x00{knob}\x00{question}\x00{answer}".encode()
    return random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))


def _with_value_refs(node: ir.Node, rng: random.Random, p: float) -> ir.Node:
    """One draw per ``r<j>`` reference, left to right; a hit writes ``e<j>.value`` instead."""
    if isinstance(node, ir.Name):
        if node.id.startswith("r") and rng.random() < p:
            return ir.Attr("e" + node.id[1:], "value", node.pos)
        return node
    if isinstance(node, ir.BinOp):
        left = _with_value_refs(node.left, rng, p)
        return ir.BinOp(node.op, left, _with_value_refs(node.right, rng, p), node.pos)
    if isinstance(node, ir.Unary):
        return ir.Unary(node.op, _with_value_refs(node.operand, rng, p), node.pos)
    return node


def _references(node: ir.Node) -> list[str]:
    """The q/r names and the ``e<j>`` of ``e<j>.value`` in an expression, left to right."""
    if isinstance(node, ir.Name | ir.Attr):
        return [node.id]
    return [name for child in ir.children(node) for name in _references(child)]


def _cited(rhs_nodes: list[ir.Node], first_eq: int) -> list[str]:
    """The ``(from …)`` list: GIVEN names and IDs of EQs before this line, in order of use."""
    cited: list[str] = []
    for node in rhs_nodes:
        for ref in _references(node):
            name = ref if ref.startswith("q") else "e" + ref[1:]
            if (ref.startswith("q") or int(ref[1:]) < first_eq) and name not in cited:
                cited.append(name)
    return cited


def write_trace(
    question: str,
    answer: str,
    style: Style,
    givens: list[Given],
    solutions: list[Solution],
    answer_eq: Equation,
) -> tuple[str, dict[str, Any]]:
    checks_rng = _rng(style, "checks", question, answer)
    refs_rng = _rng(style, "value_refs", question, answer)
    lines = ["GIVEN:"]
    meta_givens: list[dict[str, Any]] = []
    for g in givens:
        lines.append(f"  {g.name} := {g.text}" + (" [USD]" if g.usd else ""))
        value = fmt_fraction(g.value)
        meta_givens.append(
            {"name": g.name, "line": len(lines), "text": g.text, "value": value, "dollar": g.dollar}
        )
    answer_name = f"r{answer_eq.index}"
    lines.append(f"GOAL: {answer_name}")
    goal_line = len(lines)
    meta_eqs: list[dict[str, Any]] = []
    meta_steps: list[dict[str, Any]] = []
    meta_checks: list[dict[str, Any]] = []
    for sol in solutions:
        rhs_nodes = [_with_value_refs(eq.rhs, refs_rng, style.value_refs) for eq in sol.equations]
        if style.steps and sol.text:
            cited = _cited(rhs_nodes, sol.equations[0].index) if sol.equations else []
            text = f"{sol.text} (from {', '.join(cited)})" if cited else _defuse_from(sol.text)
            step_id = f"s{len(meta_steps) + 1}"
            lines.append(f"STEP[{step_id}]: {text}")
            meta_steps.append({"id": step_id, "line": len(lines), "refs": cited})
        for eq, rhs in zip(sol.equations, rhs_nodes, strict=True):
            rhs_text = ir.render(rhs)
            lines.append(f"EQ[e{eq.index}]: r{eq.index} = {rhs_text} {'≈' if eq.approx else '='} {eq.result}")
            refs = _references(rhs)
            meta_eqs.append(
                {
                    "id": f"e{eq.index}",
                    "line": len(lines),
                    "target": f"r{eq.index}",
                    "rhs": rhs_text,
                    "result": eq.result,
                    "value": fmt_fraction(eq.value),
                    "claimed": fmt_fraction(eq.claimed),
                    "approx": eq.approx,
                    "source": eq.source,
                    "names": _dedupe(r for r in refs if r[0] in "qr"),
                    "value_refs": _dedupe(r for r in refs if r[0] == "e"),
                    "uses": _dedupe(r if r[0] in "qr" else "r" + r[1:] for r in refs),
                }
            )
            if checks_rng.random() < style.checks:
                lines.append(f"CHECK[c{eq.index}]: arith: e{eq.index}.value == {eq.result}")
                meta_checks.append({"id": f"c{eq.index}", "line": len(lines), "eq": f"e{eq.index}"})
    lines.append(f"ANS: {answer_name}")
    values = {g.name: fmt_fraction(g.value) for g in givens}
    values.update({f"r{e.index}": fmt_fraction(e.value) for sol in solutions for e in sol.equations})
    meta: dict[str, Any] = {
        "values": values,
        "units": {g.name: "USD" for g in givens if g.usd},
        "givens": meta_givens,
        "eqs": meta_eqs,
        "eq_lines": {e["id"]: e["line"] for e in meta_eqs},
        "steps": meta_steps,
        "checks": meta_checks,
        "goal_line": goal_line,
        "ans_line": len(lines),
        "answer_name": answer_name,
        "answer_eq": f"e{answer_eq.index}",
    }
    return "\n".join(lines) + "\n", meta


def _dedupe(names: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(names))
