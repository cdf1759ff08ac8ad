"""Perturbations that inject exactly one error into a converted GSM8K trace (TE-53, ROSCOE).

Each perturber reads the trace and the converter's ``meta`` (the exact value of every name,
the line of every EQ, CHECK and STEP) and returns the perturbed text with its gold line and
the codes the error should draw — or ``None`` when the trace offers no place for this kind
of error. Perturbers never call the linter: the ground truth comes from construction, so the
linter is measured, not consulted. Randomness comes only from the ``random.Random`` passed in.

The paper's five categories (TE-53) come first; the ROSCOE step-level and arithmetic
perturbations (shuffle, remove, duplicate, swap numbers, swap operators, random number,
negate) are extra categories.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from cotaudit.te import ir
from cotaudit.te.evaluate import Evaluator
from cotaudit.te.expr import ExprError, parse
from cotaudit.te.grammar import EqBody, split_eq
from cotaudit.te.numeric import EvalError, LimitError, Limits, NeedsSymbolic, Poisoned, Value
from cotaudit.te.unitcheck import LIT, DimensionError, UnitEnv, UnitT, unit_of
from cotaudit.te.units import UnitVec, format_unit, parse_unit

PAPER_CATEGORIES = (
    "arithmetic_slip",
    "lost_variable",
    "unsupported_conclusion",
    "wrong_unit",
    "contradicting_equation",
)
ROSCOE_CATEGORIES = (
    "shuffle_steps",
    "remove_step",
    "duplicate_step",
    "swap_numbers",
    "swap_operators",
    "random_number",
    "negate_step",
)
CATEGORIES = PAPER_CATEGORIES + ROSCOE_CATEGORIES

# The code(s) that detect each category (code-correct TPR, TE-56).
EXPECTED_CODES: dict[str, tuple[str, ...]] = {
    "arithmetic_slip": ("TE_E006", "TE_E007"),
    "lost_variable": ("TE_E004", "TE_E003"),
    "unsupported_conclusion": ("TE_E011",),
    "wrong_unit": ("TE_E005", "TE_E009", "TE_E007"),
    "contradicting_equation": ("TE_E006", "TE_E007"),
    "shuffle_steps": ("TE_E004", "TE_E003"),
    "remove_step": ("TE_E004", "TE_E003"),
    "duplicate_step": ("TE_E002",),
    "swap_numbers": ("TE_E006",),
    "swap_operators": ("TE_E006",),
    "random_number": ("TE_E006",),
    "negate_step": ("TE_E006",),
}
_EPS_REL = Fraction(1, 10**6)
_EPS_ABS = Fraction(1, 10**9)


@dataclass(frozen=True, slots=True)
class Perturbed:
    text: str
    gold_line: int
    description: str
    expected_codes: tuple[str, ...]


class Trace:
    """A converted trace: its lines and the converter's meta, with exact values."""

    def __init__(self, text: str, meta: Mapping[str, Any]) -> None:
        self.lines = text.split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.meta = meta
        self.values = {k: Fraction(v) for k, v in meta["values"].items()}
        self.eqs: list[dict[str, Any]] = list(meta["eqs"])
        self.givens: list[dict[str, Any]] = list(meta["givens"])
        self.ans_line: int = meta["ans_line"]

    def text(self, lines: list[str]) -> str:
        return "\n".join(lines) + "\n"

    def eq_body(self, eq: Mapping[str, Any]) -> EqBody | None:
        line = self.lines[eq["line"] - 1]
        head = line.index(":") + 1
        body = split_eq(line[head:], head)
        return body if isinstance(body, EqBody) else None

    def evaluate(self, text: str) -> Fraction | None:
        """The exact value of an RHS over the trace's own names (None if undefined)."""
        try:
            node = parse(text)
        except ExprError:
            return None
        return evaluate_node(node, self.values, self.eq_values())

    def eq_values(self) -> dict[str, Fraction]:
        return {eq["id"]: Fraction(eq["value"]) for eq in self.eqs}

    def all_values(self) -> list[Fraction]:
        return list(self.values.values()) + [Fraction(eq["claimed"]) for eq in self.eqs]


