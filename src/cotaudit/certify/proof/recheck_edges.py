"""Edge verification (C-33), shared by ``recheck`` and the derived-mode gate.

A ``rule`` edge verifies when the rule is in the kernel view with the stated key
(``RULE_NOT_IN_KERNEL``), the substitution binds exactly the rule's canonical variables
(``BAD_SUBSTITUTION``), θ(head) is the node's fact (``HEAD_MISMATCH``), θ of the positive body
in canonical order is the premise list (``BODY_MISMATCH``) and every NAF atom is absent from the
recomputed lower-stratum model (``NAF_VIOLATED``). A ``calc`` edge also recomputes the
registered function (``CALC_MISMATCH``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from cotaudit.certify.core.errors import ComputationCap, ProgramError, ResourceCap
from cotaudit.certify.lang import calculators
from cotaudit.certify.lang.grammar import DEFAULT_LIMITS
from cotaudit.certify.lang.parse import parse_literal
from cotaudit.certify.lang.syntax import (
    Const,
    Fact,
    Literal,
    NormalForm,
    Rule,
    Unit,
    Var,
    canonical_number,
    normal_form,
    substitute,
)
from cotaudit.certify.proof.kernelview import KernelView
from cotaudit.certify.proof.naive import NaiveModel, naive_evaluate

Issue = tuple[str, str]

_SYMBOL = re.compile(r"[a-z][A-Za-z0-9_]*")
_ARGUMENT = re.compile(r"[a-z][A-Za-z0-9_]*|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?")
_NOT_CANONICAL = (False, "", False)  # (negated, predicate, plain): a head the grammar must read


class LiteralReader:
    """``grammar.parse_literal(text, skolem=True)`` for the rechecker, fast on canonical text.

    Certificates write facts and constants in canonical form (``p(a,1.5)``, no spaces), and a
    10⁵-node certificate has 10⁵ facts and ~3·10⁵ substitution values to read: going through
    the grammar for each was the largest cost of a recheck (C-115). Text made of a plain
    predicate and symbol/number arguments is read here under exactly the conditions of the
    parser's own fast path (``parse._fast_fact``: the predicate is a name other than
    ``not``, identifiers within ``max_ident``, at most ``max_args`` arguments, numbers in
    plain decimal notation, canonicalised as the grammar does), predicates and constants
    memoised within the call; any other
    text (strings, skolem constants, spacing, errors) goes to ``parse_literal`` itself. Either
    way the literal is the one the grammar gives (tests/certify/proof/test_recheck_speed.py compares
    them on edge cases). One reader per recheck call.
    """

    def __init__(self) -> None:
        self._heads: dict[str, tuple[bool, str, bool]] = {}
        self._args: dict[str, Const] = {}
        self._consts: dict[str, Const | None] = {}
        self.max_ident = DEFAULT_LIMITS.max_ident
        self.max_args = DEFAULT_LIMITS.max_args

    def _head(self, head: str) -> tuple[bool, str, bool]:
        """(negated, predicate, plain) of ``-pred`` / ``pred``; plain=False: not a fast case."""
        neg = head.startswith("-")
        pred = head[1:] if neg else head
        if pred == "not" or len(pred) > self.max_ident or _SYMBOL.fullmatch(pred) is None:
            return _NOT_CANONICAL
        return (neg, pred, True)

    def _arg(self, part: str) -> Const | None:
        """The constant of one canonical argument text, or None if the grammar must decide."""
        const = self._args.get(part)
        if const is None:
            if _ARGUMENT.fullmatch(part) is None:
                return None
            if part[0].isalpha():
                if len(part) > self.max_ident:
                    return None
                const = Const("sym", part)
            else:
                const = Const("num", canonical_number(part))
            self._args[part] = const
        return const

    def literal(self, text: str) -> tuple[Literal, bool]:
        """(literal, known ground). Raises :class:`ProgramError` as ``parse_literal`` does."""
        head, paren, rest = text.partition("(")
        info = self._heads.get(head)
        if info is None:
            info = self._heads[head] = self._head(head)
        neg, pred, plain = info
        if plain:
            # tuple.__new__ builds the named tuple without its Python-level __new__ (a third
            # of the cost of reading a fact); the fields are exactly Literal(pred, neg, args)
            if not paren:
                return tuple.__new__(Literal, (pred, neg, ())), True
            if rest.endswith(")"):
                parts = rest[:-1].split(",")
                if len(parts) <= self.max_args:
                    known = self._args
                    args: list[Const] = []
                    for part in parts:
                        const = known.get(part) or self._arg(part)
                        if const is None:
                            break
                        args.append(const)
                    else:
                        return tuple.__new__(Literal, (pred, neg, tuple(args))), True
        lit = parse_literal(text, skolem=True)
        return lit, lit.ground

    def constant(self, text: Any) -> Const | None:
        """The constant ``text`` denotes as the argument of a literal (``c(text)``), or None."""
        const = self._args.get(text) if isinstance(text, str) else None
        if const is not None:
            return const
        if not isinstance(text, str):
            return None
        if text in self._consts:
            return self._consts[text]
        const = self._arg(text)
        if const is None:
            try:
                lit = parse_literal(f"c({text})", skolem=True)
                arg = lit.args[0] if lit.arity == 1 else None
                const = arg if isinstance(arg, Const) else None
            except ProgramError:
                const = None
        self._consts[text] = const
        return const


# A literal with its variables replaced by canonical names: (pred, neg, getter, ((canonical
# variable or None, the argument itself), …)); ``_instance`` grounds it from canonical-name
# bindings. ``getter`` (an itemgetter, when every argument is a variable and there are at
# least two) builds the argument tuple in one C call.
_Template = tuple[
    str, bool, Callable[[Mapping[str, Const]], tuple[Const, ...]] | None, tuple[tuple[str | None, Any], ...]
]


@dataclass(frozen=True, slots=True)
class _Compiled:
    """What every edge of one rule is checked against, computed once per recheck."""

    rule: Rule
    nf: NormalForm
    wanted: frozenset[str]  # the canonical variables a substitution must bind
    rename: tuple[tuple[str, str], ...]  # (rule variable, canonical variable)
    head: _Template
    body: tuple[_Template, ...]  # the positive body in canonical order
    negative: tuple[Literal, ...]


def _template(lit: Literal, rename: Mapping[str, str]) -> _Template:
    slots = tuple((rename.get(a.name), a) if isinstance(a, Var) else (None, a) for a in lit.args)
    names = [c for c, _ in slots if c is not None]
    getter = itemgetter(*names) if len(names) == len(slots) >= 2 else None
    return (lit.pred, lit.neg, getter, slots)


def _instance(template: _Template, values: Mapping[str, Const]) -> Literal:
    """θ(lit) for a compiled literal: ``substitute`` without per-argument name look-ups (an
    unbound variable stays itself, as in ``substitute``)."""
    pred, neg, getter, slots = template
    args = (
        getter(values) if getter is not None else tuple([values[c] if c is not None else a for c, a in slots])
    )
    return tuple.__new__(Literal, (pred, neg, args))  # Literal(pred, neg, args), minus __new__


class EdgeChecker:
    """Verifies edges against one kernel view (+ overlay), caching what repeats."""

    def __init__(
        self, kernel: KernelView, overlay: Mapping[int, Unit], reader: LiteralReader | None = None
    ) -> None:
        self.kernel = kernel
        self.overlay = overlay
        self.reader = reader or LiteralReader()
        self._nf: dict[int, NormalForm] = {}
        self._compiled: dict[int, _Compiled] = {}
        self._model: NaiveModel | None = None
        # Why a check could not be decided (the lower-stratum model met a work bound), if one
        # could not: the certificate is then neither accepted nor rejected by those checks.
        self.undecided: str | None = None

    def constant(self, text: Any) -> Const | None:
        return self.reader.constant(text)

    def lower_model(self) -> NaiveModel:
        """The model of the kernel and overlay, recomputed (it contains every lower stratum).

        Raises :class:`~cotaudit.certify.core.errors.ComputationCap` past the reference evaluator's
        bounds (see :meth:`_judged`)."""
        if self._model is None:
            units = [u for _, u in sorted(self.kernel.units.items())]
            facts = [u for _, u in sorted(self.overlay.items()) if isinstance(u, Fact)]
            self._model = naive_evaluate(units, facts)
        return self._model

    def rule(self, edge: Mapping[str, Any]) -> tuple[Rule, NormalForm] | None:
        uid = edge.get("rule_unit_id")
        unit = self.kernel.units.get(uid) if isinstance(uid, int) and not isinstance(uid, bool) else None
        if not isinstance(unit, Rule) or unit.key != edge.get("rule_key"):
            return None
        assert isinstance(uid, int)
        nf = self._nf.get(uid)
        if nf is None:
            nf = self._nf[uid] = normal_form(unit)
        return unit, nf

    def _compile(self, edge: Mapping[str, Any]) -> _Compiled | None:
        """The rule of ``edge`` (in the kernel view with the stated key), compiled once per id."""
        uid = edge.get("rule_unit_id")
        got = self._compiled.get(uid) if isinstance(uid, int) and not isinstance(uid, bool) else None
        if got is not None:
            return got if got.rule.key == edge.get("rule_key") else None
        found = self.rule(edge)
        if found is None:
            return None
        rule, nf = found
        assert isinstance(uid, int)
        got = self._compiled[uid] = _Compiled(
            rule,
            nf,
            frozenset(nf.rename.values()),
            tuple(nf.rename.items()),
            _template(rule.head, nf.rename),
            tuple(_template(rule.body[i].lit, nf.rename) for i in nf.body_order if not rule.body[i].naf),
            rule.negative,
        )
        return got

    def verify(self, fact: Literal, edge: Mapping[str, Any], premises: Sequence[Literal]) -> list[Issue]:
        """Every issue of one edge (empty when it verifies)."""
        compiled = self._compile(edge)
        if compiled is None:
            missing = (
                "RULE_NOT_IN_KERNEL",
                f"rule unit {edge.get('rule_unit_id')!r} with this key is not in the kernel",
            )
            return [missing, *self._stated_naf(edge)]
        rule = compiled.rule
        subst = edge.get("subst")
        wanted = compiled.wanted
        if not isinstance(subst, dict) or subst.keys() != wanted:
            return [("BAD_SUBSTITUTION", f"the substitution must bind exactly {', '.join(sorted(wanted))}")]
        constant = self.reader.constant
        values: dict[str, Const] = {}  # canonical variable → constant
        for canon, text in subst.items():
            value = constant(text)
            if value is None:
                for _, first in compiled.rename:  # report the first in rename order
                    if constant(subst[first]) is None:
                        return [("BAD_SUBSTITUTION", f"{first} is bound to {subst[first]!r}, not a constant")]
            values[canon] = value  # type: ignore[assignment]
        issues: list[Issue] = []
        head = _instance(compiled.head, values)
        if head != fact:
            issues.append(("HEAD_MISMATCH", f"θ(head) = {head.text()}, not {fact.text()}"))
        body = [_instance(t, values) for t in compiled.body]
        if list(premises) != body:
            shown = ", ".join(b.text() for b in body)
            issues.append(("BODY_MISMATCH", f"[{rule.label}] needs {shown} (canonical order)"))
        stated = edge.get("naf", [])
        naf = compiled.negative or stated.__class__ is not list or stated  # else nothing to check
        if naf or rule.calc is not None or edge.get("kind") == "calc":
            theta = {orig: values[canon] for orig, canon in compiled.rename}
            if naf:
                issues += self._naf(rule, theta, edge)
            issues += self._calc(rule, theta, edge)
        return issues

    def _naf(self, rule: Rule, theta: dict[str, Const], edge: Mapping[str, Any]) -> list[Issue]:
        atoms = [substitute(lit, theta) for lit in rule.negative]
        stated = edge.get("naf", [])
        if not isinstance(stated, list) or sorted(map(str, stated)) != sorted(a.text() for a in atoms):
            return [("NAF_VIOLATED", "the listed NAF checks are not θ of the rule's NAF literals")]
        if not atoms:
            return []
        return self._judged(atoms)

    def _judged(self, atoms: Sequence[Literal]) -> list[Issue]:
        """``NAF_VIOLATED`` for each atom that holds in the lower model. When that model cannot be
        computed within a work bound the checks are not judged (``undecided``) — never failed;
        a time or memory bound (:class:`ResourceCap`) propagates to the caller."""
        try:
            model = self.lower_model()
        except ResourceCap:
            raise
        except ComputationCap as exc:
            self.undecided = f"the NAF checks need the lower-stratum model, which {exc.what}"
            return []
        return [
            ("NAF_VIOLATED", f"not {a.text()} fails: {a.text()} holds") for a in atoms if model.contains(a)
        ]

    def _stated_naf(self, edge: Mapping[str, Any]) -> list[Issue]:
        """The edge's recorded NAF checks that fail under this kernel, judged without the rule
        (which is gone): every failure is reported, not only the first (C-32)."""
        stated = edge.get("naf")
        if not isinstance(stated, list) or not stated:
            return []
        atoms: list[Literal] = []
        for text in stated:
            try:
                if not isinstance(text, str):
                    raise ProgramError("PARSE_ERROR", "not a string")
                atoms.append(parse_literal(text))
            except ProgramError:
                return [("NAF_VIOLATED", f"the listed NAF check {text!r} is not a literal")]
        return self._judged(atoms)

    def _calc(self, rule: Rule, theta: dict[str, Const], edge: Mapping[str, Any]) -> list[Issue]:
        kind = edge.get("kind")
        if rule.calc is None:
            return (
                [("CALC_MISMATCH", "a calc edge for a rule without a calc clause")] if kind == "calc" else []
            )
        calc = rule.calc
        if kind != "calc" or edge.get("fn") != calc.fn or edge.get("version") != calc.version:
            return [("CALC_MISMATCH", f"the edge must be a calc edge of {calc.fn}@{calc.version}")]
        inputs = [theta[v] for v in calc.inputs]
        if edge.get("inputs") != [c.text() for c in inputs]:
            return [("CALC_MISMATCH", "the stated inputs are not θ of the calc inputs")]
        try:
            outcome = calculators.run(calc.fn, calc.version, inputs)
        except calculators.CalcDomainError as exc:
            return [("CALC_MISMATCH", f"recomputation fails: {exc}")]
        if outcome.output != theta[calc.out] or edge.get("output") != outcome.output.text():
            return [("CALC_MISMATCH", f"{calc.fn}@{calc.version} gives {outcome.output.text()}")]
        return []
