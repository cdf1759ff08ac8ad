"""The reference evaluator (C-28): deliberately simple, no indexes, no interning, no witnesses.

Facts are computed stratum by stratum by naive iteration to the least fixpoint; depths are
then the least solution of ``D(f) = 0`` for base facts and ``1 + max D(premises)`` over every
rule instance (the definition of D_d). Property tests compare the semi-naive executor
against it, and the independent checker uses it to recompute lower strata (NAF) and closure
models, so it must not share code with :mod:`cotaudit.certify.engine.executor`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from cotaudit.certify.core.errors import ComputationCap, ResourceCap
from cotaudit.certify.lang import calculators
from cotaudit.certify.lang.strata import rule_strata
from cotaudit.certify.lang.syntax import Const, Fact, Literal, Rule, Term, Unit, Var, substitute
from cotaudit.limits import checkpoint


@dataclass
class NaiveModel:
    """Every derived fact with its minimum derivation depth."""

    depth: dict[Literal, int] = field(default_factory=dict)

    def contains(self, lit: Literal) -> bool:
        return lit in self.depth

    def facts(self) -> list[Literal]:
        return sorted(self.depth, key=Literal.text)

    def texts(self) -> list[str]:
        return sorted(lit.text() for lit in self.depth)


def _match(pattern: Literal, fact: Literal, theta: dict[str, Const]) -> dict[str, Const] | None:
    if pattern.signature != fact.signature:
        return None
    out = dict(theta)
    for p, v in zip(pattern.args, fact.args, strict=True):
        assert isinstance(v, Const)
        if isinstance(p, Var):
            bound = out.get(p.name)
            if bound is None:
                out[p.name] = v
            elif bound != v:
                return None
        elif p != v:
            return None
    return out


def instances(
    rule: Rule, model: dict[Literal, int], tick: Callable[[], None] = lambda: None
) -> Iterator[tuple[Literal, list[Literal]]]:
    """Every (head, positive premises) instance of ``rule`` over ``model`` (NAF checked against it).

    ``tick`` is called once per fact tried, so a caller can bound the nested loops."""
    facts = list(model)

    def extend(
        i: int, theta: dict[str, Const], premises: list[Literal]
    ) -> Iterator[tuple[Literal, list[Literal]]]:
        positive = rule.positive
        if i == len(positive):
            for lit in rule.negative:
                if substitute(lit, theta) in model:
                    return
            final = dict(theta)
            if rule.calc:
                ins = [final[v] for v in rule.calc.inputs]
                try:
                    final[rule.calc.out] = calculators.run(rule.calc.fn, rule.calc.version, ins).output
                except calculators.CalcDomainError:
                    return
            yield substitute(rule.head, final), list(premises)
            return
        for f in facts:
            tick()
            t = _match(positive[i], f, theta)
            if t is not None:
                yield from extend(i + 1, t, [*premises, f])

    yield from extend(0, {}, [])


def naive_evaluate(
    units: Sequence[Unit],
    overlay: Sequence[Unit] = (),
    *,
    max_depth: int | None = None,
    max_facts: int = 1_000_000,
    timeout_s: float = 60.0,
) -> NaiveModel:
    """The least model of ``units ∪ overlay`` with minimum depths (stratified for NAF)."""
    start = time.monotonic()
    model: dict[Literal, int] = {}
    steps = [0]

    def tick() -> None:  # the nested loops of instances() are where the time goes
        steps[0] += 1
        if steps[0] % 1000 == 0:
            if time.monotonic() - start > timeout_s:
                raise ResourceCap(
                    f"reference evaluator exceeded {timeout_s} s", {"facts": len(model)}, "time"
                )
            checkpoint()

    for u in [*units, *overlay]:
        if isinstance(u, Fact):
            model.setdefault(u.lit, 0)
    rules = [u for u in units if isinstance(u, Rule)]
    strata = rule_strata(rules) if rules else []
    for level in sorted(set(strata)):
        layer = [r for r, s in zip(rules, strata, strict=True) if s == level]
        changed = True
        while changed:
            changed = False
            for rule in layer:
                for head, premises in list(instances(rule, model, tick)):
                    d = 1 + max(model[p] for p in premises)
                    if max_depth is not None and d > max_depth:
                        continue
                    old = model.get(head)
                    if old is None or d < old:
                        model[head] = d
                        changed = True
                if len(model) > max_facts:
                    raise ComputationCap(
                        f"reference evaluator: more than {max_facts} facts", {"facts": len(model)}
                    )
                if time.monotonic() - start > timeout_s:
                    raise ResourceCap(
                        f"reference evaluator exceeded {timeout_s} s", {"facts": len(model)}, "time"
                    )
    return NaiveModel(model)


def ground_text(args: Sequence[Term]) -> str:
    return ",".join(a.text() for a in args)