class _Names:
    def __init__(self, values: Mapping[str, Fraction], eq_values: Mapping[str, Fraction]) -> None:
        self.values = values
        self.eq_values = eq_values

    def lookup(self, name: str) -> Value:
        if name not in self.values:
            raise Poisoned()
        return self.values[name]

    def attr_value(self, ident: str) -> Value:
        if ident not in self.eq_values:
            raise Poisoned()
        return self.eq_values[ident]

    def function(self, name: str) -> None:
        return None


def evaluate_node(
    node: ir.Node, values: Mapping[str, Fraction], eq_values: Mapping[str, Fraction]
) -> Fraction | None:
    try:
        v = Evaluator(Limits(), False, frozenset()).value(node, _Names(values, eq_values))
    except (EvalError, LimitError, NeedsSymbolic, Poisoned):
        return None
    return v if isinstance(v, Fraction) else None


def differs(a: Fraction, b: Fraction) -> bool:
    """Outside the TE-27 tolerance, with a margin so the error is unambiguous."""
    return abs(a - b) > 10 * max(_EPS_ABS, _EPS_REL * max(abs(a), abs(b)))


def fmt_number(v: Fraction, decimals: int) -> str:
    if decimals == 0 and v.denominator == 1:
        return str(v.numerator)
    scaled = v * 10**decimals
    if scaled.denominator != 1:
        return f"{v.numerator}/{v.denominator}"
    sign = "-" if scaled < 0 else ""
    digits = str(abs(scaled.numerator)).rjust(decimals + 1, "0")
    return f"{sign}{digits[:-decimals]}.{digits[-decimals:]}" if decimals else f"{sign}{digits}"


_NUMERAL = re.compile(r"-?[0-9]+(?:\.([0-9]+))?$")


def _trailing_unit(line: str) -> int | None:
    r"""Where a trailing ``[unit]`` (with the blanks around it) starts: the match of
    ``re.search(r"\s*\[[^\]]*\]\s*$", line)``, found without that regex, which rescans the
    rest of the line from every blank and every ``[`` (quadratic on long runs of either)."""
    text = line.rstrip()
    if not text.endswith("]"):
        return None
    start = text.find("[", text.rfind("]", 0, len(text) - 1) + 1, len(text) - 1)
    if start < 0:
        return None
    return len(text[:start].rstrip())


# --- the paper's five categories (TE-53) --------------------------------------------------------


def arithmetic_slip(t: Trace, rng: random.Random) -> Perturbed | None:
    """The last (claimed) part of an EQ is off by d units in its last digit; CHECKs follow."""
    candidates = [eq for eq in t.eqs if _NUMERAL.match(eq["claimed"].strip())]
    if not candidates:
        return None
    eq = rng.choice(candidates)
    body = t.eq_body(eq)
    if body is None:
        return None
    last = body.parts[-1]
    m = _NUMERAL.match(last.text)
    if not m:
        return None
    decimals = len(m.group(1) or "")
    v = Fraction(last.text)
    unit = Fraction(1, 10**decimals)
    approx = body.seps[-1] in ("\u2248", "~=")
    tolerance = unit / 2 if approx else Fraction(0)
    true_value = Fraction(eq["value"])
    for d in range(1, 50):
        sign = rng.choice((1, -1))
        new = v + sign * d * unit
        if v >= 0 and new < 0:
            new = v + d * unit
        if abs(new - true_value) > tolerance and differs(new, true_value):
            break
    else:
        return None
    new_text = fmt_number(new, decimals)
    lines = list(t.lines)
    line = lines[eq["line"] - 1]
    lines[eq["line"] - 1] = line[: last.col] + new_text + line[last.col + len(last.text) :]
    for check in t.meta.get("checks", ()):
        if check["eq"] == eq["id"]:
            k = check["line"] - 1
            lines[k] = re.sub(rf"(\b{re.escape(eq['id'])}\.value\s*==\s*)\S+", rf"\g<1>{new_text}", lines[k])
    return Perturbed(
        t.text(lines),
        eq["line"],
        f"{eq['id']}: claimed {last.text} -> {new_text}",
        EXPECTED_CODES["arithmetic_slip"],
    )


