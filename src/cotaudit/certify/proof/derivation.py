"""The checks of a derivation certificate (C-32 … C-34), stage by stage.

:class:`DerivationCheck` runs the structure, edge, depth and dependency checks of
:func:`~cotaudit.certify.proof.recheck.recheck` one pass at a time, so the derived-mode gate can
run them too. Canonical JSON of the plain nodes is written from the builder's fixed shape
(:func:`canonical_body`), byte-identical to the generic encoder and about five times faster.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeGuard

from cotaudit.certify.core.canon import check_canonical, checked_json, sha256_hex
from cotaudit.certify.core.errors import ProgramError
from cotaudit.certify.lang.syntax import Fact, Literal, Unit
from cotaudit.certify.proof.kernelview import KernelView
from cotaudit.certify.proof.recheck_edges import EdgeChecker, LiteralReader
from cotaudit.certify.proof.report import RECHECK_OBSERVERS, RecheckFailure
from cotaudit.gcpause import paused_collector

# Called by ``structure`` with (node id, node, its fact) once the node's shape is checked.
NodeVisitor = Callable[[int, Mapping[str, Any], Literal | None], None]


def _int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


_NO_PREMISES: list[int] = []  # a leaf's premise list (shared, never changed)
_LEAF_NODE = frozenset(("id", "fact", "depth", "leaf"))
_EDGE_NODE = frozenset(("id", "fact", "depth", "edge"))
_LEAF = frozenset(("unit_id", "scope", "evidence_sha256"))
_RULE_EDGE = frozenset(("kind", "rule", "rule_unit_id", "rule_key", "subst", "premises", "naf"))


def _plain_node(node: Any) -> bool:
    """Whether ``node`` has exactly the builder's shape for a leaf or a rule edge (C-29) with
    exact str / int (/ None) scalars: such a node holds no float, no non-string key and no
    cycle, so the canonical-JSON walk may skip it (it is most of a large certificate, and the
    generic walk was a third of a recheck). Calc edges, extra fields, subclasses and any other
    type are walked as before; this test only ever answers for nodes it can see through."""
    if node.__class__ is not dict:
        return False
    keys = node.keys()
    if keys != _EDGE_NODE and keys != _LEAF_NODE:
        return False
    if not (node["id"].__class__ is int and node["depth"].__class__ is int and node["fact"].__class__ is str):
        return False
    if keys == _EDGE_NODE:
        edge = node["edge"]
        if edge.__class__ is not dict or edge.keys() != _RULE_EDGE:
            return False
        if not (
            edge["kind"].__class__ is str
            and edge["rule"].__class__ is str
            and edge["rule_key"].__class__ is str
            and edge["rule_unit_id"].__class__ is int
        ):
            return False
        premises, naf, subst = edge["premises"], edge["naf"], edge["subst"]
        if premises.__class__ is not list or naf.__class__ is not list or subst.__class__ is not dict:
            return False
        for p in premises:
            if p.__class__ is not int:
                return False
        for a in naf:
            if a.__class__ is not str:
                return False
        for k, v in subst.items():  # noqa: SIM110 - a generator costs more than 1-3 checks
            if k.__class__ is not str or v.__class__ is not str:
                return False
        return True
    leaf = node["leaf"]
    if leaf.__class__ is not dict or leaf.keys() != _LEAF:
        return False
    sha = leaf["evidence_sha256"]
    return (
        leaf["unit_id"].__class__ is int
        and leaf["scope"].__class__ is str
        and (sha is None or sha.__class__ is str)
    )


_enc = json.encoder.encode_basestring  # what json.dumps(ensure_ascii=False) escapes strings with


def _plain_node_json(node: dict[str, Any]) -> str:
    """``checked_json(node)`` for a node ``_plain_node`` accepted, written from the builder's
    fixed shape (keys in sorted order, strings escaped by the encoder json.dumps uses, ints by
    ``int.__repr__``). Byte-identical to the generic encoder (tests/certify/proof/test_recheck_speed.py
    compares them); about five times faster, and the hash of a large certificate is mostly
    its nodes."""
    if "leaf" in node:
        leaf = node["leaf"]
        sha = leaf["evidence_sha256"]
        return (
            f'{{"depth":{node["depth"]!r},"fact":{_enc(node["fact"])},"id":{node["id"]!r},'
            f'"leaf":{{"evidence_sha256":{"null" if sha is None else _enc(sha)},'
            f'"scope":{_enc(leaf["scope"])},"unit_id":{leaf["unit_id"]!r}}}}}'
        )
    edge = node["edge"]
    subst = ",".join(f"{_enc(k)}:{_enc(v)}" for k, v in sorted(edge["subst"].items()))
    return (
        f'{{"depth":{node["depth"]!r},"edge":{{"kind":{_enc(edge["kind"])},'
        f'"naf":[{",".join(map(_enc, edge["naf"]))}],'
        f'"premises":[{",".join(map(repr, edge["premises"]))}],'
        f'"rule":{_enc(edge["rule"])},"rule_key":{_enc(edge["rule_key"])},'
        f'"rule_unit_id":{edge["rule_unit_id"]!r},"subst":{{{subst}}}}},'
        f'"fact":{_enc(node["fact"])},"id":{node["id"]!r}}}'
    )


def canonical_body(body: dict[str, Any], plain: Sequence[int]) -> str:
    """``checked_json(body)`` with the plain nodes written by :func:`_plain_node_json`."""
    parts = []
    for key in sorted(body):
        if key == "nodes":
            nodes = body["nodes"]
            text = ",".join(
                _plain_node_json(n) if p else checked_json(n) for n, p in zip(nodes, plain, strict=True)
            )
            parts.append(f"{_enc(key)}:[{text}]")
        else:
            parts.append(f"{_enc(key)}:{checked_json(body[key])}")
    return "{" + ",".join(parts) + "}"


class DerivationCheck:
    """The checks of a derivation certificate, in stages the gate can also run one by one.

    Every stage is one pass over the nodes with O(1) work per node and per premise (C-34):
    facts are read once (:class:`LiteralReader`), the premise lists that pass ``structure``
    are kept for the later stages, rules are compiled once per unit id, and the reachability,
    depth and dependency passes are loops, not recursion.
    """

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
        self.reader = LiteralReader()
        self.edges = EdgeChecker(kernel, overlay, self.reader)
        # node id → its premise list when ``structure`` accepted it (ints, earlier ids; [] for a leaf)
        self._premises: list[list[int] | None] = []
        self._plain = bytearray()  # node id → 1 if ``_plain_node`` held when structure read it
        for observer in RECHECK_OBSERVERS:  # the gate's derived mode runs these checks too
            observer(cert)

    def fail(self, code: str, node: int | None, message: str, **detail: Any) -> None:
        self.failures.append(RecheckFailure(code, node, message, detail))

    def run_all(self, delta: int | None) -> None:
        # no reference cycles among the many small objects a large certificate makes: pausing
        # the collector saves its repeated full passes (see cotaudit.gcpause)
        with paused_collector():
            self._all_in_one_pass(delta)

    # ------------------------------------------------------------------ stage 1: shape
    def structure(self, visit: NodeVisitor | None = None) -> bool:
        """Schema, dense ids, acyclicity, one node per fact, root, reachability.

        ``visit(i, node, fact)`` is called for each node once its own shape checks are done, as
        long as every node so far was well formed (run_all's single pass, see
        :meth:`_all_in_one_pass`)."""
        nodes = self.cert.get("nodes")
        root = self.cert.get("root")
        if not isinstance(nodes, list) or not nodes or not _int(root):
            self.fail("MALFORMED_DERIVATION", None, "needs a non-empty 'nodes' list and an integer 'root'")
            return False
        ok = True
        seen: dict[Literal, int] = {}
        read = self.reader.literal
        n = len(nodes)
        self.nodes, self.facts, self._premises = [], [], [None] * n
        add_node, add_fact = self.nodes.append, self.facts.append
        plain = self._plain = bytearray(n)
        for i, node in enumerate(nodes):
            if not isinstance(node, dict) or not isinstance(node.get("fact"), str):
                self.fail("MALFORMED_DERIVATION", i, "a node is an object with a 'fact' string")
                add_node({})
                add_fact(None)
                ok = False
                continue
            add_node(node)
            if _plain_node(node):
                plain[i] = 1
            if node.get("id") != i:
                self.fail("CYCLIC", i, f"node ids must be dense: node {i} has id {node.get('id')!r}")
            lit: Literal | None
            try:
                lit, ground = read(node["fact"])
            except ProgramError as exc:
                self.fail("MALFORMED_DERIVATION", i, f"fact does not parse: {exc.bare}")
                lit = None
                ok = False
            else:
                if not ground:
                    self.fail("MALFORMED_DERIVATION", i, "a node fact must be ground")
                    lit = None
                    ok = False
            add_fact(lit)
            if lit is not None:
                first = seen.setdefault(lit, i)
                if first != i:
                    self.fail("DUPLICATE_NODE", i, f"fact {lit.text()} is also node {first}")
            has_leaf, has_edge = isinstance(node.get("leaf"), dict), isinstance(node.get("edge"), dict)
            if has_leaf == has_edge:
                self.fail("UNLINKED_CONCLUSION", i, "a node needs exactly one of 'leaf' and 'edge'")
            elif has_leaf:
                self._premises[i] = _NO_PREMISES
            else:
                prem = node["edge"].get("premises")
                well_typed = isinstance(prem, list)
                if well_typed:
                    for p in prem:
                        if p.__class__ is not int and not _int(p):
                            well_typed = False
                            break
                if not well_typed:
                    self.fail("MALFORMED_DERIVATION", i, "'premises' must be a list of node ids")
                    ok = False
                    continue
                good = True
                for p in prem:
                    if 0 <= p < i:
                        continue
                    good = False
                    if not 0 <= p < n:
                        self.fail("UNLINKED_CONCLUSION", i, f"premise {p} is not a node")
                    else:
                        self.fail("CYCLIC", i, f"premise {p} is not an earlier node")
                    ok = False
                if good:
                    self._premises[i] = prem
            if visit is not None and ok:
                visit(i, node, lit)
        assert isinstance(root, int)
        if not 0 <= root < n:
            self.fail("ROOT_MISMATCH", None, f"root {root} is not a node")
            return False
        fact = self.facts[root]
        if fact is None or self.conclusion is None or fact.text() != self.conclusion:
            self.fail("ROOT_MISMATCH", root, "the root node's fact is not the conclusion")
        if self.cert.get("key") != (f"f:{self.conclusion}" if self.conclusion else None):
            self.fail("ROOT_MISMATCH", root, "'key' is not the conclusion's key")
        if ok:
            reach = bytearray(n)
            reach[root] = 1
            premises = self._premises
            for i in range(n - 1, -1, -1):
                if reach[i]:
                    prem = premises[i]
                    if prem is None:  # a node with both a leaf and an edge: follow its edge
                        prem = self._premise_ids(i, self.nodes[i].get("edge") or {}, n)
                    for p in prem:
                        reach[p] = 1
            i = reach.find(0)  # the unreachable ones, found by a C-level scan
            while i != -1:
                self.fail("UNREACHABLE_NODE", i, "not reachable from the root")
                i = reach.find(0, i + 1)
        return ok

    # ------------------------------------------------------------------ stages 2-4, per node
    # Each check of one node is a method; the public stages loop over the nodes calling one of
    # them, and ``_per_node`` (run_all) calls all of them in one loop. At 10⁵ nodes a
    # certificate no longer fits the CPU caches, and every separate pass over the node
    # objects cost as much in memory traffic as in work.
    def _leaf(self, i: int, lit: Literal, leaf: Mapping[str, Any], out: list[RecheckFailure]) -> None:
        uid, scope = leaf.get("unit_id"), leaf.get("scope")
        pool: Mapping[int, Unit] = self.kernel.units if scope == "kernel" else self.overlay
        unit = pool.get(uid) if isinstance(uid, int) and not isinstance(uid, bool) else None
        if not isinstance(unit, Fact) or unit.lit != lit:
            where = "an active kernel fact" if scope == "kernel" else "a fact of the query overlay"
            message = f"{lit.text()} is not {where} with unit id {uid}"
            out.append(RecheckFailure("UNSUPPORTED_LEAF", i, message, {"unit_id": uid}))

    def _premise_ids(self, i: int, edge: Mapping[str, Any], below: int) -> list[int]:
        """The premise ids of node ``i`` usable by a later stage: the list ``structure``
        accepted, else its integer entries below ``below`` (stages may run on their own)."""
        prem = self._premises[i] if i < len(self._premises) else None
        if prem is not None:
            return prem
        stated = edge.get("premises", []) if isinstance(edge, dict) else []
        return [p for p in stated if _int(p) and 0 <= p < below] if isinstance(stated, list) else []

    def _edge(self, i: int, lit: Literal, edge: Mapping[str, Any], out: list[RecheckFailure]) -> None:
        facts = self.facts
        premises = list(map(facts.__getitem__, self._premise_ids(i, edge, len(facts))))
        if None in premises:
            return
        for code, message in self.edges.verify(lit, edge, premises):  # type: ignore[arg-type]
            out.append(RecheckFailure(code, i, message, {"rule": edge.get("rule")}))

    def _depth(
        self, i: int, node: Mapping[str, Any], edge: Any, computed: list[int], out: list[RecheckFailure]
    ) -> int:
        d = 0
        if isinstance(edge, dict):
            prem = self._premise_ids(i, edge, i)
            d = 1 + max(map(computed.__getitem__, prem)) if prem else 0
        if node.get("depth") != d:
            out.append(
                RecheckFailure("DEPTH_MISMATCH", i, f"stated depth {node.get('depth')!r}, recomputed {d}")
            )
        return d

    @staticmethod
    def _dep(leaf: Any, edge: Any, found: set[int]) -> None:
        if isinstance(leaf, dict):
            uid = leaf.get("unit_id")
            if _int(uid):
                found.add(uid)
                return
        if isinstance(edge, dict):
            uid = edge.get("rule_unit_id")
            if _int(uid):
                found.add(uid)

    def _all_in_one_pass(self, delta: int | None) -> None:
        """Every stage, with leaves, edges, depths and deps checked inside the structure pass
        while each node is at hand (same checks, same failures in the same order as running
        the stages one by one; nothing past ``structure`` is reported if it fails). A node
        whose premises ``structure`` did not accept (it also has a leaf) has its edge checked
        after the pass, when every fact is known."""
        leaf_fails: list[RecheckFailure] = []
        edge_fails: list[RecheckFailure] = []
        depth_fails: list[RecheckFailure] = []
        later: list[int] = []
        computed: list[int] = []
        self.computed = computed
        found: set[int] = set()

        def visit(i: int, node: Mapping[str, Any], lit: Literal | None) -> None:
            leaf, edge = node.get("leaf"), node.get("edge")
            if lit is not None:
                if isinstance(leaf, dict):
                    self._leaf(i, lit, leaf, leaf_fails)
                if isinstance(edge, dict):
                    if self._premises[i] is not None:  # (structure sets it before the visit)
                        self._edge(i, lit, edge, edge_fails)
                    else:
                        later.append(i)
            computed.append(self._depth(i, node, edge, computed, depth_fails))
            self._dep(leaf, edge, found)

        if not self.structure(visit):
            return
        for i in later:
            lit = self.facts[i]
            assert lit is not None
            self._edge(i, lit, self.nodes[i]["edge"], edge_fails)
        edge_fails.sort(key=lambda f: f.node or 0)  # stable: node order, as check_edges
        self.failures += leaf_fails + edge_fails + depth_fails
        self._root_depth(delta)
        self._compare_deps(found)
        self.hash(self._plain)

    # ------------------------------------------------------------------ stage 2: leaves
    def leaves(self) -> None:
        for i, node in enumerate(self.nodes):
            leaf, lit = node.get("leaf"), self.facts[i]
            if isinstance(leaf, dict) and lit is not None:
                self._leaf(i, lit, leaf, self.failures)

    # ------------------------------------------------------------------ stage 3: edges
    def check_edges(self) -> None:
        for i, node in enumerate(self.nodes):
            edge, lit = node.get("edge"), self.facts[i]
            if isinstance(edge, dict) and lit is not None:
                self._edge(i, lit, edge, self.failures)

    def depths(self, delta: int | None) -> None:
        computed: list[int] = []
        self.computed = computed
        for i, node in enumerate(self.nodes):
            computed.append(self._depth(i, node, node.get("edge"), computed, self.failures))
        self._root_depth(delta)

    def _root_depth(self, delta: int | None) -> None:
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
            self._dep(node.get("leaf"), node.get("edge"), found)
        self._compare_deps(found)

    def _compare_deps(self, found: set[int]) -> None:
        if self.cert.get("deps") != sorted(found):
            self.fail(
                "DEPS_MISMATCH",
                None,
                "'deps' differs from the recomputed dependency set",
                expected=sorted(found),
            )

    def hash(self, plain: Sequence[int] | None = None) -> None:
        """HASH_MISMATCH, or MALFORMED_DERIVATION when the body has no canonical JSON.
        ``plain``: per node, whether ``_plain_node`` held (``structure`` notes it while the
        node is at hand; run_all passes it on, as nothing changes the nodes in between)."""
        stated = self.cert.get("sha256")
        body = {k: v for k, v in self.cert.items() if k != "sha256"}
        try:
            nodes = body.get("nodes")
            if isinstance(nodes, list):
                # the canonical-JSON walk, minus the nodes of the builder's plain shape (most
                # of a large certificate), which can hold no float or non-string key
                check_canonical({k: v for k, v in body.items() if k != "nodes"})
                if plain is None or len(plain) != len(nodes):
                    plain = [_plain_node(node) for node in nodes]
                for node, skip in zip(nodes, plain, strict=True):
                    if not skip:
                        check_canonical(node)
                actual = sha256_hex(canonical_body(body, plain))
            else:
                check_canonical(body)
                actual = sha256_hex(checked_json(body))
        except (ValueError, RecursionError):
            self.fail("MALFORMED_DERIVATION", None, "not canonical JSON (floats?)")
            return
        if stated != actual:
            self.fail("HASH_MISMATCH", None, "sha256 does not match the canonical JSON")
