"""The executor's rounds and joins (certify.md §5, C-21 … C-28): semi-naive bottom-up evaluation.

Round 0 holds the base facts (kernel facts and overlay) at depth 0; round n fires every rule
instance whose positive premises are present after round n−1 with at least one of depth n−1,
so a fact first appears in the round equal to its minimum depth. For every derived fact the
first instance found (rules in program order, Δ positions ascending, facts in derivation
order) is kept as its witness: a rule index and the premise fact ids — nothing else is stored
per fact. Constants are interned to integers in first-seen order and joins use hash indexes
on the bound argument positions, so output never depends on hash randomisation.

NAF programs are evaluated stratum by stratum; the rounds of a stratum are depth buckets into
which lower-stratum facts enter at their own depth, so witnesses still have minimum height.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from operator import itemgetter
from typing import Any

from cotaudit.certify.core.errors import ComputationCap, ResourceCap
from cotaudit.certify.engine.compiled import CRule, Op, Step, Triggers
from cotaudit.certify.engine.facts import CalcRecord, FactStore
from cotaudit.certify.engine.limits import CHECK_EVERY, INDEX_CHECK_EVERY, EvalLimits
from cotaudit.certify.lang import calculators
from cotaudit.certify.lang.syntax import Const, Literal
from cotaudit.limits import MEMORY_POLL_S, checkpoint, rss_bytes


def _joined(k: int) -> None:
    """What ``_fire_general``'s recursive ``join`` is rebound to once the rule has fired."""


class _Found:
    """The facts of one relation found in the current round: argument tuples and witness
    entries ``(rule index, premise fact ids …)``, both in found order.

    A found fact is entered in the relation's ``rel_dict`` at once, under its position-to-be
    (``len(rel_fids) + len(keys)``), so one look-up rejects both old facts and facts already
    found this round; joins never see it before the round is appended (indexes are built from
    ``rel_fids``, which only grows then)."""

    __slots__ = ("keys", "wits")

    def __init__(self) -> None:
        self.keys: list[tuple[int, ...]] = []
        self.wits: list[tuple[int, ...]] = []

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        return iter(self.keys)


