"""Stable codes of the type6 engine (shared/spec/type6.md §8).

The spec's native event codes (``T6_H01``, ``T6_R02`` …) do not fit the shared table's shape
(``<ENGINE>_<E|W|I|X><three digits>``, severity fixed by the letter), so each native code maps to
one stable code here; :mod:`cotaudit.type6.codemap` is the one place that does the mapping (an
explicit table, native code → stable code). The hundreds digit names the native family: 0 input
errors, warnings and info (``T6_E01`` → ``T6_E001``, ``T6_W01`` → ``T6_W001``, ``T6_I01`` →
``T6_I001``), 1 hard events (``H``), 2 residuals (``R``; elevated ones are errors, off-chain
ones warnings), 3 soft (``S``), 4 quality (``Q``), 5 diagnostics (``D``).
"""

from cotaudit.codes.model import Code


def _c(code: str, name: str, layer: str, summary: str) -> Code:
    severity = {"E": "error", "W": "warning", "I": "info", "X": "error"}[code[3]]
    return Code(code, "type6", name, severity, layer, summary)  # type: ignore[arg-type]


TYPE6: tuple[Code, ...] = (
    # Invalid input (Y-14): the trace is not analysed.
    _c("T6_E001", "bad-annotation", "input", "T6_E01: the annotation is not T, F, Uc or Uk."),
    _c(
        "T6_E002",
        "missing-colon",
        "input",
        "T6_E02: a statement line has no ':' separating the surface text.",
    ),
    _c("T6_E003", "bad-proposition", "input", "T6_E03: the proposition is not a valid symbol."),
    _c(
        "T6_E004",
        "empty-or-no-sink",
        "input",
        "T6_E04: the trace has no statement, or no sink can be resolved.",
    ),
    _c("T6_E005", "limit-exceeded", "input", "T6_E05: an input size limit was exceeded."),
    _c(
        "T6_E006",
        "schema-error",
        "input",
        "T6_E06: the JSON / JSONL form is malformed or violates the schema.",
    ),
    # Hard events (blocking; hard_fail).
    _c(
        "T6_E101",
        "k-k-contradiction",
        "sequential",
        "T6_H01: K=v then K=flip(v) without a licensed revision.",
    ),
    _c("T6_E102", "derived-contradiction", "sequential", "T6_H02: a constraint's status became conflict."),
    _c("T6_E103", "modal-mismatch-uc", "sequential", "T6_H03: a K or B commitment annotated Uc."),
    _c("T6_E104", "modal-mismatch-uk-k", "sequential", "T6_H04: a K commitment annotated Uk."),
    _c("T6_E105", "reasoning-avoidance", "trace", "T6_H05: no constraint derives the sink."),
    # Residuals at the sink: elevated (on the implication chain) or not.
    _c(
        "T6_E201",
        "unresolved-doubt-on-chain",
        "trace",
        "T6_R01 (elevated): doubt left on the implication chain.",
    ),
    _c(
        "T6_E202",
        "unresolved-unknowability-on-chain",
        "trace",
        "T6_R02 (elevated): a Uk proposition left on the implication chain.",
    ),
    _c(
        "T6_W201",
        "unresolved-doubt-off-chain",
        "trace",
        "T6_R01 (soft): doubt left off the implication chain.",
    ),
    _c(
        "T6_W202",
        "unresolved-unknowability-off-chain",
        "trace",
        "T6_R02 (soft): a Uk proposition left off the implication chain.",
    ),
    # Soft events.
    _c("T6_W301", "b-b-conflict", "sequential", "T6_S01: B=v then B=flip(v) without a licensed revision."),
    _c(
        "T6_W302",
        "bare-reassertion-conflict",
        "sequential",
        "T6_S02: opposite values with a bare side, not licensed.",
    ),
    _c("T6_W303", "unjustified-downgrade", "sequential", "T6_S03: K then B without derivation or licence."),
    _c(
        "T6_W304",
        "unjustified-modal-shift",
        "sequential",
        "T6_S04: B then K with the opposite value, not licensed.",
    ),
    _c(
        "T6_W305",
        "cross-path-disagreement",
        "paths",
        "T6_S05: consistent paths end with T and F on a proposition.",
    ),
    # Quality events.
    _c(
        "T6_W401",
        "redundant-reassertion",
        "sequential",
        "T6_Q01: the same commitment repeated with nothing between.",
    ),
    _c("T6_W402", "self-questioned-k", "sequential", "T6_Q02: K ? p after a K commitment on p."),
    _c("T6_W403", "self-questioned-b", "sequential", "T6_Q03: B ? p after a B commitment on p."),
    _c(
        "T6_W404",
        "unverifiable-derivation",
        "sequential",
        "T6_Q04: a constraint's status became unverifiable.",
    ),
    _c(
        "T6_W405",
        "ambiguous-negated-connective",
        "sequential",
        "T6_Q05: an odd number of NOTs on a connective.",
    ),
    # Structural and diagnostic events.
    _c(
        "T6_W501",
        "malformed-implication",
        "sequential",
        "T6_D01: a pending IF ended by R, IF or the end of trace.",
    ),
    _c("T6_I502", "under-resolution", "paths", "T6_D02: consistent paths disagree between Uk and T/F."),
    # Info.
    _c("T6_I001", "licensed-revision", "sequential", "T6_I01: opposite values with a licensed revision."),
    _c("T6_I002", "pin", "sequential", "T6_I02: back-propagation set a Uk target."),
    # Warnings.
    _c("T6_W001", "unknown-operator-token", "sequential", "T6_W01: an unknown or misplaced operator token."),
    _c("T6_W002", "source-inferred", "trace", "T6_W02: no q; the source was inferred."),
    _c("T6_W003", "sink-inferred", "trace", "T6_W03: no a; the sink was inferred."),
    _c(
        "T6_W004", "connective-without-proposition", "sequential", "T6_W04: a connective with no proposition."
    ),
    _c(
        "T6_W005", "operator-without-target", "sequential", "T6_W05: an operator without a target, or filler."
    ),
    _c("T6_W006", "dangling-then", "sequential", "T6_W06: THEN with no antecedent; no constraint created."),
    _c(
        "T6_W007",
        "path-set-incomplete",
        "paths",
        "T6_W07: the path set was truncated, budget-limited or sampled.",
    ),
    _c("T6_W008", "path-analysis-skipped", "paths", "T6_W08: no source, or path_mode is off."),
    _c(
        "T6_W009",
        "licensing-budget-exhausted",
        "sequential",
        "T6_W09 (cotaudit extension): the Y-46 upstream-search budget ran out; later upstream "
        "derivations count as absent.",
    ),
    # Internal.
    _c("T6_X001", "internal-error", "internal", "An unexpected internal error (a bug; please report it)."),
)
