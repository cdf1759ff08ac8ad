"""The ``.kb`` format: one self-contained knowledge base with its queries (docs/certify.md).

A line starting with ``%%`` opens a section; other ``%`` lines are comments::

    %% interface                      the interface document (JSON or YAML, C-10)
    %% config                         optional CertifyConfig keys (JSON or YAML)
    %% record story kind=document     a source record: the lines up to the next %% line
    %% units writer=deploy evidence=rules
    [ji_art6] is_preliminary_contract(X) :- ... .
    [f1] agrees_future_conclusion(x1). @story "agreeing to conclude"
    %% query q1 writer=grounder       query-scoped facts (with evidence) and one ?- goal
    %% queries                        kernel-only queries
    ?- may_claim_preliminary_breach_liability(p1, x1).
    [q2] ?- may_claim_preliminary_breach_liability(p2, x1) => no.

Evidence follows a unit's ``.`` on the same line: ``@record``, optionally ``(label)`` (the cited
unit of a rule file), ``[start:end, …]`` (spans in code points) and a quoted ``"quote"`` (JSON
string escapes). A quote without spans is located in the record (first occurrence). Units are
split at ``.`` terminators outside strings and comments and parsed one by one, so a bad unit is
one finding, not a failed file.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from cotaudit.certify.core.canon import lone_surrogate
from cotaudit.certify.core.errors import KbError
from cotaudit.certify.lang.grammar import DEFAULT_LIMITS
from cotaudit.certify.sources.records import RECORD_KINDS, Evidence, SourceRecord

SECTION_KINDS = ("interface", "config", "record", "units", "query", "queries")
# Every pattern here runs on untrusted text and must match in linear time: no two quantified
# pieces that can match the same characters may be adjacent (the optional quote sits *between*
# the two runs of blanks, so they can never both claim the same blank) and no quantifier is
# nested in another over overlapping text (tests/certify/test_hostile_input.py sweeps them all).
_EVIDENCE = re.compile(
    r"@(?P<rid>[A-Za-z0-9_][A-Za-z0-9_.:-]*)(?:\((?P<cite>[^()]*)\))?(?:\[(?P<spans>[0-9:,\s]*)\])?"
    r"\s*(?:(?P<quote>\"(?:[^\"\\]|\\.)*\")\s*)?(?:%.*)?"
)
_KV = re.compile(r"([a-z_]+)=(\S+)")
_QUERY_START = re.compile(r"\s*(\[[^\]]*\]\s*)?\?-")


@dataclass
class Statement:
    """One unit or query of a section: its text, position and evidence (if any)."""

    text: str
    line: int
    col: int
    evidence: Evidence | None = None
    evidence_error: str | None = None

    @property
    def is_query(self) -> bool:
        return _QUERY_START.match(self.text) is not None


@dataclass
class Section:
    kind: str
    line: int
    args: list[str]
    options: dict[str, str]
    body: str
    body_line: int
    statements: list[Statement] = field(default_factory=list)


@dataclass
class KbDocument:
    interface_text: str = ""
    interface_line: int = 0
    config: dict[str, Any] = field(default_factory=dict)
    records: list[SourceRecord] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)


def split_sections(text: str) -> list[Section]:
    lines = text.replace("\r\n", "\n").split("\n")
    sections: list[Section] = []
    current: Section | None = None
    body: list[str] = []
    for no, line in enumerate(lines, start=1):
        if line.startswith("%%"):
            if current is not None:
                current.body = "\n".join(body)
                sections.append(current)
            words = line[2:].split()
            if not words or words[0] not in SECTION_KINDS:
                raise KbError(
                    f"unknown section {' '.join(words[:1]) or '(empty)'!r} "
                    f"(expected {', '.join(SECTION_KINDS)})",
                    line=no,
                )
            opts: dict[str, str] = {}
            for w in words[1:]:
                if (m := _KV.fullmatch(w)) is not None:
                    opts[m.group(1)] = m.group(2)
            args = [w for w in words[1:] if not _KV.fullmatch(w)]
            current, body = Section(words[0], no, args, opts, "", no + 1), []
        elif current is None:
            if line.strip() and not line.lstrip().startswith("%"):
                raise KbError("text before the first %% section", line=no)
        else:
            body.append(line)
    if current is not None:
        current.body = "\n".join(body)
        sections.append(current)
    return sections


def split_statements(body: str, first_line: int, max_statements: int | None = None) -> list[Statement]:
    """Units/queries of a section body, split at '.' outside strings and comments
    (:class:`KbError` as soon as there are more than ``max_statements``)."""
    out: list[Statement] = []
    i, n = 0, len(body)
    line, col = first_line, 1
    start: tuple[int, int, int] | None = None
    in_str = False
    eol = -1  # index of the "\n" ending the current line (n on the last line), once known
    while i < n:
        ch = body[i]
        if start is None and not ch.isspace() and ch != "%":
            start = (i, line, col)
        if in_str:
            if ch == "\\":
                i, col = i + 2, col + 2
                continue
            in_str = ch != '"'
        elif ch == '"':
            in_str = True
        elif ch == "%":
            while i < n and body[i] != "\n":
                i += 1
            continue
        elif ch == "." and start is not None and not (i + 1 < n and body[i + 1].isdigit()):
            s0, l0, c0 = start
            stmt = Statement(body[s0 : i + 1], l0, c0)
            if eol <= i:  # the end of this line, found once per line (not once per unit)
                eol = body.find("\n", i + 1)
                eol = n if eol < 0 else eol
            j = i + 1  # the first non-blank after the '.'; blanks are scanned again below at most
            while j < eol and body[j].isspace():
                j += 1
            if j < eol and body[j] == "@":  # evidence: the rest of the line
                _evidence(stmt, body[j:eol].strip())
                col += eol - i - 1
                i = eol - 1
            out.append(stmt)  # else another unit (or a comment) follows on the same line
            start = None
            if max_statements is not None and len(out) > max_statements:
                raise KbError(f"more than {DEFAULT_LIMITS.max_units} units", line=l0)
        if ch == "\n":
            line, col = line + 1, 1
        else:
            col += 1
        i += 1
    if start is not None:
        s0, l0, c0 = start
        out.append(Statement(body[s0:].rstrip(), l0, c0))
    return out


def _evidence(stmt: Statement, tail: str) -> None:
    m = _EVIDENCE.fullmatch(tail)
    if m is None:
        stmt.evidence_error = f"cannot read the evidence {tail!r}"
        return
    spans: list[tuple[int, int]] = []
    for part in (m.group("spans") or "").split(","):
        if part.strip():
            a, _, b = part.partition(":")
            try:
                spans.append((int(a), int(b)))
            except ValueError:
                stmt.evidence_error = f"bad span {part.strip()!r}"
                return
    quote: str | None = None
    if m.group("quote"):
        try:
            quote = json.loads(m.group("quote"))
        except ValueError as exc:  # a control character or a bad escape inside the quote
            stmt.evidence_error = f"bad quote (JSON string escapes): {exc}"
            return
        if lone_surrogate(quote) is not None:
            stmt.evidence_error = "bad quote: an escaped lone surrogate is not text"
            return
    extra = {"label": m.group("cite")} if m.group("cite") else {}
    stmt.evidence = Evidence(m.group("rid"), tuple(spans), quote, extra)


def locate(evidence: Evidence, records: dict[str, SourceRecord]) -> Evidence:
    """Give a quote without spans the span of its first occurrence in a document record."""
    rec = records.get(evidence.record_id or "")
    if evidence.spans or evidence.quote is None or rec is None or rec.kind != "document":
        return evidence
    at = rec.body.find(evidence.quote)
    if at < 0:
        return evidence
    return Evidence(evidence.record_id, ((at, at + len(evidence.quote)),), evidence.quote, evidence.extra)


def parse_kb(text: str) -> KbDocument:
    """Sections, records and statements of a ``.kb`` text; :class:`KbError` when unreadable."""
    bad = lone_surrogate(text)
    if bad is not None:
        raise KbError(
            f"U+{ord(text[bad]):04X} at offset {bad} is a lone surrogate, not text",
            line=text.count("\n", 0, bad) + 1,
        )
    doc = KbDocument()
    count = 0
    for sec in split_sections(text):
        if sec.kind == "interface":
            if doc.interface_text:
                raise KbError("a second %% interface section", line=sec.line)
            doc.interface_text, doc.interface_line = sec.body, sec.line
        elif sec.kind == "config":
            doc.config = _config(sec)
        elif sec.kind == "record":
            if len(sec.args) != 1:
                raise KbError("%% record needs exactly one record id", line=sec.line)
            kind = sec.options.get("kind", "document")
            if kind not in RECORD_KINDS:
                raise KbError(f"record kind must be one of {', '.join(RECORD_KINDS)}", line=sec.line)
            doc.records.append(SourceRecord(sec.args[0], kind, sec.body.rstrip("\n"), sec.options.get("uri")))
        else:
            if len(sec.body.encode("utf-8", "surrogatepass")) > DEFAULT_LIMITS.max_bytes:
                raise KbError(
                    f"a %% {sec.kind} section is larger than {DEFAULT_LIMITS.max_bytes} bytes", line=sec.line
                )
            sec.statements = split_statements(sec.body, sec.body_line, DEFAULT_LIMITS.max_units - count)
            count += len(sec.statements)
            if count > DEFAULT_LIMITS.max_units:
                raise KbError(f"more than {DEFAULT_LIMITS.max_units} units", line=sec.line)
            if sec.kind == "query" and sum(1 for s in sec.statements if s.is_query) != 1:
                raise KbError("a %% query section needs exactly one ?- goal", line=sec.line)
            doc.sections.append(sec)
    if not doc.interface_text.strip():
        raise KbError("no %% interface section")
    ids = [r.record_id for r in doc.records]
    if len(ids) != len(set(ids)):
        raise KbError("two records share an id")
    return doc


def _config(sec: Section) -> dict[str, Any]:
    from cotaudit.certify.interface.load import parse_document

    if not sec.body.strip():
        return {}
    try:
        doc, _ = parse_document(sec.body)
    except Exception as exc:  # InterfaceError or MissingDependency: both are one-line messages
        raise KbError(f"config: {exc}", line=sec.line) from None
    if not isinstance(doc, dict):
        raise KbError("config must be a mapping", line=sec.line)
    return doc
