"""EQ lines (TE-11, TE-29, TE-30): definition, assertion, param solution, rebinding, relations."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise
from typing import Any

from cotaudit.te import compare, ir
from cotaudit.te import symbolic as sym
from cotaudit.te.expr import literal_tolerance
from cotaudit.te.grammar import EqBody, Part
from cotaudit.te.ir import Node
from cotaudit.te.numeric import LimitError
from cotaudit.te.scope import BELIEF, POISON, TRUTH, Binding, EqRecord, EvalFailure, Slot, is_live, usable
from cotaudit.te.semantic import Semantic, fmt
from cotaudit.te.unitcheck import UnitT, known
from cotaudit.te.units import format_unit

APPROX_SEPS = ("\u2248", "~=")


@dataclass(slots=True)
class _Expr:
    part: Part
    node: Node
    ok: bool
    units: list[UnitT]
    values: list[Slot]


def check_eq(sem: Semantic, body: EqBody) -> None:
    ln = sem.ln
    assert ln is not None
    target = body.target
    parts = body.parts[1:] if target else body.parts
    seps = body.seps[1:] if target else body.seps
    nodes = [sem.parse(p.text, "expr", p.col) for p in parts]
    declared = sem.parse_unit_text(body.unit, body.unit_col)
    bound: Binding | None = None
    if target is not None:
        if target in ir.RESERVED or target.startswith("__"):
            sem.malformed(
                body.parts[0].col, f"'{target}' is reserved and cannot be an EQ target", "reserved", target
            )
        bound = sem.scope.current(target)
        if bound is not None and bound.kind in ("doc", "function"):
            what = "a documentation entry" if bound.kind == "doc" else "a function"
            sem.malformed(
                body.parts[0].col, f"'{target}' is {what} and cannot be assigned", "not-assignable", target
            )
    sem.has_eq = True
    mode = _mode(sem, body, bound)
    exprs = [
        _Expr(p, n, sem.names_ok(n, p.col), [None, None], [POISON, POISON])
        for p, n in zip(parts, nodes, strict=True)
    ]

    # units
    sem.dimension_error = False
    for e in exprs:
        if e.ok:
            e.units = sem.units(e.node, e.part.col)
    if not sem.dimension_error:
        _consecutive_units(sem, exprs)
    if declared is not None and not sem.dimension_error:
        if mode == "assert" and bound is not None:
            sem.check_declared_unit(declared, list(bound.units), exprs[0].node, exprs[0].part.col)
        elif target is not None:
            sem.check_declared_unit(declared, exprs[0].units, exprs[0].node, exprs[0].part.col)

    # values
    for e in exprs:
        if e.ok:
            e.values = sem.values(e.node)
    reported = False
    for e in exprs:
        if sem.report_eval_failure(e.values, e.part.col):
            reported = True
            break
    if not reported:
        reported = _check_pairs(sem, exprs, seps, mode, bound, target)

    # binding, ID.value record, V
    if target is not None and mode != "assert":
        values = [exprs[0].values[TRUTH], exprs[-1].values[BELIEF]]
        units = [
            sem._binding_unit(exprs[0].units[TRUTH], declared, TRUTH),
            sem._binding_unit(exprs[0].units[BELIEF], declared, BELIEF),
        ]
        param = sem.scope.first_param(target) if mode == "solve" else None
        b = Binding(
            target,
            "solved" if mode == "solve" else "eq",
            ln.no,
            ln.block_path,
            values=values,
            units=units,
            param=param is not None,
            assumptions=param.assumptions if param is not None else (),
        )
        sem.scope.bind(b)
        rec_values, rec_units = values, units
        if mode == "solve" and not reported:
            _recheck_constraints(sem, target, exprs[0].part.col)
    elif target is not None and bound is not None:
        rec_values = [
            bound.values[TRUTH],
            exprs[-1].values[BELIEF] if usable(exprs[-1].values[BELIEF]) else bound.values[BELIEF],
        ]
        rec_units = list(bound.units)
    else:
        rec_values, rec_units = [POISON, POISON], [None, None]
        _record_constraints(sem, exprs)
    if ln.id is not None and sem.pre.ids.get(ln.id, (0, ""))[0] == ln.no:
        rec = EqRecord(ln.no, relation=target is None, values=list(rec_values), units=list(rec_units))
        sem.scope.records[ln.id] = rec
        sem.scope.note_divergence(rec.values, rec.units)
    for w in sem.worlds():
        unit = rec_units[w] if target is not None else None
        for e in exprs:
            sem.add_v(e.values[w], w, unit if target is not None else known(e.units[w]))
        if target is not None:
            sem.add_v(rec_values[w], w, unit)


def _mode(sem: Semantic, body: EqBody, bound: Binding | None) -> str:
    assert sem.ln is not None
    if body.target is None:
        return "relation"
    if body.seps[0] == ":=":
        return "rebind"
    if bound is None:
        return "define"
    if not is_live(bound, sem.ln.block_path):
        return "solve" if bound.param else "define"
    if bound.kind == "param":
        return "solve"
    return "assert"


def _consecutive_units(sem: Semantic, exprs: list[_Expr]) -> None:
    """E009: incompatible known units on consecutive parts, in every evaluable world."""
    for left, right in pairwise(exprs):
        failing = []
        evaluable = 0
        for w in sem.worlds():
            a, b = known(left.units[w]), known(right.units[w])
            if a is not None and b is not None:
                evaluable += 1
                if not a.compatible(b):
                    failing.append((a, b))
        if failing and len(failing) == evaluable:
            a, b = failing[0]
            sem.emit(
                "TE_E009",
                right.part.col,
                f"consecutive parts have incompatible units {format_unit(a)} and {format_unit(b)}",
                subexpression=f"{left.part.text} = {right.part.text}",
                operator="=",
                left_unit=format_unit(a),
                right_unit=format_unit(b),
            )
            sem.dimension_error = True
            return


def _pair_decision(
    sem: Semantic, left: Slot, right: Slot, right_expr: _Expr, sep: str
) -> compare.Decision | None:
    if not usable(left) or not usable(right):
        return None
    if sep in APPROX_SEPS:
        num = right_expr.node
        text = num.text if isinstance(num, ir.Num) else right_expr.part.text
        return compare.approx(left, right, literal_tolerance(text), sem.config.eps_abs)
    return compare.equal(left, right, *sem.eps())


def _check_pairs(
    sem: Semantic,
    exprs: list[_Expr],
    seps: tuple[str, ...],
    mode: str,
    bound: Binding | None,
    target: str | None,
) -> bool:
    """TE_E006 on the first pair that fails in every evaluable world."""
    pairs: list[tuple[list[Slot], str, _Expr, str, str]] = []
    if mode == "assert" and bound is not None and target is not None:
        pairs.append((list(bound.values), target, exprs[0], "=", "contradiction"))
    for k in range(len(exprs) - 1):
        pairs.append((exprs[k].values, exprs[k].part.text, exprs[k + 1], seps[k], "chain"))
    for left, left_text, right_expr, sep, kind in pairs:
        decisions: list[compare.Decision] = []
        symbolic = False
        for w in sem.worlds():
            lv, rv = left[w], right_expr.values[w]
            if (
                mode == "relation"
                and usable(lv)
                and usable(rv)
                and (sym.free_symbols(lv) or sym.free_symbols(rv))
            ):
                symbolic = True
                break
            d = _pair_decision(sem, lv, rv, right_expr, sep)
            if d is not None:
                decisions.append(d)
        if symbolic or not decisions or any(d.value is not False for d in decisions):
            continue
        truth_l, truth_r = left[TRUTH], right_expr.values[TRUTH]
        identity = usable(truth_l) and (sym.free_symbols(truth_l) or sym.free_symbols(truth_r))
        ev: dict[str, Any] = {
            "kind": "identity" if identity and kind == "chain" else kind,
            "expression": left_text,
        }
        ev.update(sem.evidence_value("expected", truth_l if usable(truth_l) else left[BELIEF]))
        ev.update(sem.evidence_value("claimed", truth_r if usable(truth_r) else right_expr.values[BELIEF]))
        if sem.scope.diverged:
            bl, br = left[BELIEF], right_expr.values[BELIEF]
            if usable(bl) and not (usable(truth_l) and compare.equal(bl, truth_l).value):
                ev["expected_belief"] = fmt(bl)
            if usable(br) and not (usable(truth_r) and compare.equal(br, truth_r).value):
                ev["claimed_belief"] = fmt(br)
        if kind == "contradiction" and bound is not None:
            ev["bound_at"] = bound.line
        cex = next((d.counterexample for d in decisions if d.counterexample), None)
        if cex:
            ev["counterexample"] = cex
        ident = f"EQ[{sem.ln.id}]" if sem.ln and sem.ln.id else "EQ"
        if kind == "contradiction":
            msg = (
                f"'{target}' is {ev['expected']} (bound at line {ev.get('bound_at')}) "
                f"but this line gives {ev['claimed']}"
            )
        elif ev["kind"] == "identity":
            where = ", ".join(f"{k} = {v}" for k, v in (cex or {}).items())
            msg = f"{left_text} and {right_expr.part.text} are not identical" + (
                f" (they differ at {where})" if where else ""
            )
        else:
            msg = f"{ident} claims {ev['claimed']} but {left_text} = {ev['expected']}"
        sem.emit("TE_E006", right_expr.part.col, msg, **ev)
        return True
    return False


def _record_constraints(sem: Semantic, exprs: list[_Expr]) -> None:
    """TE-30: relation pairs that still have free params become constraints ``p_i − p_{i+1} = 0``."""
    assert sem.ln is not None
    for left, right in pairwise(exprs):
        ds: list[Slot] = [POISON, POISON]
        any_symbolic = False
        for w in sem.worlds():
            lv, rv = left.values[w], right.values[w]
            if usable(lv) and usable(rv) and (sym.free_symbols(lv) or sym.free_symbols(rv)):
                ds[w] = sym.guarded(_difference, lv, rv)
                any_symbolic = True
        if any_symbolic:
            if not sem.scope.diverged:
                ds[BELIEF] = ds[TRUTH]
            sem.constraints.append((sem.ln.no, sem.ln.block_path, ds))


def _difference(a: Any, b: Any) -> Any:
    return sym.sympy().expand(sym.to_sympy(a) - sym.to_sympy(b))


def _recheck_constraints(sem: Semantic, name: str, col: int) -> None:
    """After a param is solved, re-check every live constraint that became fully numeric."""
    assert sem.ln is not None
    for line, path, ds in sem.constraints:
        if sem.ln.block_path[: len(path)] != path:
            continue
        decisions = []
        residual: Slot = POISON
        for w in sem.worlds():
            d = ds[w]
            if not usable(d) or name not in {str(s) for s in d.free_symbols}:
                continue
            value = _substitute(sem, d, w)
            if value is None:
                continue
            if residual is POISON:
                residual = value
            decisions.append(
                compare.equal(value, Fraction(0), *sem.eps())
                if not isinstance(value, EvalFailure)
                else compare.FALSE
            )
        if decisions and all(d.value is False for d in decisions):
            ev: dict[str, Any] = {"kind": "constraint", "constraint_line": line, "expected": "0"}
            ev.update(sem.evidence_value("claimed", residual))
            sem.emit(
                "TE_E006",
                col,
                f"this value violates the constraint on line {line} (residual {ev['claimed']} != 0)",
                **ev,
            )
            return


def _substitute(sem: Semantic, d: Any, world: int) -> Any:
    """Substitute every solved param; None while a free param remains."""
    subs = {}
    for s in d.free_symbols:
        b = sem.scope.current(str(s))
        if b is None or b.kind != "solved" or not usable(b.values[world]):
            return None
        subs[s] = sym.to_sympy(b.values[world])
    max_bits = sem.config.limits.max_bits
    if not sym.bounded_at(d, subs, max_bits):  # estimate first: d.subs may compute exactly (TE-24)
        raise LimitError(
            "result_bits",
            f"> {max_bits}",
            f"substituting the solved values makes a power exceed 2^{max_bits}",
        )
    value = sym.guarded(lambda: d.subs(subs))
    if value.free_symbols:
        return None
    return sym.normalise(value) if not isinstance(value, Fraction) else value
