"""The gate in derived mode (C-42): verify a candidate derivation, then CERTIFY or REJECT.

Order: not well-formed → ``MALFORMED_DERIVATION``; root ≠ u → ``ROOT_MISMATCH``; cycle →
``CYCLIC``; incomplete → ``UNLINKED_CONCLUSION``; a leaf outside Γ_t ∪ F_q →
``UNSUPPORTED_LEAF``; edges in topological order → ``UNVERIFIABLE_EDGE`` (detail: node, line,
sub-code); the verified witness deeper than δ → ``DEPTH_BUDGET_EXCEEDED``. A NAF check whose
lower-stratum model cannot be recomputed within the reference evaluator's fact bound is
``UNDECIDED`` (not admitted, not shown wrong); a time or memory bound raises ``ResourceCap``.
Candidates from the trace extractor may leave leaf unit ids, depths, deps and the hash out: the
gate fills them.
The recheck-only codes (duplicate or unreachable nodes, deps, hash) are reported as
``MALFORMED_DERIVATION``. CERTIFY carries π_der = (certificate, depth, key, deps, verifier).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from cotaudit.certify.gate.decision import GateDecision, Outcome, reject
from cotaudit.certify.lang.syntax import Fact, Literal, Unit
from cotaudit.certify.proof.derivation import DerivationCheck
from cotaudit.certify.proof.format import FORMAT, VERIFIER, LeafInfo, fact_key, seal
from cotaudit.certify.proof.kernelview import KernelView

_STRUCTURE = (
    "MALFORMED_DERIVATION",
    "ROOT_MISMATCH",
    "CYCLIC",
    "UNLINKED_CONCLUSION",
    "DUPLICATE_NODE",
    "UNREACHABLE_NODE",
)
_AS_MALFORMED = {"DUPLICATE_NODE", "UNREACHABLE_NODE", "DEPS_MISMATCH", "HASH_MISMATCH"}


def _complete(
    cand: dict[str, Any], lit: Literal, kernel: KernelView, overlay: Mapping[int, Unit], leaf_info: LeafInfo
) -> None:
    """Fill leaf unit ids (by fact key), scopes, evidence hashes and the header fields a trace
    does not state."""
    by_key_over = {u.key: uid for uid, u in sorted(overlay.items()) if isinstance(u, Fact)}
    for node in cand.get("nodes") or []:
        leaf = node.get("leaf") if isinstance(node, dict) else None
        if isinstance(leaf, dict) and leaf.get("unit_id") is None and isinstance(node.get("fact"), str):
            key = "f:" + node["fact"].replace(" ", "")
            if key in kernel.fact_ids:
                uid, scope = kernel.fact_ids[key], "kernel"
            elif key in by_key_over:
                uid, scope = by_key_over[key], "query"
            else:
                continue
            leaf.update(
                {"unit_id": uid, "scope": scope, "evidence_sha256": leaf_info.get(uid, (scope, None))[1]}
            )
    cand.setdefault("format", FORMAT)
    cand.setdefault("kind", "derivation")
    cand.setdefault("conclusion", lit.text())
    cand.setdefault("key", fact_key(lit))


def _first(check: DerivationCheck, codes: tuple[str, ...]) -> tuple[str, Any] | None:
    for code in codes:
        for f in check.failures:
            if f.code == code:
                return code, f
    return None


def derived(
    lit: Literal,
    candidate: Mapping[str, Any],
    *,
    kernel: KernelView,
    overlay: Mapping[int, Unit] | None = None,
    delta: int = 6,
    interface_sha256: str = "",
    leaf_info: LeafInfo | None = None,
) -> GateDecision:
    """Derived mode of the gate for conclusion ``lit`` (``leaf_info``: unit id → (scope,
    evidence sha256) for the leaves a trace names only by their fact)."""
    over = dict(overlay or {})
    if not isinstance(candidate, Mapping):
        return reject("MALFORMED_DERIVATION", "a candidate derivation is a JSON object")
    cand: dict[str, Any] = copy.deepcopy(dict(candidate))
    lines = cand.pop("lines", {}) or {}
    stated_hash = "sha256" in cand
    _complete(cand, lit, kernel, over, leaf_info or {})
    if cand.get("conclusion") != lit.text():
        return reject(
            "ROOT_MISMATCH", f"the candidate concludes {cand.get('conclusion')!r}, not {lit.text()}"
        )
    check = DerivationCheck(cand, kernel, over)
    check.structure()
    hit = _first(check, _STRUCTURE)
    if hit is not None:
        code, f = hit
        reason = "MALFORMED_DERIVATION" if code in _AS_MALFORMED else code
        return reject(
            reason, f.message, node=f.node, line=lines.get(str(f.node), lines.get(f.node)), sub_code=code
        )
    check.leaves()
    hit = _first(check, ("UNSUPPORTED_LEAF",))
    if hit is not None:
        f = hit[1]
        return reject(
            "UNSUPPORTED_LEAF", f.message, node=f.node, line=lines.get(str(f.node), lines.get(f.node))
        )
    check.failures.clear()
    check.check_edges()
    has_depths = all(isinstance(n.get("depth"), int) for n in check.nodes)
    if not has_depths:
        for n in cand["nodes"]:
            n["depth"] = None
    check.depths(10**9)
    edge_fail = sorted(
        (f for f in check.failures if f.node is not None and (has_depths or f.code != "DEPTH_MISMATCH")),
        key=lambda f: f.node or 0,
    )
    if edge_fail:
        f = edge_fail[0]
        return reject(
            "UNVERIFIABLE_EDGE",
            f.message,
            node=f.node,
            line=lines.get(str(f.node), lines.get(f.node)),
            sub_code=f.code,
        )
    if check.edges.undecided is not None:  # not shown wrong: could not be checked (a work bound)
        return reject("UNDECIDED", check.edges.undecided, check="naf")
    d = check.root_depth if check.root_depth is not None else 0
    if d > delta:
        return reject("DEPTH_BUDGET_EXCEEDED", f"depth {d} > δ = {delta}", depth=d, delta=delta)
    for node, depth in zip(cand["nodes"], check.computed, strict=True):
        node["depth"] = depth
    deps = sorted(
        {n["leaf"]["unit_id"] for n in cand["nodes"] if "leaf" in n}
        | {n["edge"]["rule_unit_id"] for n in cand["nodes"] if "edge" in n}
    )
    if stated_hash:
        check.failures.clear()
        check.deps()
        check.hash()
        if check.failures:
            f = check.failures[0]
            return reject("MALFORMED_DERIVATION", f.message, sub_code=f.code)
        cert = cand
    else:
        cand.update(
            {
                "depth": d,
                "delta": delta,
                "deps": deps,
                "kernel_version": kernel.version,
                "interface_sha256": interface_sha256,
                "verifier": dict(VERIFIER),
            }
        )
        cand.setdefault("flags", [])
        cert = seal(_canonical_order(cand))
    record = {"certificate": cert, "depth": d, "key": fact_key(lit), "deps": deps, "verifier": dict(VERIFIER)}
    return GateDecision(Outcome.CERTIFY, None, {"depth": d}, record, None, None)


def _canonical_order(cand: dict[str, Any]) -> dict[str, Any]:
    """Renumber nodes by (depth, fact key), as the builder orders them (C-29)."""
    nodes = cand["nodes"]
    order = sorted(range(len(nodes)), key=lambda i: (nodes[i]["depth"], "f:" + nodes[i]["fact"]))
    new_id = {old: new for new, old in enumerate(order)}
    out = []
    for old in order:
        node = dict(nodes[old])
        node["id"] = new_id[old]
        if "edge" in node:
            node["edge"] = {**node["edge"], "premises": [new_id[p] for p in node["edge"]["premises"]]}
        out.append(node)
    cand["nodes"] = out
    cand["root"] = new_id[cand["root"]]
    return cand
