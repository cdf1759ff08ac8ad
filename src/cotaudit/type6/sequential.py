"""VerifierStep (§2-§6): state Σ, chain ℋ, constraints 𝒦, history, and statement events.

One :class:`Sequential` runs the statements in order; each step runs the Y-18 phases. Events
are collected with their Y-56 rank and sorted per statement. Back-propagation (Y-38) is
incremental through a proposition→constraints index; the tests check it against the naive
"re-evaluate everything after every statement" formulation (Y-41).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from cotaudit.type6.backprop import backpropagate
from cotaudit.type6.constraints import AND, OR, SEED, TF, Constraint
from cotaudit.type6.events import RANK, Event
from cotaudit.type6.fold import Folded, OpsReading
from cotaudit.type6.licensing import derived, structural
from cotaudit.type6.model import FLIP

State = tuple[str, str | None, int]  # (τ, σ, δ)


class Commit(NamedTuple):
    """A commitment (Y-42): statement, kind (K, B, bare) and value α'."""

    stmt: int
    kind: str
    value: str


_PAIR_CODE = {("K", "K"): "T6_H01", ("B", "B"): "T6_S01", ("K", "B"): "T6_S03", ("B", "K"): "T6_S04"}


class Sequential:
    """The sequential verifier over folded statements (1-based)."""

    def __init__(
        self,
        jump_prefix: list[int],
        upstream_budget: int = 1_000_000,
        evaluations: int = 500_000,
        record_states: bool = True,
    ) -> None:
        self.tau: dict[str, str] = {}
        self.sigma: dict[str, str | None] = {}
        self.delta: dict[str, int] = {}
        self.chain: list[tuple[str, str, bool]] = []
        self.if_pending = False
        self.if_stmt = 0
        self.if_prop = ""
        self.anchor: tuple[str, bool] | None = None
        self.constraints: list[Constraint] = []
        self.by_prop: dict[str, list[int]] = {}  # every constraint mentioning the prop
        self.by_target: dict[str, list[int]] = {}
        self.changes: dict[str, list[int]] = {}  # steps at which τ changed (Y-15)
        self.change_steps: list[int] = []  # every step with some τ change
        self.last_change: dict[str, int] = {}  # the latest step at which τ changed
        self.parents: dict[str, dict[str, None]] = {}  # operands of the constraints on a target
        self.upstream_limit = upstream_budget
        self.upstream_budget = upstream_budget  # node visits left for Up(π) searches (Y-46 b)
        self.upstream_exhausted_at: int | None = None
        self.evaluation_limit = evaluations
        self.evaluations_left = evaluations  # constraint evaluations left for back-propagation
        self.last_write: dict[str, int] = {}
        # Per step, the state after it of every proposition it wrote: only path projection
        # (Y-74) reads it, so it is not recorded when paths are off.
        self.step_writes: list[list[tuple[str, State]]] = [[]]
        self.record_states = record_states
        self.last_any: dict[str, Commit] = {}
        self.last_res: dict[str, Commit] = {}
        self.r_prefix: list[int] = [0]
        self.prop_prefix: list[int] = [0]
        self.jump_prefix = jump_prefix  # filled by the graph builder, one entry per statement
        self.events: list[Event] = []
        self._written: list[str] = []
        self._step_events: list[Event] = []

    # ------------------------------------------------------------------ helpers

    def _emit(self, code: str, stmt: int | None, prop: str | None, rank: str, **data: object) -> Event:
        constraint = data.pop("constraint_id", None)
        event = Event(
            code, stmt, prop, RANK[rank], constraint if isinstance(constraint, int) else None, dict(data)
        )
        self._step_events.append(event)
        return event

    def _write(self, i: int, prop: str, tau: str) -> None:
        """Record a write of π at step i (value effect or pin) and a τ change if any (Y-15)."""
        old = self.tau.get(prop, "Uk")
        self.tau[prop] = tau
        if self.last_write.get(prop) != i:
            self.last_write[prop] = i
            self._written.append(prop)
        if old != tau:
            steps = self.changes.setdefault(prop, [])
            if not steps or steps[-1] != i:
                steps.append(i)
            if not self.change_steps or self.change_steps[-1] != i:
                self.change_steps.append(i)
            self.last_change[prop] = i

    def _changed_at(self, prop: str, i: int) -> bool:
        return self.last_change.get(prop) == i

    # ------------------------------------------------------------------ one statement

    def step(self, f: Folded) -> None:
        """VerifierStep(i): the Y-18 phases for one statement."""
        i = f.stmt
        r = f.reading
        pi = f.prop
        events: list[Event] = []
        self._step_events = events
        self._written = []
        self.r_prefix.append(self.r_prefix[-1] + r.has_r)
        self.prop_prefix.append(self.prop_prefix[-1] + (pi is not None))
        for item in r.unknown:  # phase 1
            self._emit("T6_W01", i, pi, "W01", token=item.token, reason=item.reason)
        if r.has_r:  # phase 2: loopback
            if self.if_pending:
                self._emit("T6_D01", i, self.if_prop, "D01R", opened_at=self.if_stmt, closed_by="R")
            self.chain = []
            self.if_pending = False
            self.anchor = None
        created: list[int] = []
        if pi is None:  # phase 3
            if r.connective is not None:
                self._emit("T6_W04", i, None, "W04", connective=r.connective)
            elif r.value_ops or r.has_not or not r.known_any:
                what = " ".join(r.value_ops) if r.value_ops else ("NOT" if r.has_not else "filler statement")
                self._emit("T6_W05", i, None, "W05", what=what)
        else:
            commit = self._value_effect(f, r, pi)  # phase 4
            created = self._chain_effect(f, r, pi)  # phase 5
            if commit is not None:  # phase 6
                self._commitment_checks(r, pi, commit)
            if len(r.value_ops) > 1 or r.connective_negated:  # phase 7
                self._self_questioning(f, r, pi)
        if self._needs_backpropagation(i, created, pi):  # phase 8
            self._backpropagate(i, created, pi)
        if self.record_states:
            tau, sigma, delta = self.tau, self.sigma, self.delta
            self.step_writes.append([(p, (tau[p], sigma.get(p), delta.get(p, 0))) for p in self._written])
        if events:
            if len(events) > 1:
                events.sort(key=lambda e: e.rank)
            for event in events:
                event.line = f.line
            self.events.extend(events)

    def _value_effect(self, f: Folded, r: OpsReading, pi: str) -> Commit | None:
        """Y-19..Y-24: the innermost value operator acts on π; an outer ``?`` adds doubt."""
        ops = r.value_ops
        innermost = ops[-1] if ops else None
        commit: Commit | None = None
        if innermost is None:
            self._write(f.stmt, pi, f.value)
            commit = Commit(f.stmt, "bare", f.value)
        elif innermost == "K":
            self._write(f.stmt, pi, f.value)
            self.sigma[pi] = "K"
            self.delta[pi] = 0
            commit = Commit(f.stmt, "K", f.value)
        elif innermost == "B":
            self._write(f.stmt, pi, f.value)
            self.sigma[pi] = "B"
            commit = Commit(f.stmt, "B", f.value)
        else:  # Doubt: τ and σ kept
            self._write(f.stmt, pi, self.tau.get(pi, "Uk"))
            self.delta[pi] = 1
        if len(ops) > 1 and "?" in ops[:-1]:
            self.delta[pi] = 1
        if innermost in ("K", "B") and f.alpha == "Uc":
            self._emit("T6_H03", f.stmt, pi, "H03", kind=innermost)
        elif innermost == "K" and f.alpha == "Uk":
            self._emit("T6_H04", f.stmt, pi, "H04", kind="K")
        return commit

    def _chain_effect(self, f: Folded, r: OpsReading, pi: str) -> list[int]:
        """§4: seed, extend, open or close the chain; returns the ids of new constraints."""
        eps = r.negated
        conn = r.connective
        created: list[int] = []
        if conn is None:
            if not self.if_pending:
                self.chain = [(pi, SEED, eps)]
        elif conn in (AND, OR):
            if self.chain:
                self.chain.append((pi, conn, eps))
            elif self.anchor is not None:
                self.chain = [(self.anchor[0], SEED, self.anchor[1]), (pi, conn, eps)]
            else:
                self.chain = [(pi, SEED, eps)]
        elif conn == "IF":
            if self.if_pending:
                self._emit("T6_D01", f.stmt, self.if_prop, "D01IF", opened_at=self.if_stmt, closed_by="IF")
            self.chain = [(pi, SEED, eps)]
            self.if_pending = True
            self.if_stmt = f.stmt
            self.if_prop = pi
        else:  # THEN
            antecedent = self.chain or ([(self.anchor[0], SEED, self.anchor[1])] if self.anchor else [])
            if not antecedent:
                self._emit("T6_W06", f.stmt, pi, "W06")
            else:
                cid = len(self.constraints) + 1
                c = Constraint.close(cid, f.stmt, antecedent, self.if_pending, pi, eps)
                self.constraints.append(c)
                for p in c.props:
                    self.by_prop.setdefault(p, []).append(cid)
                self.by_target.setdefault(pi, []).append(cid)
                self.parents.setdefault(pi, {}).update(dict.fromkeys(c.operand_props))
                created.append(cid)
            self.chain = []
            self.if_pending = False
        self.anchor = (pi, eps)
        return created

    def _commitment_checks(self, r: OpsReading, pi: str, commit: Commit) -> None:
        """Y-43: opposite value, same-value downgrade, redundancy."""
        i, kind, value = commit
        last_res = self.last_res.get(pi)
        last_any = self.last_any.get(pi)
        if value in TF and last_res is not None:
            data = {"prev_stmt": last_res.stmt, "prev_kind": last_res.kind, "prev_value": last_res.value}
            if last_res.value == FLIP[value]:
                if self._licensed(last_res.stmt, i, pi):
                    code = "T6_I01"
                else:
                    code = _PAIR_CODE.get((last_res.kind, kind), "T6_S02")
                self._emit(code, i, pi, "Y43", **data, kind=kind, value=value)
            elif last_res.kind == "K" and kind == "B" and not self._derived(last_res.stmt, i, pi):
                self._emit("T6_S03", i, pi, "Y43", **data, kind=kind, value=value)
        if (
            r.connective is None
            and last_any is not None
            and last_any.kind == kind
            and last_any.value == value
            and self.prop_prefix[i - 1] == self.prop_prefix[last_any.stmt]
        ):
            self._emit(
                "T6_Q01",
                i,
                pi,
                "Q01",
                prev_stmt=last_any.stmt,
                prev_kind=last_any.kind,
                prev_value=last_any.value,
                kind=kind,
                value=value,
            )
        self.last_any[pi] = commit
        if value in TF:
            self.last_res[pi] = commit

    def _self_questioning(self, f: Folded, r: OpsReading, pi: str) -> None:
        """Y-44 (Q02/Q03) and Y-45 (Q05)."""
        ops = r.value_ops
        if len(ops) >= 2 and ops[-1] == "?" and ops[-2] in ("K", "B"):
            last_any = self.last_any.get(pi)
            if last_any is not None and last_any.kind == ops[-2]:
                code, rank = ("T6_Q02", "Q02") if ops[-2] == "K" else ("T6_Q03", "Q03")
                self._emit(code, f.stmt, pi, rank, prev_stmt=last_any.stmt)
        if r.connective_negated:
            self._emit("T6_Q05", f.stmt, pi, "Q05", connective=r.connective)

    # ------------------------------------------------------------------ licensing (Y-46)

    def _derived(self, j: int, i: int, pi: str) -> bool:
        return derived(self, j, i, pi)

    def _licensed(self, j: int, i: int, pi: str) -> bool:
        return structural(self, j, i) and derived(self, j, i, pi)

    # ------------------------------------------------------------------ back-propagation (Y-38)

    def _needs_backpropagation(self, i: int, created: Sequence[int], pi: str | None) -> bool:
        """Only new constraints or a τ change of π can change a status (the index is exact, Y-41)."""
        return bool(created) or (pi is not None and self.last_change.get(pi) == i)

    def _backpropagate(self, i: int, created: Sequence[int], pi: str | None) -> None:
        """Seeded with the new constraints and those on π if its τ changed at this step."""
        backpropagate(self, i, created, pi)

    # ------------------------------------------------------------------ end of trace

    def finish(self, n: int, line: int | None) -> None:
        """Y-33: a pending IF at the end of the trace is malformed."""
        if self.if_pending:
            event = Event(
                "T6_D01", n, self.if_prop, RANK["D01R"], None, {"opened_at": self.if_stmt, "closed_by": "end"}
            )
            event.line = line
            self.events.append(event)

    def state(self, prop: str) -> State:
        return (self.tau.get(prop, "Uk"), self.sigma.get(prop), self.delta.get(prop, 0))


__all__ = ["AND", "OR", "Commit", "Sequential", "State"]
