"""The reasoning graph as SVG, laid out in pure Python (no Graphviz, no system binary).

Layout: nodes are ranked in reading order (the edge list follows the statements; a node sits
one rank after its latest earlier predecessor), ranks run left to right and wrap into rows of
``columns`` ranks, and nodes sharing a rank stack vertically. Edges are quadratic curves;
parallel edges fan out, self-loops sit above their node, and edges that skip ranks or point
backwards bow out so they do not run through other nodes. Output is deterministic text.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from cotaudit.type6.render import (
    EDGE_STYLES,
    HARD_BORDER,
    ROLE_FILL,
    SOFT_BORDER,
    NodeMark,
    node_marks,
)
from cotaudit.type6.result import Type6Result

COL = 120.0
ROW = 74.0
MARGIN = 40.0
HEADER = 78.0
R_PROP = 19.0
R_BLANK = 6.0


def _num(x: float) -> str:
    return f"{x:.1f}"


def _ranks(nodes: Sequence[str], edges: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Reading-order ranks. Nodes are ordered by first appearance in the edge list (edges are
    added in statement order; a blank comes before the proposition it leads to), each node goes
    one rank after its latest earlier predecessor and never before the node just before it (an
    equal rank stacks it below). Edges into earlier nodes (revisits) do not rank."""
    order: dict[str, int] = {}
    for e in edges:
        order.setdefault(e["src"], len(order))
        order.setdefault(e["dst"], len(order))
    for n in nodes:
        order.setdefault(n, len(order))
    preds: dict[str, list[str]] = {n: [] for n in order}
    for e in edges:
        if order[e["src"]] < order[e["dst"]]:
            preds[e["dst"]].append(e["src"])
    rank: dict[str, int] = {}
    previous = -1
    for n in sorted(order, key=order.__getitem__):
        after = max((rank[p] + 1 for p in preds[n]), default=previous + 1)
        rank[n] = previous = max(previous, after)
    return rank


def layout(
    nodes: Sequence[str], edges: Sequence[Mapping[str, Any]], columns: int
) -> dict[str, tuple[float, float]]:
    """Node centres: rank → (row, column), nodes of one rank stacked in creation order."""
    rank = _ranks(nodes, edges)
    by_rank: dict[int, list[str]] = {}
    for n in nodes:
        by_rank.setdefault(rank[n], []).append(n)
    n_ranks = max(by_rank) + 1 if by_rank else 0
    pos: dict[str, tuple[float, float]] = {}
    top = HEADER + MARGIN
    for row_start in range(0, n_ranks, columns):
        height = 0
        for r in range(row_start, min(row_start + columns, n_ranks)):
            stack = by_rank.get(r, [])
            height = max(height, len(stack))
            for k, n in enumerate(stack):
                pos[n] = (MARGIN + 20 + (r - row_start) * COL, top + k * ROW)
        top += max(1, height) * ROW + ROW * 0.6
    return pos


def _edge_path(
    p0: tuple[float, float], p2: tuple[float, float], bend: float, r0: float, r2: float
) -> tuple[str, tuple[float, float]]:
    """A quadratic curve from circle to circle, bowed by ``bend``; returns (path, label point)."""
    (x0, y0), (x2, y2) = p0, p2
    dx, dy = x2 - x0, y2 - y0
    length = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / length, dx / length
    cx, cy = (x0 + x2) / 2 + nx * bend, (y0 + y2) / 2 + ny * bend
    a0 = math.atan2(cy - y0, cx - x0)
    a2 = math.atan2(cy - y2, cx - x2)
    sx, sy = x0 + r0 * math.cos(a0), y0 + r0 * math.sin(a0)
    ex, ey = x2 + (r2 + 2) * math.cos(a2), y2 + (r2 + 2) * math.sin(a2)
    mid = (0.25 * sx + 0.5 * cx + 0.25 * ex, 0.25 * sy + 0.5 * cy + 0.25 * ey)
    return f"M{_num(sx)},{_num(sy)} Q{_num(cx)},{_num(cy)} {_num(ex)},{_num(ey)}", mid


def _self_loop(p: tuple[float, float], r: float, k: int) -> tuple[str, tuple[float, float]]:
    x, y = p
    h = r * (2.6 + 0.9 * k)
    path = (
        f"M{_num(x - r * 0.5)},{_num(y - r * 0.85)} C{_num(x - r * 1.6)},{_num(y - h)} "
        f"{_num(x + r * 1.6)},{_num(y - h)} {_num(x + r * 0.55)},{_num(y - r * 0.95)}"
    )
    return path, (x, y - h * 0.78)


