"""One pass over a TE trace (TE-42): size caps → classification → structural rules → semantic
pass → E012. :func:`run` is what :func:`cotaudit.te.linter.lint` and the symbolic worker call.
"""

from __future__ import annotations

import cotaudit.limits as budget
from cotaudit.codes import CODES
from cotaudit.gcpause import paused_collector
from cotaudit.te import symbolic as sym
from cotaudit.te.ansline import check_answer
from cotaudit.te.checkline import check_claim
from cotaudit.te.config import Diagnostic, LintConfig
from cotaudit.te.eqline import check_eq
from cotaudit.te.grammar import (
    AnsBody,
    CheckBody,
    Decl,
    EqBody,
    Kind,
    Line,
    Malformed,
    classify,
    leading_binding,
    split_lines,
    split_unit,
)
from cotaudit.te.numeric import LimitError, NeedsSymbolic
from cotaudit.te.result import LintResult
from cotaudit.te.scope import Binding
from cotaudit.te.semantic import LineAbort, Semantic
from cotaudit.te.structure import hedging, parse_bodies, structural
from cotaudit.te.units import UnitSyntaxError, parse_unit

MAX_TRACE_BYTES = 256 * 1024
MAX_LINES = 2_000
MAX_LINE_CHARS = 4_000


def run(text: str, config: LintConfig, *, symbolic: bool, fallback: bool = False) -> LintResult:
    """One pass over the trace; ``symbolic=False`` raises NeedsSymbolic unless ``fallback``.

    Linting allocates many small, short-lived objects and frees them by reference counting;
    the cyclic collector is paused for the pass (and resumed only if it was running), which
    saves its repeated scans of the large, long-lived heap of a warm process.
    """
    with paused_collector():
        return _run(text, config, symbolic=symbolic, fallback=fallback)


def _run(text: str, config: LintConfig, *, symbolic: bool, fallback: bool) -> LintResult:
    sym.reset_counter(config.limits.sympy_timeout)
    diagnostics: list[Diagnostic] = []
    emit = diagnostics.append
    if not isinstance(text, str):  # defensive: the API promises str, but never raise
        text = str(text)
    size = len(text.encode("utf-8", "surrogatepass"))
    raw_lines = split_lines(text)
    if size > MAX_TRACE_BYTES or len(raw_lines) > MAX_LINES:
        limit, value = ("trace_bytes", size) if size > MAX_TRACE_BYTES else ("trace_lines", len(raw_lines))
        emit(
            Diagnostic(
                "TE_E014",
                1,
                None,
                f"trace too large ({limit} = {value}); not analysed",
                evidence=(("column", None), ("limit", limit), ("value", str(value))),
            )
        )
        return _finish(
            diagnostics,
            config,
            {"lines": len(raw_lines), "eq": 0, "check": 0, "open": 0, "symbolic_calls": 0},
        )
    lines = classify(raw_lines, MAX_LINE_CHARS)
    pre = parse_bodies(lines)
    structural(lines, pre, config, emit)
    sem = Semantic(config, pre, symbolic=symbolic, symbolic_fallback=fallback, emit=emit)
    for ln in lines:
        budget.checkpoint()  # the api-level budget stops a long trace between lines
        sem.ln = ln
        try:
            _line(sem, ln)
        except LineAbort:
            _poison_target(sem, ln)
        except (NeedsSymbolic, budget.BudgetExceeded):
            raise
        except LimitError as err:  # a size estimate outside evaluation (comparisons, probe points)
            sem.emit("TE_E014", None, err.reason, limit=err.limit, value=err.value)
            _poison_target(sem, ln)
        except sym.SymbolicTimeout:  # a deadline outside evaluation: still TE_E014, never TE_X001
            sem.emit(
                "TE_E014",
                None,
                "a SymPy call exceeded its time budget",
                limit="sympy_time",
                value=str(config.limits.sympy_timeout),
            )
            _poison_target(sem, ln)
        except RecursionError:
            sem.emit("TE_E014", None, "expression too deeply nested to evaluate", limit="recursion", value="")
            _poison_target(sem, ln)
        except Exception as exc:  # TE-42: one line's bug never takes the trace down
            sem.emit(
                "TE_X001",
                None,
                f"internal error while checking this line ({type(exc).__name__})",
                exception=type(exc).__name__,
            )
            _poison_target(sem, ln)
    hedging(lines, config, emit, text)
    _finalise_undeclared(diagnostics, sem)
    stats = {
        "lines": len(lines),
        "eq": sum(1 for ln in lines if ln.tag == "EQ" and ln.kind is Kind.BRACKET),
        "check": sum(1 for ln in lines if ln.tag == "CHECK" and ln.kind is Kind.BRACKET),
        "open": sum(1 for ln in lines if ln.tag == "OPEN" and ln.kind is Kind.BRACKET),
        "symbolic_calls": sym.calls(),
    }
    return _finish(diagnostics, config, stats, sem.answer)


