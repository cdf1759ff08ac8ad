"""The semantic pass (TE-42): one walk in line order over GIVEN, EQ, CHECK and ANS lines.

Per expression the stages run parse (E013) → limits (E014) → names (E004/E003) → units
(E009/E005) → values (E006/E007/E011) → W001, and an expression stops at its first failing
stage. Root causes are reported once (TE-31/32): an expression that depends on something
already reported is *poisoned* and stays silent.
"""

from __future__ import annotations

import contextlib
import difflib
from collections.abc import Callable
from fractions import Fraction
from typing import Any, NoReturn

from cotaudit.te import compare, expr, ir
from cotaudit.te import symbolic as sym
from cotaudit.te.config import Diagnostic, LintConfig
from cotaudit.te.evaluate import Evaluator, UserFunction
from cotaudit.te.grammar import Decl, Line
from cotaudit.te.ir import Node
from cotaudit.te.numeric import EvalError, LimitError, NeedsSymbolic, Poisoned, approx_fraction
from cotaudit.te.scope import BELIEF, POISON, TRUTH, Binding, EvalFailure, Scope, Slot, usable
from cotaudit.te.unitcheck import DimensionError, UnitEnv, UnitT, derivation, known, unit_of
from cotaudit.te.units import UnitSyntaxError, UnitVec, format_unit, parse_unit


class LineAbort(Exception):
    """Stop processing the current line (its one diagnostic has been reported)."""


class Prescan:
    """What the semantic pass must know about the whole trace before it starts."""

    def __init__(self) -> None:
        self.symbol_lines: dict[str, int] = {}  # first line binding each symbol
        self.ids: dict[str, tuple[int, str]] = {}  # first definition of each bracket ID
        self.bound_names: set[str] = set()  # for TE-19 constant shadowing
        # False when the trace declares no unit anywhere: every unit is then unknown, so the
        # unit stage (E005/E009) cannot fire and is skipped (TE-39's gradual typing).
        self.has_units = True


def fmt(v: Any) -> str:
    return sym.text(v)


def approx_text(v: Any) -> str | None:
    """Ten significant digits for non-integers (evidence ``*_approx``)."""
    if isinstance(v, Fraction):
        return None if v.denominator == 1 else approx_fraction(v)
    if sym.free_symbols(v) or getattr(v, "is_Integer", False):
        return None
    try:
        return str(sym.guarded(lambda: sym.sympy().N(v, 10), counted=False))
    except Exception:  # pragma: no cover - evidence only
        return None


