"""Per-step (process-reward-model style) rewards for the engines that judge steps.

Every step gets one of three statuses, then a value (:data:`STEP_REWARDS`, configurable):

- ``verified`` (1.0) — te: no error points at the line; vericot: ``entailed``; cot: ``verified``;
- ``wrong`` (0.0) — te: an error points at the line; vericot: ``contradicted`` or
  ``ungrounded``; cot: ``wrong``;
- ``unchecked`` (0.5) — te: only "not analysed" errors (``TE_E014``) or the check abstained;
  vericot: ``untranslatable`` or ``unknown``; cot: ``unchecked``.

te's steps are its STEP/EQ/CHECK/OPEN/RESOLVE lines and its ANS line; vericot's and cot's are
``details.steps``.

``unchecked`` is *could not check*, never *wrong*: pass ``values={"unchecked": None}`` to get
``None`` for it. A step after the first wrong one keeps its own status (each is judged on its
own numbers, as process reward models score steps one by one). te reports each error once, on
the line that introduces it, so later lines that merely use a wrong value stay ``verified``; an
error on a line that is not a step (a GIVEN declaration) is charged to the first later step
that uses the name the line declares (else the first later step), so a trace that fails on its
premises never has every step ``verified``.
"""

from __future__ import annotations

from collections.abc import Mapping

from cotaudit.report import Report
from cotaudit.rewards.shaping import NOT_CHECKED_CODES
from cotaudit.te.grammar import ID_RE, Decl, Kind, Line, classify, parse_decl, split_lines

STEP_REWARDS: dict[str, float] = {"verified": 1.0, "wrong": 0.0, "unchecked": 0.5}
#: Engines with steps, and how each engine's step statuses map onto the three above.
STEP_STATUS: dict[str, dict[str, str]] = {
    "vericot": {
        "entailed": "verified",
        "contradicted": "wrong",
        "ungrounded": "wrong",
        "untranslatable": "unchecked",
        "unknown": "unchecked",
    },
    "cot": {"verified": "verified", "wrong": "wrong", "unchecked": "unchecked"},
}
STEP_ENGINES = ("te", *STEP_STATUS)
_MAX_LINE_CHARS = 100_000  # classification only; the linter applies its own limit


def step_statuses(report: Report, trace: str = "") -> list[str]:
    """One status per step of ``report`` (``trace`` is the text it checked; te needs it)."""
    if report.engine == "te":
        return _te_statuses(report, trace)
    steps = report.details.get("steps")
    mapping = STEP_STATUS.get(report.engine)
    if not isinstance(steps, list) or mapping is None:
        return []
    return [mapping.get(str(s.get("status")), "unchecked") for s in steps if isinstance(s, Mapping)]


def _te_statuses(report: Report, trace: str) -> list[str]:
    lines = classify(split_lines(trace), _MAX_LINE_CHARS)
    steps = [ln for ln in lines if ln.kind is Kind.BRACKET or (ln.kind is Kind.HEADER and ln.tag == "ANS")]
    if report.verdict in ("abstain", "invalid"):
        return ["unchecked"] * len(steps)
    errors: dict[int, set[str]] = {}
    for f in report.findings:
        if f.severity == "error" and f.location.line is not None:
            errors.setdefault(f.location.line, set()).add(f.code)
    at_step = {ln.no for ln in steps}
    for ln in lines:
        if ln.no in errors and ln.no not in at_step and steps:
            # an error on a GIVEN (or other non-step) line is charged to the step that builds on it
            errors.setdefault(_charged(ln, steps), set()).update(errors[ln.no])
    out = []
    for ln in steps:
        codes = errors.get(ln.no)
        if not codes:
            out.append("verified")
        elif codes <= NOT_CHECKED_CODES:
            out.append("unchecked")
        else:
            out.append("wrong")
    return out


def _charged(line: Line, steps: list[Line]) -> int:
    """The step an error on a non-step ``line`` is charged to: the first later step that uses a
    name the line declares, else the first later step, else the last step."""
    later = [s for s in steps if s.no > line.no]
    decl = parse_decl(line.body, 0) if line.kind is Kind.DECL else None
    if isinstance(decl, Decl):
        for step in later:
            if decl.name in ID_RE.findall(step.body):
                return step.no
    return later[0].no if later else steps[-1].no


def step_rewards_for(
    report: Report, values: Mapping[str, float | None] = STEP_REWARDS, trace: str = ""
) -> list[float | None]:
    """One value per step of ``report``, by status (``[]`` for an engine without steps)."""
    default = values.get("unchecked", STEP_REWARDS["unchecked"])
    out: list[float | None] = []
    for status in step_statuses(report, trace):
        value = values.get(status, default)
        out.append(None if value is None else float(value))
    return out
