"""The certificate gate (certify.md §7, Algorithm 1, C-37 … C-43).

``source(unit, evidence, writer=…, scope=…, state=…)`` runs the source-mode checks in the
spec's order — parse/safety/stratification, types, writer and whitelist (Proposition 1), the
source checker, strong-negation contradictions, then duplicates and the kernel scan — and
returns SOURCE_ADMIT, REDUNDANT or REJECT with the first failing reason. A check the gate
cannot decide within a work bound is ``REJECT UNDECIDED`` (not admitted, reported as an
abstention, never as "wrong"); a time or memory bound raises ``ResourceCap`` to the caller,
which abstains from the whole operation. ``derived(lit,
candidate, …)`` verifies a proposed derivation (from the executor or the trace extractor) and
returns CERTIFY with π_der or REJECT. The gate decides; it never writes: the state applies a
decision inside one transaction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from cotaudit.certify.core.canon import canonical_json, lone_surrogate
from cotaudit.certify.core.errors import ComputationCap, ProgramError, ResourceCap
from cotaudit.certify.engine.evaluation import evaluate
from cotaudit.certify.engine.facts import Source
from cotaudit.certify.engine.limits import EvalLimits
from cotaudit.certify.gate.decision import SCOPES, WRITERS, GateDecision, Outcome, parse_proposal, reject
from cotaudit.certify.interface.model import Interface
from cotaudit.certify.kernel.scan import KernelResult
from cotaudit.certify.lang import calculators
from cotaudit.certify.lang.strata import stratify
from cotaudit.certify.lang.syntax import Fact, Rule, Unit
from cotaudit.certify.sources.checkers import CheckerRegistry
from cotaudit.certify.sources.records import CheckerConfig, Evidence, RecordStore, run_checker


class GateState(Protocol):
    """What the gate reads from a state (the state machine implements it)."""

    @property
    def interface(self) -> Interface: ...

    @property
    def checker_config(self) -> CheckerConfig: ...

    @property
    def checkers(self) -> CheckerRegistry: ...

    @property
    def records(self) -> RecordStore: ...

    @property
    def checker_timeout_s(self) -> float: ...

    @property
    def limits(self) -> EvalLimits: ...

    def kernel_sources(self) -> list[Source]: ...

    def active_keys(self) -> Mapping[str, int]: ...

    def active_rules(self) -> list[Rule]: ...

    def scan_with(self, unit: Unit) -> KernelResult: ...


def _calc_known(unit: Unit) -> bool:
    return (
        not isinstance(unit, Rule)
        or unit.calc is None
        or calculators.lookup(unit.calc.fn, unit.calc.version) is not None
    )


def pi_src(
    unit: Unit,
    evidence: Evidence | None,
    *,
    scope: str,
    writer: str,
    checker_id: str,
    checker_version: str,
    verdict: str,
    reason: str,
    log: Mapping[str, Any],
    records: RecordStore,
) -> dict[str, Any]:
    """The source-support record π_src(u) (C-18), without unit id and log sequence."""
    record = records.record(evidence.record_id) if evidence is not None and evidence.record_id else None
    return {
        "unit_key": unit.key,
        "unit_text": unit.text(),
        "scope": scope,
        "writer": writer,
        "evidence": None
        if evidence is None
        else {**evidence.to_json(), "record_sha256": record.sha256 if record else None},
        "evidence_sha256": None if evidence is None else evidence.sha256,
        "checker_id": checker_id,
        "checker_version": checker_version,
        "verdict": verdict,
        "reason": reason,
        "checker_log": dict(log),
    }


def source(
    proposal: Unit | str | Mapping[str, Any],
    evidence: Evidence | None,
    *,
    writer: str,
    scope: str,
    state: GateState,
    query_facts: Sequence[Source] = (),
    scan: bool = True,
    known_keys: Mapping[str, int] | None = None,
) -> GateDecision:
    """Source mode (C-38): the first failing check decides. ``scan=False`` (``admit_batch``)
    stops before the kernel scan and returns a provisional SOURCE_ADMIT. ``known_keys`` is
    ``state.active_keys()`` kept up to date by a caller admitting many units (building it
    per unit made a batch quadratic)."""
    if writer not in WRITERS or scope not in SCOPES:
        raise ValueError(f"writer must be one of {WRITERS} and scope one of {SCOPES}")
    got = parse_proposal(proposal)
    if isinstance(got, GateDecision):
        return got
    unit = got
    if evidence is not None:  # stored and hashed as canonical JSON, as SQLite text
        try:
            bad = lone_surrogate(canonical_json(evidence.to_json()))
        except (ValueError, TypeError):
            return reject("PARSE_ERROR", "evidence must be canonical JSON (no floats, string keys)", unit)
        if bad is not None:
            return reject("PARSE_ERROR", "the evidence holds a lone surrogate, which is not text", unit)
    if not _calc_known(unit):
        assert isinstance(unit, Rule) and unit.calc is not None
        return reject("PARSE_ERROR", f"unknown calculator {unit.calc.fn}@{unit.calc.version}", unit)
    iface = state.interface
    if isinstance(unit, Rule) and iface.negation == "naf" and unit.negative:
        try:
            stratify([*state.active_rules(), unit])
        except ProgramError as exc:
            return reject("UNSTRATIFIED", exc.bare, unit, **exc.detail)
    issue = iface.type_check(unit)
    if issue is not None:
        return reject(issue.reason, issue.message, unit, **issue.detail)
    if isinstance(unit, Rule) and writer == "grounder":
        return reject("RULE_WRITE_FORBIDDEN", "a grounder may propose facts only", unit)
    if isinstance(unit, Fact) and unit.lit.pred not in iface.whitelist:
        return reject("PREDICATE_NOT_IN_WHITELIST", f"'{unit.lit.pred}' is not a source predicate (Ω)", unit)
    if isinstance(unit, Rule) and iface.head_in_whitelist(unit):
        return reject("HEAD_IN_WHITELIST", f"rule head '{unit.head.pred}' is a source predicate (Ω)", unit)
    choice = state.checker_config.choice(unit, scope)
    try:
        checker = state.checkers.resolve(choice)
    except KeyError as exc:
        return reject("CHECKER_ERROR", str(exc.args[0]), unit)
    result = run_checker(
        checker, unit, evidence or Evidence(None), state.records, iface, state.checker_timeout_s
    )
    record = pi_src(
        unit,
        evidence,
        scope=scope,
        writer=writer,
        checker_id=checker.id,
        checker_version=checker.version,
        verdict=result.verdict,
        reason=result.reason,
        log=result.log,
        records=state.records,
    )
    if result.verdict == "UNSUPPORTED":
        return GateDecision(
            Outcome.REJECT, "UNSUPPORTED_BY_SOURCE", {"message": result.reason}, record, None, unit
        )
    if result.verdict == "ERROR":
        return GateDecision(Outcome.REJECT, "CHECKER_ERROR", {"message": result.reason}, record, None, unit)
    if iface.negation == "strong":
        try:
            conflict = _contradiction(unit, state, query_facts if scope == "query" else ())
        except ResourceCap:
            raise  # time or memory: the caller abstains from the whole operation
        except ComputationCap as exc:  # a work bound: the same on every machine, so a decision
            detail = {
                "message": f"cannot decide whether it contradicts: {exc.what}",
                "check": "contradiction",
            }
            return GateDecision(Outcome.REJECT, "UNDECIDED", detail, record, None, unit)
        if conflict is not None:
            return GateDecision(Outcome.REJECT, "CONTRADICTS_KERNEL", conflict, record, None, unit)
    keys = state.active_keys() if known_keys is None else known_keys
    if scope == "query":
        in_fq = {s.unit.key: s.unit_id for s in query_facts}
        dup = in_fq.get(unit.key, keys.get(unit.key) if isinstance(unit, Fact) else None)
        if dup is not None:
            return GateDecision(Outcome.REDUNDANT, None, {"duplicate_of": dup}, record, None, unit)
    elif unit.key in keys:
        return GateDecision(Outcome.REDUNDANT, None, {"duplicate_of": keys[unit.key]}, record, None, unit)
    if scope == "query" or not scan:
        return GateDecision(Outcome.SOURCE_ADMIT, None, {}, record, None, unit)
    scanned = state.scan_with(unit)
    outcome = Outcome.REDUNDANT if 0 in scanned.J else Outcome.SOURCE_ADMIT
    kind = "redundant" if 0 in scanned.J else "kernel"
    return GateDecision(outcome, None, {"scan": kind}, record, None, unit, scanned)


def _contradiction(unit: Unit, state: GateState, query_facts: Sequence[Source]) -> dict[str, Any] | None:
    """Step 5 (strong negation): does Cn(Γ ∪ {u}) hold a complementary pair?

    Raises :class:`ComputationCap` when the closure cannot be computed within the limits: that
    is "could not check", never a contradiction."""
    kernel = state.kernel_sources()
    extra = [Source(0, unit, "temp")]
    closure = evaluate(
        [*kernel, *extra] if isinstance(unit, Rule) else kernel,
        [*query_facts, *([] if isinstance(unit, Rule) else extra)],
        limits=state.limits,
    )
    pairs = closure.conflicts()
    if not pairs:
        return None
    p, n = pairs[0]
    return {
        "message": f"{p.text()} and {n.text()} would both hold",
        "pairs": [[a.text(), b.text()] for a, b in pairs],
    }
