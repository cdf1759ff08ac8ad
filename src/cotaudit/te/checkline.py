"""CHECK lines (TE-12, TE-16, TE-17): every claim is recomputed; the model's "yes" is never trusted."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from cotaudit.te import compare, ir
from cotaudit.te.expr import literal_tolerance
from cotaudit.te.grammar import CheckBody
from cotaudit.te.ir import Node
from cotaudit.te.numeric import EvalError
from cotaudit.te.scope import BELIEF, POISON, TRUTH, EvalFailure
from cotaudit.te.semantic import LineAbort, Semantic, fmt
from cotaudit.te.unitcheck import LIT, DimensionError, UnitT, claim_units, unit_of
from cotaudit.te.units import DIMENSIONLESS, UnitVec, format_unit

_UNIT_CLAIM = re.compile(r"\s*(?:[A-Za-z_][A-Za-z0-9_]*\s*\.\s*unit\b|unit\s*\()")
_UREF_ATTR = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*\.\s*unit\s*")
_UREF_CALL = re.compile(r"\s*unit\s*\((.*)\)")  # on rstripped text: ``(.*)\)\s*`` is quadratic


class _Skip(Exception):
    """The claim cannot be evaluated in this world (it depends on a poisoned value)."""


@dataclass(slots=True)
class _Outcome:
    value: bool | None
    failed: dict[str, Any] = field(default_factory=dict)  # evidence of the first false atom
    counterexample: dict[str, str] | None = None


def check_claim(sem: Semantic, body: CheckBody) -> None:
    if _UNIT_CLAIM.match(body.claim):
        if body.kind not in ("unit", "consistency"):
            message = f"a unit claim belongs to CHECK kind unit or consistency, not {body.kind}"
            sem.malformed(body.claim_col, message, "kind", body.claim[:40])
        _unit_claim(sem, body)
        return
    if body.kind == "unit":
        sem.malformed(
            body.claim_col, "CHECK unit needs a unit claim such as `e2.unit == USD`", "kind", body.claim[:40]
        )
    node = sem.parse(body.claim, "claim", body.claim_col)
    if not sem.names_ok(node, body.claim_col):
        return
    errors = []
    for w in sem.worlds():
        try:
            claim_units(node, sem.unit_env(w))
        except DimensionError as dim_err:
            errors.append(dim_err)
    if errors and len(errors) == len(sem.worlds()):
        err = errors[0]
        sem.emit(
            "TE_E009",
            body.claim_col,
            err.reason,
            subexpression=err.subexpression,
            operator=err.operator,
            left_unit=err.left,
            right_unit=err.right,
        )
        return
    outcomes: dict[int, _Outcome | EvalFailure] = {}
    for w in sem.worlds():
        try:
            outcomes[w] = _truth(sem, node, w)
        except _Skip:
            continue
        except EvalError as err:
            outcomes[w] = EvalFailure(err.reason)
    _verdict(sem, body, outcomes)


def _verdict(sem: Semantic, body: CheckBody, outcomes: dict[int, Any]) -> None:
    if not outcomes:
        return
    vals = [o.value if isinstance(o, _Outcome) else False for o in outcomes.values()]
    if any(v is True for v in vals):
        return
    if any(v is None for v in vals):
        sem.emit("TE_W001", body.claim_col, f"claim cannot be decided: {body.claim}", claim=body.claim)
        return
    first = outcomes.get(TRUTH, next(iter(outcomes.values())))
    ev: dict[str, Any] = {"claim": body.claim}
    if isinstance(first, EvalFailure):
        ev["reason"] = first.reason
        sem.emit("TE_E007", body.claim_col, f"CHECK cannot be evaluated: {first.reason}", **ev)
        return
    ev.update(first.failed)
    belief = outcomes.get(BELIEF)
    if isinstance(belief, _Outcome) and belief.failed != first.failed:
        ev.update({f"{k}_belief": v for k, v in belief.failed.items() if k in ("lhs", "rhs", "value")})
    if first.counterexample:
        ev["counterexample"] = first.counterexample
    if "lhs" in first.failed:
        detail = f"{first.failed['lhs']} {first.failed['op']} {first.failed['rhs']} is false"
    else:
        detail = "it is false"
    sem.emit("TE_E007", body.claim_col, f"CHECK {body.claim!r} disagrees with the trace: {detail}", **ev)


def _operand(sem: Semantic, node: Node, world: int) -> Any:
    v = sem.value(node, world)
    if v is POISON:
        raise _Skip()
    if isinstance(v, EvalFailure):
        raise EvalError(v.reason)
    return v


def _truth(sem: Semantic, node: Node, world: int) -> _Outcome:
    if isinstance(node, ir.BoolOp):
        parts = [_truth(sem, v, world) for v in node.values]
        if node.op == "and":
            for p in parts:
                if p.value is False:
                    return p
            return _Outcome(True) if all(p.value for p in parts) else _Outcome(None)
        if any(p.value is True for p in parts):
            return _Outcome(True)
        if all(p.value is False for p in parts):
            return _Outcome(False, parts[0].failed, parts[0].counterexample)
        return _Outcome(None)
    if isinstance(node, ir.Not):
        inner = _truth(sem, node.operand, world)
        if inner.value is None:
            return inner
        return _Outcome(not inner.value, {"claim_part": ir.render(node)})
    if isinstance(node, ir.Pred):
        v = _operand(sem, node.arg, world)
        d = compare.predicate(node.name, v)
        return _Outcome(d.value, {"predicate": node.name, "value": fmt(v)})
    if isinstance(node, ir.Compare):
        return _compare(sem, node, world)
    raise EvalError("not a claim")  # pragma: no cover - the parser only builds claims


def _compare(sem: Semantic, node: ir.Compare, world: int) -> _Outcome:
    operands = [node.first, *node.rest]
    values = [_operand(sem, o, world) for o in operands]
    tol = None
    if node.tol is not None:
        tol = _operand(sem, node.tol, world)
        if not isinstance(tol, Fraction) and (getattr(tol, "free_symbols", None) or not tol.is_number):
            raise EvalError("a tolerance must be a constant")
        if compare.order("<", tol, Fraction(0)).value:
            raise EvalError("a tolerance must be >= 0")
    undecided = False
    for k, op in enumerate(node.ops):
        a, b = values[k], values[k + 1]
        if op == "approx":
            lit = node.rest[k]
            text = lit.text if isinstance(lit, ir.Num) else ir.render(lit)
            if isinstance(lit, ir.Unary) and isinstance(lit.operand, ir.Num):
                text = lit.operand.text
            d = compare.approx(a, b, literal_tolerance(text), sem.config.eps_abs)
        elif op == "==" and tol is not None:
            d = compare.within(a, b, tol)
        elif op == "==":
            d = compare.equal(a, b, *sem.eps())
        elif op == "!=":
            d = compare.equal(a, b, *sem.eps())
            d = compare.Decision(
                None if d.value is None else not d.value, d.counterexample if d.value else None
            )
        else:
            d = compare.order(op, a, b)
        if d.value is False:
            shown = "≈" if op == "approx" else op
            failed: dict[str, Any] = {"lhs": fmt(a), "op": shown, "rhs": fmt(b)}
            if tol is not None:
                failed["tolerance"] = fmt(tol)
            return _Outcome(False, failed, d.counterexample)
        if d.value is None:
            undecided = True
    return _Outcome(None if undecided else True)


# --- unit claims --------------------------------------------------------------------------


def _split_top(text: str) -> tuple[str, str, str, int] | None:
    depth = 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0 and text[i : i + 2] in ("==", "!="):
            return text[:i], text[i : i + 2], text[i + 2 :], i + 2
    return None


def _uref_units(sem: Semantic, text: str, col: int) -> list[UnitT] | None:
    """Per-world units of ``ID.unit`` or ``unit(EXPR)``; None if the text is not a UREF."""
    m = _UREF_ATTR.fullmatch(text)
    if m:
        ref = ir.Attr(m.group(1), "unit", m.start(1))
        if not sem.attr_ok(ref, col):
            raise LineAbort()
        return [sem.scope.view(w).attr_unit(m.group(1)) for w in (TRUTH, BELIEF)]
    m = _UREF_CALL.fullmatch(text.rstrip())
    if m:
        node = sem.parse(m.group(1), "expr", col + m.start(1))
        if not sem.names_ok(node, col + m.start(1)):
            raise LineAbort()
        sem.dimension_error = False
        units = sem.units(node, col + m.start(1))
        if sem.dimension_error:
            raise LineAbort()
        return units
    return None


def _unit_claim(sem: Semantic, body: CheckBody) -> None:
    split = _split_top(body.claim)
    if split is None:
        sem.malformed(
            body.claim_col,
            "a unit claim is `X.unit == UNIT` or `X.unit != UNIT`",
            "unit-claim",
            body.claim[:40],
        )
    left_text, op, right_text, right_off = split
    left = _uref_units(sem, left_text, body.claim_col)
    if left is None:
        message = "the left side of a unit claim must be ID.unit or unit(EXPR)"
        sem.malformed(body.claim_col, message, "unit-claim", left_text[:40])
    right_col = body.claim_col + right_off + (len(right_text) - len(right_text.lstrip()))
    right = _uref_units(sem, right_text, right_col)
    if right is None:
        text = right_text.strip()
        if text.startswith("[") and text.endswith("]"):
            text = text[1:-1]
        u = sem.parse_unit_text(text, right_col)
        assert u is not None
        right = [u, u]
    outcomes: dict[int, Any] = {}
    for w in sem.worlds():
        a, b = _claim_unit(left[w]), _claim_unit(right[w])
        if a is None or b is None:
            outcomes[w] = _Outcome(None)
            continue
        holds = a.compatible(b) == (op == "==")
        outcomes[w] = _Outcome(
            holds,
            {
                "lhs": format_unit(a),
                "op": op,
                "rhs": format_unit(b),
                "lhs_dimensionality": a.dimensionality(),
                "rhs_dimensionality": b.dimensionality(),
            },
        )
    _verdict(sem, body, outcomes)


def _claim_unit(u: UnitT) -> UnitVec | None:
    if u is LIT:
        return DIMENSIONLESS
    return u if isinstance(u, UnitVec) else None


__all__ = ["check_claim", "unit_of"]
