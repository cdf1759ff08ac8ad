"""GSM8K → Telegraph (TE) converter: real, clean traces for the corpus (TE-50).

``gsm8k_to_te(item, style)`` turns one GSM8K item (``question``, ``answer``) into a TE trace.
Each distinct number in the question becomes a GIVEN name ``q1, q2, …``; every
``<<lhs=result>>`` calculator annotation (or, on a solution line without one, every prose
equation ``NUM (op NUM)+ = $?NUM``) becomes ``EQ[e<k>]: r<k> = <lhs'> = <result>``, with each
numeral rewritten by value to the most recent equal result ``r<j>``, else the equal ``q``;
each solution line becomes a STEP; and GOAL/ANS name the last EQ whose value is the final
answer. The converter never calls the linter. TE-51 (every converted trace lints CLEAN) is
asserted by the tests.

Skip reasons (``Converted.skip_reason``; short, stable, kebab-case):

``bad-item``
    The item has no string ``question`` and ``answer``.
``bad-final``
    There is no ``####``, or the text after the last one (commas removed) is not a number.
``unparseable-annotation``
    An annotation has no ``=``, or a side is not plain arithmetic over numerals that the TE
    parser accepts and values exactly (a rational), or the result is not a numeral.
``annotation-mismatch``
    An equation's exact LHS differs from its result by more than half a unit in the result's
    last written digit (within that, the EQ is written with ``≈``).
``no-arithmetic``
    The solution has neither annotations nor prose equations.
``answer-not-derived``
    No EQ's value equals the final answer.

Seeding: each random style knob draws from its own ``random.Random(k)``, where ``k`` is the
first 8 bytes (big-endian) of ``sha256(f"{style.seed}\\0{knob}\\0{question}\\0{answer}")`` and
``knob`` is ``"checks"`` or ``"value_refs"``. ``checks`` draws once per EQ and ``value_refs``
once per ``r<j>`` reference, whatever the probabilities, so the output depends only on the item
and ``style``, and changing one knob never moves the other's choices.

Currency: ``[USD]`` goes on a GIVEN whose every occurrence carries ``$``. Matching by value can
then hand a dollar name to a count ("$2" vs "2 tubs") and make an EQ add dollars to dollars²;
when the TE-39 unit algebra (:mod:`cotaudit.te.unitcheck`) finds such a clash, the item is
written without currency units and ``meta["currency_dropped"]`` is true.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field, replace
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

from cotaudit.te import ir
from cotaudit.te.corpus.gsm8k_numbers import (
    NoNames,
    NotArithmetic,
    arithmetic,
    bare_equations,
    constant,
    normalise_lhs,
    numeral_text,
    result_numeral,
    result_tolerance,
    scan_question,
)
from cotaudit.te.corpus.gsm8k_write import (
    CORPUS_STYLE,
    Equation,
    Given,
    Solution,
    Style,
    clean_text,
    write_trace,
)
from cotaudit.te.numeric import Value, fmt_fraction
from cotaudit.te.unitcheck import DimensionError, UnitEnv, UnitT, known, unit_of
from cotaudit.te.units import parse_unit

META_SCHEMA = "cotaudit.te.gsm8k/1"
SKIP_REASONS: tuple[str, ...] = (
    "bad-item",
    "bad-final",
    "unparseable-annotation",
    "annotation-mismatch",
    "no-arithmetic",
    "answer-not-derived",
)


@dataclass(frozen=True)
class Converted:
    """A trace, or ``trace=None`` and a ``skip_reason``; ``meta`` is the ground truth (TE-50.8)."""

    trace: str | None
    skip_reason: str | None
    meta: dict[str, Any]


@dataclass
class ConversionSummary:
    """Yield and skip-reason counts over a run of conversions."""

    total: int = 0
    converted: int = 0
    skipped: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "converted": self.converted,
            "skipped": dict(sorted(self.skipped.items())),
        }


class _Skip(Exception):
    """Abandon the item: ``reason`` is one of SKIP_REASONS, ``detail`` says where."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


# --- public API ----------------------------------------------------------------------------


