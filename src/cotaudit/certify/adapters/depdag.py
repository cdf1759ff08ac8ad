"""Dependency-DAG closure: "is theorem T derivable from premise set S?" (certify.md §13.4).

C-106 encoding: ``[pf:<id>:<j>] derivable(<id>) :- derivable(d1), …`` per recorded proof,
``axiom(<id>).`` for flagged nodes, ``[ax] derivable(X) :- axiom(X).`` and
``[prem] derivable(X) :- premise(X).``; Ω = {axiom, premise}. A query adds ``premise(s)`` for
s ∈ S as query-scoped facts; ``match/1`` (record mode) admits one only if s is a node of the
frozen library (the ``nodes`` record lists them). :func:`bfs_derivable` is the independent
reference; :func:`generate_tasks` is C-107's generator.

The Metamath DAGs (C-106a) record one proof per theorem and every theorem follows from the
axioms, so :func:`from_metamath` by default leaves axioms unflagged (they become nodes without
proofs, i.e. premises a task must supply); otherwise every query would be answered "yes".
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cotaudit.certify.core.canon import json_lines
from cotaudit.certify.interface.load import interface_from_dict
from cotaudit.certify.interface.model import Interface
from cotaudit.certify.sources.records import Evidence, SourceRecord
from cotaudit.certify.state.config import CertifyConfig
from cotaudit.certify.state.machine import CertState

_SYMBOL = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass
class Library:
    """Nodes in order; ``proofs[id]`` lists the dependency lists; ``names`` maps constants back."""

    order: list[str]
    proofs: dict[str, list[list[str]]]
    axioms: set[str]
    names: dict[str, str] = field(default_factory=dict)

    def check(self) -> None:
        known = set(self.order)
        for node, proofs in self.proofs.items():
            if node not in known:
                raise ValueError(f"proof for unknown node {node!r}")
            for deps in proofs:
                if not deps:
                    raise ValueError(f"{node}: a recorded proof needs at least one dependency")
                missing = [d for d in deps if d not in known]
                if missing:
                    raise ValueError(f"{node}: unknown dependency {missing[0]!r}")


def parse_library(lines: Iterable[str]) -> Library:
    """C-106 JSON lines ``{"id": "t17", "proofs": [["t3", "t9"]], "axiom": false}``."""
    order: list[str] = []
    proofs: dict[str, list[list[str]]] = {}
    axioms: set[str] = set()
    for n, obj in json_lines(lines):  # a line that is not JSON: JsonLineError (a ValueError)
        nid = obj.get("id") if isinstance(obj, dict) else None
        if not isinstance(nid, str) or not _SYMBOL.match(nid):
            raise ValueError(f"line {n}: 'id' must be a lower-case symbol")
        if nid in proofs:
            raise ValueError(f"line {n}: duplicate id {nid!r}")
        ps = obj.get("proofs", [])
        if not isinstance(ps, list) or not all(
            isinstance(p, list) and all(isinstance(d, str) for d in p) for p in ps
        ):
            raise ValueError(f"line {n}: 'proofs' must be a list of lists of ids")
        order.append(nid)
        proofs[nid] = [list(p) for p in ps]
        if obj.get("axiom") is True:
            axioms.add(nid)
    lib = Library(order, proofs, axioms, {i: i for i in order})
    lib.check()
    return lib


def from_metamath(path: str | Path, axioms_as_facts: bool = False) -> Library:
    """C-106a: a ``*_dag.json`` as a library; constants ``n0, n1, …`` in database order."""
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    label = {lab: f"n{i}" for i, lab in enumerate(doc["order"])}
    proofs: dict[str, list[list[str]]] = {label[lab]: [] for lab in doc["order"]}
    for thm, deps in doc["premises"].items():
        if deps:
            proofs[label[thm]] = [sorted({label[d] for d in deps}, key=lambda c: int(c[1:]))]
    axioms = {label[a] for a in doc["axioms"]} if axioms_as_facts else set()
    lib = Library([label[lab] for lab in doc["order"]], proofs, axioms, {v: k for k, v in label.items()})
    lib.check()
    return lib


def program(lib: Library) -> str:
    lines = ["[ax] derivable(X) :- axiom(X).", "[prem] derivable(X) :- premise(X)."]
    for node in lib.order:
        if node in lib.axioms:
            lines.append(f"[a:{node}] axiom({node}).")
        for j, deps in enumerate(lib.proofs.get(node, [])):
            body = ", ".join(f"derivable({d})" for d in deps)
            lines.append(f"[pf:{node}:{j}] derivable({node}) :- {body}.")
    return "\n".join(lines) + "\n"


def interface() -> Interface:
    return interface_from_dict(
        {
            "format": "cotaudit.certify.interface/1",
            "name": "depdag",
            "version": "1",
            "negation": "none",
            "roles": {"node": {"type": "symbol", "pattern": "^[a-z][a-z0-9_]*$"}},
            "predicates": {p: {"args": ["node"]} for p in ("axiom", "derivable", "premise")},
            "source_whitelist": ["axiom", "premise"],
            "query_predicates": ["derivable"],
        }
    )


def library_state(lib: Library, config: CertifyConfig | None = None, clock: Any = None) -> CertState:
    """A fresh state with the library's kernel (match/1 record mode against the program)."""
    kwargs = {} if clock is None else {"clock": clock}
    state = CertState.open(":memory:", interface(), config or CertifyConfig(), **kwargs)
    text = program(lib)
    state.add_record(SourceRecord("library", "rules", text))
    state.add_record(SourceRecord("nodes", "facts", "".join(f"premise({n}).\n" for n in lib.order)))
    decisions = state.admit_batch([(line, Evidence("library"), "deploy", None) for line in text.splitlines()])
    bad = [d for d in decisions if d.outcome.value == "REJECT"]
    if bad:
        raise ValueError(f"library unit rejected: {bad[0].reason}: {bad[0].detail.get('message', '')}")
    return state


