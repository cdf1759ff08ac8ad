"""Rendering (Y-63): DOT, SVG laid out in pure Python, HTML, and the networkx export (Y-89, Y-91)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from cotaudit import type6
from cotaudit.type6.render import EDGE_STYLES, HARD_BORDER, SOFT_BORDER

ROOT = Path(__file__).resolve().parents[2]
SVG = "{http://www.w3.org/2000/svg}"


def result(name: str) -> type6.Type6Result:
    return type6.verify(
        type6.parse_t6((ROOT / "examples" / "type6" / f"{name}.t6").read_text(encoding="utf-8"), name)
    )


def test_chinese_nation_svg_shows_the_malformed_implication_and_residuals() -> None:
    svg = type6.to_svg(result("chinese_nation"))
    root = ET.fromstring(svg)
    groups = {g.get("id"): g for g in root.iter(f"{SVG}g") if g.get("id")}
    p9 = groups["n-p9"]
    circle = p9.find(f"{SVG}circle")
    assert circle is not None and circle.get("stroke") == SOFT_BORDER  # D01 (structural) + R02 (soft)
    assert "D01 R02" in "".join(t.text or "" for t in p9.iter(f"{SVG}text"))
    assert groups["n-p10"].find(f"{SVG}circle").get("stroke") == SOFT_BORDER  # type: ignore[union-attr]
    assert groups["n-q"].find(f"{SVG}circle").get("fill") == "#8fd18f"  # type: ignore[union-attr]
    assert groups["n-a"].find(f"{SVG}circle").get("fill") == "#f08a8a"  # type: ignore[union-attr]
    paths = {p.get("id"): p for p in root.iter(f"{SVG}path") if p.get("id", "").startswith("e")}
    assert len(paths) == 15
    assert paths["e12"].get("stroke") == EDGE_STYLES["loopback"].colour
    assert paths["e13"].get("stroke-dasharray") == EDGE_STYLES["jump"].dash
    assert paths["e5"].get("stroke") == EDGE_STYLES["meander"].colour
    assert "✗" not in svg.split("<g font-size")[0]  # no hard event in this trace


def test_hard_nodes_are_dashed_red_with_a_cross() -> None:
    root = ET.fromstring(type6.to_svg(result("memories")))
    p1 = next(g for g in root.iter(f"{SVG}g") if g.get("id") == "n-p1")
    circle = p1.find(f"{SVG}circle")
    assert circle is not None and circle.get("stroke") == HARD_BORDER and circle.get("stroke-dasharray")
    assert any(t.text == "✗" for t in p1.iter(f"{SVG}text"))


def test_outputs_are_deterministic_and_escaped() -> None:
    r = type6.verify('T q : <Q>\nT <script>&"x" p1 : <b>\nT THEN a : A\n')
    assert type6.to_svg(r) == type6.to_svg(r) and type6.to_dot(r) == type6.to_dot(r)
    svg, html = type6.to_svg(r), type6.to_html(r)
    ET.fromstring(svg)
    assert "<script>" not in svg and "<script>" not in html and "&lt;b&gt;" in html
    assert '"<script>&\\"x\\""' in type6.to_dot(r)


def test_dot_styles() -> None:
    dot = type6.to_dot(result("memories"))
    assert dot.startswith('digraph "memories" {') and dot.endswith("}\n")
    assert '"_b2" -> "p1" [id="e3", style=solid, color="#222222", label="NOT K"];' in dot
    assert 'style=dotted, color="#7b3fa0", label="∅"' in dot
    assert 'label="p1 ✗"' in dot and 'style="filled,dashed"' in dot


def test_invalid_result_renders() -> None:
    r = type6.verify("X : nonsense")
    ET.fromstring(type6.to_svg(r))
    assert "T6_E01" in type6.to_svg(r) and "T6_E01" in type6.to_html(r)
    assert type6.to_networkx(r).number_of_nodes() == 0


def test_networkx_export() -> None:
    g = type6.to_networkx(result("chinese_nation"))
    assert g.number_of_nodes() == 15 and g.number_of_edges() == 15
    assert g.nodes["q"] == {"kind": "proposition", "role": "source"} and g.nodes["_b1"]["kind"] == "blank"
    assert g.edges["_b4", "p14", 12] == {
        "id": 12,
        "label": "R",
        "kind": "loopback",
        "stmt": 10,
        "revisit": False,
    }


def test_large_trace_layout_is_linear_enough() -> None:
    lines = ["T q : Q"] + [f"T p{k} : x" for k in range(2000)] + ["T THEN a : A"]
    # the whole graph is asked for: by default the document lists a prefix of so long a trace
    r = type6.verify("\n".join(lines), type6.Config(path_mode="off", report_bytes_per_input_byte=100))
    svg = type6.to_svg(r, columns=20)
    assert svg.count("<circle") >= 2002