def first_reference(lines: list[str], names: list[str], after: int) -> int | None:
    """The first line (1-based, > after) that mentions any of ``names`` as a whole word."""
    pattern = re.compile(r"(?<![\w.])(" + "|".join(re.escape(n) for n in names) + r")\b")
    for k in range(after, len(lines)):
        if pattern.search(lines[k]):
            return k + 1
    return None


def lost_variable(t: Trace, rng: random.Random) -> Perturbed | None:
    """Delete a GIVEN declaration a later line uses (else rename one RHS use to ``<name>_0``)."""
    order = list(t.givens)
    rng.shuffle(order)
    for given in order:
        k = given["line"] - 1
        lines = t.lines[:k] + t.lines[k + 1 :]
        first = first_reference(lines, [given["name"]], k)
        if first is not None:
            return Perturbed(
                t.text(lines), first, f"deleted GIVEN {given['name']}", EXPECTED_CODES["lost_variable"]
            )
    for eq in t.eqs:
        uses = [n for n in eq["uses"] if re.search(rf"\b{re.escape(n)}\b", eq["rhs"])]
        if uses:
            name = rng.choice(uses)
            lines = list(t.lines)
            k = eq["line"] - 1
            head, _, rhs = lines[k].partition(" = ")
            lines[k] = head + " = " + re.sub(rf"\b{re.escape(name)}\b", f"{name}_0", rhs, count=1)
            return Perturbed(
                t.text(lines), eq["line"], f"renamed {name} -> {name}_0", EXPECTED_CODES["lost_variable"]
            )
    return None


def unsupported_conclusion(t: Trace, rng: random.Random) -> Perturbed | None:
    """ANS becomes a literal v ± d that equals no GIVEN or EQ value (unit kept)."""
    gold = Fraction(t.meta["gold"])
    known = t.all_values()
    for d in (1, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000):
        sign = rng.choice((1, -1))
        for candidate in (gold + sign * d, gold - sign * d):
            if gold >= 0 and candidate < 0:
                continue
            if all(differs(candidate, v) for v in known):
                lines = list(t.lines)
                k = t.ans_line - 1
                unit = _trailing_unit(lines[k])
                lines[k] = (
                    "ANS: "
                    + fmt_number(candidate, 0 if candidate.denominator == 1 else 6)
                    + (lines[k][unit:] if unit is not None else "")
                )
                return Perturbed(
                    t.text(lines), t.ans_line, f"ANS -> {candidate}", EXPECTED_CODES["unsupported_conclusion"]
                )
    return None


_CONFUSABLE: dict[str, tuple[str, ...]] = {
    "m": ("km", "ft", "mile", "cm"),
    "s": ("min", "h"),
    "h": ("min", "day"),
    "min": ("s", "h"),
    "kg": ("g", "lb"),
    "L": ("mL", "gallon"),
    "USD": ("cent", "EUR"),
    "m/s": ("km/h", "mph"),
}
_OTHER_DIMENSION: dict[str, str] = {"USD": "h", "m": "s", "kg": "m", "h": "USD", "s": "m"}


def known_units(t: Trace) -> dict[int, UnitVec]:
    """Line → computed unit of each EQ whose unit the TE-39 algebra determines from meta units."""
    units: dict[str, UnitT] = {name: parse_unit(u) for name, u in t.meta.get("units", {}).items()}
    attr_units: dict[str, UnitT] = {}
    env = UnitEnv(
        lambda n: units.get(n), lambda i: attr_units.get(i), lambda f: None, lambda node: None, frozenset()
    )
    out: dict[int, UnitVec] = {}
    for eq in t.eqs:
        try:
            u = unit_of(parse(eq["rhs"]), env)
        except (ExprError, DimensionError):
            u = None
        units[eq["target"]] = None if u is LIT else u
        attr_units[eq["id"]] = units[eq["target"]]
        if isinstance(u, UnitVec):
            out[eq["line"]] = u
    return out


