"""The one native-word → stable-code map of the certify engine (conventions.md, C-43)."""

from __future__ import annotations

import re
from pathlib import Path

from cotaudit import codes
from cotaudit.certify.kb.codemap import ABSTAIN_CODES, REASON_CODES, abstain_code, reason_code
from cotaudit.codes.certify import CERTIFY

SPEC_REASONS = [
    "PARSE_ERROR",
    "UNSAFE_RULE",
    "UNSTRATIFIED",
    "UNKNOWN_PREDICATE",
    "ARITY_MISMATCH",
    "ROLE_MISMATCH",
    "NEGATION_NOT_ENABLED",
    "RULE_WRITE_FORBIDDEN",
    "PREDICATE_NOT_IN_WHITELIST",
    "HEAD_IN_WHITELIST",
    "UNSUPPORTED_BY_SOURCE",
    "CHECKER_ERROR",
    "CONTRADICTS_KERNEL",
    "MALFORMED_DERIVATION",
    "ROOT_MISMATCH",
    "CYCLIC",
    "UNLINKED_CONCLUSION",
    "UNSUPPORTED_LEAF",
    "UNVERIFIABLE_EDGE",
    "RULE_NOT_IN_KERNEL",
    "BAD_SUBSTITUTION",
    "HEAD_MISMATCH",
    "BODY_MISMATCH",
    "NAF_VIOLATED",
    "CALC_MISMATCH",
    "DEPTH_MISMATCH",
    "DEPTH_BUDGET_EXCEEDED",
    "DUPLICATE_NODE",
    "UNREACHABLE_NODE",
    "DEPS_MISMATCH",
    "HASH_MISMATCH",
]
FROZEN = Path(__file__).resolve().parents[2] / "frozen_codes" / "certify.txt"


def test_every_spec_reason_has_its_own_code() -> None:
    got = [reason_code(r).code for r in SPEC_REASONS]
    assert len(set(got)) == len(SPEC_REASONS)
    assert all(c.startswith("CERTIFY_E") for c in got)


def test_the_map_points_at_existing_certify_codes_only() -> None:
    for native, code in {**REASON_CODES, **ABSTAIN_CODES}.items():
        entry = codes.lookup(code)
        assert entry.engine == "certify", native
        assert re.fullmatch(r"[A-Z_]+", native)


def test_every_certify_code_is_reachable_from_a_native_word() -> None:
    mapped = set(REASON_CODES.values()) | set(ABSTAIN_CODES.values())
    assert {c.code for c in codes.CERTIFY} == mapped  # type: ignore[attr-defined]


def test_the_frozen_file_lists_exactly_the_certify_codes() -> None:
    lines = [ln.split() for ln in FROZEN.read_text(encoding="utf-8").splitlines() if not ln.startswith("#")]
    assert [(c, n, s) for c, n, s in lines] == [(c.code, c.name, c.severity) for c in CERTIFY]


def test_abstentions_are_warnings_and_unknown_words_fall_back() -> None:
    assert abstain_code("DEPTH_BUDGET_EXCEEDED").code == "CERTIFY_W001"
    assert (
        reason_code("DEPTH_BUDGET_EXCEEDED").code == "CERTIFY_E020"
    )  # the gate's REJECT, not the abstention
    assert all(abstain_code(r).severity == "warning" for r in ABSTAIN_CODES)
    assert reason_code("NOT_A_REASON").code == "CERTIFY_E034"
