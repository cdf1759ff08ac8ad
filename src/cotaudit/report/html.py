"""The HTML report: one self-contained file per run (inline CSS, inline script, inline SVG).

An overview table (item, engine, verdict, errors, warnings, codes, score, time) selects an item;
each item shows its findings, its trace with every finding on its line (hover for the message,
click for the evidence), and what its ``details`` carry in a documented shape: a step table
(``details.steps``), certificate DAGs (any certificate mapping), and the raw JSON.

The writer knows no engine. A picture an engine draws itself (type6's reasoning graph) comes in
through :func:`register_visual`, which the front end calls (``cotaudit.cli.html``): the writer
never imports an engine. Ids inside a registered picture are prefixed per item, so several
pictures can share one page. With ``timing=False`` the page is byte-identical across runs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from cotaudit.report.encoding import escape_surrogates
from cotaudit.report.html_assets import CSS, JS
from cotaudit.report.html_dag import certificate_summary, certificate_svg, find_certificates, flagged_nodes
from cotaudit.report.html_parts import esc, esc_name, findings_list, raw_details, steps_table, trace_block
from cotaudit.report.model import VERDICTS, Report, sha256_text
from cotaudit.report.text import input_label

Visual = Callable[[Report], "str | None"]
"""Draws a report as an SVG (or HTML) fragment; ``None`` when there is nothing to draw."""

MAX_DETAILED = 2000
_VISUALS: dict[str, tuple[str, Visual]] = {}
_ID = re.compile(r'(?<![\w-])id="([^"]+)"')  # id="...", not data-id="..."


def register_visual(engine: str, draw: Visual, caption: str = "") -> None:
    """Draw ``engine``'s reports with ``draw`` (its output is trusted markup, e.g. an SVG)."""
    _VISUALS[engine] = (caption or f"{engine} picture", draw)


def unregister_visual(engine: str) -> None:
    _VISUALS.pop(engine, None)


def registered_visuals() -> tuple[str, ...]:
    return tuple(sorted(_VISUALS))


def namespace_ids(fragment: str, prefix: str) -> str:
    """Prefix every ``id`` in ``fragment`` and the ``#id`` references to it (url(), href)."""
    ids = set(_ID.findall(fragment))
    if not ids:
        return fragment

    def rename(match: re.Match[str]) -> str:
        name = match.group(2)
        return f"{match.group(1)}{prefix}-{name}" if name in ids else match.group(0)

    fragment = _ID.sub(lambda m: f'id="{prefix}-{m.group(1)}"', fragment)
    return re.sub(r"(#)([A-Za-z][\w.:-]*)", rename, fragment)


def render_html(
    reports: Sequence[Report],
    *,
    sources: Sequence[str | None] | None = None,
    title: str = "cotaudit report",
    timing: bool = True,
    version: str | None = None,
) -> str:
    """The page for ``reports``; ``sources[i]`` is the text report ``i`` was made from (shown
    only when its SHA-256 matches the report's ``input.sha256``)."""
    texts = list(sources) if sources is not None else [None] * len(reports)
    texts += [None] * (len(reports) - len(texts))
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title><style>{CSS}</style></head><body>",
        _header(reports, title, timing, version),
        '<main><div class="panel">' + _overview(reports, timing) + "</div>",
        '<div class="panel" id="items">',
    ]
    for n, (report, text) in enumerate(zip(reports, texts, strict=False)):
        parts.append(_item(n, report, text) if n < MAX_DETAILED else _item_omitted(n, report))
    parts += ["</div></main>", f"<script>{JS}</script>", "</body></html>", ""]
    return escape_surrogates("\n".join(parts))  # a lone surrogate in a trace shows as \uXXXX


def _header(reports: Sequence[Report], title: str, timing: bool, version: str | None) -> str:
    counts = {v: sum(1 for r in reports if r.verdict == v) for v in VERDICTS}
    errors = sum(1 for r in reports for f in r.findings if f.severity == "error")
    warnings = sum(1 for r in reports for f in r.findings if f.severity == "warning")
    times = [r.timing_ms for r in reports if r.timing_ms is not None]
    total = f" · {sum(times) / 1000:.2f} s checking" if timing and times else ""
    made = f" · cotaudit {esc(version)}" if version else ""
    chips = [f'<button class="chip active" data-filter="all">all {len(reports)}</button>']
    chips += [
        f'<button class="chip" data-filter="{v}"><span class="badge v-{v}">{v}</span> {counts[v]}</button>'
        for v in VERDICTS
    ]
    return (
        f"<header><h1>{esc(title)}</h1>"
        f'<div class="meta">{len(reports)} items · {errors} errors · {warnings} warnings{total}{made}</div>'
        f'<div class="chips">{"".join(chips)}</div></header>'
    )