def premise_facts(premises: Iterable[str]) -> list[tuple[str, Evidence]]:
    return [(f"premise({p})", Evidence("nodes")) for p in sorted(set(premises))]


def bfs_derivable(lib: Library, premises: Iterable[str]) -> set[str]:
    """The reference: forward chaining from S ∪ axioms over the recorded proofs."""
    have = set(premises) | set(lib.axioms)
    users: dict[str, list[tuple[str, int]]] = {}
    need: dict[tuple[str, int], int] = {}
    for node, proofs in lib.proofs.items():
        for j, deps in enumerate(proofs):
            need[(node, j)] = len(set(deps))
            for d in set(deps):
                users.setdefault(d, []).append((node, j))
    queue = list(have)
    while queue:
        d = queue.pop()
        for key in users.get(d, []):
            need[key] -= 1
            if need[key] == 0 and key[0] not in have:
                have.add(key[0])
                queue.append(key[0])
    return have


@dataclass(frozen=True)
class Task:
    task_id: str
    target: str
    premises: tuple[str, ...]
    depth: int
    gold: str


def _frontier(lib: Library, target: str, depth: int) -> set[str] | None:
    """Unfold ``target`` ``depth`` levels along first proofs; proof-less nodes stay in the
    frontier (they can only be premises). None when some level expands nothing."""
    level = {target}
    for _ in range(depth):
        nxt: set[str] = set()
        expanded = False
        for n in level:
            if lib.proofs.get(n):
                nxt.update(lib.proofs[n][0])
                expanded = True
            else:
                nxt.add(n)
        if not expanded:
            return None
        level = nxt - lib.axioms
    return level or None


def generate_tasks(
    lib: Library, n: int = 200, depths: Sequence[int] = (2, 3, 4, 5, 6), seed: int = 0
) -> list[Task]:
    """C-107: positives unfold a target ``d`` levels to a premise frontier; negatives remove
    one frontier premise so that BFS no longer derives the target (a mid-link break)."""
    r = random.Random(seed)
    candidates = [x for x in lib.order if lib.proofs.get(x)]
    tasks: list[Task] = []
    tries = 0
    while len(tasks) < n and tries < 50 * n and candidates:
        tries += 1
        d = depths[len(tasks) // 2 % len(depths)]
        target = r.choice(candidates)
        front = _frontier(lib, target, d)
        if not front or target in front or target not in bfs_derivable(lib, front):
            continue
        order = sorted(front)
        r.shuffle(order)
        cut = next((p for p in order if target not in bfs_derivable(lib, front - {p})), None)
        if cut is None:
            continue
        k = len(tasks) // 2
        tasks.append(Task(f"dag-{k:04d}-pos", target, tuple(sorted(front)), d, "yes"))
        tasks.append(Task(f"dag-{k:04d}-neg", target, tuple(sorted(front - {cut})), d, "no"))
    return tasks[:n]


def load_library(path: str | Path) -> Library:
    p = Path(path)
    if p.suffix == ".json":
        return from_metamath(p)
    return parse_library(p.read_text(encoding="utf-8").splitlines())


def task_json(t: Task, names: Mapping[str, str]) -> dict[str, Any]:
    return {
        "id": t.task_id,
        "target": t.target,
        "target_label": names.get(t.target, t.target),
        "premises": list(t.premises),
        "depth": t.depth,
        "gold": t.gold,
    }