class Evaluator:
    """One evaluation: the fact store, its join indexes, the limits and the round loop."""

    def __init__(self, limits: EvalLimits, max_depth: int | None, record: bool = False) -> None:
        self.store = FactStore()
        self.record = record  # keep every rule instance (the kernel scan's instance graph)
        self.instances: list[tuple[int, tuple[int, ...], int, tuple[int, ...]]] = []
        self.limits = limits
        self.max_depth = max_depth
        self.start = time.monotonic()
        self.deadline = self.start + limits.timeout_s
        base = rss_bytes() if limits.max_memory_mb is not None else None
        self.rss_ceiling = None if base is None else base + (limits.max_memory_mb or 0) * 1024 * 1024
        self.next_poll = self.start
        self.round: dict[int, _Found] = {}  # the facts found in the round being evaluated
        self.steps = 0
        self.next_check = CHECK_EVERY
        self.indexes: dict[tuple[int, tuple[int, ...]], list[Any]] = {}
        self.projections: dict[tuple[int, tuple[int, ...], int], list[Any]] = {}
        self.calc_pending: dict[tuple[int, tuple[int, ...]], CalcRecord] = {}
        self.diagnostics: list[str] = []

    def intern(self, c: Const) -> int:
        return self.store.intern(c)

    def rel(self, lit: Literal) -> int:
        return self.store.rel(lit.signature)

    # ------------------------------------------------------------------ facts and indexes
    def index(self, rel: int, kpos: tuple[int, ...]) -> dict[Any, list[int]]:
        """The hash index of ``rel`` on ``kpos``, brought up to date lazily: an index is only
        extended when a join asks for it, so indexes used in one round cost nothing later."""
        entry = self.indexes.get((rel, kpos))
        if entry is None:
            entry = self.indexes[(rel, kpos)] = [{}, 0]
        idx: dict[Any, list[int]] = entry[0]
        fids = self.store.rel_fids[rel]
        done: int = entry[1]
        if done < len(fids):
            args = self.store.args
            single = len(kpos) == 1
            p0 = kpos[0]
            get = itemgetter(*kpos)
            for start in range(done, len(fids), INDEX_CHECK_EVERY):
                for fid in fids[start : start + INDEX_CHECK_EVERY]:
                    key = args[fid][p0] if single else get(args[fid])
                    lst = idx.get(key)
                    if lst is None:
                        idx[key] = [fid]
                    else:
                        lst.append(fid)
                entry[1] = min(len(fids), start + INDEX_CHECK_EVERY)
                if entry[1] < len(fids):
                    self.check_limits()
        return idx

    def projected(self, rel: int, kpos: tuple[int, ...], q: int) -> dict[Any, list[tuple[int, int]]]:
        """Like :meth:`index`, with each fact id paired with its argument at position ``q``:
        ``key → [(args[q], fid), …]``. The two-literal fast join reads the one head argument it
        needs from the pair instead of fetching and concatenating the fact's tuple."""
        entry = self.projections.get((rel, kpos, q))
        if entry is None:
            entry = self.projections[(rel, kpos, q)] = [{}, 0]
        idx: dict[Any, list[tuple[int, int]]] = entry[0]
        fids = self.store.rel_fids[rel]
        done: int = entry[1]
        if done < len(fids):
            args = self.store.args
            single = len(kpos) == 1
            p0 = kpos[0]
            get = itemgetter(*kpos)
            for start in range(done, len(fids), INDEX_CHECK_EVERY):
                for fid in fids[start : start + INDEX_CHECK_EVERY]:
                    a = args[fid]
                    key = a[p0] if single else get(a)
                    lst = idx.get(key)
                    if lst is None:
                        idx[key] = [(a[q], fid)]
                    else:
                        lst.append((a[q], fid))
                entry[1] = min(len(fids), start + INDEX_CHECK_EVERY)
                if entry[1] < len(fids):
                    self.check_limits()
        return idx

    def insert_round(self, new: dict[int, _Found], n: int) -> int:
        """Append the facts found in round ``n`` (relations in first-fired order, then found order)."""
        store = self.store
        total = 0
        for rel, found in new.items():
            if found.keys:
                store.append_round(rel, found.keys, found.wits, n)
                total += len(found.keys)
        if self.calc_pending:
            for (rel, hargs), rec in self.calc_pending.items():
                fid = store.fid_of(rel, hargs)
                assert fid is not None
                store.calc[fid] = rec
            self.calc_pending.clear()
        return total

    def check_limits(self) -> None:
        """C-25's limits, then the enclosing per-input budget (``cotaudit.limits``)."""
        self.next_check = self.steps + CHECK_EVERY
        facts = len(self.store.args) + sum(len(f.keys) for f in self.round.values())
        if facts > self.limits.max_facts:
            raise ComputationCap(f"more than {self.limits.max_facts} facts", self._stats(facts))
        steps = self.limits.max_join_steps
        if steps is not None and self.steps > steps:
            raise ComputationCap(f"more than {steps} join steps", self._stats(facts))
        now = time.monotonic()
        if now > self.deadline:
            raise ResourceCap(f"evaluation exceeded {self.limits.timeout_s} s", self._stats(facts), "time")
        if self.rss_ceiling is not None and now >= self.next_poll:
            self.next_poll = now + MEMORY_POLL_S
            rss = rss_bytes()
            if rss is not None and rss > self.rss_ceiling:
                raise ResourceCap(
                    f"evaluation used more than {self.limits.max_memory_mb} MiB", self._stats(facts), "memory"
                )
        checkpoint()

    def _stats(self, facts: int) -> dict[str, Any]:
        return {"facts": facts, "join_steps": self.steps, "seconds": round(time.monotonic() - self.start, 3)}

    # ------------------------------------------------------------------ one round of one rule
    def fire(self, cr: CRule, n: int, new: dict[int, _Found], multi: bool, positions: list[int]) -> None:
        """Every instance of ``cr`` with a Δ premise (depth n−1) at one of ``positions``."""
        found = new.get(cr.head_rel)
        if found is None:
            found = new[cr.head_rel] = _Found()
        if positions == [-1]:  # a ground rule whose premises are all present
            store = self.store
            prem = tuple(store.fid_of(rel, args) for rel, args in cr.ground_body)
            head = cr.ground_head
            if self.record:
                self.instances.append((cr.head_rel, head, cr.idx, prem))  # type: ignore[arg-type]
            self.steps += 1
            existing = store.rel_dict[cr.head_rel]
            if head not in existing:
                existing[head] = len(store.rel_fids[cr.head_rel]) + len(found.keys)
                found.keys.append(head)
                found.wits.append((cr.idx, *prem))  # type: ignore[arg-type]
            return
        for i in positions:
            plan = cr.plan(i)
            first = plan[0]
            if first.kpos:
                got = self.index(first.rel, first.kpos).get(first.key)
                if not got:
                    continue
                depth_of = self.store.depth
                delta = [f for f in got if depth_of[f] == n - 1]
            else:
                delta = self.store.by_depth(first.rel, n - 1)
            if not delta:
                continue
            if cr.simple:
                self._fire_fast(cr, i, plan, delta, n, found, multi)
            else:
                self._fire_general(cr, i, plan, delta, n, found, multi)

    def _fire_fast(
        self,
        cr: CRule,
        i: int,
        plan: list[Step],
        delta: list[int],
        n: int,
        found: _Found,
        multi: bool,
    ) -> None:
        """One- and two-literal rules without NAF or calc (see :class:`Fast`)."""
        fp = cr.fast(i)
        store = self.store
        args_of = store.args
        depth_of = store.depth
        existing = store.rel_dict[cr.head_rel]
        npos = len(store.rel_fids[cr.head_rel]) + len(found.keys)  # position of the next new fact
        keep = found.keys.append
        witness = found.wits.append
        ridx = cr.idx
        tail = fp.tail
        checks_a = fp.checks_a
        tail_a = fp.tail_a
        head = fp.head
        head_n = fp.head_n
        steps = self.steps
        if len(plan) == 1:
            same = fp.same
            for fid in delta:
                a = args_of[fid]
                if same:
                    h = a
                else:
                    v = a + tail if tail_a or fp.tail_b else a
                    if checks_a and any(v[x] != v[y] for x, y in checks_a):
                        continue
                    h = head(v) if head_n > 1 else ((v[head],) if head_n == 1 else ())
                steps += 1
                if steps >= self.next_check:
                    self.steps = steps
                    self.check_limits()
                if h in existing:
                    continue
                existing[h] = npos
                npos += 1
                keep(h)
                witness((ridx, fid))
            self.steps = steps
            return
        st = plan[1]
        idx = self.index(st.rel, st.kpos) if st.kpos else None
        all_fids = store.rel_fids[st.rel]
        key = fp.key
        key_n = fp.key_n
        checks_b = fp.checks_b
        tail_b = fp.tail_b
        strict = st.limit < 0
        loose = st.limit > 0 and multi
        lim = n - 1
        first = i == 0
        next_check = self.next_check
        plain = not strict and not loose and not checks_b and not tail_b and head_n > 1 and idx is not None
        pair = fp.pair if plain else None
        if pair is not None:  # the common case, e.g. path(X,Z) :- path(X,Y), edge(Y,Z)
            p, q, a_first = pair
            pidx = self.projected(st.rel, st.kpos, q)
            for fid in delta:
                a = args_of[fid]
                va = a + tail if tail_a else a
                if checks_a and any(va[x] != va[y] for x, y in checks_a):
                    continue
                pairs = pidx.get(va[key] if key_n == 1 else key(va))
                if not pairs:
                    continue
                steps += len(pairs)
                x = a[p]
                for z, g in pairs:
                    h = (x, z) if a_first else (z, x)
                    if h in existing:
                        continue
                    existing[h] = npos
                    npos += 1
                    keep(h)
                    witness((ridx, fid, g) if first else (ridx, g, fid))
                if steps >= next_check:
                    self.steps = steps
                    self.check_limits()
                    next_check = self.next_check
            self.steps = steps
            return
        for fid in delta:
            a = args_of[fid]
            va = a + tail if tail_a else a
            if checks_a and any(va[x] != va[y] for x, y in checks_a):
                continue
            if idx is None:
                cands = all_fids
            else:
                got = idx.get(va[key] if key_n == 1 else key(va))
                if not got:
                    continue
                cands = got
            steps += len(cands)
            for g in cands:
                if strict:
                    if depth_of[g] >= lim:
                        continue
                elif loose and depth_of[g] > lim:
                    continue
                v = a + args_of[g] + tail if tail_b else a + args_of[g]
                if checks_b and any(v[x] != v[y] for x, y in checks_b):
                    continue
                h = head(v) if head_n > 1 else ((v[head],) if head_n == 1 else ())
                if h in existing:
                    continue
                existing[h] = npos
                npos += 1
                keep(h)
                witness((ridx, fid, g) if first else (ridx, g, fid))
            if steps >= next_check:
                self.steps = steps
                self.check_limits()
                next_check = self.next_check
        self.steps = steps

    def _fire_general(
        self,
        cr: CRule,
        i: int,
        plan: list[Step],
        delta: list[int],
        n: int,
        found: _Found,
        multi: bool,
    ) -> None:
        """Any rule: a recursive nested-loop join, NAF checks and calc outputs."""
        store = self.store
        args_of = store.args
        depth_of = store.depth
        existing = store.rel_dict[cr.head_rel]
        head_fids = store.rel_fids[cr.head_rel]
        env = list(cr.template)
        prem = [0] * len(cr.pos_slots)
        lookups = [(st, self.index(st.rel, st.kpos) if st.kpos else None) for st in plan[1:]]

        def emit() -> None:
            hargs = tuple(env[s] for s in cr.head_slots)
            for nrel, nslots in cr.neg:
                if tuple(env[s] for s in nslots) in store.rel_dict[nrel]:
                    return
            calc_rec: CalcRecord | None = None
            if cr.calc is not None:
                fn, version, ins, out = cr.calc
                try:
                    outcome = calculators.run(fn, version, [store.consts[env[s]] for s in ins])
                except calculators.CalcDomainError as exc:
                    self.diagnostics.append(f"[{cr.rule.label}] {exc}")
                    return
                env[out] = self.intern(outcome.output)
                hargs = tuple(env[s] for s in cr.head_slots)
                calc_rec = CalcRecord(tuple(env[s] for s in ins), env[out], dict(outcome.intermediates))
            if self.record:
                self.instances.append((cr.head_rel, hargs, cr.idx, tuple(prem)))
            if hargs in existing:
                return
            existing[hargs] = len(head_fids) + len(found.keys)
            found.keys.append(hargs)
            found.wits.append((cr.idx, *prem))
            if calc_rec is not None:
                self.calc_pending[(cr.head_rel, hargs)] = calc_rec

        def bind(a: tuple[int, ...], ops: list[Op]) -> bool:
            for p, s, is_bind in ops:
                if is_bind:
                    env[s] = a[p]
                elif env[s] != a[p]:
                    return False
            return True

        def join(k: int) -> None:
            if k == len(lookups):
                emit()
                return
            st, idx = lookups[k]
            if idx is None:
                cands: list[int] = store.rel_fids[st.rel]
            else:
                got = idx.get(st.key(env))
                if not got:
                    return
                cands = got
            ops = st.ops
            strict = st.limit < 0
            loose = st.limit > 0 and multi
            for fid in cands:
                if strict:
                    if depth_of[fid] >= n - 1:
                        continue
                elif loose and depth_of[fid] > n - 1:
                    continue
                if ops and not bind(args_of[fid], ops):  # (a fully bound literal has no ops)
                    continue
                prem[st.pos] = fid
                self.steps += 1
                if self.steps >= self.next_check:
                    self.check_limits()
                join(k + 1)

        pre = plan[0].pre
        if pre is not None and lookups and lookups[0][1] is not None:
            # Δ facts whose next step has no partner would bind, count one step and stop:
            # count them and drop them here (see CRule._plan)
            partners = lookups[0][1]
            kept = [fid for fid in delta if pre(args_of[fid]) in partners]
            self.steps += len(delta) - len(kept)
            if self.steps >= self.next_check:
                self.check_limits()
            delta = kept
        try:
            for fid in delta:
                if not bind(args_of[fid], plan[0].ops):
                    continue
                prem[i] = fid
                self.steps += 1
                if self.steps >= self.next_check:
                    self.check_limits()
                join(0)
        finally:
            # ``join`` refers to itself through its closure cell: rebinding the cell breaks the
            # cycle, which (with the indexes and the store it reaches) would otherwise wait for
            # the cyclic collector
            join = _joined

    # ------------------------------------------------------------------ the whole evaluation
    def run(self, rules: list[CRule], strata: list[int]) -> int:
        rounds = 0
        levels = sorted(set(strata)) or [0]
        multi = len(levels) > 1
        cap = self.max_depth
        bound = self.limits.max_rounds
        for level in levels:
            layer = [r for r, s in zip(rules, strata, strict=True) if s == level]
            lower_max = self.store.max_depth()
            n = 1
            triggers = Triggers(layer, self.store)
            while cap is None or n <= cap:
                new: dict[int, _Found] = {}
                self.round = new
                for ci, positions in triggers.active(self.store, n):
                    self.fire(layer[ci], n, new, multi, positions)
                self.check_limits()  # the round's facts before they are stored
                if bound is not None and n > bound and any(f.keys for f in new.values()):
                    raise ComputationCap(f"more than {bound} rounds", self._stats(len(self.store.args)))
                added = self.insert_round(new, n)
                self.round = {}
                triggers.notify(new, n)
                rounds = max(rounds, n if added else n - 1)
                self.check_limits()
                if not added and n - 1 >= lower_max:
                    break
                n += 1
        return rounds
