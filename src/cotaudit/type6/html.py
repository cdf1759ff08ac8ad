"""A self-contained HTML report: the picture, the summary and the three reports as tables.

Every piece of trace text is escaped; the page has no scripts and loads nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape
from typing import Any

from cotaudit.type6.result import Type6Result
from cotaudit.type6.svg import to_svg

_STYLE = """
body{font-family:Helvetica,Arial,sans-serif;margin:24px;color:#222}
table{border-collapse:collapse;margin:8px 0 20px;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f3f3f3} .hard{color:#b00000;font-weight:bold} .soft{color:#c76a00}
.svg{overflow-x:auto;border:1px solid #ddd;padding:4px}
"""


def _table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape('' if v is None else str(v))}</td>" for v in row) + "</tr>"
        for row in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def to_html(result: Type6Result) -> str:
    """The HTML page for one result."""
    doc = result.document
    title = f"type6 · {result.trace_id}"
    parts = [
        "<!DOCTYPE html>",
        f'<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>',
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
    ]
    if result.status == "invalid":
        parts.append("<p class='hard'>Invalid trace: nothing was analysed.</p>")
        parts.append(
            _table(
                ("code", "line", "message"),
                ([d["code"], d["line"], d["message"]] for d in result.diagnostics),
            )
        )
        parts.append("</body></html>")
        return "\n".join(parts) + "\n"
    s = doc["summary"]
    verdict = "<span class='hard'>HARD FAIL</span>" if s["hard_fail"] else "no hard fail"
    sc = s["scores"]
    parts.append(
        f"<p>{verdict} · score {s['score']:g} (graded {sc['graded']:g}, strict {sc['strict']:g}, "
        f"proportional {sc['proportional']:g}) · source {escape(str(s['source']))} · sink "
        f"{escape(str(s['sink']))} · {s['n_statements']} statements · {s['paths']['count']} paths "
        f"({escape(s['paths']['mode'])})</p>"
    )
    cut = doc.get("truncated") or {}
    if cut:
        listed = "; ".join(f"{k}: {v}" for k, v in cut.items())
        parts.append(f"<p class='soft'>The document's listings were cut (left out: {escape(listed)}).</p>")
    parts.append(f"<div class='svg'>{to_svg(result)}</div>")
    seq = doc["sequential"]
    parts.append("<h2>Events</h2>")
    parts.append(
        _table(
            ("id", "code", "name", "severity", "weight", "stmt", "line", "prop", "message"),
            (
                [
                    e["id"],
                    e["code"],
                    e["name"],
                    e["severity"],
                    e["weight"],
                    e["stmt"],
                    e["line"],
                    e["prop"],
                    e["message"],
                ]
                for e in seq["events"]
            ),
        )
    )
    parts.append("<h2>Statements</h2>")
    parts.append(
        _table(
            ("#", "line", "α", "ops", "prop", "edges", "text"),
            (
                [
                    st["index"],
                    st["line"],
                    st["alpha"],
                    " ".join(st["ops"]),
                    st["prop"],
                    st["edges"],
                    st["text"],
                ]
                for st in seq["statements"]
            ),
        )
    )
    parts.append("<h2>Constraints</h2>")
    parts.append(
        _table(
            ("id", "stmt", "formula", "status", "forced", "holds"),
            (
                [c["id"], c["stmt"], c["formula"], c["status"], c["forced"], c["holds"]]
                for c in seq["constraints"]
            ),
        )
    )
    per_path = doc["per_path"]
    parts.append(f"<h2>Paths ({per_path['listed']} of {per_path['count']} listed)</h2>")
    parts.append(
        _table(
            ("id", "edges", "coherent", "consistent", "score", "events"),
            (
                [p["id"], p["edges"], p["coherent"], p["consistent"], p["score"], p["events"]]
                for p in per_path["paths"]
            ),
        )
    )
    parts.append("<h2>Coherence</h2>")
    criteria = doc["coherence"]["criteria"]
    parts.append(
        _table(
            ("criterion", "min", "max", "mean", "median"),
            ([name, c["min"], c["max"], c["mean"], c["median"]] for name, c in criteria.items()),
        )
    )
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