def gsm8k_to_te(item: Mapping[str, str], style: Style = CORPUS_STYLE) -> Converted:
    """Convert one GSM8K item (TE-50). Deterministic for a given ``(item, style)``."""
    question, answer = item.get("question"), item.get("answer")
    meta: dict[str, Any] = {"schema": META_SCHEMA, "style": asdict(style)}
    if not isinstance(question, str) or not isinstance(answer, str):
        return Converted(None, "bad-item", {**meta, "detail": "missing question or answer"})
    solution, marker, final_text = answer.rpartition("####")
    meta["gold_text"] = final_text.strip()
    try:
        gold = _final_answer(final_text if marker else "")
        meta["gold"] = fmt_fraction(gold)
        givens = _givens(question, style)
        solutions = _solutions(solution, givens)
        equations = [eq for sol in solutions for eq in sol.equations]
        if not equations:
            raise _Skip("no-arithmetic", "no annotations and no prose equations")
        answer_eq = _answer_equation(equations, gold)
    except _Skip as skip:
        return Converted(None, skip.reason, {**meta, "detail": skip.detail})
    meta["currency_dropped"] = any(g.usd for g in givens) and _dimension_error(givens, equations)
    if meta["currency_dropped"]:
        givens = [replace(g, usd=False) for g in givens]
    trace, written = write_trace(question, answer, style, givens, solutions, answer_eq)
    return Converted(trace, None, {**meta, **written})


def convert_jsonl(
    path: str | Path, style: Style = CORPUS_STYLE, *, limit: int | None = None
) -> Iterator[tuple[int, Converted]]:
    """Convert a GSM8K JSONL file, yielding ``(0-based item index, Converted)``.

    Blank lines are not items; ``limit`` stops after that many items.
    """
    index = 0
    with Path(path).open(encoding="utf-8") as handle:
        for raw in handle:
            if not raw.strip():
                continue
            if limit is not None and index >= limit:
                return
            record = json.loads(raw)
            yield index, gsm8k_to_te(record if isinstance(record, dict) else {}, style)
            index += 1


def summarise(results: Iterable[Converted]) -> ConversionSummary:
    """Count converted items and skips per reason."""
    summary = ConversionSummary()
    for result in results:
        summary.total += 1
        if result.trace is not None:
            summary.converted += 1
        else:
            reason = result.skip_reason or "unknown"
            summary.skipped[reason] = summary.skipped.get(reason, 0) + 1
    summary.skipped = dict(sorted(summary.skipped.items()))
    return summary


# --- steps 1–4: reading the item -----------------------------------------------------------


def _final_answer(text: str) -> Fraction:
    try:
        return Fraction(text.strip().replace(",", ""))
    except (ValueError, ZeroDivisionError):
        raise _Skip("bad-final", f"final answer {text.strip()[:40]!r}") from None


def _givens(question: str, style: Style) -> list[Given]:
    """One GIVEN per distinct value, in order of first appearance (TE-50.2)."""
    first: dict[Fraction, str] = {}
    dollar: dict[Fraction, bool] = {}
    for mention in scan_question(question):
        first.setdefault(mention.value, mention.text)
        dollar[mention.value] = dollar.get(mention.value, True) and mention.dollar
    return [
        Given(f"q{k}", text, value, dollar[value], dollar[value] and style.currency_units)
        for k, (value, text) in enumerate(first.items(), start=1)
    ]


def _solutions(solution: str, givens: list[Given]) -> list[Solution]:
    """Solution lines with their equations, numerals rewritten by value (TE-50.3–4)."""
    by_value = {g.value: g.name for g in givens}
    results: list[tuple[Fraction, int]] = []  # (exact value, k) of every EQ so far
    out: list[Solution] = []
    for line in solution.split("\n"):
        if not line.strip():
            continue
        annotations, prose = _annotations(line)
        raw: list[tuple[str, str, str]] = []
        for ann in annotations:
            lhs, sep, result = ann.rpartition("=")
            if not sep or not lhs.strip():
                raise _Skip("unparseable-annotation", f"<<{ann}>>: no 'lhs=result'")
            raw.append((normalise_lhs(lhs), numeral_text(result.strip()), "annotation"))
        if not annotations:
            raw = [(eq.lhs, eq.result, "prose") for eq in bare_equations(line)]
        equations: list[Equation] = []
        for lhs, result, source in raw:
            eq = _equation(lhs, result, source, len(results) + 1, by_value, results)
            equations.append(eq)
            results.append((eq.value, eq.index))
        out.append(Solution(clean_text(prose), equations))
    return out


