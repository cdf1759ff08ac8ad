"""Legal rules (certify.md §13.2): the preliminary-contract rules (Judicial Interpretation
arts.
6 and 7, Civil Code art. 495), a fresh state holding them, and the case generator of C-101.

``generate_items`` writes templated stories over fresh constants (parties p3…, documents x2…;
the legend's p1, p2, x1 belong to the golden case) with
0–3 distractor facts about other documents; positives state the four leaf facts, negatives drop
exactly one of them, rotating through the four (mid-link breaks). Gold labels come from the
reference evaluator (:mod:`cotaudit.certify.proof.naive`), not from the generator's intent.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from importlib import resources

from cotaudit.certify.interface.load import load_interface
from cotaudit.certify.interface.model import Interface
from cotaudit.certify.lang.parse import parse_program
from cotaudit.certify.proof.naive import naive_evaluate
from cotaudit.certify.sources.records import Evidence, SourceRecord
from cotaudit.certify.state.config import CertifyConfig
from cotaudit.certify.state.machine import CertState

RULES = (
    "[ji_art6]  is_preliminary_contract(X) :- subscription_order_or_booking_form(X), "
    "agrees_future_conclusion(X), determinable_parties_and_subject(X).\n"
    "[ji_art7]  fails_conclusion_duty(P, X) :- is_preliminary_contract(X), "
    "refuses_to_conclude_main_contract(P, X).\n"
    "[art495]   may_claim_preliminary_breach_liability(P, X) :- is_preliminary_contract(X), "
    "fails_conclusion_duty(P, X).\n"
)
LEAVES = (
    "subscription_order_or_booking_form",
    "agrees_future_conclusion",
    "determinable_parties_and_subject",
    "refuses_to_conclude_main_contract",
)
NAMES = ("Chen", "Zhou", "Wang", "Li", "Zhang", "Liu", "Yang", "Huang", "Zhao", "Wu", "Sun", "Ma")
SERVICES = ("service", "sales", "lease", "construction", "supply", "consulting")


def interface() -> Interface:
    text = resources.files("cotaudit.certify").joinpath("data/legal_prelim.interface.yaml").read_text("utf-8")
    return load_interface(text)


def legal_state(config: CertifyConfig | None = None, clock: object = None) -> CertState:
    """A fresh in-memory state with the three rules admitted (writer deploy, match/1 record mode)."""
    kwargs = {} if clock is None else {"clock": clock}
    state = CertState.open(":memory:", interface(), config or CertifyConfig(), **kwargs)  # type: ignore[arg-type]
    state.add_record(SourceRecord("rules", "rules", RULES))
    decisions = state.admit_batch([(line, Evidence("rules"), "deploy", None) for line in RULES.splitlines()])
    bad = [d for d in decisions if d.reason is not None]
    if bad:  # the shipped rules must admit: anything else is an engine defect
        raise RuntimeError(f"legal rules rejected: {bad[0].reason}")
    return state


@dataclass(frozen=True)
class CaseFact:
    fact: str
    quote: str


@dataclass(frozen=True)
class LegalItem:
    item_id: str
    story: str
    target: str
    facts: tuple[CaseFact, ...]
    dropped: str | None
    gold: str

    @property
    def intermediate(self) -> str:
        doc = self.target.split(",")[1].strip(" )")
        return f"is_preliminary_contract({doc})"


def _story(i: int, r: random.Random, drop: str | None) -> tuple[str, tuple[CaseFact, ...], str]:
    a, b = r.sample(NAMES, 2)
    # fresh constants: p1, p2 and x1 are bound by the interface legend to the golden case's
    # Chen, Zhou and their form, and match/1 rightly refuses them for other stories
    pa, x = f"p{2 * i + 3}", f"x{i + 2}"
    svc = r.choice(SERVICES)
    days = r.choice((10, 15, 20, 30, 45, 60))
    parts: list[tuple[str, CaseFact | None]] = [
        (
            f"{a} and {b} sign a subscription form for a formal {svc} contract.",
            CaseFact(f"subscription_order_or_booking_form({x})", "sign a subscription form"),
        ),
        (
            f"In the form the parties agree to conclude the formal {svc} contract within {days} days.",
            CaseFact(
                f"agrees_future_conclusion({x})",
                f"the parties agree to conclude the formal {svc} contract within {days} days",
            ),
        ),
        (
            f"The form names both parties and the {svc}s, so the parties and the subject are determinable.",
            CaseFact(
                f"determinable_parties_and_subject({x})", "the parties and the subject are determinable"
            ),
        ),
        (
            f"At the deadline, {a} refuses without cause to conclude the main contract.",
            CaseFact(
                f"refuses_to_conclude_main_contract({pa}, {x})",
                f"{a} refuses without cause to conclude the main contract",
            ),
        ),
    ]
    if drop is not None:
        parts = [(s, f) for s, f in parts if f is None or not f.fact.startswith(drop)]
        parts.append((f"Nothing else is said about the {svc} contract.", None))
    other = f"x{10_000 + i}"
    distractors = [
        (
            f"Earlier, {b} signed a booking form for an unrelated storage lease.",
            CaseFact(f"subscription_order_or_booking_form({other})", "signed a booking form"),
        ),
        (
            "In that booking form the parties agreed to conclude a storage lease later.",
            CaseFact(
                f"agrees_future_conclusion({other})", "the parties agreed to conclude a storage lease later"
            ),
        ),
        (
            "That booking form names its parties and premises, so its parties and subject are determinable.",
            CaseFact(
                f"determinable_parties_and_subject({other})", "its parties and subject are determinable"
            ),
        ),
    ]
    parts[1:1] = distractors[: r.randint(0, 3)]
    story = "\n".join(s for s, _ in parts)
    facts = tuple(f for _, f in parts if f is not None)
    return story, facts, f"may_claim_preliminary_breach_liability({pa}, {x})"


def reference_answer(facts: tuple[CaseFact, ...], target: str) -> str:
    """The gold label: is the target in the least model of the rules and the facts?"""
    program = parse_program(RULES + "".join(f"{f.fact}.\n" for f in facts))
    model = naive_evaluate(program)
    return "yes" if target.replace(" ", "") in set(model.texts()) else "no"


def generate_items(n_pos: int = 120, n_neg: int = 120, seed: int = 0) -> list[LegalItem]:
    """C-101: positives first, then negatives dropping LEAVES[j % 4] in turn."""
    r = random.Random(seed)
    items: list[LegalItem] = []
    for i in range(n_pos + n_neg):
        drop = None if i < n_pos else LEAVES[(i - n_pos) % 4]
        story, facts, target = _story(i, r, drop)
        items.append(LegalItem(f"legal-{i:04d}", story, target, facts, drop, reference_answer(facts, target)))
    return items