def _radius(kind: str) -> float:
    return R_BLANK if kind == "blank" else R_PROP


def to_svg(result: Type6Result, *, columns: int = 9) -> str:
    """The picture of ``result`` (an invalid result gives a picture with its diagnostics)."""
    graph: Mapping[str, Any] = result.document.get("graph") or {"nodes": [], "edges": []}
    nodes = [n["id"] for n in graph["nodes"]]
    kinds = {n["id"]: n["kind"] for n in graph["nodes"]}
    roles = {n["id"]: n["role"] for n in graph["nodes"]}
    edges = graph["edges"]
    pos = layout(nodes, edges, max(2, columns))
    marks = node_marks(result)
    width = max([x for x, _ in pos.values()] + [560.0]) + MARGIN + 60
    height = max([y for _, y in pos.values()] + [HEADER + MARGIN]) + MARGIN + 90
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_num(width)}" height="{_num(height)}" '
        f'viewBox="0 0 {_num(width)} {_num(height)}" font-family="Helvetica, Arial, sans-serif">',
        "<defs>",
    ]
    for kind, style in EDGE_STYLES.items():
        out.append(
            f'<marker id="arrow-{kind}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            f'markerHeight="7" orient="auto-start-reverse">'
            f'<path d="M0,0 L10,5 L0,10 z" fill="{style.colour}"/>'
            "</marker>"
        )
    out += ["</defs>", f'<rect width="{_num(width)}" height="{_num(height)}" fill="white"/>']
    out.append(_header(result))
    out += _edges(edges, pos, kinds)
    out += _nodes(nodes, pos, kinds, roles, marks)
    out.append(_legend(height - 44))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _header(result: Type6Result) -> str:
    s = result.summary
    if result.status == "invalid":
        codes = ", ".join(d["code"] for d in result.diagnostics)
        line = f"invalid trace: {codes}"
    else:
        verdict = "HARD FAIL" if s["hard_fail"] else "no hard fail"
        sc = s["scores"]
        line = f"{verdict} · graded {sc['graded']:g} · strict {sc['strict']:g}"
        line += f" · proportional {sc['proportional']:g}"
        line += f" · {s['paths']['count']} paths ({s['paths']['mode']})"
        cut = result.document.get("truncated") or {}
        if "sequential.statements" in cut:  # the document lists a prefix of the trace
            n = s["n_statements"]
            line += f" · graph of statements 1-{n - cut['sequential.statements']} of {n} (listing cut)"
    return (
        f'<text x="{_num(MARGIN)}" y="26" font-size="16" font-weight="bold">{escape(result.trace_id)}</text>'
        f'<text x="{_num(MARGIN)}" y="46" font-size="12" fill="#444">{escape(line)}</text>'
    )


def _edges(
    edges: Sequence[Mapping[str, Any]], pos: Mapping[str, tuple[float, float]], kinds: Mapping[str, str]
) -> list[str]:
    out: list[str] = []
    seen_pairs: dict[tuple[str, str], int] = {}
    for e in edges:
        src, dst = e["src"], e["dst"]
        style = EDGE_STYLES[e["kind"]]
        key = (min(src, dst), max(src, dst))
        k = seen_pairs.get(key, 0)
        seen_pairs[key] = k + 1
        if src == dst:
            path, mid = _self_loop(pos[src], _radius(kinds[src]), k)
        else:
            (x0, y0), (x2, y2) = pos[src], pos[dst]
            same_row = abs(y2 - y0) < ROW * 0.9
            skips = same_row and abs(x2 - x0) > COL * 1.2 and abs(y2 - y0) < 1.0
            backward = same_row and x2 < x0 - 1.0
            fan = (k + 1) // 2 * (1 if k % 2 else -1) * 22.0
            sign = 1.0 if src < dst else -1.0
            bend = fan * sign + (28.0 if skips or backward else 0.0) + (18.0 if backward else 0.0)
            path, mid = _edge_path(pos[src], pos[dst], bend, _radius(kinds[src]), _radius(kinds[dst]))
        dash = f' stroke-dasharray="{style.dash}"' if style.dash else ""
        label = e["label"] if e["label"] is not None else style.default_label
        out.append(
            f'<path id="e{e["id"]}" d="{path}" fill="none" stroke="{style.colour}" stroke-width="1.6"{dash} '
            f'marker-end="url(#arrow-{e["kind"]})"><title>e{e["id"]} {escape(e["kind"])} '
            f"(statement {e['stmt']})</title></path>"
        )
        if label:
            text = label if len(label) <= 14 else label[:13] + "…"
            out.append(
                f'<text x="{_num(mid[0])}" y="{_num(mid[1] - 3)}" font-size="10" text-anchor="middle" '
                f'fill="{style.colour}" stroke="white" stroke-width="3" paint-order="stroke">'
                f"{escape(text)}</text>"
            )
    return out


