"""The built-in source checkers (C-17) and the verbaliser (C-19).

- ``match/1``: *record* mode for fact lists and formalised rule files (the unit's key is in the
  record, exactly or after normalisation and legend aliases; a rule equals the unit at the
  cited label), *span* mode for documents (spans inside the record, quote = span text, an
  anchor of the predicate in the quote, legend labels in or near the quote, numbers verbatim).
- ``schema/1``: role types, declared units convertible (pint), declared ranges.
- ``llm_recheck/1``: asks a model whether the record supports the verbalised unit; the model
  is a pluggable ``ask(prompt) -> LLMReply`` so the engine never imports the LLM layer.
- ``all_of``: SUPPORTED iff every listed checker is.

What they cannot detect (C-20): ``match/1`` span mode checks that the quote is in the source
and mentions the entities, not that it *means* the fact; ``schema/1`` values can be in range
and still be extracted wrongly; ``llm_recheck/1`` can share the grounder's bias.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from cotaudit.certify.core.canon import sha256_hex
from cotaudit.certify.core.errors import ProgramError
from cotaudit.certify.lang.parse import parse_program
from cotaudit.certify.lang.syntax import Const, Fact, Literal, Rule, Unit
from cotaudit.certify.sources.records import CheckResult, Evidence, RecordStore, SourceChecker

if TYPE_CHECKING:
    from cotaudit.certify.interface.model import Interface

_RUNS = re.compile(r"[\s_\-]+")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
WINDOW_CHARS = 200
LIMITATIONS = {
    "match/1": "checks that the quote is in the source and names the entities, not that it means the fact",
    "schema/1": "schema-valid values can still be extracted wrongly",
    "llm_recheck/1": "the rechecker can share the grounder's bias",
}


def normalise(text: str) -> str:
    """NFKC, case-fold, runs of whitespace/``_``/``-`` collapsed to one space (C-17)."""
    return _RUNS.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def verbalise(lit: Literal, interface: Interface | None = None) -> str:
    """Deterministic English for a literal: predicate words, legend labels for constants (C-19)."""
    words = lit.pred.replace("_", " ")
    names = []
    for a in lit.args:
        entry = interface.legend.get(a) if interface is not None and isinstance(a, Const) else None
        names.append(entry.label if entry is not None else a.text())
    text = f"{words}: {', '.join(names)}" if names else words
    return f"not ({text})" if lit.neg else text


class MatchChecker:
    """``match/1`` in record mode (fact/rule records) or span mode (documents)."""

    id = "match/1"
    version = "1"
    inline = True

    def __init__(self) -> None:
        self._programs: dict[str, _RecordIndex | str] = {}

    def check(
        self, unit: Unit, evidence: Evidence, records: RecordStore, interface: Interface
    ) -> CheckResult:
        if evidence.record_id is None:
            return CheckResult("UNSUPPORTED", "no evidence record")
        record = records.record(evidence.record_id)
        if record is None:
            return CheckResult("UNSUPPORTED", f"unknown record '{evidence.record_id}'")
        if record.kind == "document":
            return self._span(unit, evidence, record.body, interface)
        return self._record(unit, evidence, record.sha256, record.body, interface)

    def _program(self, sha: str, body: str) -> _RecordIndex | str:
        got = self._programs.get(sha)
        if got is None:
            try:
                got = _RecordIndex(parse_program(body))
            except ProgramError as exc:
                got = str(exc)
            self._programs[sha] = got
        return got

    def _record(self, unit: Unit, ev: Evidence, sha: str, body: str, interface: Interface) -> CheckResult:
        index = self._program(sha, body)
        if isinstance(index, str):
            return CheckResult("ERROR", f"the record does not parse: {index}")
        if isinstance(unit, Rule):
            cite = ev.extra.get("label", unit.label)
            line = ev.extra.get("line")
            found = index.by_line.get(line) if isinstance(line, int | float) else None
            if found is None and isinstance(cite, str):
                found = index.by_label.get(cite)
            if found is None:
                return CheckResult("UNSUPPORTED", f"no unit at the cited label/line ({cite!r})")
            if found.key != unit.key:
                return CheckResult("UNSUPPORTED", "the cited rule has a different key", {"cited": found.key})
            return CheckResult("SUPPORTED", "rule key matches the cited unit", {"cited": found.label})
        if unit.key in index.keys:
            return CheckResult("SUPPORTED", "exact key match")
        matched = index.normalised(interface).get(normalise(unit.lit.text()))
        if matched is not None:
            return CheckResult("SUPPORTED", "match after normalisation", {"matched": matched})
        return CheckResult("UNSUPPORTED", "the fact is not in the record")

    def _span(self, unit: Unit, ev: Evidence, text: str, interface: Interface) -> CheckResult:
        if not isinstance(unit, Fact):
            return CheckResult("UNSUPPORTED", "a rule needs a formalised rule record, not a document")
        if not ev.spans:
            return CheckResult("UNSUPPORTED", "no spans")
        for start, end in ev.spans:
            if not 0 <= start < end <= len(text):
                return CheckResult("UNSUPPORTED", f"span [{start}, {end}) lies outside the record")
        span_text = "".join(text[a:b] for a, b in ev.spans)
        quote = span_text if ev.quote is None else ev.quote
        if quote != span_text and normalise(quote) != normalise(span_text):
            return CheckResult("UNSUPPORTED", "the quote is not the text of the spans")
        nq = normalise(quote)
        sig = interface.predicates.get(unit.lit.pred)
        if sig is not None and sig.anchors and not any(a in nq for a in sig.anchors):
            return CheckResult(
                "UNSUPPORTED", f"no anchor of '{unit.lit.pred}' in the quote", {"anchors": list(sig.anchors)}
            )
        lo = max(0, min(a for a, _ in ev.spans) - WINDOW_CHARS)
        hi = max(b for _, b in ev.spans) + WINDOW_CHARS
        window = normalise(text[lo:hi])
        for arg in unit.lit.args:
            entry = interface.legend.get(arg) if isinstance(arg, Const) else None
            if entry is not None:
                names = [normalise(n) for n in (entry.label, *entry.aliases)]
                if not any(n in nq or n in window for n in names):
                    return CheckResult(
                        "UNSUPPORTED", f"'{entry.label}' ({arg.text()}) is not named in or near the quote"
                    )
            if isinstance(arg, Const) and arg.kind == "num" and not _number_in(arg.value, quote):
                return CheckResult("UNSUPPORTED", f"the number {arg.value} does not appear in the quote")
        return CheckResult(
            "SUPPORTED", "quote, anchors and entities found", {"quote_sha256": sha256_hex(quote)}
        )


def _number_in(value: str, quote: str) -> bool:
    want = Decimal(value)
    for m in _NUMBER.finditer(quote):
        try:
            if Decimal(m.group(0)) == want:
                return True
        except InvalidOperation:  # pragma: no cover - the regex only matches numbers
            continue
    return False


class _RecordIndex:
    """A parsed fact/rule record with its look-ups built once (checking n units against an
    n-unit record by scanning it per unit was quadratic: 5,000 facts took 10 s)."""

    def __init__(self, units: list[Unit]) -> None:
        self.keys = {u.key for u in units}
        self.by_label: dict[str, Unit] = {}
        self.by_line: dict[Any, Unit] = {}
        for u in units:
            self.by_label.setdefault(u.label, u)
            if u.pos:
                self.by_line.setdefault(u.pos[0], u)
        self.facts = [u for u in units if isinstance(u, Fact)]
        self._normalised: tuple[Interface, dict[str, str]] | None = None

    def normalised(self, interface: Interface) -> dict[str, str]:
        """Normalised, legend-aliased text of every fact → its key (first fact wins)."""
        if self._normalised is None or self._normalised[0] is not interface:
            aliases = _aliases(interface)
            table: dict[str, str] = {}
            for u in self.facts:
                assert isinstance(u, Fact)
                table.setdefault(normalise(_aliased(u.lit, aliases).text()), u.key)
            self._normalised = (interface, table)
        return self._normalised[1]


def _aliases(interface: Interface) -> dict[str, Const]:
    out: dict[str, Const] = {}
    for const, entry in interface.legend.items():
        for name in (entry.label, *entry.aliases):
            out.setdefault(normalise(name), const)
    return out


def _aliased(lit: Literal, aliases: Mapping[str, Const]) -> Literal:
    args = tuple(
        aliases.get(normalise(a.text().strip('"')), a) if isinstance(a, Const) else a for a in lit.args
    )
    return Literal(lit.pred, lit.neg, args)


class SchemaChecker:
    """``schema/1``: role types, units convertible to the declared unit, declared ranges."""

    id = "schema/1"
    version = "1"
    inline = True

    def check(
        self, unit: Unit, evidence: Evidence, records: RecordStore, interface: Interface
    ) -> CheckResult:
        issue = interface.type_check(unit)
        if issue is not None:
            return CheckResult("UNSUPPORTED", issue.message, {"reason": issue.reason})
        units = evidence.extra.get("units") or {}
        if not isinstance(units, Mapping):
            return CheckResult("UNSUPPORTED", "extra.units must map argument positions to unit strings")
        sig = interface.predicates.get(unit.head.pred)
        for pos, unit_text in sorted(units.items(), key=lambda kv: str(kv[0])):
            try:
                role = interface.roles[sig.args[int(pos) - 1]] if sig is not None else None
            except (ValueError, IndexError):
                return CheckResult("UNSUPPORTED", f"no argument {pos!r} to carry a unit")
            if role is None or role.unit is None:
                continue
            if not (safe_unit_text(str(unit_text)) and safe_unit_text(role.unit)):
                return CheckResult(
                    "UNSUPPORTED",
                    f"unit {str(unit_text)[:80]!r} is not a plain unit expression (names, * / ^n)",
                )
            if not _convertible(str(unit_text), role.unit):
                return CheckResult("UNSUPPORTED", f"unit {unit_text!r} does not convert to {role.unit!r}")
        return CheckResult("SUPPORTED", "schema valid")


# Unit text is untrusted and pint's parser evaluates arithmetic: "9**9**9" asks Python for a
# 370-million-digit integer and never returns. Only this grammar reaches pint: names, numbers of
# at most 4 digits (6 decimals), * / ( ), and a power "atom ^ n" (or **) with |n| < 100 whose
# base is a name or a number and which is never itself raised (no towers, no "(…)^n").
MAX_UNIT_CHARS = 64
_UNIT_TOKEN = re.compile(
    r"[ \t]*(?:(?P<name>[A-Za-z_%°µμΩ][A-Za-z0-9_%°µμΩ]*)|(?P<num>[0-9]{1,4}(?:\.[0-9]{1,6})?)"
    r"|(?P<pow>\*\*|\^)[ \t]*(?P<exp>-?[0-9]{1,2})|(?P<op>[*/()]))"
)


def safe_unit_text(text: str) -> bool:
    """Whether ``text`` is in the bounded unit grammar above (linear: one token per step)."""
    if not text.strip() or len(text) > MAX_UNIT_CHARS:
        return False
    at, depth, last = 0, 0, ""
    while at < len(text):
        m = _UNIT_TOKEN.match(text, at)
        if m is None or m.end() == at:
            return text[at:].strip() == ""
        at = m.end()
        if m.group("pow") is not None:
            if last not in ("name", "num"):  # a power of a power, of a group, or of nothing
                return False
            last = "pow"
        elif m.group("op") == "(":
            depth += 1
            last = "("
        elif m.group("op") == ")":
            depth -= 1
            if depth < 0:
                return False
            last = ")"
        else:
            last = "name" if m.group("name") is not None else "num" if m.group("num") else "op"
    return depth == 0


def _convertible(src: str, dst: str) -> bool:
    if not (safe_unit_text(src) and safe_unit_text(dst)):
        return False
    try:
        import pint
    except ModuleNotFoundError:  # pragma: no cover - pint is a core dependency
        return src == dst
    registry = _ureg()
    try:
        return bool(registry.Quantity(1, src).is_compatible_with(dst))
    except (pint.errors.PintError, AttributeError, ValueError, TypeError):
        return False


_UREG: list[Any] = []


def _ureg() -> Any:
    if not _UREG:
        import pint

        _UREG.append(pint.UnitRegistry())
    return _UREG[0]


@dataclass(frozen=True, slots=True)
class LLMReply:
    """What a model said: the raw text and the model id."""

    text: str
    model: str | None = None
    tokens: int = 0


RECHECK_TEMPLATE = (
    "You check whether a statement is supported by a source text.\n"
    "Source:\n{record}\n\nStatement: {statement}\n\n"
    "Answer with exactly one word: holds, does_not_hold or unclear."
)


class LLMRecheckChecker:
    """``llm_recheck/1`` over a pluggable ``ask(prompt) -> LLMReply`` (offline fakes in tests)."""

    id = "llm_recheck/1"
    inline = False

    def __init__(self, ask: Callable[[str], LLMReply], template: str = RECHECK_TEMPLATE) -> None:
        self.ask = ask
        self.template = template
        self.version = "1+" + sha256_hex(template)[:8]

    def check(
        self, unit: Unit, evidence: Evidence, records: RecordStore, interface: Interface
    ) -> CheckResult:
        if not isinstance(unit, Fact):
            return CheckResult("UNSUPPORTED", "llm_recheck checks facts only")
        record = records.record(evidence.record_id) if evidence.record_id else None
        if record is None:
            return CheckResult("UNSUPPORTED", "no evidence record")
        prompt = self.template.format(record=record.body, statement=verbalise(unit.lit, interface))
        return recheck_verdict(prompt, self.ask(prompt))


def recheck_verdict(prompt: str, reply: LLMReply) -> CheckResult:
    """A model rechecker's reply as a verdict: only ``holds`` supports; the prompt's hash, the
    model and the reply are logged, the tokens costed."""
    word = reply.text.strip().lower().rstrip(".")
    log = {"model": reply.model, "prompt_sha256": sha256_hex(prompt), "reply": reply.text}
    cost = {"tokens": float(reply.tokens)}
    if word == "holds":
        return CheckResult("SUPPORTED", "the rechecker says it holds", log, cost)
    if word in ("does_not_hold", "unclear"):
        return CheckResult("UNSUPPORTED", f"the rechecker says {word}", log, cost)
    return CheckResult("UNSUPPORTED", "the rechecker's reply is not holds/does_not_hold/unclear", log, cost)


class AllOf:
    """SUPPORTED iff every checker is; the first other verdict decides; every verdict is logged."""

    version = "1"

    def __init__(self, checkers: Sequence[SourceChecker], timeout_s: float = 30.0) -> None:
        self.checkers = list(checkers)
        self.id = "all_of(" + ",".join(c.id for c in self.checkers) + ")"
        self.inline = all(getattr(c, "inline", False) for c in self.checkers)
        self.timeout_s = timeout_s

    def check(
        self, unit: Unit, evidence: Evidence, records: RecordStore, interface: Interface
    ) -> CheckResult:
        from cotaudit.certify.sources.records import run_checker

        verdicts = []
        decided: CheckResult | None = None
        for c in self.checkers:
            r = run_checker(c, unit, evidence, records, interface, self.timeout_s)
            verdicts.append({"checker": c.id, "version": c.version, "verdict": r.verdict, "reason": r.reason})
            if r.verdict != "SUPPORTED" and decided is None:
                decided = r
        if decided is not None:
            return CheckResult(decided.verdict, decided.reason, {"verdicts": verdicts})
        return CheckResult("SUPPORTED", "all checkers support it", {"verdicts": verdicts})


class CheckerRegistry:
    """Checkers by id; ``resolve`` turns a :class:`CheckerConfig` choice into one checker."""

    def __init__(self, timeout_s: float = 30.0) -> None:
        self._checkers: dict[str, SourceChecker] = {}
        self.timeout_s = timeout_s
        self.register(MatchChecker())
        self.register(SchemaChecker())

    def register(self, checker: SourceChecker) -> None:
        self._checkers[checker.id] = checker

    def ids(self) -> list[str]:
        return sorted(self._checkers)

    def resolve(self, choice: Sequence[str]) -> SourceChecker:
        missing = [c for c in choice if c not in self._checkers]
        if missing:
            raise KeyError(f"unknown source checker(s): {', '.join(missing)}")
        if len(choice) == 1:
            return self._checkers[choice[0]]
        return AllOf([self._checkers[c] for c in choice], self.timeout_s)
