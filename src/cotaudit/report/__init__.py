"""Report model (R-1) and the writers that format it: text, JSON, JSONL run log (R-2), SARIF."""

from cotaudit.report.jsonout import canonical, dumps, render_json, report_dict
from cotaudit.report.model import (
    SCHEMA_VERSION,
    Finding,
    InputRef,
    Location,
    Report,
    ReportFormatError,
    Severity,
    Verdict,
    json_schema,
    make_report,
    sha256_text,
)
from cotaudit.report.runlog import (
    RunLog,
    RunLogWriter,
    completed_ids,
    header_line,
    read_run_log,
    render_run_log,
    report_line,
)
from cotaudit.report.sarif import render_sarif, to_sarif
from cotaudit.report.summary import render_summary
from cotaudit.report.text import format_finding, input_label, render_text, verdict_line

__all__ = [
    "SCHEMA_VERSION",
    "Finding",
    "InputRef",
    "Location",
    "Report",
    "ReportFormatError",
    "RunLog",
    "RunLogWriter",
    "Severity",
    "Verdict",
    "canonical",
    "completed_ids",
    "dumps",
    "format_finding",
    "header_line",
    "input_label",
    "json_schema",
    "make_report",
    "read_run_log",
    "render_json",
    "render_run_log",
    "render_sarif",
    "render_summary",
    "render_text",
    "report_dict",
    "report_line",
    "sha256_text",
    "to_sarif",
    "verdict_line",
]
