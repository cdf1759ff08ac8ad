"""The evaluated closure and its compact fact store (C-22, C-23, C-27).

Facts live in parallel arrays indexed by fact id (derivation order): relation, interned
arguments, depth, witness rule (−1 for a base fact), premise fact ids and, for base facts,
the unit id. Everything else — substitutions, canonical premise order, NAF atoms,
dependencies — is recomputed on demand from the witness, never stored per fact.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cotaudit.certify.normal import normal_form
from cotaudit.certify.syntax import Const, Literal, Rule, Unit, Var, substitute

Signature = tuple[str, bool, int]


@dataclass(frozen=True, slots=True)
class Source:
    """A unit with its id and scope (``kernel``, ``query`` or ``temp`` for scan temporaries)."""

    unit_id: int
    unit: Unit
    scope: str = "kernel"


@dataclass(frozen=True, slots=True)
class CalcRecord:
    """What a calc edge computed: input and output constant ids, named intermediates."""

    inputs: tuple[int, ...]
    output: int
    intermediates: Mapping[str, str] = field(default_factory=dict)


class FactStore:
    """Interned constants and relations, and the per-fact arrays."""

    def __init__(self) -> None:
        self.consts: list[Const] = []
        self.const_ids: dict[Const, int] = {}
        self.sigs: list[Signature] = []
        self.sig_ids: dict[Signature, int] = {}
        self.rel_dict: list[dict[tuple[int, ...], int]] = []
        self.rel_fids: list[list[int]] = []
        self.args: list[tuple[int, ...]] = []
        self.frel: list[int] = []
        self.depth: list[int] = []
        self.rule: list[int] = []
        self.prem: list[tuple[int, ...]] = []
        self.unit: list[int] = []
        self.calc: dict[int, CalcRecord] = {}
        self._by_depth: dict[tuple[int, int], list[int]] = {}
        self._max_depth = 0

    def intern(self, c: Const) -> int:
        i = self.const_ids.get(c)
        if i is None:
            i = self.const_ids[c] = len(self.consts)
            self.consts.append(c)
        return i

    def rel(self, sig: Signature) -> int:
        r = self.sig_ids.get(sig)
        if r is None:
            r = self.sig_ids[sig] = len(self.sigs)
            self.sigs.append(sig)
            self.rel_dict.append({})
            self.rel_fids.append([])
        return r

    def add(
        self, rel: int, args: tuple[int, ...], depth: int, rule: int, prem: tuple[int, ...], unit: int
    ) -> int:
        fid = len(self.args)
        self.args.append(args)
        self.frel.append(rel)
        self.depth.append(depth)
        self.rule.append(rule)
        self.prem.append(prem)
        self.unit.append(unit)
        self.rel_dict[rel][args] = fid
        self.rel_fids[rel].append(fid)
        bucket = self._by_depth.get((rel, depth))
        if bucket is None:
            self._by_depth[(rel, depth)] = [fid]
        else:
            bucket.append(fid)
        if depth > self._max_depth:
            self._max_depth = depth
        return fid

    def append_block(
        self,
        rel: int,
        keys: list[tuple[int, ...]],
        rules: list[int],
        prems: list[tuple[int, ...]],
        depth: int,
    ) -> None:
        """Append derived facts of one relation and one depth in bulk (the executor's hot path)."""
        fid0 = len(self.args)
        k = len(keys)
        fids = range(fid0, fid0 + k)
        self.args.extend(keys)
        self.frel.extend([rel] * k)
        self.depth.extend([depth] * k)
        self.rule.extend(rules)
        self.prem.extend(prems)
        self.unit.extend([-1] * k)
        self.rel_dict[rel].update(zip(keys, fids, strict=True))
        self.rel_fids[rel].extend(fids)
        self._by_depth.setdefault((rel, depth), []).extend(fids)
        if k and depth > self._max_depth:
            self._max_depth = depth

    def by_depth(self, rel: int, depth: int) -> list[int]:
        return self._by_depth.get((rel, depth), [])

    def max_depth(self) -> int:
        return self._max_depth

    def literal(self, fid: int) -> Literal:
        pred, neg, _ = self.sigs[self.frel[fid]]
        return Literal(pred, neg, tuple(self.consts[a] for a in self.args[fid]))

    def find(self, lit: Literal) -> int | None:
        rel = self.sig_ids.get(lit.signature)
        if rel is None:
            return None
        ids: list[int] = []
        for a in lit.args:
            if not isinstance(a, Const) or a not in self.const_ids:
                return None
            ids.append(self.const_ids[a])
        return self.rel_dict[rel].get(tuple(ids))


@dataclass(frozen=True, slots=True)
class Witness:
    """The recorded derivation step of one fact (C-22)."""

    rule_unit_id: int
    rule: Rule
    subst: dict[str, str]  # canonical variable name (V0 …) → constant text
    premises: tuple[int, ...]  # fact ids in canonical body order
    naf: tuple[Literal, ...]
    calc: CalcRecord | None


class Closure:
    """The result of :func:`cotaudit.certify.engine.evaluate` (C-27)."""

    def __init__(
        self,
        store: FactStore,
        rules: Sequence[Source],
        sources: Sequence[Source],
        stats: Mapping[str, Any],
        diagnostics: Sequence[str],
        *,
        naf: bool = False,
    ) -> None:
        self.store = store
        self.rules = list(rules)
        self.sources = {s.unit_id: s for s in sources}
        self.stats = dict(stats)
        self.diagnostics = list(diagnostics)
        self.naf = naf
        self._pos_index: dict[int, list[int]] = {}
        self.instances: list[tuple[int, int, tuple[int, ...]]] = []  # only with record_instances

    # ------------------------------------------------------------------ look-ups
    def fid(self, lit: Literal) -> int | None:
        return self.store.find(lit)

    def contains(self, lit: Literal) -> bool:
        return self.store.find(lit) is not None

    def depth(self, lit: Literal) -> int | None:
        fid = self.store.find(lit)
        return None if fid is None else self.store.depth[fid]

    def __len__(self) -> int:
        return len(self.store.args)

    def facts(self, pred: str | None = None) -> list[Literal]:
        """Every fact (of ``pred``, either polarity), sorted by canonical text."""
        s = self.store
        fids = (
            range(len(s.args))
            if pred is None
            else [f for f in range(len(s.args)) if s.sigs[s.frel[f]][0] == pred]
        )
        return sorted((s.literal(f) for f in fids), key=Literal.text)

    def count(self, pred: str, neg: bool = False) -> int:
        return sum(
            len(self.store.rel_fids[r])
            for r, sig in enumerate(self.store.sigs)
            if sig[0] == pred and sig[1] == neg
        )

    def conflicts(self) -> list[tuple[Literal, Literal]]:
        """Complementary pairs p(t), -p(t) both in the closure (strong negation, C-6)."""
        s = self.store
        out: list[tuple[Literal, Literal]] = []
        for r, (pred, neg, arity) in enumerate(s.sigs):
            if neg:
                continue
            other = s.sig_ids.get((pred, True, arity))
            if other is None:
                continue
            for args in s.rel_dict[r]:
                if args in s.rel_dict[other]:
                    pos = s.literal(s.rel_dict[r][args])
                    out.append((pos, pos.complement()))
        return sorted(out, key=lambda pair: pair[0].text())

    # ------------------------------------------------------------------ provenance
    def is_base(self, fid: int) -> bool:
        return self.store.rule[fid] < 0

    def leaf_unit(self, fid: int) -> Source:
        return self.sources[self.store.unit[fid]]

    def _positions(self, ridx: int) -> list[int]:
        got = self._pos_index.get(ridx)
        if got is None:
            rule = self.rules[ridx].unit
            assert isinstance(rule, Rule)
            got, k = [], 0
            for b in rule.body:
                got.append(-1 if b.naf else k)
                k += 0 if b.naf else 1
            self._pos_index[ridx] = got
        return got

    def witness_of(self, fid: int) -> Witness | None:
        """The witness of fact ``fid`` (``None`` for a base fact)."""
        s = self.store
        ridx = s.rule[fid]
        if ridx < 0:
            return None
        src = self.rules[ridx]
        rule = src.unit
        assert isinstance(rule, Rule)
        theta: dict[str, Const] = {}
        for lit, pfid in zip(rule.positive, s.prem[fid], strict=True):
            for term, value in zip(lit.args, s.args[pfid], strict=True):
                if isinstance(term, Var):
                    theta[term.name] = s.consts[value]
        calc = s.calc.get(fid)
        if rule.calc and calc is not None:
            theta[rule.calc.out] = s.consts[calc.output]
        nf = normal_form(rule)
        positions = self._positions(ridx)
        premises = tuple(s.prem[fid][positions[b]] for b in nf.body_order if not rule.body[b].naf)
        subst = {nf.rename[v]: theta[v].text() for v in rule.variables() if v in theta}
        naf = tuple(substitute(lit, theta) for lit in rule.negative)
        return Witness(
            src.unit_id, rule, dict(sorted(subst.items(), key=lambda kv: int(kv[0][1:]))), premises, naf, calc
        )

    def witness(self, lit: Literal) -> Witness | None:
        fid = self.store.find(lit)
        return None if fid is None else self.witness_of(fid)

    def dag(self, fid: int) -> list[int]:
        """Every fact id in the witness DAG of ``fid`` (including it), in DFS discovery order."""
        s = self.store
        seen: set[int] = {fid}
        order = [fid]
        stack = [fid]
        while stack:
            f = stack.pop()
            for p in s.prem[f]:
                if p not in seen:
                    seen.add(p)
                    order.append(p)
                    stack.append(p)
        return order

    def deps_of(self, fid: int) -> list[int]:
        """Sorted unit ids of the base facts and rules in the witness DAG (C-23)."""
        s = self.store
        out: set[int] = set()
        for f in self.dag(fid):
            r = s.rule[f]
            out.add(s.unit[f] if r < 0 else self.rules[r].unit_id)
        return sorted(out)

    def deps(self, lit: Literal) -> list[int]:
        fid = self.store.find(lit)
        return [] if fid is None else self.deps_of(fid)

    def certificate(self, lit: Literal, delta: int, **meta: Any) -> dict[str, Any]:
        """The derivation certificate of ``lit`` (C-30); see :func:`certificate.build_derivation`."""
        from cotaudit.certify.certificate import build_derivation

        return build_derivation(self, lit, delta, **meta)
