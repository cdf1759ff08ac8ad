"""The HTML report's front-end wiring: engine pictures, trace texts, and where the page goes.

The report writer (:mod:`cotaudit.report.html`) imports no engine, so the pictures engines
draw themselves are registered here, each with one line in :data:`VISUALS` (engine →
``"module:function"`` taking the R-1 report). Entry points are imported only when a page with
that engine's reports is drawn. The trace texts come back from the files the reports name,
and are shown only when their SHA-256 still matches.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cotaudit import __version__
from cotaudit.cli.io import cannot_write, write_file
from cotaudit.report import Report
from cotaudit.report.html import register_visual, registered_visuals, render_html

# One line per engine that draws its own picture of a report.
VISUALS: dict[str, tuple[str, str]] = {
    "type6": ("reasoning graph", "cotaudit.cli.html:type6_picture"),
}
DEFAULT_DIR = "cotaudit-report"


def type6_picture(report: Report) -> str | None:
    """type6's reasoning graph (its own SVG renderer), from the result document in ``details``."""
    details = report.details
    if "graph" not in details or "summary" not in details:
        return None
    from cotaudit.type6 import Type6Result, to_svg

    return to_svg(Type6Result({k: v for k, v in details.items() if k != "verdict"}))


def _lazy(entry_point: str) -> Any:
    module_name, _, attr = entry_point.partition(":")

    def draw(report: Report) -> str | None:
        fn = getattr(importlib.import_module(module_name), attr)
        result: str | None = fn(report)
        return result

    return draw


def register_builtin_visuals() -> None:
    """Register every picture in :data:`VISUALS` not registered yet (idempotent)."""
    present = set(registered_visuals())
    for engine, (caption, entry_point) in VISUALS.items():
        if engine not in present:
            register_visual(engine, _lazy(entry_point), caption)


def sources_for(reports: Sequence[Report]) -> list[str | None]:
    """The text each report was made from, read back from its file (JSONL items by id)."""
    files: dict[str, str | None] = {}
    jsonl: dict[str, dict[str, str]] = {}
    out: list[str | None] = []
    for r in reports:
        path = r.input.path
        if path is None:
            out.append(None)
            continue
        if path not in files:
            try:
                files[path] = Path(path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                files[path] = None
        text = files[path]
        if text is not None and path.endswith(".jsonl"):
            if path not in jsonl:
                jsonl[path] = _jsonl_texts(text)
            out.append(jsonl[path].get(r.input.id or ""))
        else:
            out.append(text)
    return out


def _jsonl_texts(text: str) -> dict[str, str]:
    texts: dict[str, str] = {}
    for lineno, raw in enumerate(text.split("\n"), start=1):
        try:
            obj = json.loads(raw) if raw.strip() else None
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get("text"), str):
            raw_id = obj.get("id")
            key = (
                str(raw_id)
                if isinstance(raw_id, str | int) and not isinstance(raw_id, bool)
                else f"line-{lineno}"
            )
            texts.setdefault(key, obj["text"])
    return texts


def render(
    reports: Sequence[Report],
    *,
    sources: Sequence[str | None] | None = None,
    timing: bool = True,
    title: str = "",
) -> str:
    """The page for ``reports`` with the engines' pictures registered."""
    register_builtin_visuals()
    return render_html(
        reports,
        sources=sources if sources is not None else sources_for(reports),
        title=title or "cotaudit report",
        timing=timing,
        version=__version__,
    )


def write_report_dir(
    reports: Sequence[Report], directory: str, *, timing: bool = True, title: str = ""
) -> Path:
    """Write ``DIRECTORY/index.html`` (the directory is created) and return its path."""
    target = Path(directory) / "index.html"
    page = render(reports, timing=timing, title=title or "cotaudit audit")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise cannot_write(target, exc) from None
    write_file(target, page)
    return target
