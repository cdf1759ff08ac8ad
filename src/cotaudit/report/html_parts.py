"""Pieces of an item's HTML section: the findings list, the trace with each finding on its line,
the step table (payloads with ``details.steps``, vericot's V-43 shape) and the raw details.

Every string from a report or a trace is escaped here; nothing an engine or a trace says can
become markup.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from cotaudit.report.jsonout import canonical
from cotaudit.report.model import Finding, Report
from cotaudit.report.text import finding_column

MAX_LINES = 5000
MAX_DETAILS_CHARS = 200_000
_SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}
_STEP_FAIL = {"contradicted", "ungrounded", "untranslatable", "wrong"}
_STEP_WARN = {"unknown", "vacuous", "unchecked"}
_STEP_OK = {"verified"}  # cot's per-step statuses: verified / wrong / unchecked


def esc(value: object) -> str:
    return escape(str(value), quote=True)


def esc_name(name: str) -> str:
    """A file name or path, escaped, that may wrap after ``/``, ``_``, ``-``, ``.`` and ``#``
    (never mid-word) when it does not fit."""
    out = esc(name)
    for mark in ("/", "_", "-", "#"):
        out = out.replace(mark, mark + "<wbr>")
    return out.replace(".", "<wbr>.")


def worst(findings: Sequence[Finding]) -> str:
    """The most severe severity among ``findings`` (``error`` > ``warning`` > ``info``)."""
    return min((f.severity for f in findings), key=lambda s: _SEVERITY_RANK.get(s, 3))


def evidence_list(evidence: Mapping[str, Any]) -> str:
    """A ``<dl>`` of the evidence (values as compact JSON when they are not plain strings)."""
    if not evidence:
        return ""
    rows = []
    for key, value in sorted(canonical(evidence).items()):
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
        rows.append(f"<dt>{esc(key)}</dt><dd>{esc(shown)}</dd>")
    return '<dl class="evidence">' + "".join(rows) + "</dl>"


def where(finding: Finding) -> str:
    """``line 5:26`` / ``step 3`` / ``statement 4`` / ``-``."""
    loc = finding.location
    if loc.line is not None:
        column = finding_column(finding)
        return f"line {loc.line}" + (f":{column}" if column is not None else "")
    if loc.step is not None:
        return f"step {loc.step}"
    if loc.statement is not None:
        return f"statement {loc.statement}"
    return "-"


def findings_list(report: Report, prefix: str, lines: set[int], steps: Mapping[str, str]) -> str:
    """The findings as an ordered list; each links to its trace line or step row when shown."""
    if not report.findings:
        return '<p class="muted">No findings.</p>'
    out = ['<ol class="findings">']
    for f in report.findings:
        target = ""
        if f.location.line is not None and f.location.line in lines:
            target = f"{prefix}-L{f.location.line}"
        elif f.location.step is not None and f.location.step in steps:
            target = steps[f.location.step]
        attrs = f' data-target="{esc(target)}"' if target else ""
        out.append(
            f'<li class="finding sev-{esc(f.severity)}"{attrs}><code>{esc(f.code)}</code> '
            f'<span class="muted">{esc(where(f))}</span> <span class="msg">{esc(f.message)}</span>'
            + (
                f"<details><summary>evidence</summary>{evidence_list(f.evidence)}</details>"
                if f.evidence
                else ""
            )
            + "</li>"
        )
    out.append("</ol>")
    return "\n".join(out)


def trace_block(text: str, report: Report, prefix: str) -> tuple[str, set[int]]:
    """The trace, one row per line, flagged lines coloured by their worst finding and followed
    by their findings (message, a caret at the column, evidence on click). Returns the HTML and
    the line numbers shown."""
    by_line: dict[int, list[Finding]] = {}
    for f in report.findings:
        if f.location.line is not None:
            by_line.setdefault(f.location.line, []).append(f)
    lines = text.split("\n")
    if lines and lines[-1] == "" and len(lines) > 1:
        lines.pop()
    shown = lines[:MAX_LINES]
    out = ['<div class="trace">']
    for number, source in enumerate(shown, start=1):
        here = by_line.get(number, [])
        cls = f"line flagged sev-{worst(here)}" if here else "line"
        title = " | ".join(f"{f.code} {f.message}" for f in here)
        title_attr = f' title="{esc(title)}"' if here else ""
        out.append(
            f'<div class="{cls}" id="{prefix}-L{number}" data-line="{number}"{title_attr}>'
            f'<span class="ln">{number}</span><code class="src">{esc(source)}</code></div>'
        )
        if here:
            out.append(f'<div class="marks" data-for-line="{number}">{"".join(_mark(f) for f in here)}</div>')
    if len(lines) > MAX_LINES:
        out.append(
            f'<div class="line"><span class="ln">…</span>{len(lines) - MAX_LINES} more lines not shown</div>'
        )
    out.append("</div>")
    beyond = sorted(n for n in by_line if n > len(shown))
    if beyond:
        out.append(
            f'<p class="muted">Findings on lines past the shown text: {", ".join(map(str, beyond))}.</p>'
        )
    return "\n".join(out), set(range(1, len(shown) + 1))


def _mark(f: Finding) -> str:
    """A finding under its line: a caret at its column (in the code's own font), then the code
    and message; the evidence below opens on click."""
    column = finding_column(f)
    caret = f'{" " * max(0, column - 1)}<span class="caret">^</span> ' if column is not None else ""
    evidence = evidence_list(f.evidence)
    return (
        f'<div class="mark sev-{esc(f.severity)}"><span class="ln"></span><code>{caret}</code>'
        f'<span class="note"><code class="sev-{esc(f.severity)}">{esc(f.code)}</code> '
        f"{esc(f.message)}</span></div>" + (f'<div class="ev">{evidence}</div>' if evidence else "")
    )


def steps_table(steps: Sequence[Any], report: Report, prefix: str) -> tuple[str, dict[str, str]]:
    """A table of ``details.steps`` (index, id, status, text, reason, support); rows named by a
    finding's ``location.step`` are flagged. Returns the HTML and step key → row id."""
    flagged = {f.location.step for f in report.findings if f.location.step is not None}
    targets: dict[str, str] = {}
    rows = []
    for n, step in enumerate(steps):
        if not isinstance(step, Mapping):
            continue
        index = step.get("index", n)
        row_id = f"{prefix}-S{n}"
        keys = {str(index), str(step.get("step_id"))}
        for key in keys:
            targets.setdefault(key, row_id)
        status = str(step.get("status", ""))
        cls = "sev-error" if status in _STEP_FAIL else ("sev-warning" if status in _STEP_WARN else "")
        if status in _STEP_OK:
            cls = "step-ok"
        if keys & flagged:
            cls += " flagged-step"
        support = step.get("support") or []
        support_ids = ", ".join(str(s.get("id")) for s in support if isinstance(s, Mapping))
        rows.append(
            f'<tr id="{row_id}" class="{cls.strip()}"><td class="num">{esc(index)}</td>'
            f'<td>{esc(step.get("step_id", ""))}</td><td class="status">{esc(status)}</td>'
            f"<td>{esc(step.get('text', ''))}</td><td>{esc(step.get('reason') or '')}</td>"
            f"<td>{esc(support_ids)}</td></tr>"
        )
    head = "".join(f"<th>{h}</th>" for h in ("step", "status", "text", "reason", "support"))
    head = f"<tr><th class=num>#</th>{head}</tr>"
    html = f'<table class="steps"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'
    return html, targets


def raw_details(details: Mapping[str, Any]) -> str:
    """``details`` as indented JSON, collapsed (cut at 200,000 characters)."""
    if not details:
        return ""
    text = json.dumps(canonical(details), ensure_ascii=False, indent=2, sort_keys=True)
    if len(text) > MAX_DETAILS_CHARS:
        text = text[:MAX_DETAILS_CHARS] + f"\n… ({len(text) - MAX_DETAILS_CHARS} more characters)"
    return f'<details class="raw"><summary>details (JSON)</summary><pre>{esc(text)}</pre></details>'
