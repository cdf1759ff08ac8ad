"""Certificates (certify.md §6, C-29 … C-31, C-35): the format, shared by builder and checker.

A *derivation* certificate is the witness DAG of one fact: one node per distinct fact, ordered
by (depth, fact key) so premises always have smaller ids; leaves name the unit (and scope and
evidence hash) they come from, edges the rule application (canonical substitution over
``V0, V1 …``, premises in canonical body order, NAF atoms checked, calc record). A *closure*
certificate backs a "no"/"unknown": the least model, or its hash, without the target.

What a certificate means: *the answer follows, by verified rule applications within depth δ,
from premises that passed the configured source checker.* It does not prove that the premises
say what the natural-language source says; that depends on the source checker, whose identity
and version every certificate's leaves point to through their evidence records.

The independent checker is :mod:`cotaudit.certify.proof.recheck`; it does not import this module's
producers (the executor).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from cotaudit.certify.core.canon import canonical_json, sha256_hex, sha256_json
from cotaudit.certify.lang.syntax import Literal

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


def model_sha256(fact_texts: Sequence[str]) -> str:
    """Hash of a model: canonical JSON of its sorted fact texts."""
    return sha256_hex(canonical_json(sorted(fact_texts)))


def internal_nodes(cert: Mapping[str, Any]) -> list[str]:
    """Keys of the non-root derived nodes (what makes another entry a dependency, C-58)."""
    root = cert["root"]
    return sorted({"f:" + n["fact"] for n in cert["nodes"] if "edge" in n and n["id"] != root})