def _nodes(
    nodes: Sequence[str],
    pos: Mapping[str, tuple[float, float]],
    kinds: Mapping[str, str],
    roles: Mapping[str, str | None],
    marks: Mapping[str, NodeMark],
) -> list[str]:
    out: list[str] = []
    for n in nodes:
        x, y = pos[n]
        if kinds[n] == "blank":
            out.append(
                f'<circle cx="{_num(x)}" cy="{_num(y)}" r="{_num(R_BLANK)}" fill="white" stroke="#555" '
                f'stroke-width="1.2"><title>{escape(n)}</title></circle>'
            )
            continue
        mark = marks.get(n)
        fill = ROLE_FILL.get(roles.get(n), ROLE_FILL[None])
        stroke, width, dash = "#333", "1.4", ""
        if mark is not None and mark.level == "hard":
            stroke, width, dash = HARD_BORDER, "3", ' stroke-dasharray="5 3"'
        elif mark is not None:
            stroke, width = SOFT_BORDER, "3"
        title = n if mark is None else n + " — " + "; ".join(mark.messages)
        label = n if len(n) <= 7 else n[:6] + "…"
        size = 12 if len(label) <= 4 else 10
        out.append(
            f'<g id="n-{escape(n)}"><title>{escape(title)}</title>'
            f'<circle cx="{_num(x)}" cy="{_num(y)}" r="{_num(R_PROP)}" fill="{fill}" stroke="{stroke}" '
            f'stroke-width="{width}"{dash}/>'
            f'<text x="{_num(x)}" y="{_num(y + 4)}" font-size="{size}" text-anchor="middle">'
            f"{escape(label)}</text>"
        )
        if mark is not None:
            colour = HARD_BORDER if mark.level == "hard" else SOFT_BORDER
            if mark.level == "hard":
                out.append(
                    f'<text x="{_num(x + R_PROP - 2)}" y="{_num(y - R_PROP + 6)}" font-size="16" '
                    f'font-weight="bold" fill="{HARD_BORDER}">✗</text>'
                )
            out.append(
                f'<text x="{_num(x)}" y="{_num(y + R_PROP + 13)}" font-size="9.5" text-anchor="middle" '
                f'fill="{colour}">{escape(" ".join(mark.codes))}</text>'
            )
        out.append("</g>")
    return out


def _legend(y: float) -> str:
    parts = [f'<g font-size="10" transform="translate({_num(MARGIN)},{_num(y)})">']
    x = 0.0
    for kind, style in EDGE_STYLES.items():
        dash = f' stroke-dasharray="{style.dash}"' if style.dash else ""
        parts.append(
            f'<line x1="{_num(x)}" y1="0" x2="{_num(x + 26)}" y2="0" stroke="{style.colour}" '
            f'stroke-width="1.6"{dash}/>'
            f'<text x="{_num(x + 30)}" y="3.5">{kind}</text>'
        )
        x += 84
    parts.append(
        f'<g transform="translate(0,20)"><circle cx="6" cy="0" r="6" fill="{ROLE_FILL["source"]}"/>'
        '<text x="16" y="3.5">source</text>'
        f'<circle cx="76" cy="0" r="6" fill="{ROLE_FILL["sink"]}"/><text x="86" y="3.5">sink</text>'
        f'<circle cx="136" cy="0" r="6" fill="{ROLE_FILL[None]}"/><text x="146" y="3.5">proposition</text>'
        f'<circle cx="230" cy="0" r="6" fill="white" stroke="{HARD_BORDER}" stroke-width="2" '
        'stroke-dasharray="3 2"/><text x="240" y="3.5">hard event ✗</text>'
        f'<circle cx="330" cy="0" r="6" fill="white" stroke="{SOFT_BORDER}" stroke-width="2"/>'
        '<text x="340" y="3.5">soft, quality or structural event</text></g>'
    )
    parts.append("</g>")
    return "".join(parts)