def wrong_unit(t: Trace, rng: random.Random) -> Perturbed | None:
    """Declare a wrong unit on an EQ (or ANS) whose computed unit is known."""
    known = known_units(t)
    answer_line: int = next((eq["line"] for eq in t.eqs if eq["id"] == t.meta.get("answer_eq")), 0)
    targets = sorted(known)
    if answer_line in known:
        targets.append(t.ans_line)
    if not targets:
        return None
    line_no = rng.choice(targets)
    unit = known[answer_line if line_no == t.ans_line else line_no]
    name = format_unit(unit)
    if rng.random() < 0.5 and name in _CONFUSABLE:
        wrong = rng.choice(_CONFUSABLE[name])
    elif name in _OTHER_DIMENSION:
        wrong = _OTHER_DIMENSION[name]
    elif name in _CONFUSABLE:
        wrong = rng.choice(_CONFUSABLE[name])
    else:
        wrong = "h" if "USD" in name else "USD"
    lines = list(t.lines)
    k = line_no - 1
    cut = _trailing_unit(lines[k])
    lines[k] = (lines[k][:cut] if cut is not None else lines[k]) + f" [{wrong}]"
    return Perturbed(
        t.text(lines), line_no, f"unit {name} declared as [{wrong}]", EXPECTED_CODES["wrong_unit"]
    )


SWAPS = {"+": "-", "-": "+", "*": "/", "/": "*"}


def _binops(node: ir.Node) -> list[ir.BinOp]:
    out = [node] if isinstance(node, ir.BinOp) and node.op in SWAPS else []
    for child in ir.children(node):
        out += _binops(child)
    return out


def _replace(node: ir.Node, old: ir.Node, new: ir.Node) -> ir.Node:
    if node is old:
        return new
    if isinstance(node, ir.BinOp):
        return ir.BinOp(node.op, _replace(node.left, old, new), _replace(node.right, old, new), node.pos)
    if isinstance(node, ir.Unary):
        return ir.Unary(node.op, _replace(node.operand, old, new), node.pos)
    if isinstance(node, ir.Call):
        return ir.Call(node.func, tuple(_replace(a, old, new) for a in node.args), node.pos, node.user)
    return node


def variant(
    t: Trace, eq: Mapping[str, Any], rng: random.Random, change: Callable[[ir.BinOp], ir.Node | None]
) -> tuple[str, Fraction] | None:
    """An RHS with one binary node changed, whose value differs and stays defined."""
    try:
        node = parse(eq["rhs"])
    except ExprError:
        return None
    ops = _binops(node)
    rng.shuffle(ops)
    value = Fraction(eq["value"])
    for op in ops:
        new = change(op)
        if new is None:
            continue
        changed = _replace(node, op, new)
        v = evaluate_node(changed, t.values, t.eq_values())
        if v is not None and differs(v, value):
            return ir.render(changed), v
    return None


def contradicting_equation(t: Trace, rng: random.Random) -> Perturbed | None:
    """Insert ``EQ[<fresh>]: x = <variant>`` after a definition of x, before ANS."""
    candidates = [eq for eq in t.eqs if eq["line"] < t.ans_line - 1]
    if not candidates:
        return None
    eq = rng.choice(candidates)
    swapped = variant(t, eq, rng, lambda op: ir.BinOp(SWAPS[op.op], op.left, op.right, op.pos))
    if swapped is not None:
        rhs = swapped[0]
    else:
        v = Fraction(eq["value"])
        rhs = fmt_number(v + rng.choice((1, 2, 3)), 0) if v.denominator == 1 else fmt_number(v + 1, 6)
    fresh = f"e{len(t.eqs) + 1}"
    while any(f"[{fresh}]" in ln for ln in t.lines):
        fresh = fresh + "x"
    position = rng.randint(eq["line"] + 1, t.ans_line)  # insert before this 1-based line
    lines = list(t.lines)
    lines.insert(position - 1, f"EQ[{fresh}]: {eq['target']} = {rhs}")
    return Perturbed(
        t.text(lines), position, f"inserted {eq['target']} = {rhs}", EXPECTED_CODES["contradicting_equation"]
    )
