"""The report of a large run as a small site: ``index.html`` (summary plots, paged item list) and
``detail/part-NNNN.html`` (the per-item pages of the single-page report, ``CHUNK`` items each).

The index holds no item detail, only one compact row per item (a JSON array the page draws
``page_size`` rows at a time), so a 10,000-item run opens at once and weighs a few MB; the
detail of an item is one click away, in a part file that loads its own few hundred KB. Plots
are inline SVG drawn here; nothing is fetched from anywhere. With ``timing=False`` every file is
byte-identical across runs.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

from cotaudit.report.encoding import escape_surrogates, utf8_bytes
from cotaudit.report.html import render_html
from cotaudit.report.html_parts import esc
from cotaudit.report.html_site import assets, plots
from cotaudit.report.model import VERDICTS, Report
from cotaudit.report.summary import lead_finding
from cotaudit.report.text import input_label

CHUNK = 100  # items per detail file
TOP_CODES = 15
LATENCY_BINS = (0.1, 0.3, 1, 3, 10, 30, 100, 300, 1000, 3000, 10000)  # ms, upper bounds
LINE_BINS = 30  # first-error lines 1 … 30, then "31+"
_DIGITS = re.compile(r"\d+")


def _first_error_position(report: Report) -> int | None:
    """The line (or the step's number) of the report's first error, if it has one."""
    for finding in report.findings:
        if finding.severity != "error":
            continue
        if finding.location.line is not None:
            return finding.location.line
        for where in (finding.location.step, finding.location.statement):
            match = _DIGITS.search(where or "")
            if match:
                return int(match.group())
    return None


def _latency_bins(reports: Sequence[Report]) -> list[tuple[str, int]]:
    counts = [0] * (len(LATENCY_BINS) + 1)
    for r in reports:
        if r.timing_ms is None:
            continue
        index = next((i for i, bound in enumerate(LATENCY_BINS) if r.timing_ms < bound), len(LATENCY_BINS))
        counts[index] += 1
    names = [f"<{b:g}" for b in LATENCY_BINS] + [f"≥{LATENCY_BINS[-1]:g}"]
    return list(zip(names, counts, strict=True))


def summary_plots(reports: Sequence[Report], timing: bool = True) -> list[tuple[str, str, str]]:
    """(id, heading, svg) of each plot of the summary page."""
    per_engine: dict[str, Counter[str]] = {}
    for r in reports:
        per_engine.setdefault(r.engine, Counter())[r.verdict] += 1
    codes = Counter(f.code for r in reports for f in r.findings)
    positions = Counter(p for r in reports if (p := _first_error_position(r)) is not None)
    located = sum(positions.values())
    failing = sum(1 for r in reports if any(f.severity == "error" for f in r.findings))
    line_bins = [(str(i), positions.get(i, 0)) for i in range(1, LINE_BINS + 1)]
    line_bins.append((f"{LINE_BINS + 1}+", sum(n for p, n in positions.items() if p > LINE_BINS)))
    out = [
        (
            "plot-verdicts",
            "Verdicts per engine",
            plots.stacked_bars(dict(sorted(per_engine.items())), VERDICTS, "verdicts per engine"),
        ),
        (
            "plot-codes",
            f"Most frequent codes (top {min(TOP_CODES, len(codes))} of {len(codes)})",
            plots.hbars(codes.most_common(TOP_CODES), "most frequent codes"),
        ),
        (
            "plot-first-error",
            f"Where the first error is ({located:,} of {failing:,} items with an error have a line or step)",
            plots.histogram(
                line_bins, "first error line or step", "line (or step number) of the first error"
            ),
        ),
    ]
    if timing and any(r.timing_ms is not None for r in reports):
        out.append(
            (
                "plot-latency",
                "Time per item",
                plots.histogram(
                    _latency_bins(reports), "time per item", "milliseconds per item", color="#6a4fb3"
                ),
            )
        )
    return out


def _row(n: int, r: Report, timing: bool) -> list[object]:
    """One compact list row: [n, name, engine, verdict, errors, warnings, codes, first, ms, part]."""
    errors = sum(1 for f in r.findings if f.severity == "error")
    warnings = sum(1 for f in r.findings if f.severity == "warning")
    codes = " ".join(sorted({f.code for f in r.findings}))
    first = ""
    if r.findings:
        f = lead_finding(r.findings)
        first = (
            f"{f.location.line if f.location.line is not None else f.location.step or ''} {f.code}".strip()
        )
    ms = round(r.timing_ms, 2) if timing and r.timing_ms is not None else None
    return [n, input_label(r.input), r.engine, r.verdict, errors, warnings, codes, first, ms]


def detail_href(n: int) -> str:
    """Where item ``n`` (0-based) is shown: its part file and its anchor there."""
    return f"detail/part-{n // CHUNK + 1:04d}.html#item-{n % CHUNK}"


def render_index(
    reports: Sequence[Report], *, title: str, page_size: int, timing: bool = True, version: str | None = None
) -> str:
    counts = Counter(r.verdict for r in reports)
    errors = sum(1 for r in reports for f in r.findings if f.severity == "error")
    warnings = sum(1 for r in reports for f in r.findings if f.severity == "warning")
    engines = sorted({r.engine for r in reports})
    times = [r.timing_ms for r in reports if r.timing_ms is not None]
    total = f" · {sum(times) / 1000:,.1f} s checking" if timing and times else ""
    made = f" · cotaudit {esc(version)}" if version else ""
    chips = [f'<button class="chip active" data-filter="all">all {len(reports):,}</button>']
    chips += [
        f'<button class="chip" data-filter="{v}"><span class="badge v-{v}">{v}</span> {counts[v]:,}</button>'
        for v in VERDICTS
    ]
    options = "".join(f'<option value="{esc(e)}">{esc(e)}</option>' for e in engines)
    figures = "".join(
        f'<figure class="card" id="{pid}"><figcaption>{esc(heading)}</figcaption>{svg}</figure>'
        for pid, heading, svg in summary_plots(reports, timing)
    )
    rows = [_row(n, r, timing) for n, r in enumerate(reports)]
    data = json.dumps(
        {"rows": rows, "pageSize": page_size, "chunk": CHUNK}, ensure_ascii=False, separators=(",", ":")
    ).replace("</", "<\\/")  # never closes the script element early
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title><style>{assets.CSS}</style></head><body>",
        f"<header><h1>{esc(title)}</h1>",
        f'<div class="meta">{len(reports):,} items · {errors:,} errors · {warnings:,} warnings · '
        f"{len(engines)} engine{'s' if len(engines) != 1 else ''}{total}{made}</div></header>",
        '<main><section id="summary" class="grid">' + figures + "</section>",
        '<section id="list" class="card"><div class="tools">',
        f'<div class="chips">{"".join(chips)}</div>',
        f'<select id="engine" aria-label="engine"><option value="">every engine</option>{options}</select>',
        '<input id="search" type="search" placeholder="filter: name or code" aria-label="filter">',
        "</div>",
        '<div class="scroll"><table id="overview"><thead><tr><th class="num">#</th><th>item</th>'
        '<th>engine</th><th>verdict</th><th class="num" title="errors">E</th>'
        '<th class="num" title="warnings">W</th><th>codes</th><th>first</th><th class="num">ms</th>'
        "</tr></thead><tbody></tbody></table></div>",
        '<nav id="pager"></nav>',
        "<noscript><p>The item list needs JavaScript; every item is also in the files under "
        "<code>detail/</code>.</p></noscript>",
        "</section></main>",
        f'<script id="data" type="application/json">{data}</script>',
        f"<script>{assets.JS}</script>",
        "</body></html>",
        "",
    ]
    return escape_surrogates("\n".join(parts))


def write_site(
    reports: Sequence[Report],
    out: Path,
    *,
    title: str,
    page_size: int = 200,
    sources: Sequence[str | None] | None = None,
    timing: bool = True,
    version: str | None = None,
    on_item: Callable[[int], None] | None = None,
) -> Path:
    """Write ``out/index.html`` and ``out/detail/part-*.html``; return the index's path.

    ``sources[i]`` is the text report ``i`` was made from (shown in its detail when its SHA-256
    still matches). ``on_item(k)`` is told after every ``k`` items are written (a progress bar).
    """
    detail = out / "detail"
    detail.mkdir(parents=True, exist_ok=True)
    texts = list(sources) if sources is not None else [None] * len(reports)
    for start in range(0, len(reports), CHUNK):
        part = reports[start : start + CHUNK]
        page = render_html(
            part,
            sources=texts[start : start + CHUNK],
            title=f"{title} · items {start + 1:,}–{start + len(part):,}",
            timing=timing,
            version=version,
        )
        back = '<a class="back" href="../index.html">← all items</a>'
        page = page.replace("<header><h1>", f"<header>{back}<h1>", 1)
        (detail / f"part-{start // CHUNK + 1:04d}.html").write_bytes(utf8_bytes(page))
        if on_item is not None:
            on_item(len(part))
    index = out / "index.html"
    page = render_index(reports, title=title, page_size=page_size, timing=timing, version=version)
    index.write_bytes(utf8_bytes(page))
    return index
