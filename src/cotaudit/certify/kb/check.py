"""``check`` for a ``.kb`` file: gate every unit, answer every query, report per R-1.

Verdicts: every query CERTIFIED and nothing rejected → ``pass`` (engine word CERTIFIED); a
rejected unit or a certified answer other than the one the file expects → ``fail`` (REJECT /
WRONG); otherwise an abstention → ``abstain`` (ABSTAIN); an unreadable file or interface →
``invalid``. Every certificate produced here is rechecked by the independent checker before it
is reported.

"Could not check" is never a ``fail``: a unit the gate could not decide (``UNDECIDED``,
``CHECKER_ERROR``: code ``CERTIFY_W013``) or a certificate the checker could not recheck within
its bounds makes the report ``abstain``; while a unit is undecided the kernel is incomplete, so
an answer that differs from the expected one is not reported as WRONG. A time or memory bound
met anywhere (:class:`~cotaudit.certify.core.errors.ResourceCap`) abstains the whole check with one
``COMPUTATION_CAP`` finding — whether it is met depends on the machine, so nothing found before
it is reported either.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cotaudit.certify.core.canon import canonical_json, lone_surrogate
from cotaudit.certify.core.errors import ComputationCap, InterfaceError, KbError, ProgramError, ResourceCap
from cotaudit.certify.core.version import ENGINE, ENGINE_VERSION
from cotaudit.certify.gate.decision import WRITERS, GateDecision, Outcome
from cotaudit.certify.interface.load import load_interface
from cotaudit.certify.interface.model import Interface
from cotaudit.certify.kb.codemap import UNDECIDED_REASONS, abstain_code, decision_code, reason_code
from cotaudit.certify.kb.file import KbDocument, Section, Statement, locate, parse_kb
from cotaudit.certify.lang.parse import parse_query, parse_unit
from cotaudit.certify.lang.syntax import Unit
from cotaudit.certify.proof.format import MEANING
from cotaudit.certify.proof.recheck import recheck
from cotaudit.certify.sources.checkers import LIMITATIONS, CheckerRegistry
from cotaudit.certify.sources.records import Evidence
from cotaudit.certify.state.config import CertifyConfig
from cotaudit.certify.state.machine import CertState
from cotaudit.certify.state.query import QueryResult, ServeStatus
from cotaudit.report import Finding, Location, Report, make_report
from cotaudit.report.model import Verdict

FROZEN_CLOCK = "1970-01-01T00:00:00Z"
SPACES = ("yesno", "tfu", "numeric")


def _finding(
    code_reason: str, line: int | None, message: str, evidence: dict[str, Any], *, abstain: bool = False
) -> Finding:
    code = abstain_code(code_reason) if abstain else reason_code(code_reason)
    return Finding(
        code.code, code.severity, Location(line=line), message, {"reason": code_reason, **evidence}
    )


def invalid(
    text: str, path: str | None, item_id: str | None, findings: Sequence[Finding], error: str
) -> Report:
    return make_report(
        ENGINE,
        ENGINE_VERSION,
        "invalid",
        text=text,
        path=path,
        item_id=item_id,
        findings=findings,
        details={"verdict": "INVALID", "error": error},
    )


class _Run:
    def __init__(
        self, doc: KbDocument, iface: Interface, config: CertifyConfig, checkers: CheckerRegistry | None
    ) -> None:
        self.doc = doc
        self.state = CertState.open(":memory:", iface, config, clock=lambda: FROZEN_CLOCK, checkers=checkers)
        for rec in doc.records:
            self.state.add_record(rec)
        self.records = {r.record_id: r for r in doc.records}
        self.findings: list[Finding] = []
        self.units: list[dict[str, Any]] = []
        self.queries: list[dict[str, Any]] = []
        self.labels: dict[str, tuple[str, int]] = {}
        self.query_ids: dict[str, int] = {}
        self.undecided: list[str] = []  # labels of units the gate could not check
        self.unchecked = False  # a certificate could not be rechecked within the bounds

    def evidence(self, stmt: Statement, sec: Section) -> Evidence | None:
        ev = stmt.evidence
        if ev is None and "evidence" in sec.options:
            ev = Evidence(sec.options["evidence"])
        return locate(ev, self.records) if ev is not None else None

    def parse(self, stmt: Statement) -> Unit | None:
        try:
            unit = parse_unit(stmt.text)
        except ProgramError as exc:
            line = stmt.line + (exc.line or 1) - 1
            col = (exc.col or 1) + (stmt.col - 1 if (exc.line or 1) == 1 else 0)
            self.findings.append(_finding(exc.reason, line, exc.bare, {"column": col, **exc.detail}))
            return None
        seen = self.labels.get(unit.label)
        if seen is not None and seen[0] != unit.key:
            self.findings.append(
                _finding(
                    "DUPLICATE_LABEL",
                    stmt.line,
                    f"label '{unit.label}' already used on line {seen[1]}",
                    {"label": unit.label},
                )
            )
            return None
        self.labels.setdefault(unit.label, (unit.key, stmt.line))
        if stmt.evidence_error:
            self.findings.append(_finding("INPUT_MALFORMED", stmt.line, stmt.evidence_error, {}))
        return unit

    def decision(self, d: GateDecision, line: int, label: str) -> None:
        self.units.append({"line": line, "label": label, **d.to_json()})
        if d.outcome is Outcome.REJECT and d.reason:
            msg = str(d.detail.get("message", d.reason))
            code = decision_code(d.reason)
            if d.reason in UNDECIDED_REASONS:
                self.undecided.append(label)
                msg = f"[{label}] could not be checked, so it is not admitted: {msg}"
            evidence = {"reason": d.reason, "unit": label, "detail": _plain(d.detail)}
            self.findings.append(Finding(code.code, code.severity, Location(line=line), msg, evidence))
        elif d.outcome is Outcome.REDUNDANT:
            why = (
                f"duplicate of unit {d.detail['duplicate_of']}"
                if "duplicate_of" in d.detail
                else "derivable from the kernel"
            )
            self.findings.append(
                _finding("REDUNDANT", line, f"[{label}] is certified but redundant ({why})", {"unit": label})
            )

    def units_section(self, sec: Section) -> None:
        writer = sec.options.get("writer", "deploy")
        items: list[tuple[Unit, Evidence | None, str, None]] = []
        where: list[tuple[int, str]] = []
        for stmt in sec.statements:
            if stmt.is_query:
                self.findings.append(
                    _finding("INPUT_MALFORMED", stmt.line, "a ?- goal belongs in a %% query(ies) section", {})
                )
                continue
            unit = self.parse(stmt)
            if unit is not None:
                items.append((unit, self.evidence(stmt, sec), writer, None))
                where.append((stmt.line, unit.label))
        if not items:
            return
        if writer not in ("deploy", "operator", "grounder"):
            raise KbError(f"unknown writer {writer!r}", line=sec.line)
        decisions = self.state.admit_batch(items)
        _stop_on_resource_bound(decisions)
        for d, (line, label) in zip(decisions, where, strict=True):
            self.decision(d, line, label)

    def query(self, stmt: Statement, facts: list[tuple[Unit, Evidence | None, int]], sec: Section) -> None:
        try:
            q = parse_query(stmt.text)
        except ProgramError as exc:
            self.findings.append(_finding(exc.reason, stmt.line + (exc.line or 1) - 1, exc.bare, {}))
            return
        qid = q.label or sec.args[0] if sec.kind == "query" and sec.args else q.label
        if qid is not None:
            if qid in self.query_ids:
                self.findings.append(
                    _finding(
                        "INPUT_MALFORMED",
                        stmt.line,
                        f"query id '{qid}' is already used on line {self.query_ids[qid]}",
                        {"query_id": qid},
                    )
                )
                return
            self.query_ids[qid] = stmt.line
        result = self.state.query(
            q.goal,
            facts=[(u, ev) for u, ev, _ in facts],
            query_id=qid,
            answer_space=sec.options.get("space"),
            writer=sec.options.get("writer", "grounder"),
        )
        if result.resource_bound is not None:  # machine-dependent: the whole check abstains
            raise ResourceCap(result.detail.removeprefix("computation cap: "), {}, result.resource_bound)
        for d, (u, _, line) in zip(result.gate_decisions, facts, strict=False):
            self.decision(d, line, u.label)
        self.report(result, q.expect, stmt.line)

    def report(self, r: QueryResult, expect: str | None, line: int) -> None:
        entry: dict[str, Any] = r.to_json()
        entry["line"] = line
        entry["expect"] = expect
        entry["certificate"] = r.certificate
        self.queries.append(entry)
        if r.status in (ServeStatus.CERTIFIED, ServeStatus.CACHED) and r.certificate is not None:
            check = recheck(r.certificate, self.state.kernel_view(r.kernel_version), overlay=r.overlay)
            entry["recheck"] = {"ok": check.ok, "codes": check.codes()}
            if check.undecided is not None:
                entry["recheck"]["undecided"] = check.undecided
            if not check.ok:
                for f in check.failures:
                    self.findings.append(
                        _finding(f.code, line, f"certificate does not recheck: {f.message}", {"node": f.node})
                    )
                if not check.failures:  # could not be rechecked: neither certified nor wrong
                    self.unchecked = True
                    self.findings.append(
                        _finding(
                            "COMPUTATION_CAP",
                            line,
                            f"?- {r.target}: the certificate could not be rechecked ({check.undecided})",
                            {"answer": None},
                            abstain=True,
                        )
                    )
                return
            depth = r.certificate.get("depth")
            incomplete = sorted(set(self.undecided))
            if incomplete:
                entry["kernel_incomplete"] = incomplete
            self.findings.append(
                _finding(
                    "CERTIFIED",
                    line,
                    f"?- {r.target}: {r.answer} ({r.answer_kind.value if r.answer_kind else ''}"
                    + (f", depth {depth}" if depth is not None else "")
                    + ")"
                    + (f"; without the undecided units {', '.join(incomplete)}" if incomplete else ""),
                    {"answer": r.answer, "certificate_sha256": r.certificate["sha256"]},
                )
            )
            # with undecided units the kernel is incomplete: a different answer is not "wrong"
            if expect is not None and expect != r.answer and not incomplete:
                self.findings.append(
                    _finding(
                        "WRONG_ANSWER",
                        line,
                        f"?- {r.target}: certified {r.answer}, expected {expect}",
                        {"expected": expect, "claimed": r.answer},
                    )
                )
        elif r.abstain_reason is not None:
            self.findings.append(
                _finding(
                    r.abstain_reason.value,
                    line,
                    f"?- {r.target}: abstained ({r.detail})",
                    {"answer": None},
                    abstain=True,
                )
            )

    def run(self) -> None:
        for sec in self.doc.sections:
            writer = sec.options.get("writer")
            if writer is not None and writer not in WRITERS:
                raise KbError(f"unknown writer {writer!r} (expected {', '.join(WRITERS)})", line=sec.line)
            space = sec.options.get("space")
            if space is not None and space not in SPACES:
                raise KbError(f"unknown answer space {space!r} (expected {', '.join(SPACES)})", line=sec.line)
            if sec.kind == "units":
                self.units_section(sec)
            elif sec.kind == "query":
                facts: list[tuple[Unit, Evidence | None, int]] = []
                goal = None
                for stmt in sec.statements:
                    if stmt.is_query:
                        goal = stmt
                        continue
                    unit = self.parse(stmt)
                    if unit is not None:
                        facts.append((unit, self.evidence(stmt, sec), stmt.line))
                if goal is not None:
                    self.query(goal, facts, sec)
            elif sec.kind == "queries":
                for stmt in sec.statements:
                    if not stmt.is_query:
                        self.findings.append(
                            _finding("INPUT_MALFORMED", stmt.line, "only ?- goals belong in %% queries", {})
                        )
                        continue
                    self.query(stmt, [], sec)


def _stop_on_resource_bound(decisions: Sequence[GateDecision]) -> None:
    """An admission abstained for a time or memory bound (``detail.bound``) stops the check."""
    for d in decisions:
        bound = d.detail.get("bound")
        if d.reason == "UNDECIDED" and bound in ("time", "memory"):
            raise ResourceCap(str(d.detail.get("cap", "")), {}, str(bound))


def _not_finished(text: str, path: str | None, item_id: str | None, exc: ComputationCap) -> Report:
    """``abstain``: a bound stopped the check before it finished, so nothing was decided."""
    bound = getattr(exc, "bound", "work")
    finding = _finding(
        "COMPUTATION_CAP",
        None,
        f"the check was not completed: {exc.what}; nothing about the file was decided",
        {"bound": bound},
        abstain=True,
    )
    return make_report(
        ENGINE,
        ENGINE_VERSION,
        "abstain",
        text=text,
        path=path,
        item_id=item_id,
        findings=(finding,),
        details={"verdict": "ABSTAIN", "meaning": MEANING, "reason": "COMPUTATION_CAP", "bound": bound},
    )


def _plain(detail: Any) -> Any:
    return {k: v for k, v in dict(detail).items() if k != "message"}


def check_kb(
    text: str, *, path: str | None = None, item_id: str | None = None, checkers: CheckerRegistry | None = None
) -> Report:
    try:
        doc = parse_kb(text)
    except KbError as exc:
        return invalid(text, path, item_id, [_finding("INPUT_MALFORMED", exc.line, exc.bare, {})], str(exc))
    try:
        iface = load_interface(doc.interface_text)
        config = CertifyConfig.from_json(doc.config)
        if lone_surrogate(canonical_json(config.to_json())) is not None:
            raise ValueError("an escaped lone surrogate is not text")
    except InterfaceError as exc:
        found = [
            _finding("INTERFACE_INVALID", doc.interface_line, f"{p.code}: {p.message}", {"problem": p.code})
            for p in exc.problems
        ]
        return invalid(text, path, item_id, found, str(exc))
    except (ValueError, TypeError) as exc:
        return invalid(
            text, path, item_id, [_finding("INPUT_MALFORMED", None, f"config: {exc}", {})], f"config: {exc}"
        )
    run = _Run(doc, iface, config, checkers)
    from cotaudit.certify.state.history import recheck_stored

    try:
        run.run()
        stored = recheck_stored(run.state)  # every stored certificate, rechecked independently
    except KbError as exc:
        return invalid(text, path, item_id, [_finding("INPUT_MALFORMED", exc.line, exc.bare, {})], str(exc))
    except ComputationCap as exc:  # a time or memory bound: the whole check is abstained
        run.state.close()
        return _not_finished(text, path, item_id, exc)
    for problem in stored.failing:
        run.findings.append(_finding("MALFORMED_DERIVATION", None, f"stored {problem}", {}))
    for problem in stored.undecided:
        run.unchecked = True
        run.findings.append(_finding("COMPUTATION_CAP", None, f"stored {problem}", {}, abstain=True))
    kernel = run.state.kernel_view()
    errors = [f for f in run.findings if f.severity == "error"]
    abstained = any(q["status"] == "ABSTAINED" for q in run.queries) or bool(run.undecided) or run.unchecked
    wrong = any(f.code == reason_code("WRONG_ANSWER").code for f in errors)
    word = "WRONG" if wrong else "REJECT" if errors else "ABSTAIN" if abstained else "CERTIFIED"
    verdict: Verdict = "fail" if errors else "abstain" if abstained else "pass"
    details = {
        "verdict": word,
        "meaning": MEANING,
        "interface": {"name": iface.name, "sha256": iface.sha256},
        "kernel": {
            "version": kernel.version,
            "facts": len(kernel.facts()),
            "rules": len(kernel.rules()),
            "redundant": sorted(r.unit.label for r in run.state.active() if r.kstatus == "J"),
        },
        "checkers": {k: v for k, v in sorted(LIMITATIONS.items())},
        "units": run.units,
        "queries": run.queries,
    }
    run.state.close()
    return make_report(
        ENGINE,
        ENGINE_VERSION,
        verdict,
        text=text,
        path=path,
        item_id=item_id,
        findings=run.findings,
        details=details,
    )
