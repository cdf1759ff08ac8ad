"""SARIF 2.1.0 output, so code-scanning viewers can show findings (R-4).

One run, tool ``cotaudit``; one rule per code actually used (name, summary and level from
``cotaudit.codes``); one result per finding, in report order then finding order. Inputs the
engine could not read (``invalid``) have no findings and appear as tool execution
notifications instead, so they stay visible.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote

from cotaudit.report.encoding import ENCODE_ERRORS
from cotaudit.report.jsonout import dumps
from cotaudit.report.model import Finding, Report, Severity
from cotaudit.report.text import finding_column, input_label, one_line

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://pypi.org/project/cotaudit/"

LEVELS: dict[Severity, str] = {"error": "error", "warning": "warning", "info": "note"}


def artifact_uri(path: str) -> str:
    """A URI reference for ``path``: relative paths stay relative, absolute ones become ``file://``."""
    posix = PurePosixPath(path.replace("\\", "/"))
    if posix.is_absolute():
        return "file://" + quote(posix.as_posix(), safe="/", errors=ENCODE_ERRORS)
    return quote(posix.as_posix(), safe="/", errors=ENCODE_ERRORS)


def _rule(code: str, severity: Severity) -> dict[str, Any]:
    # Imported here, not at the top: ``python -m cotaudit.codes`` must not find it imported already.
    from cotaudit.codes import CODES

    entry = CODES.get(code)
    if entry is None:  # a code outside the table (e.g. a third-party engine): id and level only
        return {"id": code, "defaultConfiguration": {"level": LEVELS[severity]}}
    return {
        "id": entry.code,
        "name": entry.name,
        "shortDescription": {"text": entry.summary},
        "defaultConfiguration": {"level": LEVELS[entry.severity]},
        "properties": {"engine": entry.engine, "layer": entry.layer},
    }


def _location(report: Report, finding: Finding) -> list[dict[str, Any]]:
    path = report.input.path
    if path is None:
        return []
    physical: dict[str, Any] = {"artifactLocation": {"uri": artifact_uri(path)}}
    # A JSONL item's line numbers count lines of the item text, not of the file: no region.
    line = finding.location.line
    if line is not None and line >= 1 and not path.endswith(".jsonl"):
        region: dict[str, Any] = {"startLine": line}
        column = finding_column(finding)
        if column is not None and column >= 1:
            region["startColumn"] = column
        physical["region"] = region
    return [{"physicalLocation": physical}]


def _properties(report: Report, finding: Finding, has_region: bool) -> dict[str, Any]:
    """The engine, item id and whatever location parts the region does not already carry."""
    props: dict[str, Any] = {"engine": report.engine}
    if report.input.id is not None:
        props["item"] = report.input.id
    loc = finding.location
    if loc.line is not None and not has_region:
        props["line"] = loc.line
    if loc.step is not None:
        props["step"] = loc.step
    if loc.statement is not None:
        props["statement"] = loc.statement
    return props


def to_sarif(reports: Sequence[Report], *, version: str) -> dict[str, Any]:
    """The SARIF log as a dict; ``version`` is the cotaudit version reported as the tool's."""
    first_severity: dict[str, Severity] = {}
    for report in reports:
        for finding in report.findings:
            first_severity.setdefault(finding.code, finding.severity)
    codes = sorted(first_severity)
    rule_index = {code: i for i, code in enumerate(codes)}
    results: list[dict[str, Any]] = []
    notifications: list[dict[str, Any]] = []
    for report in reports:
        for finding in report.findings:
            result: dict[str, Any] = {
                "ruleId": finding.code,
                "ruleIndex": rule_index[finding.code],
                "level": LEVELS[finding.severity],
                "message": {"text": one_line(finding.message) or finding.code},
            }
            locations = _location(report, finding)
            if locations:
                result["locations"] = locations
            has_region = bool(locations) and "region" in locations[0]["physicalLocation"]
            result["properties"] = _properties(report, finding, has_region)
            results.append(result)
        if report.verdict == "invalid":
            error = report.details.get("error", "input could not be read")
            notifications.append(
                {
                    "level": "error",
                    "message": {"text": f"{input_label(report.input)}: invalid ({one_line(str(error))})"},
                }
            )
    invocation: dict[str, Any] = {"executionSuccessful": True}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "cotaudit",
                        "version": version,
                        "informationUri": INFORMATION_URI,
                        "rules": [_rule(code, first_severity[code]) for code in codes],
                    }
                },
                "invocations": [invocation],
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }


def render_sarif(reports: Sequence[Report], *, version: str) -> str:
    """The SARIF log as indented JSON text with a trailing newline."""
    return dumps(to_sarif(reports, version=version))
