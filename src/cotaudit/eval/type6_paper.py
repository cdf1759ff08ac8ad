"""The seed paper's corpus-level Type-6 figures, quoted from its text with where they come from.

Source: shared/spec/papers/type6-logic.txt (de Wynter, "What Was Said, Not What Was 'Thought':
Type-6 Logic for CoT Verification"), a 996-trace corpus of which Type-6 scored 990 (Table 5).
Every figure below is kept with the verbatim snippet it is read from, and a test finds each
snippet in the paper text, so a figure cannot drift from its source.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Incidence:
    """One row of the paper's Table 17: traces with at least one event, mean events among them."""

    traces: int
    avg_events: float | None  # "—" in the paper
    verbatim: str  # the row as the paper text has it


@dataclass(frozen=True, slots=True)
class FiveNumbers:
    """One row of the paper's Table 18: min, Q1, median, Q3, max."""

    values: tuple[float, float, float, float, float]
    verbatim: str


CORPUS_TRACES = 996
SCORED_TRACES = 990  # Table 5, "type6 ... 85.3% (990)"
WHERE_TABLE17 = "Table 17 (Appendix F.2): incidence of each Type-6 event category"
WHERE_TABLE18 = "Table 18 (Appendix F.2): direct-implication-chain statistics"

# Table 17, by native code. Categories the paper's table does not list are absent.
TABLE17: dict[str, Incidence] = {
    "T6_H01": Incidence(62, 2.258, "K-K contradiction 62 2.258"),
    "T6_H02": Incidence(409, 5.276, "Derived contradiction 409 5.276"),
    "T6_H03": Incidence(36, 1.417, "Modal mismatch (Uc)(U_c) 36 1.417"),
    "T6_H04": Incidence(182, 2.308, "Modal mismatch (Uk/K)(U_k/K) 182 2.308"),
    "T6_H05": Incidence(548, None, "Reasoning-avoidance 548 —"),
    "T6_S01": Incidence(87, 2.805, "B-B conflict 87 2.805"),
    "T6_S02": Incidence(68, 2.206, "Bare-reassertion conflict 68 2.206"),
    "T6_S03": Incidence(200, 2.225, "Unjustified downgrade 200 2.225"),
    "T6_S04": Incidence(75, 1.680, "Unjustified modal shift 75 1.680"),
    "T6_R01": Incidence(495, None, "Unresolved doubt 495 —"),
    "T6_R02": Incidence(878, None, "Unresolved unknowability 878 —"),
    "T6_Q01": Incidence(171, 2.000, "Redundant re-assertion 171 2.000"),
    "T6_Q02": Incidence(0, None, "Self-questioned K 0 —"),
    "T6_Q03": Incidence(14, 2.000, "Self-questioned B 14 2.000"),
    "T6_Q04": Incidence(250, 2.716, "Unverifiable derivation 250 2.716"),
    "T6_Q05": Incidence(72, 2.792, "Ambiguous negated connective 72 2.792"),
}

TABLE18: dict[str, FiveNumbers] = {
    "chain_length": FiveNumbers(
        (1, 1.0, 1.0, 3.0, 32), "Chain length (props on direct implication chain to sink) 1 1.0 1.0 3.0 32"
    ),
    "on_chain_fraction": FiveNumbers(
        (0.003, 0.016, 0.025, 0.074, 0.733),
        "On-chain fraction (chain length // trace length) 0.003 0.016 0.025 0.074 0.733",
    ),
    "elevated_residuals": FiveNumbers(
        (0, 0.0, 0.0, 0.0, 16), "Elevated residuals per trace 0 0.0 0.0 0.0 16"
    ),
}

HARD_FAIL_RATE = 0.853  # Table 5, Type-6 "All" column
HARD_FAIL_VERBATIM = "type6 87.9% (273) 89.0% (309) 79.2% (370) 94.7% (38) 85.3% (990)"
MEAN_GRADED = 1.342  # Table 6, Type-6 "All" column (the graded scalar, Table 3's caption)
MEAN_GRADED_VERBATIM = "type6 0.8500.850 0.9760.976 2.0622.062 0.8550.855 1.3421.342"


@dataclass(frozen=True, slots=True)
class Quote:
    """A sentence of the paper: where it is, as we print it, and as the text file has it (the
    extraction doubles some numbers, "409409" for 409; ``text`` undoes only that)."""

    where: str
    text: str
    verbatim: str


# The claims issue 19 asks the corpus table to set our figures beside.
QUOTES: dict[str, Quote] = {
    "most_common_hard_fail": Quote(
        "Abstract",
        "our verifier shows that derived contradiction is the most common hard-fail category in CoT",
        "our verifier shows that derived contradiction is the most common hard-fail category in CoT",
    ),
    "most_common_detail": Quote(
        "§5.2",
        "derived contradiction is the most common hard-fail (409 traces, mean 5.28 events per triggered "
        "trace), followed by reasoning-avoidance (548) and unresolved doubt at sink (495)",
        "derived contradiction is the most common hard-fail (409409 traces, mean 5.285.28 events per "
        "triggered trace), followed by reasoning-avoidance (548548) and unresolved doubt at sink (495495)",
    ),
    "three_percent": Quote(
        "Abstract",
        "only about 3% of the propositions of a trace have impact on the final derivation",
        "only about 3% of the propositions of a trace have impact on the final derivation",
    ),
    "on_chain_median": Quote(
        "§5.2",
        "Direct-implication-chain statistics show median on-chain fraction of 0.025 (IQR [0.016,0.074])",
        "Direct-implication-chain statistics show median on-chain fraction of 0.0250.025 "
        "(IQR [0.016,0.074][0.016,0.074])",
    ),
    "elevation": Quote(
        "Appendix F.2",
        "soft contradictions (B-B conflicts, unjustified downgrades) and residuals at sink are common, "
        "but only elevate to hard failures when they touch the direct implication chain",
        "soft contradictions (B-B conflicts, unjustified downgrades) and residuals at sink are common, "
        "but only elevate to hard failures when they touch the direct implication chain",
    ),
}

# Our reading of the two, not the paper's words (docs/eval.md says so too).
RANKING_NOTE = (
    "By Table 17's traces triggered, reasoning-avoidance (548) outnumbers derived contradiction (409); "
    "by events (409 x 5.276 = about 2,158 against 548, one per trace) derived contradiction leads. "
    "The paper does not say which count its ranking uses; both are given for our corpus."
)
PATHS_NOTE = "The paper reports no corpus-level path counts (its coherence report is per trace)."
