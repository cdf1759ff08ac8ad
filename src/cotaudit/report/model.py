"""The shared report model (spec/report.md, R-1): one ``Report`` per input item.

Every engine answers in this shape so that one set of writers, one batch runner and one
evaluation harness serve all of them. ``Report.to_dict`` / ``Report.from_dict`` round-trip
the JSON exactly; ``timing_ms`` is the only field allowed to differ between runs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from cotaudit.errors import CotauditError

SCHEMA_VERSION = 1

Verdict = Literal["pass", "fail", "abstain", "invalid"]
Severity = Literal["error", "warning", "info"]
VERDICTS: tuple[Verdict, ...] = ("pass", "fail", "abstain", "invalid")
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")

JSONValue = Any  # JSON scalars, lists and dicts; kept loose on purpose (evidence is engine-defined)


class ReportFormatError(CotauditError, ValueError):
    """A dict does not have the shape of an R-1 report."""


@dataclass(frozen=True, slots=True)
class Location:
    """Where a finding points: a physical line, a step ID, a statement ID (any may be null)."""

    line: int | None = None
    step: str | None = None
    statement: str | None = None

    def to_dict(self) -> dict[str, JSONValue]:
        return {"line": self.line, "step": self.step, "statement": self.statement}

    @classmethod
    def from_dict(cls, d: Mapping[str, JSONValue]) -> Location:
        return cls(line=d.get("line"), step=d.get("step"), statement=d.get("statement"))


@dataclass(frozen=True, slots=True)
class Finding:
    """One diagnostic: stable code, severity, location, message and machine-readable evidence."""

    code: str
    severity: Severity
    location: Location
    message: str
    evidence: Mapping[str, JSONValue] = field(default_factory=dict)

    def sort_key(self) -> tuple[int, int, str, str, str]:
        """(line, column, step, statement, code): R-1's (location, code), refined by column."""
        column = self.evidence.get("column")
        return (
            self.location.line or 0,
            column if isinstance(column, int) else 0,
            self.location.step or "",
            self.location.statement or "",
            self.code,
        )

    def to_dict(self) -> dict[str, JSONValue]:
        return {
            "code": self.code,
            "severity": self.severity,
            "location": self.location.to_dict(),
            "message": self.message,
            "evidence": dict(self.evidence),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, JSONValue]) -> Finding:
        severity = d.get("severity")
        if severity not in SEVERITIES:
            raise ReportFormatError(f"finding severity must be one of {SEVERITIES}, got {severity!r}")
        return cls(
            code=str(d["code"]),
            severity=cast(Severity, severity),
            location=Location.from_dict(d.get("location") or {}),
            message=str(d.get("message", "")),
            evidence=dict(d.get("evidence") or {}),
        )


@dataclass(frozen=True, slots=True)
class InputRef:
    """What was checked: a path (or null for in-memory text), an item ID and the SHA-256 of the text."""

    path: str | None
    id: str | None
    sha256: str

    @classmethod
    def for_text(cls, text: str, path: str | None = None, item_id: str | None = None) -> InputRef:
        return cls(path=path, id=item_id, sha256=sha256_text(text))

    def to_dict(self) -> dict[str, JSONValue]:
        return {"path": self.path, "id": self.id, "sha256": self.sha256}

    @classmethod
    def from_dict(cls, d: Mapping[str, JSONValue]) -> InputRef:
        return cls(path=d.get("path"), id=d.get("id"), sha256=str(d.get("sha256", "")))


@dataclass(frozen=True, slots=True)
class Report:
    """The R-1 report for one input item."""

    engine: str
    engine_version: str
    input: InputRef
    verdict: Verdict
    findings: tuple[Finding, ...] = ()
    details: Mapping[str, JSONValue] = field(default_factory=dict)
    score: float | None = None
    timing_ms: float | None = None
    schema_version: int = SCHEMA_VERSION

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ReportFormatError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")

    @staticmethod
    def sorted_findings(findings: Iterable[Finding]) -> tuple[Finding, ...]:
        return tuple(sorted(findings, key=Finding.sort_key))

    @property
    def errors(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "error")

    def to_dict(self, *, timing: bool = True) -> dict[str, JSONValue]:
        """The R-1 JSON object; ``timing=False`` drops ``timing_ms`` (``--no-timing``)."""
        d: dict[str, JSONValue] = {
            "schema_version": self.schema_version,
            "engine": self.engine,
            "engine_version": self.engine_version,
            "input": self.input.to_dict(),
            "verdict": self.verdict,
            "score": self.score,
            "findings": [f.to_dict() for f in self.findings],
            "details": dict(self.details),
        }
        if timing:
            d["timing_ms"] = self.timing_ms
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, JSONValue]) -> Report:
        try:
            version = int(d.get("schema_version", 0))
            if version != SCHEMA_VERSION:
                raise ReportFormatError(f"unsupported schema_version {version} (expected {SCHEMA_VERSION})")
            verdict = d["verdict"]
            if verdict not in VERDICTS:
                raise ReportFormatError(f"verdict must be one of {VERDICTS}, got {verdict!r}")
            return cls(
                engine=str(d["engine"]),
                engine_version=str(d["engine_version"]),
                input=InputRef.from_dict(d["input"]),
                verdict=cast(Verdict, verdict),
                findings=tuple(Finding.from_dict(f) for f in d.get("findings") or ()),
                details=dict(d.get("details") or {}),
                score=d.get("score"),
                timing_ms=d.get("timing_ms"),
                schema_version=version,
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise ReportFormatError(f"not an R-1 report: {exc!r}") from exc


def make_report(
    engine: str,
    engine_version: str,
    verdict: Verdict,
    *,
    text: str | None = None,
    sha256: str = "",
    path: str | None = None,
    item_id: str | None = None,
    findings: Iterable[Finding] = (),
    details: Mapping[str, JSONValue] | None = None,
    score: float | None = None,
    timing_ms: float | None = None,
) -> Report:
    """The one way every engine and the front end build an R-1 report.

    ``input`` is the SHA-256 of ``text`` when it is given (else ``sha256`` as known), with
    ``path`` and ``item_id``; ``findings`` are put in R-1 order (location, then code)."""
    ref = InputRef.for_text(text, path, item_id) if text is not None else InputRef(path, item_id, sha256)
    return Report(
        engine=engine,
        engine_version=engine_version,
        input=ref,
        verdict=verdict,
        findings=Report.sorted_findings(findings),
        details=dict(details or {}),
        score=score,
        timing_ms=timing_ms,
    )


def json_schema() -> dict[str, JSONValue]:
    """The JSON Schema (draft 2020-12) of an R-1 report, shipped as ``report/schema.json``."""
    import json
    from importlib import resources

    data: dict[str, JSONValue] = json.loads(
        resources.files("cotaudit.report").joinpath("schema.json").read_text()
    )
    return data


def sha256_text(text: str) -> str:
    """SHA-256 of the UTF-8 encoding of ``text`` (surrogates escaped, never an exception)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
