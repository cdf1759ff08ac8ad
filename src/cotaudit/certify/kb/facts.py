"""Query-scoped facts as JSON (C-41, C-77, C-78), as the command line and the HTTP service take them.

One fact is ``{"unit": TEXT, "evidence"?: {"record": ID, "quote"?: TEXT, "spans"?: [[start,
end], ...]}}`` — the shape of the ``POST /v1/certify/admit`` body: ``cotaudit certify query
--facts FILE.jsonl`` reads one per line, ``POST /v1/certify/query`` takes a list of them in
``"facts"``, and ``certify query --fact TEXT --record ID …`` builds one from its flags.

:func:`evidence_spec` and :func:`fact_specs` check such values and say where and what is wrong
(:class:`FactSpecError`, a ``ValueError`` with a stable ``code``); :func:`resolve` pairs each
fact with its :class:`Evidence` against the state's records (a quote without spans gets the
span of its first occurrence in a document record, as in a ``.kb`` file) and refuses a record
the state does not hold; :func:`fact_report` pairs each fact with the gate's decision on it.
Nothing here decides whether a fact is admitted: that is the gate's, at query scope.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cotaudit.certify.core.canon import lone_surrogate
from cotaudit.certify.core.errors import CertifyError
from cotaudit.certify.gate.decision import GateDecision, Outcome
from cotaudit.certify.kb.codemap import decision_code
from cotaudit.certify.kb.file import locate
from cotaudit.certify.sources.records import Evidence, RecordStore, SourceRecord
from cotaudit.certify.state.query import QueryResult

MAX_QUERY_FACTS = 256  # facts in one query (the service's max_query_facts defaults to it)
MAX_FACTS_BYTES = 1 << 20  # a --facts file (the service's request body defaults to it)
FACT_KEYS = frozenset({"unit", "evidence"})
EVIDENCE_KEYS = frozenset({"record", "quote", "spans"})


class FactSpecError(CertifyError, ValueError):
    """A fact the caller gave that cannot be used: ``code`` is ``bad_facts`` (its shape),
    ``too_many_facts`` or ``unknown_record`` (evidence naming a record the state lacks)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class FactSpec:
    """One checked fact: its text, its evidence as given (not yet located in the record) and
    where it came from (``facts[2]``, ``--fact 1``, ``facts.jsonl:3``), for messages."""

    unit: str
    evidence: Evidence | None
    where: str


def _bad(prefix: str, message: str) -> FactSpecError:
    return FactSpecError("bad_facts", f"{prefix}{message}")


def _string(value: Any, name: str, prefix: str, *, empty: bool = False) -> str:
    if not isinstance(value, str) or (not empty and not value.strip()):
        raise _bad(prefix, f"'{name}' must be {'a' if empty else 'a non-empty'} string")
    bad = lone_surrogate(value)
    if bad is not None:
        raise _bad(
            prefix, f"'{name}' holds a lone surrogate (U+{ord(value[bad]):04X} at offset {bad}), not text"
        )
    return value


def evidence_spec(value: Any, prefix: str = "") -> Evidence | None:
    """``{"record": ID, "quote"?: TEXT, "spans"?: [[start, end], ...]}`` checked, or ``None``.

    ``prefix`` starts every message (``"facts[2]: "``); the admit body passes none."""
    if value is None:
        return None
    if not isinstance(value, Mapping) or not isinstance(value.get("record"), str) or not value["record"]:
        raise _bad(prefix, "'evidence' must be an object with a 'record' id")
    record = _string(value["record"], "evidence.record", prefix)
    quote = value.get("quote")
    if quote is not None:
        quote = _string(quote, "evidence.quote", prefix, empty=True)
    raw_spans = value.get("spans", [])
    spans: list[tuple[int, int]] = []
    if not isinstance(raw_spans, list):
        raise _bad(prefix, "'evidence.spans' must be a list of [start, end] pairs")
    for span in raw_spans:
        ok = isinstance(span, list) and len(span) == 2
        if not ok or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in span):
            raise _bad(prefix, "'evidence.spans' must be a list of [start, end] pairs")
        spans.append((span[0], span[1]))
    return Evidence(record, tuple(spans), quote)