def _overview(reports: Sequence[Report], timing: bool) -> str:
    head = (
        "<tr><th class=num>#</th><th>item</th><th>engine</th><th>verdict</th>"
        '<th class=num title="errors">E</th><th class=num title="warnings">W</th><th>codes</th>'
        "<th class=num>score</th><th class=num>ms</th></tr>"
    )
    rows = []
    for n, r in enumerate(reports):
        errors = sum(1 for f in r.findings if f.severity == "error")
        warnings = sum(1 for f in r.findings if f.severity == "warning")
        codes = sorted({f.code for f in r.findings})
        shown = " ".join(f"<code>{esc(c)}</code>" for c in codes[:4]) + (" …" if len(codes) > 4 else "")
        score = f"{r.score:g}" if isinstance(r.score, int | float) else ""
        ms = f"{r.timing_ms:.1f}" if timing and r.timing_ms is not None else "-"
        rows.append(
            f'<tr data-item="item-{n}" data-verdict="{esc(r.verdict)}" tabindex="0">'
            f'<td class="num">{n + 1}</td><td>{esc_name(input_label(r.input))}</td><td>{esc(r.engine)}</td>'
            f'<td><span class="badge v-{esc(r.verdict)}">{esc(r.verdict)}</span></td>'
            f'<td class="num">{errors}</td><td class="num">{warnings}</td><td class="codes">{shown}</td>'
            f'<td class="num">{score}</td><td class="num">{ms}</td></tr>'
        )
    return f'<table id="overview"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'


def _item(n: int, report: Report, text: str | None) -> str:
    prefix = f"item-{n}"
    details: Mapping[str, Any] = report.details
    head = (
        f'<section class="item" id="{prefix}" data-verdict="{esc(report.verdict)}">'
        f"<h2>{esc_name(input_label(report.input))} "
        f'<span class="badge v-{esc(report.verdict)}">{esc(report.verdict)}</span></h2>'
        f'<div class="sub">{esc(report.engine_version)}'
        + (f" · engine says {esc(details['verdict'])}" if isinstance(details.get("verdict"), str) else "")
        + (f" · score {report.score:g}" if isinstance(report.score, int | float) else "")
        + "</div>"
    )
    body = [head]
    if isinstance(details.get("error"), str):
        body.append(f'<div class="error-box">{esc(details["error"])}</div>')
    trace_html, lines = "", set[int]()
    if text is not None and sha256_text(text) == report.input.sha256:
        trace_html, lines = trace_block(text, report, prefix)
    elif text is not None:
        trace_html = '<p class="muted">The file changed after it was checked; its text is not shown.</p>'
    steps_html, step_targets = "", dict[str, str]()
    steps = details.get("steps")
    if isinstance(steps, list) and steps:
        steps_html, step_targets = steps_table(steps, report, prefix)
    body.append("<h3>Findings</h3>" + findings_list(report, prefix, lines, step_targets))
    if steps_html:  # the per-step verdicts first: a step trace's own text is raw JSON
        body.append("<h3>Steps</h3>" + steps_html)
    if trace_html:
        body.append("<h3>Trace</h3>" + trace_html)
    body += _pictures(report, prefix)
    body.append(raw_details(details))
    body.append("</section>")
    return "\n".join(body)


def _pictures(report: Report, prefix: str) -> list[str]:
    out = []
    visual = _VISUALS.get(report.engine)
    if visual is not None:
        caption, draw = visual
        try:
            fragment = draw(report)
        except Exception as exc:  # a drawing bug must not cost the page
            fragment = None
            out.append(f'<p class="muted">{esc(caption)} unavailable ({esc(type(exc).__name__)}).</p>')
        if fragment:
            out.append(
                f'<h3>{esc(caption)}</h3><figure class="visual">{namespace_ids(fragment, prefix)}</figure>'
            )
    flagged = flagged_nodes(f.evidence for f in report.findings)
    for where, cert in find_certificates(report.details):
        svg = certificate_svg(cert, flagged)
        summary = esc(certificate_summary(cert))
        out.append(
            f"<h3>Certificate <span class='muted'>({esc(where)})</span></h3>"
            f'<figure class="visual">{svg or ""}<figcaption>{summary}</figcaption></figure>'
        )
    return out


def _item_omitted(n: int, report: Report) -> str:
    return (
        f'<section class="item" id="item-{n}" data-verdict="{esc(report.verdict)}">'
        f"<h2>{esc(input_label(report.input))}</h2>"
        f'<p class="muted">Details of items past the first {MAX_DETAILED} are left out of this page; '
        "the JSON report has them.</p></section>"
    )
