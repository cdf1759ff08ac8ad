"""Stable codes of the certify engine (shared/spec/certify.md).

The spec's reason codes (``PARSE_ERROR``, ``UNVERIFIABLE_EDGE``, ``DEPTH_BUDGET_EXCEEDED`` …)
are the engine's native words; each maps to one stable code here, and
:mod:`cotaudit.certify.kb.codemap` is the one place that does the mapping. Families: E001–E013 the
source-mode gate (C-43), E014–E020 the derived-mode gate, E021–E033 the checks of ``recheck``
(C-32, C-33, C-35), E034–E038 input and answers, W001–W008 abstentions and capped scans, W009–W012 serving
(votes, agreement, grounder failures, the labelled fallback), W013 units the gate could not check,
I001–I003 certified answers, redundant units and rechecked certificates.
"""

from cotaudit.codes.model import Code


def _c(code: str, name: str, layer: str, summary: str) -> Code:
    severity = {"E": "error", "W": "warning", "I": "info", "X": "error"}[code[8]]
    return Code(code, "certify", name, severity, layer, summary)  # type: ignore[arg-type]


CERTIFY: tuple[Code, ...] = (
    _c(
        "CERTIFY_E001",
        "parse-error",
        "gate-source",
        "PARSE_ERROR: a unit does not parse, or exceeds a load limit.",
    ),
    _c(
        "CERTIFY_E002",
        "unsafe-rule",
        "gate-source",
        "UNSAFE_RULE: a head, NAF or calc variable is not bound by the positive body.",
    ),
    _c("CERTIFY_E003", "unstratified", "gate-source", "UNSTRATIFIED: negation as failure through recursion."),
    _c(
        "CERTIFY_E004",
        "unknown-predicate",
        "gate-source",
        "UNKNOWN_PREDICATE: the predicate is not in the interface Σ.",
    ),
    _c(
        "CERTIFY_E005",
        "arity-mismatch",
        "gate-source",
        "ARITY_MISMATCH: wrong number of arguments for the predicate.",
    ),
    _c(
        "CERTIFY_E006",
        "role-mismatch",
        "gate-source",
        "ROLE_MISMATCH: an argument does not satisfy its role type or legend role.",
    ),
    _c(
        "CERTIFY_E007",
        "negation-not-enabled",
        "gate-source",
        "NEGATION_NOT_ENABLED: '-' or 'not' without the interface enabling it.",
    ),
    _c(
        "CERTIFY_E008",
        "rule-write-forbidden",
        "gate-source",
        "RULE_WRITE_FORBIDDEN: a grounder proposed a rule.",
    ),
    _c(
        "CERTIFY_E009",
        "predicate-not-in-whitelist",
        "gate-source",
        "PREDICATE_NOT_IN_WHITELIST: a fact of a predicate outside the source whitelist Ω.",
    ),
    _c(
        "CERTIFY_E010",
        "head-in-whitelist",
        "gate-source",
        "HEAD_IN_WHITELIST: a rule concludes a source predicate (Proposition 1).",
    ),
    _c(
        "CERTIFY_E011",
        "unsupported-by-source",
        "gate-source",
        "UNSUPPORTED_BY_SOURCE: the source checker did not find the unit in its evidence.",
    ),
    _c(
        "CERTIFY_E012",
        "checker-error",
        "gate-source",
        "CHECKER_ERROR: the source checker failed or timed out.",
    ),
    _c(
        "CERTIFY_E013",
        "contradicts-kernel",
        "gate-source",
        "CONTRADICTS_KERNEL: the unit would make p and -p both hold.",
    ),
    _c(
        "CERTIFY_E014",
        "malformed-derivation",
        "gate-derived",
        "MALFORMED_DERIVATION: the candidate derivation or certificate is not well formed.",
    ),
    _c(
        "CERTIFY_E015",
        "root-mismatch",
        "gate-derived",
        "ROOT_MISMATCH: the derivation's root is not the conclusion.",
    ),
    _c(
        "CERTIFY_E016",
        "cyclic",
        "gate-derived",
        "CYCLIC: node ids are not dense or a premise is not an earlier node.",
    ),
    _c(
        "CERTIFY_E017",
        "unlinked-conclusion",
        "gate-derived",
        "UNLINKED_CONCLUSION: a premise is not a node, or a node has neither leaf nor edge.",
    ),
    _c(
        "CERTIFY_E018",
        "unsupported-leaf",
        "gate-derived",
        "UNSUPPORTED_LEAF: a leaf is not an active kernel fact or a query-scoped fact.",
    ),
    _c(
        "CERTIFY_E019",
        "unverifiable-edge",
        "gate-derived",
        "UNVERIFIABLE_EDGE: a rule application does not verify (see the sub-code).",
    ),
    _c(
        "CERTIFY_E020",
        "depth-budget-exceeded",
        "gate-derived",
        "DEPTH_BUDGET_EXCEEDED: the verified derivation is deeper than δ.",
    ),
    _c(
        "CERTIFY_E021",
        "rule-not-in-kernel",
        "recheck",
        "RULE_NOT_IN_KERNEL: the edge's rule is not a kernel rule with that key.",
    ),
    _c(
        "CERTIFY_E022",
        "bad-substitution",
        "recheck",
        "BAD_SUBSTITUTION: the substitution does not bind exactly the rule's variables.",
    ),
    _c("CERTIFY_E023", "head-mismatch", "recheck", "HEAD_MISMATCH: θ(head) is not the node's fact."),
    _c(
        "CERTIFY_E024",
        "body-mismatch",
        "recheck",
        "BODY_MISMATCH: θ(body) in canonical order is not the premise list.",
    ),
    _c(
        "CERTIFY_E025",
        "naf-violated",
        "recheck",
        "NAF_VIOLATED: an atom checked by 'not' holds in the lower strata.",
    ),
    _c(
        "CERTIFY_E026",
        "calc-mismatch",
        "recheck",
        "CALC_MISMATCH: recomputing the registered function gives another output.",
    ),
    _c(
        "CERTIFY_E027",
        "depth-mismatch",
        "recheck",
        "DEPTH_MISMATCH: a stated depth is not 0 / 1 + max premise depth.",
    ),
    _c("CERTIFY_E028", "duplicate-node", "recheck", "DUPLICATE_NODE: two nodes state the same fact."),
    _c(
        "CERTIFY_E029",
        "unreachable-node",
        "recheck",
        "UNREACHABLE_NODE: a node is not reachable from the root.",
    ),
    _c(
        "CERTIFY_E030",
        "deps-mismatch",
        "recheck",
        "DEPS_MISMATCH: the dependency list differs from the recomputed one.",
    ),
    _c(
        "CERTIFY_E031",
        "hash-mismatch",
        "recheck",
        "HASH_MISMATCH: the sha256 does not match the canonical JSON (edited or forged).",
    ),
    _c(
        "CERTIFY_E032",
        "closure-not-a-model",
        "recheck",
        "CLOSURE_NOT_A_MODEL: a closure certificate's model misses a fact or is not closed.",
    ),
    _c(
        "CERTIFY_E033",
        "closure-target-derived",
        "recheck",
        "CLOSURE_TARGET_DERIVED: the target or its complement is in the claimed model.",
    ),
    _c(
        "CERTIFY_E034", "input-malformed", "input", "A .kb or .cert.json file whose structure cannot be read."
    ),
    _c(
        "CERTIFY_E035",
        "interface-invalid",
        "input",
        "The interface does not validate (unknown role, Ω ⊄ Σ, legend problems …).",
    ),
    _c(
        "CERTIFY_E036",
        "whitelist-violation",
        "input",
        "A program's rules conclude source predicates (Proposition 1 at load).",
    ),
    _c("CERTIFY_E037", "duplicate-label", "input", "Two different units of one program share a label."),
    _c(
        "CERTIFY_E038",
        "wrong-answer",
        "answer",
        "A certified answer differs from the answer the .kb file expects.",
    ),
    _c(
        "CERTIFY_W001",
        "abstain-depth-budget",
        "answer",
        "Abstained: the answer's derivation is deeper than δ (never answered 'no').",
    ),
    _c(
        "CERTIFY_W002",
        "abstain-computation-cap",
        "answer",
        "Abstained: evaluation exceeded its fact or time limit.",
    ),
    _c(
        "CERTIFY_W003",
        "abstain-inconsistent",
        "answer",
        "Abstained: p and -p both hold, or a numeric target has several values.",
    ),
    _c("CERTIFY_W004", "abstain-missing-attribute", "answer", "Abstained: a numeric target has no value."),
    _c(
        "CERTIFY_W005",
        "abstain-admission-rejected",
        "answer",
        "Abstained: a query-scoped fact was rejected by the gate.",
    ),
    _c(
        "CERTIFY_W006",
        "abstain-source-check-failed",
        "answer",
        "Abstained: a query-scoped fact failed its source check.",
    ),
    _c(
        "CERTIFY_W007",
        "abstain-derivation-rejected",
        "answer",
        "Abstained: the derived-mode gate rejected the executor's certificate.",
    ),
    _c(
        "CERTIFY_W008",
        "scan-capped",
        "kernel",
        "The kernel scan could not decide some units within its cap and kept them.",
    ),
    _c("CERTIFY_I001", "answer-certified", "answer", "A query answered with a certificate that rechecks."),
    _c(
        "CERTIFY_I002",
        "unit-redundant",
        "kernel",
        "A unit was certified but is redundant (a duplicate, or derivable from the kernel).",
    ),
    _c("CERTIFY_I003", "certificate-rechecked", "recheck", "A certificate rechecked against its kernel."),
    _c(
        "CERTIFY_W009",
        "abstain-no-agreement",
        "answer",
        "Abstained: no fact set (or certified answer) was proposed by a strict majority of the k votes.",
    ),
    _c(
        "CERTIFY_W010",
        "abstain-all-votes-invalid",
        "answer",
        "Abstained: every grounding vote was a parse failure or an error.",
    ),
    _c(
        "CERTIFY_W011",
        "abstain-grounder-error",
        "answer",
        "Abstained: the grounder failed (an exception, e.g. the model backend was unreachable).",
    ),
    _c(
        "CERTIFY_W012",
        "uncertified-fallback",
        "answer",
        "After an abstention a fallback answered; that answer is UNCERTIFIED and carries no certificate.",
    ),
    _c(
        "CERTIFY_W013",
        "unit-undecided",
        "gate-source",
        "Abstained on a unit: the gate could not check it (UNDECIDED: a computation bound; CHECKER_ERROR: "
        "the source checker failed or timed out). It is not admitted, and that is not a rejection.",
    ),
)