def fact_spec(value: Any, where: str) -> FactSpec:
    """One fact ``{"unit": TEXT, "evidence"?: {...}}``; any other key is refused, so a
    misspelt ``"evidence"`` cannot leave a fact silently without its evidence."""
    prefix = f"{where}: "
    if not isinstance(value, Mapping):
        raise _bad(prefix, 'a fact must be an object {"unit": ..., "evidence"?: {...}}')
    extra = sorted(str(k) for k in value if k not in FACT_KEYS)
    if extra:
        raise _bad(prefix, f"unknown key {extra[0]!r} (a fact has 'unit' and 'evidence')")
    evidence = value.get("evidence")
    if isinstance(evidence, Mapping):
        odd = sorted(str(k) for k in evidence if k not in EVIDENCE_KEYS)
        if odd:
            raise _bad(prefix, f"unknown key {odd[0]!r} in 'evidence' (it has 'record', 'quote', 'spans')")
    return FactSpec(_string(value.get("unit"), "unit", prefix), evidence_spec(evidence, prefix), where)


def fact_specs(value: Any, limit: int = MAX_QUERY_FACTS, name: str = "facts") -> list[FactSpec]:
    """A list of facts (``None``: none), at most ``limit`` of them."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise _bad("", f"'{name}' must be a list of facts")
    if len(value) > limit:
        raise FactSpecError("too_many_facts", f"{len(value)} {name} given; the limit is {limit}")
    return [fact_spec(v, f"{name}[{i}]") for i, v in enumerate(value)]


def resolve(specs: Sequence[FactSpec], records: RecordStore) -> list[tuple[str, Evidence | None]]:
    """Each fact with its evidence located in the state's records, ready for ``state.query``."""
    out: list[tuple[str, Evidence | None]] = []
    for spec in specs:
        ev = spec.evidence
        if ev is None:
            out.append((spec.unit, None))
            continue
        rid = ev.record_id or ""
        record: SourceRecord | None = records.record(rid)
        if record is None:
            raise FactSpecError("unknown_record", f"{spec.where}: the state holds no source record {rid!r}")
        out.append((spec.unit, locate(ev, {rid: record})))
    return out


def fact_report(result: QueryResult, specs: Sequence[FactSpec]) -> list[dict[str, Any]]:
    """The gate's decision on each fact, in order: ``outcome`` (``SOURCE_ADMIT``,
    ``REDUNDANT``, ``REJECT``, or ``NOT_CHECKED`` when a bound stopped the query first), and
    for a rejection its ``reason``, stable ``code``, ``message`` and whether it was
    ``dropped`` (``on_reject: drop``, C-77) rather than abstaining the query.

    ``run_query`` decides the facts in order and appends the derived-mode decision last, so
    the first decisions are the facts' (fewer when a bound stopped it, and then no other)."""
    decisions: list[GateDecision | None] = list(result.gate_decisions[: len(specs)])
    decisions += [None] * (len(specs) - len(decisions))
    out = []
    for spec, d in zip(specs, decisions, strict=True):
        row: dict[str, Any] = {"unit": spec.unit, "outcome": "NOT_CHECKED", "reason": None}
        row |= {"code": None, "message": None, "dropped": False}
        if d is not None:
            row["outcome"], row["reason"] = d.outcome.value, d.reason
            if d.outcome is Outcome.REJECT:
                row["code"] = decision_code(d.reason or "").code
                row["message"] = str(d.detail.get("message", ""))
                row["dropped"] = "barrier_drop" in result.flags and d.reason == "PREDICATE_NOT_IN_WHITELIST"
        out.append(row)
    return out


def answer_json(result: QueryResult, specs: Sequence[FactSpec]) -> dict[str, Any]:
    """A query's answer as the command line's ``--json`` and the HTTP service give it: the
    result, its certificate, and the decision on each query fact."""
    return {**result.to_json(), "certificate": result.certificate, "facts": fact_report(result, specs)}


__all__ = [
    "MAX_FACTS_BYTES",
    "MAX_QUERY_FACTS",
    "FactSpec",
    "FactSpecError",
    "answer_json",
    "evidence_spec",
    "fact_report",
    "fact_spec",
    "fact_specs",
    "resolve",
]