class Semantic:
    """Runs the semantic pass and collects diagnostics through ``emit``."""

    def __init__(
        self,
        config: LintConfig,
        prescan: Prescan,
        *,
        symbolic: bool,
        symbolic_fallback: bool,
        emit: Callable[[Diagnostic], None],
    ) -> None:
        self.config = config
        self.pre = prescan
        self.scope = Scope(symbolic)
        self.symbolic_fallback = symbolic_fallback  # worker failed: symbolic work → E014 once
        self.symbolic_reported = False
        self.emit_raw = emit
        shadowed = prescan.bound_names & ir.SHADOWABLE_CONSTANTS
        self.constants = ir.CONSTANTS - shadowed
        self.evaluator = Evaluator(config.limits, symbolic, self.constants)
        self.undeclared: dict[str, dict[str, Any]] = {}  # name -> evidence of its one E004
        self.v_entries: list[tuple[Any, int, UnitT, int]] = []  # (value, world, unit, line)
        self.has_eq = False
        self.constraints: list[tuple[int, tuple[str, ...], list[Slot]]] = []
        self.goal_unit: UnitVec | None = None
        self.ln: Line | None = None
        self.dimension_error = False
        # The ANS line's value as the trace states it (details.answer; rewards compare it with gold).
        self.answer: dict[str, str] | None = None
        self._unit_envs = (self._make_unit_env(TRUTH), self._make_unit_env(BELIEF))

    # -- reporting -------------------------------------------------------------------------
    def emit(self, code: str, col: int | None, message: str, **evidence: Any) -> None:
        ln = self.ln
        assert ln is not None
        fallback = evidence.pop("_fallback", None)
        if not self.config.enabled(code):
            if fallback is None or not self.config.enabled(fallback):
                return
            evidence = {"fallback_for": code, **evidence}
            code = fallback
        column = None if col is None else col + 1
        ev = {"column": column, **evidence}
        self.emit_raw(
            Diagnostic(code, ln.no, column, message, tag=ln.tag, id=ln.id, evidence=tuple(ev.items()))
        )

    def malformed(self, col: int, message: str, reason: str, fragment: str) -> NoReturn:
        """TE_E013 for the line, which is then not evaluated (its target is poisoned)."""
        self.emit("TE_E013", col, message, reason=reason, fragment=fragment)
        raise LineAbort()

    def owner(self) -> str:
        """The rule that owns evaluation errors and fallbacks on this line (TE-26, TE-45)."""
        tag = self.ln.tag if self.ln else None
        return {"CHECK": "TE_E007", "ANS": "TE_E011"}.get(tag or "", "TE_E006")

    def worlds(self) -> tuple[int, ...]:
        return (TRUTH, BELIEF) if self.scope.diverged else (TRUTH,)

    def both(self, per_world: dict[int, Any]) -> list[Any]:
        """Expand a per-world result to both worlds (belief = truth until they diverge)."""
        t = per_world[TRUTH]
        return [t, per_world.get(BELIEF, t)]

    # -- stage 1: parse --------------------------------------------------------------------
    def parse(self, text: str, mode: expr.Mode, col: int) -> Node:
        try:
            return expr.parse(text, mode, self.scope.function_key)
        except expr.ExprError as err:
            ev: dict[str, Any] = {"reason": err.reason, "fragment": err.fragment}
            if err.code == "TE_E014":
                ev = {"limit": err.limit, "value": err.value, "reason": err.reason}
            self.emit(err.code, col + err.pos, err.reason, **ev)
            raise LineAbort() from None

    def parse_unit_text(self, text: str | None, col: int) -> UnitVec | None:
        if text is None:
            return None
        try:
            return parse_unit(text)
        except UnitSyntaxError as err:
            self.malformed(col + err.offset, f"bad unit [{text}]: {err.reason}", err.reason, text)

    # -- stage 3: names --------------------------------------------------------------------
    def refs(self, node: Node, local: frozenset[str] = frozenset()) -> list[ir.Name | ir.Attr]:
        """Every symbol and ``ID.value`` reference, left to right (Sum indices are local)."""
        out: list[ir.Name | ir.Attr] = []
        stack: list[tuple[Node, frozenset[str]]] = [(node, local)]
        while stack:
            n, loc = stack.pop()
            if isinstance(n, ir.Name):
                if n.id not in loc and n.id not in self.constants:
                    out.append(n)
            elif isinstance(n, ir.Attr):
                out.append(n)
            elif isinstance(n, ir.Big):
                stack += [(n.body, loc | {n.index}), (n.hi, loc), (n.lo, loc)]
            elif not isinstance(n, ir.Num):
                stack.extend((c, loc) for c in reversed(ir.children(n)))
        return out

    def names_ok(self, node: Node, col: int, local: frozenset[str] = frozenset()) -> bool:
        """E004/E003 for every reference; False when the expression is poisoned."""
        ok = True
        assert self.ln is not None
        for ref in self.refs(node, local):
            if isinstance(ref, ir.Attr):
                ok = self.attr_ok(ref, col) and ok
            elif isinstance(ref, ir.Name):
                ok = self.name_ok(ref, col) and ok
        return ok

    def name_ok(self, ref: ir.Name, col: int) -> bool:
        assert self.ln is not None
        b = self.scope.current(ref.id)
        reason = None
        if b is not None and b.kind == "doc":
            reason = "documentation entry, not a value"
        elif b is not None and b.kind == "function":
            reason = "a function, not a value; call it"
        elif b is not None:
            return True
        prior = self.undeclared.get(ref.id)
        if prior is not None:
            prior["also_used_at"].append(self.ln.no)
            return False
        evidence: dict[str, Any] = {"symbol": ref.id}
        later = self.pre.symbol_lines.get(ref.id)
        if b is None and later is not None and later >= self.ln.no:
            evidence["defined_at"] = later
        scope_names = sorted(n for n, vs in self.scope.versions.items() if vs and vs[-1].kind not in ("doc",))
        evidence["suggestions"] = difflib.get_close_matches(ref.id, scope_names, n=3, cutoff=0.8)
        evidence["also_used_at"] = []
        if reason is not None:
            evidence["reason"] = reason
        self.undeclared[ref.id] = evidence
        msg = f"symbol '{ref.id}' is not declared"
        if reason is not None:
            msg = f"'{ref.id}' is {reason}" if reason.startswith("a ") else f"'{ref.id}' is a {reason}"
        elif "defined_at" in evidence:
            msg += f" before this line (it is bound at line {evidence['defined_at']})"
        if evidence["suggestions"]:
            msg += f"; did you mean '{evidence['suggestions'][0]}'?"
        self.emit("TE_E004", col + ref.pos, msg, _fallback=self.owner(), **evidence)
        return False

    def attr_ok(self, ref: ir.Attr, col: int) -> bool:
        assert self.ln is not None
        first = self.pre.ids.get(ref.id)
        evidence: dict[str, Any] = {"ref": f"{ref.id}.{ref.attr}"}
        if first is None:
            evidence["reason"] = "undefined"
            msg = f"{ref.id}.{ref.attr} refers to no ID"
        elif first[0] >= self.ln.no:
            evidence.update(reason="forward", defined_at=first[0])
            msg = f"{ref.id}.{ref.attr} refers forward to line {first[0]}"
        elif first[1] != "EQ":
            evidence["reason"] = "wrong-kind"
            msg = f"{ref.id} is a {first[1]}; only EQ IDs have .{ref.attr}"
        else:
            return True
        self.emit("TE_E003", col + ref.pos, msg, _fallback=self.owner(), **evidence)
        return False

    # -- stage 4: units --------------------------------------------------------------------
    def unit_env(self, world: int) -> UnitEnv:
        """The unit lookups of one world (built once; they read the scope lazily)."""
        return self._unit_envs[world]

    def _make_unit_env(self, world: int) -> UnitEnv:
        view = self.scope.view(world)

        def constant_exponent(node: Node) -> Fraction | None:
            try:
                v = self.evaluator.value(node, view)
            except (Poisoned, EvalError, LimitError, NeedsSymbolic):
                return None
            return v if isinstance(v, Fraction) else None

        def function_unit(name: str) -> UnitT:
            b = self.scope.current(name)
            return None if b is None else b.units[TRUTH]

        return UnitEnv(view.name_unit, view.attr_unit, function_unit, constant_exponent, self.constants)

    def units(self, node: Node, col: int) -> list[UnitT]:
        """Per-world units of one expression; E009 when it is inconsistent in every world."""
        if not self.pre.has_units:
            return [None, None]
        if not self.scope.diverged:
            try:
                u = unit_of(node, self._unit_envs[TRUTH])
                return [u, u]
            except DimensionError:
                pass  # reported below, with the same code path as two worlds
        results: dict[int, UnitT] = {}
        errors: dict[int, DimensionError] = {}
        for w in self.worlds():
            try:
                results[w] = unit_of(node, self.unit_env(w))
            except DimensionError as dim_err:
                errors[w] = dim_err
                results[w] = None
        if errors and len(errors) == len(self.worlds()):
            err = errors[TRUTH] if TRUTH in errors else next(iter(errors.values()))
            self.emit(
                "TE_E009",
                col + node.pos,
                err.reason,
                subexpression=err.subexpression,
                operator=err.operator,
                left_unit=err.left,
                right_unit=err.right,
            )
            self.dimension_error = True
        return self.both(results)

    # -- stage 5: values -------------------------------------------------------------------
    def value(self, node: Node, world: int) -> Slot:
        """Evaluate in one world; evaluation errors become EvalFailure, poison POISON."""
        try:
            return self.evaluator.value(node, self.scope.view(world))
        except Poisoned:
            return POISON
        except EvalError as err:
            return EvalFailure(err.reason)
        except NeedsSymbolic:
            if not self.symbolic_fallback:
                raise
            if not self.symbolic_reported:
                self.symbolic_reported = True
                self.emit(
                    "TE_E014",
                    None,
                    "symbolic evaluation did not finish within the trace budget",
                    limit="trace_time",
                    value=str(self.config.limits.trace_timeout),
                )
            return POISON
        except sym.SymbolicTimeout:
            self.emit(
                "TE_E014",
                None,
                "a SymPy call exceeded its time budget",
                limit="sympy_time",
                value=str(self.config.limits.sympy_timeout),
            )
            raise LineAbort() from None
        except LimitError as err:
            self.emit("TE_E014", None, err.reason, limit=err.limit, value=err.value)
            raise LineAbort() from None

    def values(self, node: Node) -> list[Slot]:
        if not self.scope.diverged:  # one world until the first discrepancy (TE-31)
            v = self.value(node, TRUTH)
            return [v, v]
        return [self.value(node, TRUTH), self.value(node, BELIEF)]

    def add_v(self, v: Slot, world: int, unit: UnitT) -> None:
        if usable(v):
            assert self.ln is not None
            self.v_entries.append((v, world, unit, self.ln.no))

    # -- GIVEN ------------------------------------------------------------------------------
    def declaration(self, decl: Decl) -> None:
        ln = self.ln
        assert ln is not None
        name = decl.name
        if name in ir.RESERVED or name.startswith("__"):
            self.malformed(decl.name_col, f"'{name}' is reserved and cannot be declared", "reserved", name)
        existing = self.scope.current(name)
        if decl.kind == "doc":
            b = Binding(name, "doc", ln.no, ln.block_path, text=decl.value)
            self._declare(existing, b, decl)
            return
        if decl.kind == "function":
            self._function(decl, existing)
            return
        unit = self.parse_unit_text(decl.unit, decl.unit_col)
        if decl.kind == "param":
            b = Binding(name, "param", ln.no, ln.block_path, param=True, assumptions=decl.assumptions)
            b.units = [unit, unit]
            self._declare(existing, b, decl)
            return
        node = self.parse(decl.value, "expr", decl.value_col)
        if not self.names_ok(node, decl.value_col):
            self._declare(existing, Binding(name, "given", ln.no, ln.block_path, units=[unit, unit]), decl)
            return
        self.dimension_error = False
        computed = self.units(node, decl.value_col)
        if unit is not None and not self.dimension_error:
            self.check_declared_unit(unit, computed, node, decl.value_col)
        vals = self.values(node)
        self.report_eval_failure(vals, decl.value_col)
        units = [self._binding_unit(computed[w], unit, w) for w in (TRUTH, BELIEF)]
        self._declare(
            existing, Binding(name, "given", ln.no, ln.block_path, values=list(vals), units=units), decl
        )

    def _binding_unit(self, computed: UnitT, declared: UnitVec | None, world: int) -> UnitT:
        """Truth unit = computed (else declared); belief unit = declared (else computed)."""
        c = known(computed)
        if world == TRUTH:
            return c if c is not None else declared
        return declared if declared is not None else c

    def _declare(self, existing: Binding | None, b: Binding, decl: Decl) -> None:
        assert self.ln is not None
        if existing is None or existing.kind not in ("given", "param", "doc", "function"):
            self.scope.bind(b)
            return
        same = existing.kind == b.kind and (
            (b.kind == "doc" and existing.text == b.text)
            or (b.kind == "param" and existing.assumptions == b.assumptions)
            or (b.kind == "given" and self._equal_everywhere(existing.values, b.values))
        )
        if same:
            return
        if b.kind == "given" and not any(usable(v) for v in b.values):
            return  # the new value is poisoned: its own cause is already reported
        first, second = existing.values[TRUTH], b.values[TRUTH]
        self.emit(
            "TE_E006",
            decl.value_col if decl.value_col >= 0 else decl.name_col,
            f"'{decl.name}' is redeclared with a different value (first declared at line {existing.line})",
            kind="contradiction",
            expression=decl.value,
            expected=fmt(first) if usable(first) else None,
            claimed=fmt(second) if usable(second) else decl.value,
            bound_at=existing.line,
        )

    def _equal_everywhere(self, a: list[Slot], b: list[Slot]) -> bool:
        for w in (TRUTH, BELIEF):
            if usable(a[w]) and usable(b[w]) and compare.equal(a[w], b[w], *self.eps()).value is True:
                return True
        return False

    def eps(self) -> tuple[Fraction, Fraction]:
        return self.config.eps_rel, self.config.eps_abs

    def _function(self, decl: Decl, existing: Binding | None) -> None:
        try:
            self._function_body(decl, existing)
        finally:
            self.scope.declare_function(decl.name, len(decl.params))

    def _function_body(self, decl: Decl, existing: Binding | None) -> None:
        ln = self.ln
        assert ln is not None
        unit = self.parse_unit_text(decl.unit, decl.unit_col)
        node = self.parse(decl.value, "expr", decl.value_col)
        params = frozenset(decl.params)
        bad = [p for p in decl.params if p in ir.RESERVED or p.startswith("__")]
        if bad:
            self.malformed(
                decl.value_col, f"'{bad[0]}' is reserved and cannot be a parameter", "reserved", bad[0]
            )
        ok = True
        for ref in self.refs(node, params):
            if isinstance(ref, ir.Attr):
                ok = self.attr_ok(ref, decl.value_col) and ok
            elif isinstance(ref, ir.Name):
                ok = self.name_ok(ref, decl.value_col) and ok
        binding = Binding(decl.name, "function", ln.no, ln.block_path, units=[unit, unit], text=decl.value)
        if existing is not None:
            self._declare(existing, binding, decl)
            return
        self.scope.bind(binding)
        if ok:
            self.scope.functions[decl.name] = UserFunction(decl.name, decl.params, node)

    # -- shared checks ---------------------------------------------------------------------
    def report_eval_failure(self, vals: list[Slot], col: int) -> bool:
        """The owner rule for an expression that fails to evaluate in every world (TE-26)."""
        if not isinstance(vals[TRUTH], EvalFailure) and not isinstance(vals[BELIEF], EvalFailure):
            return False
        worlds = self.worlds()
        fails = [vals[w] for w in worlds if isinstance(vals[w], EvalFailure)]
        if fails and all(isinstance(vals[w], EvalFailure) or vals[w] is POISON for w in worlds):
            reason = fails[0].reason
            code = self.owner()
            self.emit(code, col, f"cannot evaluate: {reason}", kind="undefined", reason=reason)
            return True
        return False

    def check_declared_unit(self, declared: UnitVec, computed: list[UnitT], node: Node, col: int) -> None:
        """E005: a declared unit incompatible with the computed one in every evaluable world."""
        outcomes = []
        for w in self.worlds():
            c = known(computed[w])
            if c is not None:
                outcomes.append(c.compatible(declared))
        if outcomes and not any(outcomes):
            c = known(computed[TRUTH]) or known(computed[BELIEF])
            assert c is not None
            self.unit_mismatch(declared, c, col, node)

    def unit_mismatch(
        self,
        declared: UnitVec,
        computed: UnitVec,
        col: int | None,
        node: Node | None,
        against: str = "computed",
    ) -> None:
        ev: dict[str, Any] = {
            "against": against,
            "declared": format_unit(declared),
            "computed": format_unit(computed),
            "declared_dimensionality": declared.dimensionality(),
            "computed_dimensionality": computed.dimensionality(),
        }
        if declared.dimensionality() == computed.dimensionality():
            # how many computed units one declared unit is: mile vs m gives 1609.344
            ev.update(self.evidence_value("factor", declared.factor / computed.factor))
        if node is not None:
            with contextlib.suppress(DimensionError):  # E009 lines never reach E005
                ev["derivation"] = derivation(node, self.unit_env(TRUTH))
        d_text, c_text = format_unit(declared), format_unit(computed)
        message = f"declared unit {d_text} is incompatible with the {against} unit {c_text}"
        self.emit("TE_E005", col, message, **ev)

    def evidence_value(self, key: str, v: Slot) -> dict[str, Any]:
        if not usable(v):
            return {key: None}
        out: dict[str, Any] = {key: fmt(v)}
        a = approx_text(v)
        if a is not None:
            out[f"{key}_approx"] = a
        return out
