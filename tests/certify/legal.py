"""The legal golden setting (certify.md §13.2, X-1 … X-9) shared by several tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cotaudit.certify.interface.load import load_interface
from cotaudit.certify.interface.model import Interface
from cotaudit.certify.kb.file import locate
from cotaudit.certify.sources.records import Evidence, SourceRecord
from cotaudit.certify.state.config import CertifyConfig
from cotaudit.certify.state.machine import CertState

from .support import clock

DATA = Path(__file__).resolve().parents[2] / "src" / "cotaudit" / "certify" / "data"
RULES = """[ji_art6]  is_preliminary_contract(X) :- subscription_order_or_booking_form(X), agrees_future_conclusion(X), determinable_parties_and_subject(X).
[ji_art7]  fails_conclusion_duty(P, X) :- is_preliminary_contract(X), refuses_to_conclude_main_contract(P, X).
[art495]   may_claim_preliminary_breach_liability(P, X) :- is_preliminary_contract(X), fails_conclusion_duty(P, X).
[ji_art7r] fails_conclusion_duty(P, X) :- refuses_to_conclude_main_contract(P, X), is_preliminary_contract(X), subscription_order_or_booking_form(X).
[bad] refuses_to_conclude_main_contract(P, X) :- fails_conclusion_duty(P, X).
"""
STORY = (
    "Chen and Zhou sign a subscription form (ren'gou shu) for a formal service contract.\n"
    "In the form the parties agree to conclude the formal service contract within thirty days.\n"
    "The form names both parties and the services, so the parties and the subject are determinable.\n"
    "At the deadline, holding the subscription form (ren'gou shu), Chen refuses without cause to conclude the main contract."
)
QUOTES = {
    "agrees_future_conclusion(x1)": "the parties agree to conclude the formal service contract within thirty days",
    "determinable_parties_and_subject(x1)": "the parties and the subject are determinable",
    "refuses_to_conclude_main_contract(p1, x1)": "Chen refuses without cause to conclude the main contract",
    "subscription_order_or_booking_form(x1)": "sign a subscription form (ren'gou shu)",
}
TARGET = "may_claim_preliminary_breach_liability(p1, x1)"


def interface() -> Interface:
    return load_interface((DATA / "legal_prelim.interface.yaml").read_text(encoding="utf-8"))


def legal_state(config: CertifyConfig | None = None, path: str = ":memory:", **kwargs: Any) -> CertState:
    state = CertState.open(path, interface(), config or CertifyConfig(), clock=clock, **kwargs)
    state.add_record(SourceRecord("rules", "rules", RULES))
    state.add_record(SourceRecord("story", "document", STORY))
    for line in RULES.splitlines()[:3]:
        d = state.admit(line, Evidence("rules"))
        assert d.reason is None, d
    return state


def fact(text: str, quote: str | None = None) -> tuple[str, Evidence]:
    q = QUOTES.get(text) if quote is None else quote
    ev = locate(Evidence("story", (), q), {"story": SourceRecord("story", "document", STORY)})
    return text, ev


def votes(*, drop: str | None = None, extra: tuple[str, ...] = ()) -> list[tuple[str, Evidence]]:
    """The four leaf facts of X-1 in key order (optionally minus one, plus extras)."""
    out = [fact(t) for t in sorted(QUOTES) if t != drop]
    for e in extra:
        out.append(fact(e, "Chen refuses without cause to conclude the main contract"))
    return out
