"""Edge verification (C-33), shared by ``recheck`` and the derived-mode gate.

A ``rule`` edge verifies when the rule is in the kernel view with the stated key
(``RULE_NOT_IN_KERNEL``), the substitution binds exactly the rule's canonical variables
(``BAD_SUBSTITUTION``), θ(head) is the node's fact (``HEAD_MISMATCH``), θ of the positive body
in canonical order is the premise list (``BODY_MISMATCH``) and every NAF atom is absent from the
recomputed lower-stratum model (``NAF_VIOLATED``). A ``calc`` edge also recomputes the
registered function (``CALC_MISMATCH``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cotaudit.certify import calculators
from cotaudit.certify.errors import ProgramError
from cotaudit.certify.grammar import parse_literal
from cotaudit.certify.kernelview import KernelView
from cotaudit.certify.naive import NaiveModel, naive_evaluate
from cotaudit.certify.normal import NormalForm, normal_form
from cotaudit.certify.syntax import Const, Fact, Literal, Rule, Unit, substitute

Issue = tuple[str, str]


class EdgeChecker:
    """Verifies edges against one kernel view (+ overlay), caching what repeats."""

    def __init__(self, kernel: KernelView, overlay: Mapping[int, Unit]) -> None:
        self.kernel = kernel
        self.overlay = overlay
        self._nf: dict[int, NormalForm] = {}
        self._consts: dict[str, Const | None] = {}
        self._model: NaiveModel | None = None

    def constant(self, text: Any) -> Const | None:
        if not isinstance(text, str):
            return None
        if text not in self._consts:
            try:
                lit = parse_literal(f"c({text})", skolem=True)
                arg = lit.args[0] if lit.arity == 1 else None
                self._consts[text] = arg if isinstance(arg, Const) else None
            except ProgramError:
                self._consts[text] = None
        return self._consts[text]

    def lower_model(self) -> NaiveModel:
        """The model of the kernel and overlay, recomputed (it contains every lower stratum)."""
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

    def verify(self, fact: Literal, edge: Mapping[str, Any], premises: Sequence[Literal]) -> list[Issue]:
        """Every issue of one edge (empty when it verifies)."""
        found = self.rule(edge)
        if found is None:
            missing = (
                "RULE_NOT_IN_KERNEL",
                f"rule unit {edge.get('rule_unit_id')!r} with this key is not in the kernel",
            )
            return [missing, *self._stated_naf(edge)]
        rule, nf = found
        subst = edge.get("subst")
        wanted = set(nf.rename.values())
        if not isinstance(subst, dict) or set(subst) != wanted:
            return [("BAD_SUBSTITUTION", f"the substitution must bind exactly {', '.join(sorted(wanted))}")]
        theta: dict[str, Const] = {}
        for orig, canon in nf.rename.items():
            value = self.constant(subst[canon])
            if value is None:
                return [("BAD_SUBSTITUTION", f"{canon} is bound to {subst[canon]!r}, not a constant")]
            theta[orig] = value
        issues: list[Issue] = []
        if substitute(rule.head, theta) != fact:
            issues.append(
                ("HEAD_MISMATCH", f"θ(head) = {substitute(rule.head, theta).text()}, not {fact.text()}")
            )
        body = [substitute(rule.body[i].lit, theta) for i in nf.body_order if not rule.body[i].naf]
        if list(premises) != body:
            shown = ", ".join(b.text() for b in body)
            issues.append(("BODY_MISMATCH", f"[{rule.label}] needs {shown} (canonical order)"))
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
        model = self.lower_model()
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
        model = self.lower_model()
        return [
            ("NAF_VIOLATED", f"not {a.text()} fails: {a.text()} holds") for a in atoms if model.contains(a)
        ]

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
