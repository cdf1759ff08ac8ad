"""Independent recheck of certificates (C-32 … C-35): ``recheck(cert, kernel)``.

This module verifies what :mod:`cotaudit.certify.certificate` produced without importing the
executor (a test walks the imports): it needs only the syntax layer, the kernel view, the
calculators, the stratifier and the reference evaluator. Every check runs and every failure is
reported with its node id and stable code — not only the first. The cost is linear in the
certificate size (look-ups are O(1)), except NAF checks (lower strata are recomputed) and
closure certificates (C-35).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cotaudit.certify.canon import sha256_json
from cotaudit.certify.errors import ProgramError
from cotaudit.certify.grammar import parse_literal
from cotaudit.certify.kernelview import KernelView
from cotaudit.certify.recheck_edges import EdgeChecker
from cotaudit.certify.syntax import Fact, Literal, Unit

FORMAT = "cotaudit.certify.certificate/1"

Overlay = Mapping[int, Unit] | Sequence[tuple[int, Unit]]

# Called with every certificate ``recheck`` verifies (see certificate.SEAL_OBSERVERS).
RECHECK_OBSERVERS: list[Callable[[Any], None]] = []


@dataclass(frozen=True, slots=True)
class RecheckFailure:
    """One failed check: the stable code, the node (if any), a message, machine-readable detail."""

    code: str
    node: int | None
    message: str
    detail: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RecheckReport:
    """``ok`` iff no check failed."""

    ok: bool
    kind: str | None
    conclusion: str | None
    depth: int | None
    failures: tuple[RecheckFailure, ...]

    def codes(self) -> list[str]:
        return sorted({f.code for f in self.failures})


def _overlay(overlay: Overlay | None) -> dict[int, Unit]:
    if overlay is None:
        return {}
    return dict(overlay.items()) if isinstance(overlay, Mapping) else dict(overlay)


def _load(cert: Any) -> tuple[dict[str, Any] | None, list[RecheckFailure]]:
    if isinstance(cert, str | bytes):
        try:
            cert = json.loads(cert)
        except (ValueError, RecursionError) as exc:
            return None, [RecheckFailure("MALFORMED_DERIVATION", None, f"not JSON: {exc}")]
    if not isinstance(cert, dict):
        return None, [RecheckFailure("MALFORMED_DERIVATION", None, "a certificate is a JSON object")]
    if cert.get("format") != FORMAT:
        return None, [RecheckFailure("MALFORMED_DERIVATION", None, f"'format' must be {FORMAT!r}")]
    return cert, []


def recheck(
    cert: Any,
    kernel: KernelView,
    *,
    delta: int | None = None,
    overlay: Overlay | None = None,
) -> RecheckReport:
    """Verify ``cert`` (dict or JSON text) against ``kernel`` (and query-scoped ``overlay`` facts)."""
    body, failures = _load(cert)
    if body is None:
        return RecheckReport(False, None, None, None, tuple(failures))
    over = _overlay(overlay)
    if body.get("kind") == "closure":
        for observer in RECHECK_OBSERVERS:
            observer(body)
        from cotaudit.certify.recheck_closure import recheck_closure

        fails = recheck_closure(body, kernel, over)
        target = body.get("target") if isinstance(body.get("target"), str) else None
        return RecheckReport(not fails, "closure", target, None, tuple(fails))
    if body.get("kind") != "derivation":
        return RecheckReport(
            False, None, None, None, (RecheckFailure("MALFORMED_DERIVATION", None, "unknown kind"),)
        )
    checker = DerivationCheck(body, kernel, over)
    checker.run_all(delta)
    return RecheckReport(
        not checker.failures, "derivation", checker.conclusion, checker.root_depth, tuple(checker.failures)
    )


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class DerivationCheck:
    """The checks of a derivation certificate, in stages the gate can also run one by one."""

    def __init__(self, cert: Mapping[str, Any], kernel: KernelView, overlay: Mapping[int, Unit]) -> None:
        self.cert = cert
        self.kernel = kernel
        self.overlay = overlay
        self.failures: list[RecheckFailure] = []
        self.facts: list[Literal | None] = []
        self.nodes: list[Mapping[str, Any]] = []
        self.conclusion: str | None = (
            cert.get("conclusion") if isinstance(cert.get("conclusion"), str) else None
        )
        self.root_depth: int | None = None
        self.computed: list[int] = []
        self.edges = EdgeChecker(kernel, overlay)
        for observer in RECHECK_OBSERVERS:  # the gate's derived mode runs these checks too
            observer(cert)

    def fail(self, code: str, node: int | None, message: str, **detail: Any) -> None:
        self.failures.append(RecheckFailure(code, node, message, detail))

    def run_all(self, delta: int | None) -> None:
        if not self.structure():
            return
        self.leaves()
        self.check_edges()
        self.depths(delta)
        self.deps()
        self.hash()

    # ------------------------------------------------------------------ stage 1: shape
    def structure(self) -> bool:
        """Schema, dense ids, acyclicity, one node per fact, root, reachability."""
        nodes = self.cert.get("nodes")
        root = self.cert.get("root")
        if not isinstance(nodes, list) or not nodes or not _int(root):
            self.fail("MALFORMED_DERIVATION", None, "needs a non-empty 'nodes' list and an integer 'root'")
            return False
        ok = True
        seen: dict[Literal, int] = {}
        for i, node in enumerate(nodes):
            if not isinstance(node, dict) or not isinstance(node.get("fact"), str):
                self.fail("MALFORMED_DERIVATION", i, "a node is an object with a 'fact' string")
                self.nodes.append({})
                self.facts.append(None)
                ok = False
                continue
            self.nodes.append(node)
            if node.get("id") != i:
                self.fail("CYCLIC", i, f"node ids must be dense: node {i} has id {node.get('id')!r}")
            try:
                lit: Literal | None = parse_literal(node["fact"], skolem=True)
            except ProgramError as exc:
                self.fail("MALFORMED_DERIVATION", i, f"fact does not parse: {exc.bare}")
                lit = None
                ok = False
            if lit is not None and not lit.ground:
                self.fail("MALFORMED_DERIVATION", i, "a node fact must be ground")
                lit = None
                ok = False
            self.facts.append(lit)
            if lit is not None:
                if lit in seen:
                    self.fail("DUPLICATE_NODE", i, f"fact {lit.text()} is also node {seen[lit]}")
                seen.setdefault(lit, i)
            has_leaf, has_edge = isinstance(node.get("leaf"), dict), isinstance(node.get("edge"), dict)
            if has_leaf == has_edge:
                self.fail("UNLINKED_CONCLUSION", i, "a node needs exactly one of 'leaf' and 'edge'")
                continue
            if has_edge:
                prem = node["edge"].get("premises")
                if not isinstance(prem, list) or not all(_int(p) for p in prem):
                    self.fail("MALFORMED_DERIVATION", i, "'premises' must be a list of node ids")
                    ok = False
                    continue
                for p in prem:
                    if not 0 <= p < len(nodes):
                        self.fail("UNLINKED_CONCLUSION", i, f"premise {p} is not a node")
                        ok = False
                    elif p >= i:
                        self.fail("CYCLIC", i, f"premise {p} is not an earlier node")
                        ok = False
        assert isinstance(root, int)
        if not 0 <= root < len(nodes):
            self.fail("ROOT_MISMATCH", None, f"root {root} is not a node")
            return False
        fact = self.facts[root]
        if fact is None or self.conclusion is None or fact.text() != self.conclusion:
            self.fail("ROOT_MISMATCH", root, "the root node's fact is not the conclusion")
        if self.cert.get("key") != (f"f:{self.conclusion}" if self.conclusion else None):
            self.fail("ROOT_MISMATCH", root, "'key' is not the conclusion's key")
        if ok:
            reach = {root}
            for i in range(len(nodes) - 1, -1, -1):
                if i in reach and isinstance(self.nodes[i].get("edge"), dict):
                    reach.update(self.nodes[i]["edge"]["premises"])
            for i in range(len(nodes)):
                if i not in reach:
                    self.fail("UNREACHABLE_NODE", i, "not reachable from the root")
        return ok

    # ------------------------------------------------------------------ stage 2: leaves
    def leaves(self) -> None:
        for i, node in enumerate(self.nodes):
            leaf = node.get("leaf")
            if not isinstance(leaf, dict) or self.facts[i] is None:
                continue
            lit = self.facts[i]
            assert lit is not None
            uid, scope = leaf.get("unit_id"), leaf.get("scope")
            pool: Mapping[int, Unit] = self.kernel.units if scope == "kernel" else self.overlay
            unit = pool.get(uid) if isinstance(uid, int) and not isinstance(uid, bool) else None
            if not isinstance(unit, Fact) or unit.lit != lit:
                where = "an active kernel fact" if scope == "kernel" else "a fact of the query overlay"
                self.fail(
                    "UNSUPPORTED_LEAF", i, f"{lit.text()} is not {where} with unit id {uid}", unit_id=uid
                )

    # ------------------------------------------------------------------ stage 3: edges
    def check_edges(self) -> None:
        for i, node in enumerate(self.nodes):
            edge = node.get("edge")
            lit = self.facts[i]
            if not isinstance(edge, dict) or lit is None:
                continue
            premises = [
                self.facts[p] for p in edge.get("premises", []) if _int(p) and 0 <= p < len(self.facts)
            ]
            if any(p is None for p in premises):
                continue
            for code, message in self.edges.verify(lit, edge, [p for p in premises if p is not None]):
                self.fail(code, i, message, rule=edge.get("rule"))

    def depths(self, delta: int | None) -> None:
        self.computed = []
        for i, node in enumerate(self.nodes):
            edge = node.get("edge")
            d = 0
            if isinstance(edge, dict):
                prem = [p for p in edge.get("premises", []) if _int(p) and 0 <= p < i]
                d = 1 + max((self.computed[p] for p in prem), default=-1)
            self.computed.append(d)
            if node.get("depth") != d:
                self.fail("DEPTH_MISMATCH", i, f"stated depth {node.get('depth')!r}, recomputed {d}")
        root = self.cert["root"]
        self.root_depth = self.computed[root]
        if self.cert.get("depth") != self.root_depth:
            self.fail(
                "DEPTH_MISMATCH",
                root,
                f"certificate depth {self.cert.get('depth')!r}, recomputed {self.root_depth}",
            )
        budget = delta if delta is not None else self.cert.get("delta")
        if not isinstance(budget, int) or isinstance(budget, bool):
            self.fail("MALFORMED_DERIVATION", None, "'delta' must be an integer")
        elif self.root_depth > budget:
            self.fail(
                "DEPTH_BUDGET_EXCEEDED",
                root,
                f"depth {self.root_depth} > δ = {budget}",
                depth=self.root_depth,
            )

    def deps(self) -> None:
        found: set[int] = set()
        for node in self.nodes:
            if isinstance(node.get("leaf"), dict) and _int(node["leaf"].get("unit_id")):
                found.add(node["leaf"]["unit_id"])
            elif isinstance(node.get("edge"), dict) and _int(node["edge"].get("rule_unit_id")):
                found.add(node["edge"]["rule_unit_id"])
        if self.cert.get("deps") != sorted(found):
            self.fail(
                "DEPS_MISMATCH",
                None,
                "'deps' differs from the recomputed dependency set",
                expected=sorted(found),
            )

    def hash(self) -> None:
        stated = self.cert.get("sha256")
        body = {k: v for k, v in self.cert.items() if k != "sha256"}
        try:
            actual = sha256_json(body)
        except ValueError:
            self.fail("MALFORMED_DERIVATION", None, "not canonical JSON (floats?)")
            return
        if stated != actual:
            self.fail("HASH_MISMATCH", None, "sha256 does not match the canonical JSON")
