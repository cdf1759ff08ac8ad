"""The evaluated closure and its certificate builders (C-27, C-29 … C-31, C-35).

:class:`Closure` is what :func:`~cotaudit.certify.engine.evaluation.evaluate` returns: the fact
store (:mod:`.facts`) with the rules and sources it was evaluated from, and the look-ups that
recompute substitutions, canonical premise order, NAF atoms and dependencies from a fact's
witness. :func:`build_derivation` and :func:`build_closure` turn it into sealed certificates in
the format of :mod:`cotaudit.certify.proof.format`; the checker never imports this module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cotaudit.certify.engine.facts import FactStore, Source, Witness
from cotaudit.certify.lang.syntax import Const, Literal, Rule, Var, normal_form, substitute
from cotaudit.certify.proof.format import FORMAT, VERIFIER, LeafInfo, fact_key, model_sha256, seal
from cotaudit.limits import checkpoint


class Closure:
    """The result of :func:`cotaudit.certify.engine.executor.evaluate` (C-27)."""

    def __init__(
        self,
        store: FactStore,
        rules: Sequence[Source],
        sources: Sequence[Source] | Mapping[int, Source],
        stats: Mapping[str, Any],
        diagnostics: Sequence[str],
        *,
        naf: bool = False,
    ) -> None:
        self.store = store
        self.rules = list(rules)
        self.sources: Mapping[int, Source] = (
            sources if isinstance(sources, Mapping) else {s.unit_id: s for s in sources}
        )
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
            for args, at in s.rel_dict[r].items():
                if args in s.rel_dict[other]:
                    pos = s.literal(s.rel_fids[r][at])
                    out.append((pos, pos.complement()))
        return sorted(out, key=lambda pair: pair[0].text())

    # ------------------------------------------------------------------ provenance
    def is_base(self, fid: int) -> bool:
        return self.store.wit[fid][0] < 0

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
        entry = s.wit[fid]
        ridx = entry[0]
        if ridx < 0:
            return None
        prem = entry[1:]
        src = self.rules[ridx]
        rule = src.unit
        assert isinstance(rule, Rule)
        theta: dict[str, Const] = {}
        for lit, pfid in zip(rule.positive, prem, strict=True):
            for term, value in zip(lit.args, s.args[pfid], strict=True):
                if isinstance(term, Var):
                    theta[term.name] = s.consts[value]
        calc = s.calc.get(fid)
        if rule.calc and calc is not None:
            theta[rule.calc.out] = s.consts[calc.output]
        nf = normal_form(rule)
        positions = self._positions(ridx)
        premises = tuple(prem[positions[b]] for b in nf.body_order if not rule.body[b].naf)
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
        wit = self.store.wit
        seen: set[int] = {fid}
        order = [fid]
        stack = [fid]
        while stack:
            f = stack.pop()
            for p in wit[f][1:]:
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
            r = s.wit[f][0]
            out.add(s.unit[f] if r < 0 else self.rules[r].unit_id)
        return sorted(out)

    def deps(self, lit: Literal) -> list[int]:
        fid = self.store.find(lit)
        return [] if fid is None else self.deps_of(fid)

    def certificate(self, lit: Literal, delta: int, **meta: Any) -> dict[str, Any]:
        """The derivation certificate of ``lit`` (C-30); see :func:`build_derivation`."""
        return build_derivation(self, lit, delta, **meta)


def _flags(facts: Sequence[Literal], edges: Sequence[Mapping[str, Any]], naf_rules: bool) -> list[str]:
    flags: set[str] = set()
    if any(f.neg for f in facts):
        flags.add("strong_negation")
    if naf_rules or any(e.get("naf") for e in edges):
        flags.add("naf")
    if any(e.get("kind") == "calc" for e in edges):
        flags.add("calc")
    return sorted(flags)


def build_derivation(
    closure: Closure,
    lit: Literal,
    delta: int,
    *,
    kernel_version: int = 0,
    interface_sha256: str = "",
    leaf_info: LeafInfo | None = None,
) -> dict[str, Any]:
    """The sealed derivation certificate of ``lit`` from ``closure`` (``KeyError`` if absent)."""
    store = closure.store
    root_fid = store.find(lit)
    if root_fid is None:
        raise KeyError(lit.text())
    fids = closure.dag(root_fid)
    lits = {f: store.literal(f) for f in fids}
    ordered = sorted(fids, key=lambda f: (store.depth[f], fact_key(lits[f])))
    node_id = {f: i for i, f in enumerate(ordered)}
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    deps: set[int] = set()
    naf_rules = False
    for f in ordered:
        node: dict[str, Any] = {"id": node_id[f], "fact": lits[f].text(), "depth": store.depth[f]}
        w = closure.witness_of(f)
        if w is None:
            src = closure.leaf_unit(f)
            scope, ev = (leaf_info or {}).get(src.unit_id, (src.scope, None))
            node["leaf"] = {"unit_id": src.unit_id, "scope": scope, "evidence_sha256": ev}
            deps.add(src.unit_id)
        else:
            edge: dict[str, Any] = {
                "kind": "calc" if w.calc is not None else "rule",
                "rule": w.rule.label,
                "rule_unit_id": w.rule_unit_id,
                "rule_key": w.rule.key,
                "subst": w.subst,
                "premises": [node_id[p] for p in w.premises],
                "naf": [a.text() for a in w.naf],
            }
            if w.calc is not None and w.rule.calc is not None:
                edge["fn"] = w.rule.calc.fn
                edge["version"] = w.rule.calc.version
                edge["inputs"] = [store.consts[c].text() for c in w.calc.inputs]
                edge["output"] = store.consts[w.calc.output].text()
                edge["intermediates"] = dict(w.calc.intermediates)
            naf_rules = naf_rules or bool(w.rule.negative)
            node["edge"] = edge
            edges.append(edge)
            deps.add(w.rule_unit_id)
        nodes.append(node)
    return seal(
        {
            "format": FORMAT,
            "kind": "derivation",
            "conclusion": lit.text(),
            "key": fact_key(lit),
            "depth": store.depth[root_fid],
            "delta": delta,
            "kernel_version": kernel_version,
            "interface_sha256": interface_sha256,
            "flags": _flags(list(lits.values()), edges, naf_rules),
            "nodes": nodes,
            "root": node_id[root_fid],
            "deps": sorted(deps),
            "verifier": dict(VERIFIER),
        }
    )


def build_closure(
    closure: Closure,
    target: Literal,
    *,
    complement: Literal | None = None,
    kernel_version: int = 0,
    interface_sha256: str = "",
    overlay: Sequence[Source] = (),
    leaf_info: LeafInfo | None = None,
    embed_max: int = 100_000,
    naf: bool = False,
) -> dict[str, Any]:
    """The sealed closure certificate for a target that is not derivable (C-35). ``naf``: the
    interface uses negation as failure (the model is then always recomputed by recheck)."""
    texts: list[str] = []
    for f in range(len(closure)):
        if f % 65536 == 0:
            checkpoint()  # a model of millions of facts: building and sorting texts takes seconds
        texts.append(closure.store.literal(f).text())
    texts.sort()
    checkpoint()
    flags = ["closed_world"] + (["naf"] if closure.naf or naf else [])
    over = [
        {
            "key": fact_key(s.unit.head),
            "unit_id": s.unit_id,
            "evidence_sha256": (leaf_info or {}).get(s.unit_id, (s.scope, None))[1],
        }
        for s in overlay
    ]
    return seal(
        {
            "format": FORMAT,
            "kind": "closure",
            "target": target.text(),
            "complement": complement.text() if complement is not None else None,
            "kernel_version": kernel_version,
            "interface_sha256": interface_sha256,
            "overlay": sorted(over, key=lambda o: (o["key"], o["unit_id"])),
            "model_size": len(texts),
            "model_sha256": model_sha256(texts),
            "model": texts if len(texts) <= embed_max else None,
            "flags": sorted(flags),
            "verifier": dict(VERIFIER),
        }
    )
