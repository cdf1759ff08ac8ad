"""The fuzz targets, their seeds (from ``examples/``) and the input for ``(seed, target, index)``.

This module is the harness's parent side: it reads seed files and builds inputs but never
imports an engine (the worker processes do that, see :mod:`tests.fuzz.worker`).
"""

from __future__ import annotations

import importlib
import json
import random
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .mutators import Context, mutate

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
SEEDS = Path(__file__).resolve().parent / "seeds"  # seeds with no place among the examples


@dataclass(frozen=True)
class Target:
    """One thing to fuzz.

    ``seed_glob`` is relative to ``examples/``, or to ``tests/fuzz/seeds/`` after ``seeds:``.
    ``kind``: ``engine`` runs ``cotaudit.check(text, engine, path=path)`` and every writer on
    the report; ``recheck`` runs certify's rechecker on a certificate text against the kernel
    of ``examples/certify/legal_prelim.cert.json``; ``kb_parser`` runs certify's ``.kb``
    parser alone. ``fmt`` groups targets that read the same format (splices take lines from
    the other formats).
    """

    name: str
    kind: str
    fmt: str
    seed_glob: str
    json_aware: bool = False
    engine: str | None = None
    path: str | None = None


TARGETS: tuple[Target, ...] = (
    Target("te", "engine", "te", "te/*.te", engine="te", path="fuzz.te"),
    Target("type6", "engine", "t6", "type6/*.t6", engine="type6", path="fuzz.t6"),
    Target("vericot", "engine", "vcot", "vericot/*.vcot.json", True, "vericot", "fuzz.vcot.json"),
    Target("certify-kb", "engine", "kb", "certify/*.kb", engine="certify", path="fuzz.kb"),
    Target("certify-cert", "engine", "bundle", "certify/*.cert.json", True, "certify", "fuzz.cert.json"),
    Target("recheck", "recheck", "cert", "certify/*.cert.json", True),
    Target("kb-parser", "kb_parser", "kb", "certify/*.kb"),
    Target("cot", "engine", "cot", "cot/*.txt", engine="cot", path="fuzz.txt"),
    # BIG-Bench Mistake and ProcessBench shaped records (written for the fuzzer, no benchmark text)
    Target("cot-record", "engine", "cotjson", "seeds:*.cot.json", True, "cot", "fuzz.cot.json"),
)
BY_NAME = {t.name: t for t in TARGETS}  # TARGETS and any registered by a plugin
RECHECK_BUNDLE = EXAMPLES / "certify" / "legal_prelim.cert.json"


def register(t: Target) -> None:
    """Add a target (the harness's own tests add a probe engine's; see :func:`load_plugin`)."""
    BY_NAME[t.name] = t


def load_plugin(module_name: str, *, worker: bool) -> None:
    """Import a plugin module and register its ``TARGETS``; in a worker, also call its ``install()``
    (which registers engines: only workers do, so the parent's registry stays as it was)."""
    module = importlib.import_module(module_name)
    for t in getattr(module, "TARGETS", ()):
        register(t)
    if worker and hasattr(module, "install"):
        module.install()


def target(name: str) -> Target:
    try:
        return BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown fuzz target {name!r} (targets: {', '.join(BY_NAME)})") from None


@cache
def seeds(name: str) -> tuple[tuple[str, str], ...]:
    """``(file name, text)`` of every seed of target ``name``, sorted by file name.

    The ``recheck`` target's seeds are the certificates inside the ``.cert.json`` bundles,
    written as the rechecker receives them (compact JSON)."""
    t = target(name)
    base, glob = (SEEDS, t.seed_glob[6:]) if t.seed_glob.startswith("seeds:") else (EXAMPLES, t.seed_glob)
    files = sorted(base.glob(glob))
    if not files:
        raise FileNotFoundError(f"no seeds for fuzz target {name!r} under {base}/{glob}")
    out: list[tuple[str, str]] = []
    for f in files:
        text = f.read_text(encoding="utf-8")
        if t.kind == "recheck":
            text = json.dumps(json.loads(text)["certificate"], sort_keys=True, separators=(",", ":"))
        out.append((f.name, text))
    return tuple(out)


@cache
def context(name: str) -> Context:
    """The seeds of ``name``'s own format and every line of the other formats' seeds."""
    t = target(name)
    foreign: list[str] = []
    for other in TARGETS:
        if other.fmt != t.fmt and other.kind == "engine" and other.name != t.name:
            for _, text in seeds(other.name):
                foreign.extend(line for line in text.split("\n") if line.strip())
    return Context(same_format=tuple(text for _, text in seeds(name)), foreign_lines=tuple(foreign))


@dataclass(frozen=True)
class FuzzInput:
    """Input number ``index`` of ``target`` in the run with ``seed``: its text and how it was made."""

    target: str
    seed: int
    index: int
    seed_file: str
    mutators: tuple[str, ...]
    text: str


def make_input(name: str, seed: int, index: int) -> FuzzInput:
    """The ``index``-th input of target ``name`` for run ``seed``: the same in every process.

    ``random.Random`` seeded with a string hashes it with SHA-512, so neither
    ``PYTHONHASHSEED`` nor the inputs made before this one change what comes out. Index 0 …
    n-1 (n = number of seeds) are the seeds themselves, unchanged: a target that fails on its
    own examples says so first.
    """
    t = target(name)
    pool = seeds(name)
    if index < len(pool):
        file_name, text = pool[index]
        return FuzzInput(name, seed, index, file_name, (), text)
    rng = random.Random(f"cotaudit-fuzz/{seed}/{name}/{index}")
    file_name, text = pool[rng.randrange(len(pool))]
    mutated, names = mutate(rng, text, context(name), json_aware=t.json_aware)
    return FuzzInput(name, seed, index, file_name, tuple(names), mutated)
