"""The executor's compact fact store and the sources and witnesses it records (C-22, C-23).

Facts live in parallel arrays indexed by fact id (derivation order): relation, interned
arguments, depth, the witness (rule index and premise fact ids; ``(-1,)`` for a base fact)
and, for base facts, the unit id. Everything else — substitutions, canonical premise order, NAF atoms,
dependencies — is recomputed on demand from the witness, never stored per fact.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from cotaudit.certify.lang.syntax import Const, Fact, Literal, Rule, Unit

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


class SourceTable(Mapping[int, Source]):
    """unit id → :class:`Source` over the units of one evaluation, plain units wrapped on demand.

    :func:`~cotaudit.certify.engine.executor.evaluate` numbers plain units itself (program 1 … n as
    ``kernel``, overlay n+1 … as ``query``); a ``Source`` and a dictionary entry for each of
    100,000 facts up front cost more than the certificates ever ask for (their leaves only).
    The id → unit table is built on first use, later units winning on a repeated id as in a
    dictionary built in order; a plain unit's id tells its scope, since only program units get
    ids ≤ n.
    """

    def __init__(self, program: Sequence[Source | Unit], overlay: Sequence[Source | Unit]) -> None:
        self._groups = (tuple(program), tuple(overlay))  # a snapshot: callers may reuse their lists
        self._entries: dict[int, Source | Unit] | None = None

    def _table(self) -> dict[int, Source | Unit]:
        if self._entries is None:
            program, overlay = self._groups
            entries: dict[int, Source | Unit] = {}
            for offset, group in ((0, program), (len(program), overlay)):
                for i, item in enumerate(group):
                    entries[item.unit_id if isinstance(item, Source) else offset + i + 1] = item
            self._entries = entries
        return self._entries

    def __getitem__(self, unit_id: int) -> Source:
        item = self._table()[unit_id]
        if isinstance(item, Source):
            return item
        return Source(unit_id, item, "kernel" if unit_id <= len(self._groups[0]) else "query")

    def __iter__(self) -> Iterator[int]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())


_BASE = (-1,)  # the witness entry of every base fact: no rule, no premises


class _Column:
    """A read-only per-fact view of one part of the witness entries (``store.rule``, ``store.prem``)."""

    __slots__ = ("_part", "_wit")

    def __init__(self, wit: list[tuple[int, ...]], part: slice | int) -> None:
        self._wit = wit
        self._part = part

    def __len__(self) -> int:
        return len(self._wit)

    def __getitem__(self, fid: int) -> Any:
        return self._wit[fid][self._part]


class FactStore:
    """Interned constants and relations, and the per-fact arrays.

    Per fact (index = fact id): ``args`` (interned constants), ``frel``, ``depth``, ``unit`` (the
    base fact's unit id, −1 if derived) and ``wit``, the witness as one flat tuple ``(rule index,
    premise fact ids …)`` — ``(-1,)`` for a base fact; ``rule`` and ``prem`` are views of it.
    Keeping the executor's found tuple as the stored entry means no per-fact object is built
    when a round is appended.

    ``rel_dict[rel]`` maps a fact's arguments to its *position* in ``rel_fids[rel]`` (not to its
    fact id): the executor enters a fact there the moment it is found, while its id is only
    fixed when the round is appended, so one dictionary look-up both rejects old facts and
    facts already found in the round. :meth:`fid_of` gives the fact id.
    """

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
        self.wit: list[tuple[int, ...]] = []
        self.unit: list[int] = []
        self.calc: dict[int, CalcRecord] = {}
        self._by_depth: dict[tuple[int, int], list[int]] = {}
        self._max_depth = 0

    @property
    def rule(self) -> _Column:
        """Witness rule index per fact (−1 for a base fact)."""
        return _Column(self.wit, 0)

    @property
    def prem(self) -> _Column:
        """Premise fact ids per fact, in the rule's positive body order (``()`` for a base fact)."""
        return _Column(self.wit, slice(1, None))

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

    def fid_of(self, rel: int, args: tuple[int, ...]) -> int | None:
        pos = self.rel_dict[rel].get(args)
        return None if pos is None else self.rel_fids[rel][pos]

    def add(
        self, rel: int, args: tuple[int, ...], depth: int, rule: int, prem: tuple[int, ...], unit: int
    ) -> int:
        fid = len(self.args)
        self.args.append(args)
        self.frel.append(rel)
        self.depth.append(depth)
        self.wit.append((rule, *prem) if rule >= 0 else _BASE)
        self.unit.append(unit)
        fids = self.rel_fids[rel]
        self.rel_dict[rel][args] = len(fids)
        fids.append(fid)
        bucket = self._by_depth.get((rel, depth))
        if bucket is None:
            self._by_depth[(rel, depth)] = [fid]
        else:
            bucket.append(fid)
        if depth > self._max_depth:
            self._max_depth = depth
        return fid

    def load(self, units: Sequence[Unit], unit_ids: Sequence[int]) -> list[int]:
        """Intern every relation and constant in first-seen order and add the base facts.

        ``units`` (with their ``unit_ids``) in canonical program order; a fact already present
        is skipped (the first unit id wins). Returns the positions of the rules in ``units``. One
        pass with the look-ups inlined: loading 100,000 facts through :meth:`intern` and
        :meth:`add` took longer than evaluating them.
        """
        known = self.const_ids.get
        sig_ids = self.sig_ids
        rel_dict = self.rel_dict
        rel_fids = self.rel_fids
        args_of = self.args
        frel = self.frel
        fact_units = self.unit
        first = len(args_of)
        rules: list[int] = []
        for at, (uid, unit) in enumerate(zip(unit_ids, units, strict=True)):
            if not isinstance(unit, Fact):
                for lit in (unit.head, *(b.lit for b in unit.body)):
                    self.rel(lit.signature)
                    for a in lit.args:
                        if isinstance(a, Const):
                            self.intern(a)
                rules.append(at)
                continue
            lit = unit.lit
            terms = lit.args
            sig = (lit.pred, lit.neg, len(terms))
            rel = sig_ids.get(sig)
            if rel is None:
                rel = self.rel(sig)
            found = tuple(map(known, terms))  # type: ignore[arg-type]
            if None in found:  # a constant seen for the first time (or, never from the parser, a variable)
                key = tuple(
                    [
                        self.intern(a) if i is None else i
                        for i, a in zip(found, terms, strict=True)
                        if isinstance(a, Const)
                    ]
                )
            else:
                key = cast(tuple[int, ...], found)
            fids = rel_fids[rel]
            at = len(fids)
            if rel_dict[rel].setdefault(key, at) == at:  # new (an old fact's position is < at)
                fids.append(len(args_of))
                args_of.append(key)
                frel.append(rel)
                fact_units.append(uid)
        k = len(args_of) - first
        if k:
            self.depth.extend([0] * k)
            self.wit.extend([_BASE] * k)
            for rel in dict.fromkeys(frel[first:]):
                self._by_depth.setdefault((rel, 0), []).extend(f for f in rel_fids[rel] if f >= first)
        return rules

    def append_round(
        self, rel: int, keys: list[tuple[int, ...]], wits: list[tuple[int, ...]], depth: int
    ) -> None:
        """Append the facts of one relation found in one round (already in ``rel_dict``)."""
        fid0 = len(self.args)
        k = len(keys)
        fids = list(range(fid0, fid0 + k))  # one int object per fact, shared by both lists
        self.args.extend(keys)
        self.frel.extend([rel] * k)
        self.depth.extend([depth] * k)
        self.wit.extend(wits)
        self.unit.extend([-1] * k)
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
        return self.fid_of(rel, tuple(ids))


@dataclass(frozen=True, slots=True)
class Witness:
    """The recorded derivation step of one fact (C-22)."""

    rule_unit_id: int
    rule: Rule
    subst: dict[str, str]  # canonical variable name (V0 …) → constant text
    premises: tuple[int, ...]  # fact ids in canonical body order
    naf: tuple[Literal, ...]
    calc: CalcRecord | None
