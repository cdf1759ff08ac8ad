"""ANS lines (TE-14, TE_E011, the ANS part of TE_E005): is the answer derived, in the right unit?"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from cotaudit.te import compare, ir
from cotaudit.te import symbolic as sym
from cotaudit.te.expr import literal_tolerance
from cotaudit.te.grammar import AnsBody
from cotaudit.te.ir import Node
from cotaudit.te.scope import BELIEF, POISON, TRUTH, EvalFailure, Slot, usable
from cotaudit.te.semantic import Semantic, fmt
from cotaudit.te.unitcheck import UnitT, known
from cotaudit.te.units import UnitVec, format_unit

_ROUNDING = ("round", "floor", "ceil")


def check_answer(sem: Semantic, body: AnsBody) -> None:
    ln = sem.ln
    assert ln is not None
    declared = sem.parse_unit_text(body.unit, body.unit_col)
    node = sem.parse(body.expr, "ans", body.expr_col)
    label_ok = True
    if body.label is not None:
        label_ok = sem.names_ok(ir.Name(body.label, 0), body.label_col)
    components = list(node.items) if isinstance(node, ir.Tup) else [node]
    ok = [sem.names_ok(c, body.expr_col) for c in components]
    sem.dimension_error = False
    no_units: list[UnitT] = [None, None]
    units = [
        sem.units(c, body.expr_col) if good else no_units for c, good in zip(components, ok, strict=True)
    ]

    goal = sem.goal_unit
    if declared is not None and goal is not None and not declared.compatible(goal):
        sem.unit_mismatch(declared, goal, body.unit_col, None, against="goal")
        declared_vs_goal = True
    else:
        declared_vs_goal = False

    if not sem.has_eq:
        sem.emit(
            "TE_E011",
            body.expr_col,
            "the trace has no EQ line, so nothing derives the answer",
            answer=body.expr,
        )
        return
    matched_units: list[list[UnitT]] = []
    stated: list[str | None] = []
    for comp, good, comp_units in zip(components, ok, units, strict=True):
        if not good:
            stated.append(None)
            continue
        vals = sem.values(comp)
        stated.append(fmt(vals[BELIEF]) if usable(vals[BELIEF]) else None)
        if len(stated) == len(components):
            _record_answer(sem, body, stated)
        if all(v is POISON for v in vals):
            continue
        worlds = sem.worlds()
        if all(isinstance(vals[w], EvalFailure) or vals[w] is POISON for w in worlds):
            reason = next(vals[w].reason for w in worlds if isinstance(vals[w], EvalFailure))
            sem.emit(
                "TE_E011",
                body.expr_col + comp.pos,
                f"cannot evaluate the answer: {reason}",
                answer=ir.render(comp),
                reason=reason,
            )
            return
        matches = _matches(sem, comp, vals, body.approx)
        if matches is None:
            _not_derived(sem, body, comp, vals)
            return
        matched_units.append(matches)
        if not sem.dimension_error and not declared_vs_goal:
            _answer_units(sem, body, declared, comp_units, matches)
    if body.label is not None and label_ok and len(components) == 1 and ok[0]:
        _label(sem, body, components[0])


def _record_answer(sem: Semantic, body: AnsBody, stated: list[str | None]) -> None:
    """``details.answer``: the ANS expression and the value the trace states for it (the belief
    world: what the author wrote, which is also the computed value when the trace is clean)."""
    if all(v is not None for v in stated):
        sem.answer = {"expr": body.expr, "value": ", ".join(v for v in stated if v is not None)}
        if body.unit is not None:
            sem.answer["unit"] = body.unit


def _matches(sem: Semantic, comp: Node, vals: list[Slot], approx: bool) -> list[UnitT] | None:
    """Units of the V members the component matches, or None if it matches none."""
    tol = literal_tolerance(comp.text) if approx and isinstance(comp, ir.Num) else None
    inner: list[Slot] | None = None
    if isinstance(comp, ir.Call) and comp.func in _ROUNDING and not comp.user:
        inner = sem.values(comp.args[0])

    def hits(value: Any) -> bool:
        for w in sem.worlds():
            v = vals[w]
            if usable(v):
                if tol is not None:
                    d = compare.approx(value, v, tol, sem.config.eps_abs)
                else:
                    d = compare.equal(v, value, *sem.eps())
                if d.value is True:
                    return True
            if inner is not None and usable(inner[w]) and compare.equal(inner[w], value, *sem.eps()).value:
                return True
        return False

    # Constant members first: they settle almost every answer in microseconds. Members with
    # free parameters need an identity check each, so they are tried only when no constant
    # matched, or when the matched units could still leave an E005 that another match rescues.
    constant = [(value, unit) for value, _w, unit, _l in sem.v_entries if not sym.free_symbols(value)]
    symbolic = [(value, unit) for value, _w, unit, _l in sem.v_entries if sym.free_symbols(value)]
    found: list[UnitT] = [unit for value, unit in constant if hits(value)]
    if found and (not sem.pre.has_units or any(u is None for u in found)):
        return found
    found += [unit for value, unit in symbolic if hits(value)]
    return found if found else None


def _distance(a: Any, b: Any) -> Fraction:
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return abs(a - b)
    try:
        sp = sym.sympy()
        d = sym.guarded(lambda: sp.Abs(sym.to_sympy(a) - sym.to_sympy(b)).evalf(20), counted=False)
        return sym.number_fraction(d)
    except Exception:
        return Fraction(10) ** 30


def _not_derived(sem: Semantic, body: AnsBody, comp: Node, vals: list[Slot]) -> None:
    answer = vals[TRUTH] if usable(vals[TRUTH]) else vals[BELIEF]
    seen: set[tuple[str, int]] = set()
    scored = []
    for value, _w, _u, line in sem.v_entries:
        key = (fmt(value), line)
        if key in seen:
            continue
        seen.add(key)
        scored.append((_distance(value, answer), line, key[0]))
    scored.sort()
    candidates = [{"value": v, "line": line} for _d, line, v in scored[:3]]
    shown = fmt(answer) if usable(answer) else ir.render(comp)
    msg = f"ANS {ir.render(comp)} is not produced by any EQ line"
    if ir.render(comp) != shown:
        msg = f"ANS {ir.render(comp)} = {shown} is not produced by any EQ line"
    if candidates:
        msg += f" (nearest: {candidates[0]['value']} at line {candidates[0]['line']})"
    sem.emit("TE_E011", body.expr_col + comp.pos, msg, answer=shown, candidates=candidates)


def _answer_units(
    sem: Semantic, body: AnsBody, declared: UnitVec | None, comp_units: list[UnitT], matched: list[UnitT]
) -> None:
    """E005 at ANS: the declared unit against the answer's own computed unit and against the
    matched EQ values, then the computed unit against the goal unit."""
    if declared is not None:
        # The general E005 rule: a declared unit incompatible with the computed one in every
        # world where it is known (`ANS: r2 [cent]` when r2 is computed in USD).
        computed_known = [known(comp_units[w]) for w in sem.worlds()]
        outcomes = [u.compatible(declared) for u in computed_known if u is not None]
        if outcomes and not any(outcomes):
            computed = next(u for u in computed_known if u is not None)
            sem.unit_mismatch(declared, computed, body.unit_col, None)
            return
    per_world = [declared if declared is not None else known(comp_units[w]) for w in (TRUTH, BELIEF)]
    ans_unit = per_world[TRUTH] or per_world[BELIEF]
    if (
        ans_unit is not None
        and matched
        and not any(m is None or (isinstance(m, UnitVec) and m.compatible(ans_unit)) for m in matched)
    ):
        other = next(m for m in matched if isinstance(m, UnitVec))
        col = body.unit_col if declared is not None else body.expr_col
        sem.unit_mismatch(ans_unit, other, col, None, against="derived value's")
        return
    goal = sem.goal_unit
    if goal is None:
        return
    outcomes = [u.compatible(goal) for u in (known(comp_units[w]) for w in sem.worlds()) if u is not None]
    if outcomes and not any(outcomes):
        found = known(comp_units[TRUTH]) or known(comp_units[BELIEF])
        assert found is not None
        sem.unit_mismatch(goal, found, body.expr_col, None, against="answer's computed")


def _label(sem: Semantic, body: AnsBody, comp: Node) -> None:
    assert body.label is not None
    label_vals = sem.values(ir.Name(body.label, 0))
    vals = sem.values(comp)
    decided = []
    for w in sem.worlds():
        if usable(label_vals[w]) and usable(vals[w]):
            decided.append(compare.equal(label_vals[w], vals[w], *sem.eps()).value)
    if decided and all(d is False for d in decided):
        lv = label_vals[TRUTH] if usable(label_vals[TRUTH]) else label_vals[BELIEF]
        sem.emit(
            "TE_E011",
            body.label_col,
            f"ANS labels {body.label} = {body.expr}, but {body.label} is {fmt(lv)}",
            answer=body.expr,
            label=body.label,
            label_value=fmt(lv),
        )


__all__ = ["check_answer", "format_unit"]
