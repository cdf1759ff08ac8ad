"""``lint()``: size caps → classification → structural rules → semantic pass → E012 (TE-42).

The fast path runs in the calling thread with exact Fractions only. The first expression
that needs SymPy re-runs the whole trace symbolically: in the worker process by default
(hard deadlines), or in-process with ``LintConfig(symbolic="inprocess")``. Both give
byte-identical results.
"""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass
from typing import Any

import cotaudit.limits as budget
from cotaudit.codes import CODES
from cotaudit.report import Finding, InputRef, Location, Report
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
from cotaudit.te.scope import Binding
from cotaudit.te.semantic import LineAbort, Semantic
from cotaudit.te.structure import hedging, parse_bodies, structural
from cotaudit.te.units import UnitSyntaxError, parse_unit

ENGINE_VERSION = "te/1"
GRAMMAR = "TE_REASONING_V1+cotaudit"
MAX_TRACE_BYTES = 256 * 1024
MAX_LINES = 2_000
MAX_LINE_CHARS = 4_000


@dataclass(frozen=True, slots=True)
class LintResult:
    """The linter's answer: sorted, de-duplicated diagnostics, the verdict and statistics."""

    diagnostics: tuple[Diagnostic, ...]
    verdict: str  # CLEAN | FLAG
    stats: dict[str, int]
    # The ANS line as the trace states it: {"expr", "value"[, "unit"]}; None when it has no
    # evaluable ANS. Reported as ``details.answer`` (answer-aware rewards read it).
    answer: dict[str, str] | None = None

    @property
    def codes(self) -> list[str]:
        return [d.code for d in self.diagnostics]

    def at(self) -> list[str]:
        """``["TE_E006@5", ...]``: the compact form the spec's examples use."""
        return [f"{d.code}@{d.line}" for d in self.diagnostics]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "verdict": self.verdict,
            "stats": dict(self.stats),
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }
        if self.answer is not None:
            out["answer"] = dict(self.answer)
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LintResult:
        answer = d.get("answer")
        return cls(
            tuple(Diagnostic.from_dict(x) for x in d["diagnostics"]),
            d["verdict"],
            dict(d["stats"]),
            dict(answer) if isinstance(answer, dict) else None,
        )

    def to_report(
        self,
        text: str,
        *,
        path: str | None = None,
        item_id: str | None = None,
        timing_ms: float | None = None,
    ) -> Report:
        findings = []
        for d in self.diagnostics:
            evidence = {"rule": d.rule, "column": d.column, "tag": d.tag}
            evidence.update((k, v) for k, v in d.evidence if k != "column")
            findings.append(
                Finding(d.code, d.severity, Location(line=d.line, step=d.id), d.message, evidence)  # type: ignore[arg-type]
            )
        return Report(
            engine="te",
            engine_version=ENGINE_VERSION,
            input=InputRef.for_text(text, path, item_id),
            verdict="pass" if self.verdict == "CLEAN" else "fail",
            findings=tuple(findings),
            details={
                "verdict": self.verdict,
                "grammar": GRAMMAR,
                "stats": dict(self.stats),
                **({"answer": dict(self.answer)} if self.answer is not None else {}),
            },
            timing_ms=timing_ms,
        )


def lint(text: str, config: LintConfig | None = None) -> LintResult:
    """Lint one TE trace. Never raises on any ``str``."""
    config = config or LintConfig()
    try:
        return run(text, config, symbolic=False)
    except NeedsSymbolic:
        pass
    if config.symbolic == "inprocess":
        return run(text, config, symbolic=True)
    if config.limits.trace_timeout <= 0:
        # No time at all for symbolic work: fail closed at the first symbolic line (TE-25)
        # without handing the trace to the worker, whatever the machine's speed.
        return run(text, config, symbolic=False, fallback=True)
    from cotaudit.te.worker import lint_in_worker

    result = lint_in_worker(text, config)
    if result is not None:
        return result
    budget.checkpoint()  # the caller's budget (cotaudit.limits) ran out, not te's own: W001
    return run(text, config, symbolic=False, fallback=True)


def run(text: str, config: LintConfig, *, symbolic: bool, fallback: bool = False) -> LintResult:
    """One pass over the trace; ``symbolic=False`` raises NeedsSymbolic unless ``fallback``.

    Linting allocates many small, short-lived objects and frees them by reference counting;
    the cyclic collector is paused for the pass (and resumed only if it was running), which
    saves its repeated scans of the large, long-lived heap of a warm process.
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _run(text, config, symbolic=symbolic, fallback=fallback)
    finally:
        if collecting:
            gc.enable()


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


def check(
    text: str, *, path: str | None = None, item_id: str | None = None, config: LintConfig | None = None
) -> Report:
    """Lint ``text`` and return the shared R-1 report (TE-46)."""
    start = time.perf_counter()
    result = lint(text, config)
    elapsed = (time.perf_counter() - start) * 1000.0
    return result.to_report(text, path=path, item_id=item_id, timing_ms=round(elapsed, 3))
