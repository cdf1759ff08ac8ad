"""Compiled rules for the executor: join plans, tuple-indexed fast plans and round triggers.

A :class:`CRule` numbers a rule's variables and constants as slots and compiles, per Δ position,
a join plan (:class:`Step` per body literal, keyed on the positions bound so far); rules with one
or two positive literals and no NAF or calc also get a :class:`Fast` plan; ground rules are
counted by :class:`Triggers` instead of joined.
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import itemgetter
from typing import Any

from cotaudit.certify.engine.facts import FactStore, Source
from cotaudit.certify.lang.syntax import Const, Rule, Var

Op = tuple[int, int, bool]  # (argument position, slot, bind?) — bind, else compare


class Step:
    """One positive body literal joined through an index (or scanned as the Δ literal)."""

    __slots__ = ("key", "kpos", "limit", "ops", "pos", "pre", "rel")

    def __init__(
        self, pos: int, rel: int, kpos: tuple[int, ...], key: Any, ops: list[Op], limit: int
    ) -> None:
        self.pos = pos  # index among the positive body literals
        self.rel = rel
        self.kpos = kpos  # argument positions bound before this step (the index key)
        self.key = key  # itemgetter over env slots giving the key (Δ literal: the constant key)
        self.ops = ops
        self.limit = limit  # 0: any fact present; -1: only facts older than Δ; 1: depth ≤ n−1
        # Δ literal only: itemgetter over a Δ fact's arguments giving the next step's index key,
        # when binding the Δ fact cannot fail (see CRule._plan)
        self.pre: Any = None


class Fast:
    """A one- or two-literal rule without NAF or calc, compiled to tuple indexing.

    The Δ fact ``a`` and the join fact ``b`` are concatenated (``a + b + constants``) and the
    head, the index key and the equality checks are read from that vector by precomputed
    positions: far fewer interpreter steps per join candidate than the general plan.
    """

    __slots__ = (
        "checks_a",
        "checks_b",
        "head",
        "head_n",
        "key",
        "key_n",
        "pair",
        "same",
        "tail",
        "tail_a",
        "tail_b",
    )

    def __init__(self, cr: CRule, i: int) -> None:
        lits = cr.pos_slots
        consts = sorted(cr.const_slots)
        self.tail = tuple(cr.template[s] for s in consts)
        ai = len(lits[i])
        where: dict[int, int] = {}
        checks_a: list[tuple[int, int]] = []
        for p, s in enumerate(lits[i]):
            if s in cr.const_slots:
                checks_a.append((p, ai + consts.index(s)))
            elif s in where:
                checks_a.append((p, where[s]))
            else:
                where[s] = p
        self.checks_a = checks_a
        self.checks_b: list[tuple[int, int]] = []
        key_src: list[int] = []
        if len(lits) == 1:
            base = ai
        else:
            j = 1 - i
            aj = len(lits[j])
            base = ai + aj
            for p, s in enumerate(lits[j]):
                if s in cr.const_slots:
                    key_src.append(ai + consts.index(s))
                elif s in where and where[s] < ai:
                    key_src.append(where[s])
                elif s in where:
                    self.checks_b.append((ai + p, where[s]))
                else:
                    where[s] = ai + p
        head_src = [where[s] if s in where else base + consts.index(s) for s in cr.head_slots]
        self.tail_a = (bool(checks_a) and any(q >= ai for _, q in checks_a)) or any(k >= ai for k in key_src)
        self.tail_b = any(h >= base for h in head_src) or any(q >= base for _, q in self.checks_b)
        self.key_n = len(key_src)
        self.key: Any = key_src[0] if len(key_src) == 1 else (itemgetter(*key_src) if key_src else None)
        self.head_n = len(head_src)
        self.head: Any = head_src[0] if len(head_src) == 1 else (itemgetter(*head_src) if head_src else None)
        # a one-literal rule whose head is its body literal's arguments in order (``path(X,Y) :-
        # edge(X,Y)``): the head is the Δ fact's own argument tuple, shared, not rebuilt
        self.same = len(lits) == 1 and not checks_a and head_src == list(range(ai))
        # the common two-literal shape, a head of one argument from each side (``path(X,Z) :-
        # path(X,Y), edge(Y,Z)``): (Δ position, join position, Δ argument first?), read with
        # the join relation's projected index instead of concatenating the two fact tuples
        self.pair: tuple[int, int, bool] | None = None
        if len(lits) == 2 and len(head_src) == 2 and not self.checks_b:
            h0, h1 = head_src
            if h0 < ai <= h1 < base:
                self.pair = (h0, h1 - ai, True)
            elif h1 < ai <= h0 < base:
                self.pair = (h1, h0 - ai, False)


class CRule:
    """A compiled rule: slots for variables and constants, and one join plan per Δ position."""

    def __init__(self, idx: int, src: Source, store: FactStore, record: bool = False) -> None:
        rule = src.unit
        assert isinstance(rule, Rule)
        self.idx = idx
        self.unit_id = src.unit_id
        self.rule = rule
        slots: dict[Any, int] = {}
        template: list[int] = []

        def slot(term: Var | Const) -> int:
            k: Any = term.name if isinstance(term, Var) else ("c", store.intern(term))
            s = slots.get(k)
            if s is None:
                s = slots[k] = len(template)
                template.append(store.intern(term) if isinstance(term, Const) else -1)
            return s

        pos_lits = [b.lit for b in rule.body if not b.naf]
        self.pos_slots = [tuple(slot(a) for a in lit.args) for lit in pos_lits]
        self.pos_rels = [store.rel(lit.signature) for lit in pos_lits]
        self.head_rel = store.rel(rule.head.signature)
        self.calc: tuple[str, str, tuple[int, ...], int] | None = None
        if rule.calc:
            ins = tuple(slot(Var(v)) for v in rule.calc.inputs)
            self.calc = (rule.calc.fn, rule.calc.version, ins, slot(Var(rule.calc.out)))
        self.head_slots = tuple(slot(a) for a in rule.head.args)
        self.neg = [
            (store.rel(b.lit.signature), tuple(slot(a) for a in b.lit.args)) for b in rule.body if b.naf
        ]
        self.template = template
        self.const_slots = {s for k, s in slots.items() if isinstance(k, tuple)}
        # plans are compiled on first use: a rule whose position never sees a Δ costs nothing
        self._plans: list[list[Step] | None] = [None] * len(pos_lits)
        self.simple = not self.neg and self.calc is None and len(pos_lits) <= 2 and not record
        self._fast: list[Fast | None] = [None] * len(pos_lits)
        self.delta_keys = [self._delta_key(i) for i in range(len(pos_lits))]
        # a ground rule (no variables, no NAF, no calc) fires by counting, never by joining
        self.ground = (
            not self.neg
            and self.calc is None
            and all(s in self.const_slots for lit in self.pos_slots for s in lit)
            and all(s in self.const_slots for s in self.head_slots)
        )
        self.ground_body = [
            (rel, tuple(template[s] for s in lit))
            for rel, lit in zip(self.pos_rels, self.pos_slots, strict=True)
        ]
        self.ground_head = tuple(template[s] for s in self.head_slots)

    def _delta_key(self, i: int) -> tuple[int, tuple[int, ...], Any]:
        """(relation, constant positions, constant key) of the Δ literal at position i."""
        dkpos = tuple(p for p, s in enumerate(self.pos_slots[i]) if s in self.const_slots)
        vals = [self.template[self.pos_slots[i][p]] for p in dkpos]
        dkey: Any = None if not vals else (vals[0] if len(vals) == 1 else tuple(vals))
        return (self.pos_rels[i], dkpos, dkey)

    def plan(self, i: int) -> list[Step]:
        got = self._plans[i]
        if got is None:
            got = self._plans[i] = self._plan(i)
        return got

    def fast(self, i: int) -> Fast:
        got = self._fast[i]
        if got is None:
            got = self._fast[i] = Fast(self, i)
        return got

    def _ops(self, pos: int, bound: set[int]) -> tuple[tuple[int, ...], list[Op]]:
        kpos: list[int] = []
        ops: list[Op] = []
        seen_here: set[int] = set()
        for p, s in enumerate(self.pos_slots[pos]):
            if s in bound:
                kpos.append(p)
            elif s in seen_here:
                ops.append((p, s, False))
            else:
                ops.append((p, s, True))
                seen_here.add(s)
        bound |= seen_here
        return tuple(kpos), ops

    def _plan(self, i: int) -> list[Step]:
        bound = set(self.const_slots)
        # the Δ literal is scanned, not looked up: every position is an op (constants compared)
        delta_ops: list[Op] = []
        seen: set[int] = set()
        for p, s in enumerate(self.pos_slots[i]):
            delta_ops.append((p, s, s not in seen and s not in self.const_slots))
            seen.add(s)
        bound |= seen
        # constant positions of the Δ literal: Δ facts are then looked up, not scanned
        _, dkpos, dkey = self.delta_keys[i]
        steps = [Step(i, self.pos_rels[i], dkpos, dkey, delta_ops, 0)]
        for j in range(len(self.pos_slots)):
            if j == i:
                continue
            kpos, ops = self._ops(j, bound)
            key_slots = [self.pos_slots[j][p] for p in kpos]
            key = itemgetter(*key_slots) if key_slots else None
            steps.append(Step(j, self.pos_rels[j], kpos, key, ops, -1 if j < i else 1))
        # A semi-join prefilter: when every key slot of the next step is a variable of the Δ
        # literal and binding a Δ fact cannot fail (no variable repeated in it; its constants
        # are matched by the Δ look-up), the next step's key is read off the Δ fact directly,
        # and Δ facts without a partner are skipped before any binding (most of them, when a
        # long relation meets a short one: ``controls(X,Y), located(Y,K)``).
        if len(steps) > 1 and steps[1].kpos:
            first_at: dict[int, int] = {}
            repeated = False
            for p, s in enumerate(self.pos_slots[i]):
                if s in self.const_slots:
                    continue
                repeated = repeated or s in first_at
                first_at.setdefault(s, p)
            key_slots = [self.pos_slots[steps[1].pos][p] for p in steps[1].kpos]
            if not repeated and all(s in first_at for s in key_slots):
                steps[0].pre = itemgetter(*(first_at[s] for s in key_slots))
        return steps


class Triggers:
    """Which (rule, Δ position) pairs can fire in a round, found from the Δ facts themselves.

    A Δ literal with constants is registered under its constant key, so a round touches only
    the rules a new fact can match — programs of many ground rules (a proof library) would
    otherwise pay rules × rounds. Ground rules are counted instead: one fires in the round
    after its last missing premise appears (position ``-1`` in :meth:`active`).
    """

    def __init__(self, layer: list[CRule], store: FactStore) -> None:
        self.any: dict[int, list[tuple[int, int]]] = {}
        self.keyed: dict[tuple[int, tuple[int, ...]], dict[Any, list[tuple[int, int]]]] = {}
        self.waiting: dict[tuple[int, tuple[int, ...]], list[int]] = {}
        self.missing: dict[int, int] = {}
        self.scheduled: dict[int, set[int]] = {}
        for ci, cr in enumerate(layer):
            if cr.ground:
                atoms = dict.fromkeys(cr.ground_body)
                depth = 0
                for rel, args in atoms:
                    fid = store.fid_of(rel, args)
                    if fid is None:
                        self.waiting.setdefault((rel, args), []).append(ci)
                        self.missing[ci] = self.missing.get(ci, 0) + 1
                    else:
                        depth = max(depth, store.depth[fid])
                if ci not in self.missing:
                    self.scheduled.setdefault(depth + 1, set()).add(ci)
                continue
            for i, (rel, dkpos, dkey) in enumerate(cr.delta_keys):
                if dkpos:
                    self.keyed.setdefault((rel, dkpos), {}).setdefault(dkey, []).append((ci, i))
                else:
                    self.any.setdefault(rel, []).append((ci, i))

    def notify(self, new: Mapping[int, Any], n: int) -> None:
        """Facts added in round n: ground rules whose last premise this was fire in round n + 1.

        ``new`` maps a relation to what was found in it (iterating gives argument tuples)."""
        if not self.waiting:
            return
        for rel, found in new.items():
            for args in found:
                for ci in self.waiting.pop((rel, args), ()):
                    self.missing[ci] -= 1
                    if self.missing[ci] == 0:
                        self.scheduled.setdefault(n + 1, set()).add(ci)

    def active(self, store: FactStore, n: int) -> list[tuple[int, list[int]]]:
        act: dict[int, set[int]] = {ci: {-1} for ci in self.scheduled.pop(n, ())}
        for rel, entries in self.any.items():
            if store.by_depth(rel, n - 1):
                for ci, i in entries:
                    act.setdefault(ci, set()).add(i)
        for (rel, kpos), table in self.keyed.items():
            delta = store.by_depth(rel, n - 1)
            if not delta:
                continue
            args = store.args
            single = len(kpos) == 1
            for f in delta:
                a = args[f]
                key = a[kpos[0]] if single else tuple(a[p] for p in kpos)
                for ci, i in table.get(key, ()):
                    act.setdefault(ci, set()).add(i)
        return [(ci, sorted(act[ci])) for ci in sorted(act)]
