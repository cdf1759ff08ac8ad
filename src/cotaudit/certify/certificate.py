"""Certificates (certify.md §6, C-29 … C-31, C-35): the format and the builders.

A *derivation* certificate is the witness DAG of one fact: one node per distinct fact, ordered
by (depth, fact key) so premises always have smaller ids; leaves name the unit (and scope and
evidence hash) they come from, edges the rule application (canonical substitution over
``V0, V1 …``, premises in canonical body order, NAF atoms checked, calc record). A *closure*
certificate backs a "no"/"unknown": the least model, or its hash, without the target.

What a certificate means: *the answer follows, by verified rule applications within depth δ,
from premises that passed the configured source checker.* It does not prove that the premises
say what the natural-language source says; that depends on the source checker, whose identity
and version every certificate's leaves point to through their evidence records.

The independent checker is :mod:`cotaudit.certify.recheck`; it does not import this module's
producers (the executor).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cotaudit.certify.canon import canonical_json, sha256_hex, sha256_json
from cotaudit.certify.syntax import Literal
from cotaudit.limits import checkpoint

if TYPE_CHECKING:
    from cotaudit.certify.closure import Closure, Source

FORMAT = "cotaudit.certify.certificate/1"
VERIFIER = {"id": "certify.recheck", "version": "1"}
MEANING = (
    "The answer follows, by verified rule applications within depth δ, from premises that passed "
    "the configured source checker. It does not prove that the premises say what the natural-language "
    "source says; that depends on the source checker, whose identity and version the evidence records name."
)

LeafInfo = Mapping[int, tuple[str, str | None]]  # unit id → (scope, evidence sha256)

# Called with every certificate sealed (audits and the test suite, which checks that every
# certificate it produces also goes through ``recheck``).
SEAL_OBSERVERS: list[Callable[[Mapping[str, Any]], None]] = []


def seal(body: Mapping[str, Any]) -> dict[str, Any]:
    """``body`` plus its ``sha256`` (over the canonical JSON without the ``sha256`` field)."""
    out = {k: v for k, v in body.items() if k != "sha256"}
    out["sha256"] = sha256_json(out)
    for observer in SEAL_OBSERVERS:
        observer(out)
    return out


def dumps(cert: Mapping[str, Any]) -> str:
    """The canonical JSON text of a certificate."""
    return canonical_json(cert)


def size_bytes(cert: Mapping[str, Any]) -> int:
    return len(dumps(cert).encode("utf-8"))


def fact_key(lit: Literal) -> str:
    return "f:" + lit.text()


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


def model_sha256(fact_texts: Sequence[str]) -> str:
    """Hash of a model: canonical JSON of its sorted fact texts."""
    return sha256_hex(canonical_json(sorted(fact_texts)))


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
