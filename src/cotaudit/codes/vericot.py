"""Stable codes of the vericot engine (shared/spec/vericot.md V-22, V-17, V-4)."""

from cotaudit.codes.model import Code

VERICOT: tuple[Code, ...] = (
    Code(
        "VC_E001",
        "vericot",
        "step-contradicted",
        "error",
        "step",
        "A step is refuted by the knowledge base or by accepted premises (contradicted).",
    ),
    Code(
        "VC_E002",
        "vericot",
        "step-ungrounded",
        "error",
        "step",
        "No consistent set of accepted premises entails the step (ungrounded).",
    ),
    Code(
        "VC_E003",
        "vericot",
        "step-untranslatable",
        "error",
        "step",
        "The step has no usable formula: parse error, forbidden command, vocabulary conflict, "
        "tautology, or the formaliser gave up.",
    ),
    Code(
        "VC_E004",
        "vericot",
        "inconsistent-premises",
        "error",
        "trace",
        "The given premises are inconsistent; every entailed step is vacuous.",
    ),
    Code(
        "VC_E005",
        "vericot",
        "invalid-input",
        "error",
        "input",
        "The trace is not valid JSON, violates the schema, breaches a limit, or its shared "
        "formalization cannot be loaded.",
    ),
    Code(
        "VC_W001",
        "vericot",
        "step-unknown",
        "warning",
        "step",
        "The solver could not decide the step (timeout, budget, a premise of unknown consistency), "
        "or it is not entailed but may rest on an earlier step nobody could check.",
    ),
    Code(
        "VC_W002",
        "vericot",
        "step-tainted",
        "warning",
        "step",
        "The step is entailed, but only through an assumed (failed) earlier step.",
    ),
    Code(
        "VC_W003",
        "vericot",
        "llm-unavailable",
        "warning",
        "step",
        "No formaliser or language-model stage was available for the step (no model configured, "
        "replay miss, call budget), so the step is unknown.",
    ),
)
