"""The cot engine: read a chain, check every step, decide, and answer in the R-1 shape.

Per step: the arithmetic claims (:mod:`cotaudit.cot.claims`) and, when a task replayer applies,
its checks (:mod:`cotaudit.cot.replay`). A step is

- ``wrong`` when a claim in it is false (a finding carries the expression, the claimed and the
  computed value, and the column);
- ``verified`` when at least one claim in it was checked and every checked claim holds;
- ``unchecked`` otherwise (nothing in it could be checked mechanically).

Verdict: ``fail`` if a step is wrong or the final answer contradicts gold; ``pass`` if at least
one claim was checked, none is wrong, and the answer matches gold where gold is given;
``abstain`` otherwise. ``pass`` therefore means "nothing checkable is wrong", and the report
states the coverage (checked steps / steps) beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import cotaudit.limits as limits
from cotaudit.cot import answer as answers
from cotaudit.cot.carry import labelled_claims
from cotaudit.cot.claims import Claim, Verdict, find_claims, modular_context, uses_blank_boxes
from cotaudit.cot.inputs import MAX_STEP_CHARS, BadInput, Chain, read_chain
from cotaudit.cot.replay.model import Check, Replay
from cotaudit.cot.replay.registry import find_replayer
from cotaudit.cot.segment import LineIndex
from cotaudit.report import Finding, Location, Report, make_report
from cotaudit.te.numeric import approx_fraction, fmt_fraction

ENGINE_VERSION = "cot/1"
STATUSES = ("verified", "wrong", "unchecked")
MAX_TEXT_IN_DETAILS = 300
MAX_REPLAYED_IN_DETAILS = 8


@dataclass(slots=True)
class StepResult:
    index: int
    status: str = "unchecked"
    checked: int = 0
    wrong: int = 0
    reason: str = "nothing mechanically checkable"
    findings: list[Finding] = field(default_factory=list)
    doubtful: int = 0  # claims found but not decided (doubtful, unevaluated)
    replayed: list[dict[str, str]] = field(default_factory=list)  # checks that held, as evidence


def _num(x: Fraction | None) -> str | None:
    return None if x is None else fmt_fraction(x)


class _Locator:
    """Where a finding points: (line, column) in the source for raw text, the step for records."""

    def __init__(self, chain: Chain, text: str) -> None:
        self.chain = chain
        self.index = LineIndex(text) if chain.source == "text" else None

    def where(self, step: int, offset: int | None) -> tuple[int | None, int | None]:
        s = self.chain.steps[step]
        if self.index is None:
            return None, (offset + 1 if offset is not None else None)
        return self.index.locate(s.start + (offset or 0))

    def step_line(self, step: int) -> int | None:
        return self.chain.steps[step].line if self.index is not None else None


def _claim_finding(claim: Claim, step: int, text: str, loc: _Locator) -> Finding | None:
    line, column = loc.where(step, claim.offset)
    expression = text[claim.offset : claim.end]
    evidence: dict[str, Any] = {
        "step": step,
        "expression": expression[:300],
        "lhs": claim.lhs[:300],
        "rhs": claim.rhs[:300],
    }
    if column is not None:
        evidence["column"] = column
    if claim.computed is not None and claim.claimed is not None:
        evidence["computed"] = _num(claim.computed)
        evidence["claimed"] = _num(claim.claimed)
        evidence["computed_approx"] = approx_fraction(claim.computed)
    if claim.source != "prose":
        evidence["source"] = claim.source
    where = Location(line=line, step=str(step))
    if claim.verdict == Verdict.WRONG:
        value = approx_fraction(claim.computed) if claim.computed is not None else "?"
        msg = f"step {step}: {expression.strip()[:120]} is false: {claim.lhs[:80]} = {value}"
        return Finding("COT_E001", "error", where, msg, evidence)
    if claim.verdict == Verdict.UNEVALUATED:
        evidence["reason"] = claim.reason[:200]
        return Finding(
            "COT_W002", "warning", where, f"step {step}: claim not evaluated ({claim.reason[:120]})", evidence
        )
    if claim.verdict == Verdict.ROUNDED:
        evidence["reason"] = claim.reason
        return Finding(
            "COT_I003", "info", where, f"step {step}: rounded result accepted ({claim.reason})", evidence
        )
    if claim.verdict == Verdict.DOUBTFUL:
        evidence["reason"] = claim.reason
        return Finding("COT_I004", "info", where, f"step {step}: left unchecked: {claim.reason}", evidence)
    return None


def _check_finding(check: Check, loc: _Locator) -> Finding:
    line, column = loc.where(check.step, (check.column - 1) if check.column is not None else None)
    if check.column is None:
        line, column = loc.step_line(check.step), None
    evidence: dict[str, Any] = {
        "step": check.step,
        "what": check.what,
        "claimed": check.claimed[:300],
        "expected": check.expected[:300],
    }
    if column is not None:
        evidence["column"] = column
    if check.note:
        evidence["note"] = check.note[:300]
    msg = (
        f"step {check.step}: {check.what}: the trace says {check.claimed[:80]!r}, "
        f"the replay gives {check.expected[:80]!r}"
    )
    return Finding("COT_E002", "error", Location(line=line, step=str(check.step)), msg, evidence)


def _replay(chain: Chain, task: str | None, texts: Sequence[str]) -> tuple[str | None, Replay]:
    try:
        replayer = find_replayer(task, chain.problem, texts)
    except KeyError:
        raise BadInput(f"unknown task {task!r} (no replayer of that name is registered)") from None
    if replayer is None:
        return None, Replay()
    return replayer.name, replayer.replay(chain.problem or "", texts)


def audit(
    text: str, *, task: str | None = None, gold: str | None = None, record: bool | None = None
) -> dict[str, Any]:
    """Everything :func:`check` reports, as plain data (findings, steps, verdict)."""
    chain = read_chain(text, record=record)
    texts = [s.text[:MAX_STEP_CHARS] for s in chain.steps]
    findings: list[Finding] = []
    for why in chain.limits_hit:
        findings.append(Finding("COT_W001", "warning", Location(), why, {"limit": why}))
    for s in chain.steps:
        if len(s.text) > MAX_STEP_CHARS:
            findings.append(
                Finding(
                    "COT_W001",
                    "warning",
                    Location(line=s.line if chain.source == "text" else None, step=str(s.index)),
                    f"step {s.index} is over {MAX_STEP_CHARS:,} characters: the rest of it was not checked",
                    {"step": s.index, "limit": f"{MAX_STEP_CHARS} characters"},
                )
            )
    task_name, replay = _replay(chain, task or chain.task, texts)
    loc = _Locator(chain, text)
    results = [StepResult(i) for i in range(len(texts))]
    modular = modular_context(chain.problem or "")
    blanks = uses_blank_boxes(chain.problem or "")
    carried: dict[int, list[Claim]] = {}
    for at, claim in labelled_claims(texts, frozenset(replay.claims), modular, blanks):
        carried.setdefault(at, []).append(claim)
    for i, step_text in enumerate(texts):
        limits.checkpoint()
        if i in replay.claims:
            claims = replay.claims[i]
        else:
            claims = find_claims(step_text, modular=modular, blank_boxes=blanks)
        claims = sorted([*claims, *carried.get(i, [])], key=lambda c: c.offset)
        res = results[i]
        for claim in claims:
            if claim.verdict in (Verdict.TRUE, Verdict.ROUNDED):
                res.checked += 1
                if claim.verdict == Verdict.TRUE and len(res.replayed) < MAX_REPLAYED_IN_DETAILS:
                    said = step_text[claim.offset : claim.end].strip()[:160]
                    value = _num(claim.computed) or ""
                    res.replayed.append(
                        {"what": "an equation", "claimed": said, "expected": f"both sides {value}"}
                    )
            elif claim.verdict == Verdict.WRONG:
                res.checked += 1
                res.wrong += 1
            else:
                res.doubtful += 1
            f = _claim_finding(claim, i, step_text, loc)
            if f is not None:
                res.findings.append(f)
    for check in replay.checks:
        if not 0 <= check.step < len(results):
            continue
        res = results[check.step]
        res.checked += 1
        if not check.ok:
            res.wrong += 1
            res.findings.append(_check_finding(check, loc))
        elif len(res.replayed) < MAX_REPLAYED_IN_DETAILS:
            res.replayed.append(
                {"what": check.what[:120], "claimed": check.claimed[:160], "expected": check.expected[:160]}
            )
    for res in results:
        if res.wrong:
            res.status, res.reason = "wrong", f"{res.wrong} of {res.checked} checked claim(s) false"
        elif res.checked:
            res.status, res.reason = "verified", f"{res.checked} claim(s) checked, all hold"
        findings.extend(res.findings)
    gold_answer = gold if gold is not None else chain.gold
    extracted, source = answers.extract(texts, chain.answer)
    ans = answers.compare(extracted, source, gold_answer)
    findings.extend(_answer_findings(ans, chain, loc))
    checked_steps = sum(1 for r in results if r.checked)
    wrong_steps = [r.index for r in results if r.status == "wrong"]
    coverage = {"checked": checked_steps, "steps": len(results)}
    findings.append(
        Finding(
            "COT_I001",
            "info",
            Location(),
            f"coverage: {checked_steps} of {len(results)} steps checked",
            coverage,
        )
    )
    if wrong_steps or ans.match is False:
        verdict = "fail"
    elif checked_steps and (ans.gold is None or ans.match is True):
        verdict = "pass"
    else:
        verdict = "abstain"
    steps_out = []
    for s, r in zip(chain.steps, results, strict=True):
        row: dict[str, Any] = {
            "index": s.index,
            "status": r.status,
            "checked": r.checked,
            "wrong": r.wrong,
            "reason": r.reason,
            "text": s.text[:MAX_TEXT_IN_DETAILS],
        }
        if r.status == "verified" and r.index in replay.complete and not r.doubtful:
            # the replayer read every statement of the step and each one held: the step's
            # recomputed state is the trace's (the evidence lists what was compared)
            row["complete"] = True
            row["replayed"] = r.replayed
        if chain.source == "text":
            row["line"] = s.line
            row["column"] = s.column
        steps_out.append(row)
    details: dict[str, Any] = {
        "verdict": verdict,
        "coverage": coverage,
        "first_wrong_step": wrong_steps[0] if wrong_steps else None,
        "wrong_steps": wrong_steps,
        "answer": ans.to_dict(),
        "task": task_name,
        "segmentation": chain.rule,
        "steps": steps_out,
    }
    if replay.notes:
        details["replay_notes"] = replay.notes[:20]
    return {"verdict": verdict, "findings": findings, "details": details}


def _answer_findings(ans: answers.AnswerCheck, chain: Chain, loc: _Locator) -> list[Finding]:
    if ans.gold is None:
        return []
    last = len(chain.steps) - 1
    where = Location(line=loc.step_line(last), step=str(last))
    evidence = {"extracted": (ans.extracted or "")[:300], "gold": ans.gold[:300], "kind": ans.kind}
    if ans.match is True:
        return [Finding("COT_I002", "info", where, f"final answer {ans.extracted!r} matches gold", evidence)]
    if ans.match is False:
        return [
            Finding(
                "COT_E003",
                "error",
                where,
                f"final answer {str(ans.extracted)[:80]!r} contradicts gold {ans.gold[:80]!r}",
                evidence,
            )
        ]
    if ans.extracted is None:
        return [Finding("COT_W003", "warning", where, "no final answer found to compare with gold", evidence)]
    return [
        Finding(
            "COT_W004",
            "warning",
            where,
            f"answer not compared: {ans.reason}",
            {**evidence, "reason": ans.reason},
        )
    ]


def check(
    text: str,
    *,
    path: str | None = None,
    item_id: str | None = None,
    task: str | None = None,
    gold: str | None = None,
    **_: Any,
) -> Report:
    """Audit one chain of thought and return its R-1 report (see the module doc).

    ``task`` names a replayer (else the record's ``task`` field, else recognition); ``gold``
    overrides the record's gold answer. A ``.cot.json`` path is always read as a record.
    """
    record = True if path is not None and path.endswith(".cot.json") else None
    try:
        result = audit(text, task=task, gold=gold, record=record)
    except BadInput as exc:
        finding = Finding("COT_E004", "error", Location(), str(exc), {"reason": str(exc)})
        return make_report(
            "cot",
            ENGINE_VERSION,
            "invalid",
            text=text,
            path=path,
            item_id=item_id,
            findings=(finding,),
            details={"error": str(exc)},
        )
    return make_report(
        "cot",
        ENGINE_VERSION,
        result["verdict"],
        text=text,
        path=path,
        item_id=item_id,
        findings=result["findings"],
        details=result["details"],
    )
