"""The executor's entry point (certify.md §5, C-21 … C-28): :func:`evaluate`.

It loads the program and overlay into a fact store, compiles the rules, orders them by stratum
and runs the rounds of :class:`~cotaudit.certify.engine.executor.Evaluator`; the result is a
:class:`~cotaudit.certify.engine.closure.Closure` with one minimum-depth witness per fact.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from cotaudit.certify.engine.closure import Closure
from cotaudit.certify.engine.compiled import CRule
from cotaudit.certify.engine.executor import Evaluator
from cotaudit.certify.engine.facts import Source, SourceTable
from cotaudit.certify.engine.limits import EvalLimits
from cotaudit.certify.lang.strata import rule_strata
from cotaudit.certify.lang.syntax import Rule, Unit
from cotaudit.gcpause import paused_collector


def evaluate(
    program: Sequence[Source] | Sequence[Unit],
    overlay: Sequence[Source] | Sequence[Unit] = (),
    *,
    max_depth: int | None = None,
    limits: EvalLimits | None = None,
    record_instances: bool = False,
) -> Closure:
    """The closure of ``program ∪ overlay`` with one min-depth witness per derived fact (C-21).

    Plain units get unit ids 1, 2, … in order (overlay units continue the numbering only if
    given as :class:`Source`). Raises :class:`ComputationCap` past a limit and
    :class:`~cotaudit.certify.core.errors.ProgramError` (``UNSTRATIFIED``) for unstratified NAF.
    ``record_instances`` keeps every rule instance as ``closure.instances`` (head fact id, rule
    index, premise fact ids) — slower; the kernel scan uses it.
    """
    with paused_collector(promote=True):  # many small acyclic objects: see cotaudit.gcpause
        return _evaluate(program, overlay, max_depth, limits, record_instances)


def _evaluate(
    program: Sequence[Source] | Sequence[Unit],
    overlay: Sequence[Source] | Sequence[Unit],
    max_depth: int | None,
    limits: EvalLimits | None,
    record_instances: bool,
) -> Closure:
    started = time.perf_counter()
    ev = Evaluator(limits or EvalLimits(), max_depth, record_instances)
    # Unit ids: a Source keeps its own; plain units are numbered 1, 2 … (overlay continuing).
    # Constants are interned in first-seen order over the canonical program order, overlay
    # last; only program rules are evaluated. Source objects for plain units are made only
    # when asked for (SourceTable).
    rule_srcs: list[Source] = []
    for offset, group, scope in ((0, program, "kernel"), (len(program), overlay, "query")):
        if any(isinstance(item, Source) for item in group):
            units = [item.unit if isinstance(item, Source) else item for item in group]
            uids: Sequence[int] = [
                item.unit_id if isinstance(item, Source) else offset + i + 1 for i, item in enumerate(group)
            ]
        else:
            units, uids = group, range(offset + 1, offset + len(group) + 1)  # type: ignore[assignment]
        for at in ev.store.load(units, uids):
            if scope == "kernel":
                item = group[at]
                rule_srcs.append(item if isinstance(item, Source) else Source(uids[at], item, scope))
    rules = [CRule(i, s, ev.store, ev.record) for i, s in enumerate(rule_srcs)]
    strata = rule_strata([s.unit for s in rule_srcs]) if rule_srcs else []  # type: ignore[misc]
    rounds = ev.run(rules, strata)
    stats = {
        "rounds": rounds,
        "facts": len(ev.store.args),
        "join_steps": ev.steps,
        "seconds": round(time.perf_counter() - started, 6),
    }
    naf = any(b.naf for s in rule_srcs if isinstance(s.unit, Rule) for b in s.unit.body)
    closure = Closure(ev.store, rule_srcs, SourceTable(program, overlay), stats, ev.diagnostics, naf=naf)
    closure.instances = [
        (ev.store.fid_of(rel, h), ridx, prem)  # type: ignore[misc]
        for rel, h, ridx, prem in ev.instances
    ]
    return closure
