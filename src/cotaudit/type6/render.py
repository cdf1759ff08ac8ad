"""Graph exports and the shared drawing vocabulary (Y-63, Y-89, Y-91): DOT and networkx.

The style tables here are used by the DOT text and by the pure-Python SVG (:mod:`.svg`), so
both pictures say the same thing: source green, sink red, other propositions blue, blanks
small white circles; hard events give a dashed red border and an ✗, other weighted events an
orange border; each edge kind has its own stroke.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, NamedTuple

from cotaudit.type6.result import Type6Result


class EdgeStyle(NamedTuple):
    colour: str
    dash: str | None  # SVG stroke-dasharray; None = solid
    dot_style: str
    default_label: str | None


EDGE_STYLES: Mapping[str, EdgeStyle] = {
    "logical": EdgeStyle("#222222", None, "solid", None),
    "gap": EdgeStyle("#9a9a9a", "6 4", "dashed", None),
    "jump": EdgeStyle("#7b3fa0", "2 4", "dotted", "∅"),
    "loopback": EdgeStyle("#e07b00", "8 4", "dashed", None),
    "meander": EdgeStyle("#138a8a", "8 4", "dashed", None),
    "unknown": EdgeStyle("#d01c1c", "2 4", "dotted", None),
}
ROLE_FILL = {"source": "#8fd18f", "sink": "#f08a8a", None: "#9cc3f0"}
HARD_BORDER = "#d01c1c"
SOFT_BORDER = "#f28c28"
_WEIGHTED = frozenset({"soft", "quality", "structural"})


class NodeMark(NamedTuple):
    """What a node carries: ``level`` is ``hard``, ``soft`` or None; ``codes`` the native codes."""

    level: str | None
    codes: tuple[str, ...]
    messages: tuple[str, ...]


def node_marks(result: Type6Result) -> dict[str, NodeMark]:
    """Per proposition node: the weighted events about it (by ``prop``)."""
    collected: dict[str, list[Mapping[str, Any]]] = {}
    for event in result.events:
        if event["prop"] is not None and (event["severity"] == "hard" or event["severity"] in _WEIGHTED):
            collected.setdefault(event["prop"], []).append(event)
    marks: dict[str, NodeMark] = {}
    for prop, events in collected.items():
        level = "hard" if any(e["severity"] == "hard" for e in events) else "soft"
        codes = tuple(dict.fromkeys(str(e["code"]).removeprefix("T6_") for e in events))
        marks[prop] = NodeMark(level, codes, tuple(str(e["message"]) for e in events))
    return marks


def _graph(result: Type6Result) -> Mapping[str, Any]:
    graph: Mapping[str, Any] | None = result.document.get("graph")
    return graph or {"nodes": [], "edges": []}


def _dot_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def to_dot(result: Type6Result) -> str:
    """Graphviz DOT text (deterministic; nodes in creation order, edges in id order)."""
    graph = _graph(result)
    marks = node_marks(result)
    lines = [
        f"digraph {_dot_quote(result.trace_id)} {{",
        "  rankdir=LR;",
        '  node [fontname="Helvetica", fontsize=11];',
        '  edge [fontname="Helvetica", fontsize=10];',
    ]
    for node in graph["nodes"]:
        nid = node["id"]
        if node["kind"] == "blank":
            lines.append(
                f'  {_dot_quote(nid)} [shape=circle, width=0.15, label="", style=filled, fillcolor=white];'
            )
            continue
        mark = marks.get(nid)
        attrs = [f"label={_dot_quote(nid + (' ✗' if mark and mark.level == 'hard' else ''))}"]
        attrs += ["shape=circle", f'fillcolor="{ROLE_FILL.get(node["role"], ROLE_FILL[None])}"']
        if mark and mark.level == "hard":
            attrs += ['style="filled,dashed"', f'color="{HARD_BORDER}"', "penwidth=2.5"]
        elif mark:
            attrs += ["style=filled", f'color="{SOFT_BORDER}"', "penwidth=2.5"]
        else:
            attrs.append("style=filled")
        if mark:
            attrs.append(f"tooltip={_dot_quote('; '.join(mark.messages))}")
        lines.append(f"  {_dot_quote(nid)} [{', '.join(attrs)}];")
    for edge in graph["edges"]:
        style = EDGE_STYLES[edge["kind"]]
        label = edge["label"] if edge["label"] is not None else style.default_label
        attrs = [
            f"id={_dot_quote('e' + str(edge['id']))}",
            f"style={style.dot_style}",
            f'color="{style.colour}"',
        ]
        if label is not None:
            attrs.append(f"label={_dot_quote(label)}")
        lines.append(f"  {_dot_quote(edge['src'])} -> {_dot_quote(edge['dst'])} [{', '.join(attrs)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_networkx(result: Type6Result) -> Any:
    """A ``networkx.MultiDiGraph``: node attributes ``kind``, ``role``; edges keyed by edge id with
    ``id``, ``label``, ``kind``, ``stmt``, ``revisit`` (Y-89). Invalid results give an empty graph.

    networkx ships no type stubs, so it is imported by name and the graph is typed ``Any``."""
    networkx = importlib.import_module("networkx")
    g = networkx.MultiDiGraph(trace_id=result.trace_id)
    graph = _graph(result)
    for node in graph["nodes"]:
        g.add_node(node["id"], kind=node["kind"], role=node["role"])
    for edge in graph["edges"]:
        g.add_edge(
            edge["src"],
            edge["dst"],
            key=edge["id"],
            id=edge["id"],
            label=edge["label"],
            kind=edge["kind"],
            stmt=edge["stmt"],
            revisit=edge["revisit"],
        )
    return g
