"""The one place where the engine's native words become stable codes (conventions.md).

Native words are the spec's reason codes (C-43), recheck codes (C-32/C-33/C-35), abstention
reasons (C-83) and the engine's own input errors.
"""

from __future__ import annotations

from cotaudit.codes import lookup
from cotaudit.codes.model import Code

REASON_CODES: dict[str, str] = {
    "PARSE_ERROR": "CERTIFY_E001",
    "UNSAFE_RULE": "CERTIFY_E002",
    "UNSTRATIFIED": "CERTIFY_E003",
    "UNKNOWN_PREDICATE": "CERTIFY_E004",
    "ARITY_MISMATCH": "CERTIFY_E005",
    "ROLE_MISMATCH": "CERTIFY_E006",
    "NEGATION_NOT_ENABLED": "CERTIFY_E007",
    "RULE_WRITE_FORBIDDEN": "CERTIFY_E008",
    "PREDICATE_NOT_IN_WHITELIST": "CERTIFY_E009",
    "HEAD_IN_WHITELIST": "CERTIFY_E010",
    "UNSUPPORTED_BY_SOURCE": "CERTIFY_E011",
    "CHECKER_ERROR": "CERTIFY_E012",
    "CONTRADICTS_KERNEL": "CERTIFY_E013",
    "MALFORMED_DERIVATION": "CERTIFY_E014",
    "ROOT_MISMATCH": "CERTIFY_E015",
    "CYCLIC": "CERTIFY_E016",
    "UNLINKED_CONCLUSION": "CERTIFY_E017",
    "UNSUPPORTED_LEAF": "CERTIFY_E018",
    "UNVERIFIABLE_EDGE": "CERTIFY_E019",
    "DEPTH_BUDGET_EXCEEDED": "CERTIFY_E020",
    "RULE_NOT_IN_KERNEL": "CERTIFY_E021",
    "BAD_SUBSTITUTION": "CERTIFY_E022",
    "HEAD_MISMATCH": "CERTIFY_E023",
    "BODY_MISMATCH": "CERTIFY_E024",
    "NAF_VIOLATED": "CERTIFY_E025",
    "CALC_MISMATCH": "CERTIFY_E026",
    "DEPTH_MISMATCH": "CERTIFY_E027",
    "DUPLICATE_NODE": "CERTIFY_E028",
    "UNREACHABLE_NODE": "CERTIFY_E029",
    "DEPS_MISMATCH": "CERTIFY_E030",
    "HASH_MISMATCH": "CERTIFY_E031",
    "CLOSURE_NOT_A_MODEL": "CERTIFY_E032",
    "CLOSURE_TARGET_DERIVED": "CERTIFY_E033",
    "INPUT_MALFORMED": "CERTIFY_E034",
    "INTERFACE_INVALID": "CERTIFY_E035",
    "WHITELIST_VIOLATION": "CERTIFY_E036",
    "DUPLICATE_LABEL": "CERTIFY_E037",
    "WRONG_ANSWER": "CERTIFY_E038",
    "COMPUTATION_CAP": "CERTIFY_W002",
    "SCAN_CAPPED": "CERTIFY_W008",
    "UNDECIDED": "CERTIFY_W013",
    "CERTIFIED": "CERTIFY_I001",
    "REDUNDANT": "CERTIFY_I002",
    "RECHECKED": "CERTIFY_I003",
    "UNCERTIFIED_FALLBACK": "CERTIFY_W012",
}

ABSTAIN_CODES: dict[str, str] = {
    "DEPTH_BUDGET_EXCEEDED": "CERTIFY_W001",
    "COMPUTATION_CAP": "CERTIFY_W002",
    "INCONSISTENT": "CERTIFY_W003",
    "MISSING_ATTRIBUTE": "CERTIFY_W004",
    "ADMISSION_REJECTED": "CERTIFY_W005",
    "SOURCE_CHECK_FAILED": "CERTIFY_W006",
    "DERIVATION_REJECTED": "CERTIFY_W007",
    "NO_AGREEMENT": "CERTIFY_W009",
    "ALL_VOTES_INVALID": "CERTIFY_W010",
    "GROUNDER_ERROR": "CERTIFY_W011",
}
FALLBACK_CODE = "CERTIFY_W012"


def reason_code(reason: str) -> Code:
    """The stable code of a native reason (``PARSE_ERROR`` → ``CERTIFY_E001`` …)."""
    return lookup(REASON_CODES.get(reason, "CERTIFY_E034"))


# Gate reasons under which a unit was not shown wrong but could not be checked (a work bound
# stopped a check; the source checker failed or timed out): the unit is not admitted, and
# reports count it as an abstention, never a rejection (docs/certify.md, Decision "undecided").
UNDECIDED_REASONS = frozenset({"CHECKER_ERROR", "UNDECIDED"})
UNDECIDED_CODE = "CERTIFY_W013"


def decision_code(reason: str) -> Code:
    """The code of a gate rejection's reason in a report: the reason's own code, except that a
    unit the gate could not check (:data:`UNDECIDED_REASONS`) is ``CERTIFY_W013``, an abstention."""
    return lookup(UNDECIDED_CODE) if reason in UNDECIDED_REASONS else reason_code(reason)


def abstain_code(reason: str) -> Code:
    """The stable code of an abstention reason (``DEPTH_BUDGET_EXCEEDED`` → ``CERTIFY_W001`` …)."""
    return lookup(ABSTAIN_CODES.get(reason, "CERTIFY_W007"))