def _line(sem: Semantic, ln: Line) -> None:
    if ln.skipped:
        if ln.kind is not Kind.BLANK:
            sem.emit(
                "TE_E014",
                None,
                f"line longer than {MAX_LINE_CHARS} characters; not checked",
                limit="line_chars",
                value=str(len(ln.text)),
            )
        raise LineAbort()
    parsed = ln.parsed
    if isinstance(parsed, Malformed):
        if ln.tag != "RESOLVE":  # RESOLVE shapes are reported with the block rules
            sem.emit("TE_E013", parsed.col, parsed.reason, reason=parsed.reason, fragment=parsed.fragment)
        raise LineAbort()
    if ln.kind is Kind.BRACKET and ln.id is None:
        raise LineAbort()  # invalid ID: E013 already, the line is not evaluated
    if isinstance(parsed, Decl):
        sem.declaration(parsed)
    elif ln.kind is Kind.HEADER and ln.tag == "GOAL":
        _goal(sem, ln)
    elif isinstance(parsed, EqBody):
        check_eq(sem, parsed)
    elif isinstance(parsed, CheckBody):
        check_claim(sem, parsed)
    elif isinstance(parsed, AnsBody):
        check_answer(sem, parsed)
    elif ln.kind is Kind.HEADER and ln.tag == "GIVEN" and ln.body.strip():
        pass  # a malformed inline declaration was reported above


def _goal(sem: Semantic, ln: Line) -> None:
    """TE-9: GOAL is never evaluated; a trailing [unit] that parses is the goal unit."""
    _rest, unit, _col = split_unit(ln.body)
    if unit is None or sem.goal_unit is not None:
        return
    try:
        sem.goal_unit = parse_unit(unit)
    except UnitSyntaxError:
        sem.goal_unit = None  # free-text GOAL: no diagnostic (TE-9)


def _poison_target(sem: Semantic, ln: Line) -> None:
    """TE-3a / TE_E013: the name the line would bind is bound, but without a value."""
    name: str | None = None
    if isinstance(ln.parsed, Decl):
        name = ln.parsed.name
    elif isinstance(ln.parsed, EqBody):
        name = ln.parsed.target
    elif (
        ln.kind is Kind.DECL
        or (ln.kind is Kind.BRACKET and ln.tag == "EQ")
        or (ln.tag == "GIVEN" and ln.kind is Kind.HEADER)
    ):
        name = leading_binding(ln.body)
    if name is None:
        return
    current = sem.scope.current(name)
    if isinstance(ln.parsed, Decl) and ln.parsed.kind == "function":
        if current is None:
            sem.scope.bind(Binding(name, "function", ln.no, ln.block_path))
        return
    if isinstance(ln.parsed, Decl) and current is not None and current.kind in ("given", "param", "doc"):
        return  # a malformed redeclaration binds nothing; the first declaration stays (TE-8)
    kind = "given" if ln.kind is not Kind.BRACKET else "eq"
    sem.scope.bind(Binding(name, kind, ln.no, ln.block_path, param=bool(current and current.param)))
    if ln.kind is Kind.BRACKET and ln.tag == "EQ":
        sem.has_eq = True


def _finalise_undeclared(diagnostics: list[Diagnostic], sem: Semantic) -> None:
    """Fill ``also_used_at`` of each E004 now that every later use is known."""
    for k, d in enumerate(diagnostics):
        if d.code in ("TE_E004", "TE_E006", "TE_E007", "TE_E011"):
            ev = dict(d.evidence)
            name = ev.get("symbol")
            if name is not None and name in sem.undeclared and "also_used_at" in ev:
                ev["also_used_at"] = sorted(set(sem.undeclared[name]["also_used_at"]))
                diagnostics[k] = Diagnostic(
                    d.code, d.line, d.column, d.message, d.tag, d.id, tuple(ev.items())
                )


def _finish(
    diagnostics: list[Diagnostic],
    config: LintConfig,
    stats: dict[str, int],
    answer: dict[str, str] | None = None,
) -> LintResult:
    seen: set[tuple[str, int, int | None, str]] = set()
    unique: list[Diagnostic] = []
    for d in diagnostics:
        if not config.enabled(d.code):
            continue
        key = d.dedupe_key()
        if key in seen:
            continue
        seen.add(key)
        unique.append(d)
    unique.sort(key=Diagnostic.sort_key)
    flag = any(
        CODES[d.code].severity == "error" or (config.strict and CODES[d.code].severity == "warning")
        for d in unique
    )
    return LintResult(tuple(unique), "FLAG" if flag else "CLEAN", stats, answer)
