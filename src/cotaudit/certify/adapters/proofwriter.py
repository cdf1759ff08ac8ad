"""ProofWriter: templated English → predicate units, deterministically (certify.md §13.1).

C-95 grammar (the lexicon of :mod:`cotaudit.lexicons.proofwriter`: 8 names, 10 animals, 14
adjectives, 6 verbs; "not"/"does not" is strong negation), C-96 EDB/IDB split (every stated
fact is written as ``p_src``; Ω = the ``_src`` predicates; copy rules
``[copy:p] p(X) :- p_src(X).`` lift them, so every depth shifts by +1 and the default δ is 6),
and the ``pw-parse/1`` source checker: re-parsing the cited sentence span must give exactly the
unit. An unparseable sentence raises :class:`PWParseError` naming it —
never a silent skip.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cotaudit.certify.interface.load import interface_from_dict
from cotaudit.certify.interface.model import Interface
from cotaudit.certify.lang.syntax import Fact, Rule, Unit
from cotaudit.certify.sources.records import CheckResult, Evidence, RecordStore
from cotaudit.errors import CotauditError
from cotaudit.lexicons import proofwriter as lexicon

NAMES = lexicon.NAMES
ANIMALS = lexicon.ANIMALS
ADJECTIVES = list(lexicon.ADJECTIVES)
VERBS = {v + "s": v + "s" for v in lexicon.VERBS}  # third person, as the predicates are named
BASE = {v: v + "s" for v in lexicon.VERBS}  # base form → predicate
VARIABLE_SUBJECTS = lexicon.VARIABLE_WORDS
CONSTANTS = tuple(sorted(NAMES + tuple(a.replace(" ", "_") for a in ANIMALS)))

_ENT = r"(?:" + "|".join(n.capitalize() for n in NAMES) + r"|the (?:" + "|".join(ANIMALS) + r"))"
_SUBJ = r"(?:" + _ENT + r"|something|someone|it|they)"
_ADJ = r"(?:" + "|".join(ADJECTIVES) + r")"
_VS = "|".join(VERBS)
_VB = "|".join(BASE)
_COND_IS = re.compile(rf"^({_SUBJ}) (?:is|are) (not )?({_ADJ})$", re.I)
_COND_VERB = re.compile(rf"^({_SUBJ}) ({_VS}|{_VB}) ({_ENT})$", re.I)
_COND_NOTVERB = re.compile(rf"^({_SUBJ}) (?:does|do) not ({_VB}) ({_ENT})$", re.I)
_BARE_ADJ = re.compile(rf"^(not )?({_ADJ})$", re.I)
_GENERIC = re.compile(rf"^(?:All )?({_ADJ}(?:, {_ADJ})*) (?:things|people) are (not )?({_ADJ})$", re.I)
# No ``If (.+) then (.+)`` or ``[^.]+\.`` here: on untrusted text both backtrack quadratically
# (every " then " is a split point to retry; every start position rescans to the next period).
# Conditionals are split with str.rpartition and sentences with str.find, both linear.


class PWParseError(CotauditError, ValueError):
    """A sentence outside the C-95 grammar."""


@dataclass(frozen=True)
class Lit:
    neg: bool
    pred: str
    args: tuple[str, ...]

    def text(self, suffix: str = "") -> str:
        return f"{'-' if self.neg else ''}{self.pred}{suffix}({', '.join(self.args)})"


def _term(s: str) -> str:
    s = s.lower()
    if s in VARIABLE_SUBJECTS:
        return "X"
    return s[4:].replace(" ", "_") if s.startswith("the ") else s


def _clause(text: str, prev_subject: str | None) -> tuple[Lit, str]:
    m = _COND_IS.match(text)
    if m:
        return Lit(bool(m[2]), m[3].lower(), (_term(m[1]),)), m[1]
    m = _COND_NOTVERB.match(text)
    if m:
        return Lit(True, BASE[m[2].lower()], (_term(m[1]), _term(m[3]))), m[1]
    m = _COND_VERB.match(text)
    if m:
        v = m[2].lower()
        return Lit(False, VERBS.get(v) or BASE[v], (_term(m[1]), _term(m[3]))), m[1]
    m = _BARE_ADJ.match(text)
    if m and prev_subject is not None:  # "… is cold and [not] young"
        return Lit(bool(m[1]), m[2].lower(), (_term(prev_subject),)), prev_subject
    raise PWParseError(f"not a condition: {text!r}")


def _clauses(text: str) -> list[Lit]:
    out: list[Lit] = []
    subject: str | None = None
    for part in text.split(" and "):
        lit, subject = _clause(part.strip(), subject)
        out.append(lit)
    return out


def parse_sentence(sentence: str) -> tuple[str, list[Lit], Lit]:
    """``("fact", [], lit)`` or ``("rule", body, head)`` for one sentence (with its period)."""
    s = sentence.strip()
    if not s.endswith("."):
        raise PWParseError(f"a sentence ends with '.': {sentence!r}")
    s = s[:-1]
    one_line = s.removesuffix("\n")  # '.' never matched a newline; '$' matched before a final one
    cond, then, concl = one_line[3:].rpartition(" then ") if one_line.startswith("If ") else ("", "", "")
    if then and cond and concl and "\n" not in one_line:  # the last " then " splits, as (.+) did
        body = _clauses(cond)
        heads = _clauses(concl)
        if len(heads) != 1:
            raise PWParseError(f"one conclusion expected: {sentence!r}")
        return "rule", body, heads[0]
    m = _GENERIC.match(s)
    if m:
        body = [Lit(False, a.strip().lower(), ("X",)) for a in m[1].split(",")]
        return "rule", body, Lit(bool(m[2]), m[3].lower(), ("X",))
    try:
        lit, _ = _clause(s, None)
    except PWParseError:
        raise PWParseError(f"unparseable sentence: {sentence!r}") from None
    if "X" in lit.args:
        raise PWParseError(f"a fact names no variable subject: {sentence!r}")
    return "fact", [], lit


def sentences(context: str) -> list[tuple[int, int, str]]:
    """(start, end, text) of every sentence, in code points; text after the last period is an
    unterminated sentence and an error, never dropped."""
    out: list[tuple[int, int, str]] = []
    start = 0
    while (dot := context.find(".", start)) >= 0:
        text = context[start : dot + 1]
        if dot > start:  # a run of non-periods and its period
            out.append((start, dot + 1, text.strip()))
        start = dot + 1
    tail = context[out[-1][1] if out else 0 :].strip()
    if tail:
        raise PWParseError(f"unparseable sentence (no final period): {tail!r}")
    return out


def _sentence_span(context: str, start: int, end: int) -> tuple[int, int]:
    while start < end and context[start].isspace():
        start += 1
    return start, end


def unit_text(label: str, kind: str, body: Sequence[Lit], head: Lit) -> str:
    if kind == "fact":
        return f"[{label}] {head.text('_src')}."
    return f"[{label}] {head.text()} :- {', '.join(b.text() for b in body)}."


def copy_text(pred: str, neg: bool, arity: int) -> str:
    xs = ", ".join(f"X{i + 1}" for i in range(arity))
    sign = "-" if neg else ""
    return f"[copy:{sign}{pred}] {sign}{pred}({xs}) :- {sign}{pred}_src({xs})."


@dataclass(frozen=True)
class Theory:
    """A theory's units (text) with their evidence spans, in order (C-97's ``admit_batch``)."""

    context: str
    units: list[tuple[str, Evidence]]


def theory_units(context: str, record_id: str = "theory") -> Theory:
    out: list[tuple[str, Evidence]] = []
    copies: dict[tuple[str, bool], tuple[int, tuple[int, int]]] = {}
    for i, (start, end, text) in enumerate(sentences(context), 1):
        kind, body, head = parse_sentence(text)
        span = _sentence_span(context, start, end)
        out.append((unit_text(f"s{i}", kind, body, head), Evidence(record_id, (span,))))
        if kind == "fact":
            copies.setdefault((head.pred, head.neg), (len(head.args), span))
    for (pred, neg), (arity, span) in sorted(copies.items()):
        out.append((copy_text(pred, neg, arity), Evidence(record_id, (span,), extra={"copy": True})))
    return Theory(context, out)


def question_target(question: str) -> str:
    """The literal a question states ("… unknown? The cow is not red." → ``-red(cow)``)."""
    stmt = question.rsplit("?", 1)[-1].strip()
    kind, _, lit = parse_sentence(stmt)
    if kind != "fact":
        raise PWParseError(f"a question states one fact: {stmt!r}")
    return lit.text()


GOLD = {"A": "true", "B": "false", "C": "unknown"}


def interface() -> Interface:
    """C-96: role ``entity`` = the 18 constants, strong negation, Ω = the ``_src`` predicates."""
    preds: dict[str, Any] = {}
    for a in ADJECTIVES:
        preds[a] = {"args": ["entity"]}
        preds[a + "_src"] = {"args": ["entity"]}
    for v in VERBS:
        preds[v] = {"args": ["entity", "entity"]}
        preds[v + "_src"] = {"args": ["entity", "entity"]}
    doc = {
        "format": "cotaudit.certify.interface/1",
        "name": "proofwriter",
        "version": "1",
        "negation": "strong",
        "roles": {"entity": {"type": "symbol", "enum": list(CONSTANTS)}},
        "predicates": dict(sorted(preds.items())),
        "source_whitelist": sorted(p for p in preds if p.endswith("_src")),
        "query_predicates": sorted(p for p in preds if not p.endswith("_src")),
    }
    return interface_from_dict(doc)


class PWParseChecker:
    """``pw-parse/1``: re-parse the cited sentence; the unit must be exactly what it says.

    A copy rule cites a fact sentence of its predicate and polarity and must be that
    predicate's copy rule. What it cannot detect: nothing beyond the templated grammar — the
    source *is* the template, so a unit that passes says what the sentence says."""

    id = "pw-parse/1"
    version = "1"
    inline = True

    def check(
        self, unit: Unit, evidence: Evidence, records: RecordStore, interface: Interface
    ) -> CheckResult:
        rec = records.record(evidence.record_id or "")
        if rec is None or len(evidence.spans) != 1:
            return CheckResult("UNSUPPORTED", "pw-parse/1 needs a record and exactly one sentence span")
        a, b = evidence.spans[0]
        if not (0 <= a < b <= len(rec.body)):
            return CheckResult("UNSUPPORTED", f"span {a}:{b} outside the record")
        sentence = rec.body[a:b]
        try:
            kind, body, head = parse_sentence(sentence)
        except PWParseError as exc:
            return CheckResult("UNSUPPORTED", str(exc))
        from cotaudit.certify.gate.decision import parse_proposal

        if unit.label.startswith("copy:"):
            if kind != "fact":
                return CheckResult("UNSUPPORTED", "a copy rule must cite a fact sentence")
            expected = parse_proposal(copy_text(head.pred, head.neg, len(head.args)))
        else:
            expected = parse_proposal(unit_text(unit.label, kind, body, head))
        if not isinstance(expected, Fact | Rule) or expected.key != unit.key:
            return CheckResult("UNSUPPORTED", f"the sentence {sentence!r} does not state this unit")
        return CheckResult(
            "SUPPORTED", "re-parsing the sentence gives exactly this unit", {"sentence": sentence}
        )
