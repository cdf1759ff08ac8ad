"""Certificate DAGs as inline SVG, from the documented certificate shape alone (certify.md C-29).

A derivation certificate lists ``nodes`` — ``{"id", "fact", "depth", "leaf" | "edge"}`` with
``edge.premises`` (rule) or ``edge.inputs`` (calc) naming smaller ids — and a ``root``. Nodes
are drawn in columns by depth (premises left, the conclusion right); leaves are green (kernel)
or blue (query-scoped), the root has a heavy border, and nodes named by a finding are marked
red with ✗. Any ``details`` mapping whose ``format`` starts with ``cotaudit.certify.certificate/``
is found, however deep (bounded), so a served certificate's wrapper needs no special case.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

FORMAT_PREFIX = "cotaudit.certify.certificate/"
COL_W = 205.0
BOX_W = 180.0
BOX_H = 30.0
ROW_H = 44.0
PAD = 16.0
MAX_NODES = 400
MAX_LABEL = 25


def find_certificates(
    value: Any, *, depth: int = 0, path: str = "details"
) -> list[tuple[str, Mapping[str, Any]]]:
    """``(where, certificate)`` for every certificate inside ``value`` (depth ≤ 5)."""
    if depth > 5:
        return []
    found: list[tuple[str, Mapping[str, Any]]] = []
    if isinstance(value, Mapping):
        fmt = value.get("format")
        if isinstance(fmt, str) and fmt.startswith(FORMAT_PREFIX):
            return [(path, value)]
        for key in sorted(value, key=str):
            found += find_certificates(value[key], depth=depth + 1, path=f"{path}.{key}")
    elif isinstance(value, list):
        for i, sub in enumerate(value[:50]):
            found += find_certificates(sub, depth=depth + 1, path=f"{path}[{i}]")
    return found


def flagged_nodes(evidences: Iterable[Mapping[str, Any]]) -> set[int]:
    """Certificate node ids named by findings (evidence ``node`` / ``node_id`` / ``nodes``)."""
    ids: set[int] = set()
    for ev in evidences:
        for key in ("node", "node_id"):
            if isinstance(ev.get(key), int):
                ids.add(ev[key])
        nodes = ev.get("nodes")
        if isinstance(nodes, list):
            ids.update(n for n in nodes if isinstance(n, int))
    return ids


def _parents(node: Mapping[str, Any]) -> list[int]:
    edge = node.get("edge")
    if not isinstance(edge, Mapping):
        return []
    ids = edge.get("premises") if edge.get("kind") != "calc" else edge.get("inputs")
    return [i for i in (ids or []) if isinstance(i, int)]


def certificate_summary(cert: Mapping[str, Any]) -> str:
    """One line: kind, conclusion or target, depth, flags."""
    parts = [str(cert.get("kind", "certificate"))]
    for key in ("conclusion", "target", "depth", "kernel_version"):
        if cert.get(key) is not None:
            parts.append(f"{key} {cert[key]}")
    flags = cert.get("flags")
    if isinstance(flags, list) and flags:
        parts.append("flags " + ", ".join(str(f) for f in flags))
    return " · ".join(parts)


def certificate_svg(cert: Mapping[str, Any], flagged: set[int] | None = None) -> str | None:
    """The derivation DAG as SVG, or ``None`` when ``cert`` has no drawable nodes."""
    raw_nodes = cert.get("nodes")
    if not isinstance(raw_nodes, list) or not raw_nodes:
        return None
    nodes = [n for n in raw_nodes[:MAX_NODES] if isinstance(n, Mapping) and isinstance(n.get("id"), int)]
    flagged = flagged or set()
    columns: dict[int, list[Mapping[str, Any]]] = {}
    for n in nodes:
        depth = n.get("depth")
        columns.setdefault(depth if isinstance(depth, int) and depth >= 0 else 0, []).append(n)
    pos: dict[int, tuple[float, float]] = {}
    for col, depth in enumerate(sorted(columns)):
        for row, n in enumerate(columns[depth]):
            pos[n["id"]] = (PAD + col * COL_W, PAD + row * ROW_H)
    width = PAD * 2 + (len(columns) - 1) * COL_W + BOX_W
    height = PAD * 2 + max(len(c) for c in columns.values()) * ROW_H - (ROW_H - BOX_H)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="dag" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="system-ui, sans-serif" font-size="12">'
    ]
    out += _edges(nodes, pos)
    root = cert.get("root")
    out += [_node(n, pos[n["id"]], n["id"] == root, n["id"] in flagged) for n in nodes]
    out.append("</svg>")
    return "\n".join(out)


def _edges(nodes: Sequence[Mapping[str, Any]], pos: Mapping[int, tuple[float, float]]) -> list[str]:
    out = []
    for n in nodes:
        x2, y2 = pos[n["id"]]
        for p in _parents(n):
            if p not in pos:
                continue
            x1, y1 = pos[p]
            sx, sy, ex, ey = x1 + BOX_W, y1 + BOX_H / 2, x2, y2 + BOX_H / 2
            mid = (sx + ex) / 2
            out.append(
                f'<path d="M{sx:.1f},{sy:.1f} C{mid:.1f},{sy:.1f} {mid:.1f},{ey:.1f} {ex:.1f},{ey:.1f}" '
                'fill="none" stroke="#8c959f" stroke-width="1.2"/>'
            )
    return out


def _node(n: Mapping[str, Any], at: tuple[float, float], root: bool, bad: bool) -> str:
    x, y = at
    fact = str(n.get("fact", ""))
    label = fact if len(fact) <= MAX_LABEL else fact[: MAX_LABEL - 1] + "…"
    leaf = n.get("leaf")
    edge = n.get("edge")
    if isinstance(leaf, Mapping):
        fill = "#e3f4e8" if leaf.get("scope") != "query" else "#e8f0fb"
        how = f"leaf: unit {leaf.get('unit_id')} ({leaf.get('scope')})"
    else:
        fill = "#ffffff"
        how = (
            f"rule {edge.get('rule')}" if isinstance(edge, Mapping) and edge.get("kind") == "rule" else "calc"
        )
    stroke = "#b3261e" if bad else "#1f2328"
    width = 2.5 if root or bad else 1.0
    mark = "✗ " if bad else ""
    title = escape(f"#{n['id']} {fact} — {how}, depth {n.get('depth')}")
    return (
        f'<g class="dag-node{" bad" if bad else ""}"><title>{title}</title>'
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{BOX_W:.0f}" height="{BOX_H:.0f}" rx="5" fill="{fill}" '
        f'stroke="{stroke}" stroke-width="{width}"/>'
        f'<text x="{x + 8:.1f}" y="{y + 19:.1f}" fill="{stroke}">{escape(mark + label)}</text></g>'
    )