def _annotations(line: str) -> tuple[list[str], str]:
    """The ``<<…>>`` calculator annotations of a line and the line without them, as
    ``re.findall(r"<<(.*?)>>")`` and ``re.sub`` would give, in linear time (that regex rescans
    the rest of the line from every ``<<`` when no ``>>`` follows)."""
    found: list[str] = []
    kept: list[str] = []
    pos = 0
    while (start := line.find("<<", pos)) >= 0 and (end := line.find(">>", start + 2)) >= 0:
        found.append(line[start + 2 : end])
        kept.append(line[pos:start])
        pos = end + 2
    kept.append(line[pos:])
    return found, "".join(kept)


def _equation(
    lhs: str,
    result: str,
    source: str,
    index: int,
    by_value: Mapping[Fraction, str],
    results: list[tuple[Fraction, int]],
) -> Equation:
    where = f"{lhs}={result}"
    try:
        node = arithmetic(lhs)
        value = constant(node)
        claimed = constant(result_numeral(result))
    except NotArithmetic as err:
        raise _Skip("unparseable-annotation", f"{where}: {err}") from None
    if value != claimed and abs(value - claimed) > result_tolerance(result):
        raise _Skip("annotation-mismatch", f"{where}: the LHS is exactly {fmt_fraction(value)}")
    if value != claimed and result.endswith("%"):
        # TE-11 wants a plain numeric literal after '≈'; 33.3% and 0.333 have the same value
        # and the same half-unit tolerance.
        result = format(Decimal(result[:-1]).scaleb(-2), "f")
    rhs = _rewrite(node, by_value, results)
    return Equation(index, rhs, result, value, claimed, value != claimed, source)


def _rewrite(node: ir.Node, by_value: Mapping[Fraction, str], results: list[tuple[Fraction, int]]) -> ir.Node:
    """Each numeral → the most recent equal result, else the equal GIVEN, else itself."""
    if isinstance(node, ir.Num):
        for value, k in reversed(results):
            if value == node.value:
                return ir.Name(f"r{k}", node.pos)
        name = by_value.get(node.value)
        return ir.Name(name, node.pos) if name else ir.Num(node.value, numeral_text(node.text), node.pos)
    if isinstance(node, ir.BinOp):
        left = _rewrite(node.left, by_value, results)
        return ir.BinOp(node.op, left, _rewrite(node.right, by_value, results), node.pos)
    if isinstance(node, ir.Unary):
        return ir.Unary(node.op, _rewrite(node.operand, by_value, results), node.pos)
    return node


def _answer_equation(equations: list[Equation], gold: Fraction) -> Equation:
    for eq in reversed(equations):
        if gold in (eq.claimed, eq.value):
            return eq
    raise _Skip("answer-not-derived", f"no EQ value equals {fmt_fraction(gold)}")


def _dimension_error(givens: list[Given], equations: list[Equation]) -> bool:
    """Would the ``[USD]`` declarations make some EQ mix units (TE_E009)? See the module doc."""
    usd = parse_unit("USD")
    units: dict[str, UnitT] = {g.name: usd if g.usd else None for g in givens}
    values = {g.name: g.value for g in givens} | {f"r{eq.index}": eq.value for eq in equations}

    class Known(NoNames):
        def lookup(self, name: str) -> Value:
            return values[name]

    def exponent(node: ir.Node) -> Fraction | None:
        try:
            return constant(node, Known())
        except NotArithmetic:
            return None

    env = UnitEnv(
        lambda name: units.get(name), lambda ident: units.get("r" + ident[1:]), lambda _: None, exponent
    )
    for eq in equations:
        try:
            units[f"r{eq.index}"] = known(unit_of(eq.rhs, env))
        except DimensionError:
            return True
    return False


__all__ = [
    "CORPUS_STYLE",
    "META_SCHEMA",
    "SKIP_REASONS",
    "ConversionSummary",
    "Converted",
    "Style",
    "convert_jsonl",
    "gsm8k_to_te",
    "summarise",
]
