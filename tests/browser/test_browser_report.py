"""The HTML report in a real browser: headless Chromium (Debian's) driven by Playwright.

``cotaudit audit examples/`` writes the report; the test opens it from disk, clicks items in the
overview, and checks what a person would see: one item at a time, the flagged lines of that
item highlighted, evidence opening on click, type6's graph, certify's certificate DAG and
vericot's step table drawn, the verdict filter working, no script error and no request leaving the file. Screenshots are
kept in ``tests/browser/artifacts/`` (not committed). Off CI, a machine without Chromium or
Playwright skips this test with the reason; on CI (``CI`` set) that is a failure instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CHROMIUM = os.environ.get("COTAUDIT_CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _unavailable(why: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"browser test cannot run on CI: {why}")
    pytest.skip(why)


@pytest.fixture(scope="module")
def report_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("html") / "report"
    env = {k: v for k, v in os.environ.items() if k != "COTAUDIT_DEBUG"}
    proc = subprocess.run(
        [sys.executable, "-m", "cotaudit", "audit", "--no-timing", "--html-dir", str(out), "examples/"],
        cwd=ROOT, env=env, capture_output=True, timeout=600, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr.decode()
    return out / "index.html"


@pytest.fixture(scope="module")
def page(report_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed (pip install -e '.[dev]')")
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        _unavailable(f"{CHROMIUM} not found (apt-get install -y chromium chromium-driver)")
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile),
            executable_path=CHROMIUM,
            headless=True,
            args=FLAGS,
            viewport={"width": 1400, "height": 900},
        )
        tab = context.new_page()
        tab.problems = []  # type: ignore[attr-defined]
        tab.on("console", lambda m: m.type == "error" and tab.problems.append(f"console: {m.text}"))  # type: ignore[attr-defined]
        tab.on("pageerror", lambda e: tab.problems.append(f"page error: {e}"))  # type: ignore[attr-defined]
        tab.on("request", lambda r: r.url.startswith("file:") or tab.problems.append(f"request: {r.url}"))  # type: ignore[attr-defined]
        tab.goto(report_file.as_uri())
        yield tab
        context.close()


def _row(page: Any, label: str) -> Any:
    return page.locator("#overview tbody tr", has_text=label)


def _shown(page: Any) -> Any:
    sections = page.locator("section.item:visible")
    assert sections.count() == 1
    return sections.first


def _flagged(section: Any) -> list[tuple[str, str]]:
    lines = section.locator(".line.flagged")
    return [
        (lines.nth(i).get_attribute("data-line"), lines.nth(i).get_attribute("class").split()[-1])
        for i in range(lines.count())
    ]


def _shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name))


def test_opens_on_the_first_item_that_did_not_pass(page: Any) -> None:
    shown = _shown(page)
    first_bad = page.locator('#overview tbody tr:not([data-verdict="pass"])').first
    assert shown.get_attribute("id") == first_bad.get_attribute("data-item")
    assert "selected" in first_bad.get_attribute("class")
    assert page.evaluate("window.scrollY") == 0


def test_click_a_te_item_highlights_its_broken_line(page: Any) -> None:
    row = _row(page, "examples/te/C_arithmetic_slip.te")
    row.click()
    shown = _shown(page)
    assert shown.get_attribute("id") == row.get_attribute("data-item")
    assert page.url.endswith("#" + row.get_attribute("data-item"))
    assert _flagged(shown) == [("5", "sev-error")]
    line = shown.locator('.line.flagged[data-line="5"]')
    assert "TE_E006" in line.get_attribute("title")
    assert line.locator("code.src").inner_text() == "EQ[e3]: total = 16-3-4 = 8"
    evidence = shown.locator(".marks .ev").first
    assert not evidence.is_visible()
    line.click()
    assert evidence.is_visible() and "expected" in evidence.inner_text() and "9" in evidence.inner_text()
    shown.locator("ol.findings li").first.click()
    assert "flash" in line.get_attribute("class")
    _shot(page, "report-te.png")


def test_click_a_type6_item_shows_its_graph(page: Any) -> None:
    _row(page, "G03_derived_contradiction.t6").click()
    shown = _shown(page)
    assert _flagged(shown) == [("4", "sev-info"), ("5", "sev-error")]
    graph = shown.locator("figure.visual svg")
    assert graph.is_visible() and graph.bounding_box()["width"] > 300
    assert "G03_derived_contradiction" in graph.text_content()
    graph.scroll_into_view_if_needed()
    _shot(page, "report-type6.png")


def test_click_the_certify_item_shows_its_certificate_dag(page: Any) -> None:
    row = _row(page, "legal_prelim.kb")
    if row.count() == 0:
        pytest.skip("the certify engine is not available in this checkout")
    row.click()
    shown = _shown(page)
    dag = shown.locator("svg.dag").first
    assert dag.locator("rect").count() >= 3
    dag.scroll_into_view_if_needed()
    assert dag.is_visible()
    _shot(page, "report-certify.png")


def test_click_a_vericot_item_shows_its_step_table(page: Any) -> None:
    row = _row(page, "B_sara_contradicted.vcot.json")
    if row.count() == 0:
        pytest.skip("the vericot engine is not available in this checkout")
    row.click()
    shown = _shown(page)
    flagged = shown.locator("table.steps tr.flagged-step")
    assert flagged.count() == 1
    cells = flagged.first.locator("td")
    assert cells.nth(1).inner_text() == "s5" and cells.nth(2).inner_text() == "contradicted"
    shown.locator("ol.findings li").first.click()
    assert "flash" in flagged.first.get_attribute("class")
    assert flagged.first.is_visible()
    _shot(page, "report-vericot.png")


def test_verdict_filter(page: Any) -> None:
    page.locator('.chip[data-filter="fail"]').click()
    rows = page.locator("#overview tbody tr:visible")
    verdicts = {rows.nth(i).get_attribute("data-verdict") for i in range(rows.count())}
    chip = page.locator('.chip[data-filter="fail"]').inner_text()
    assert verdicts == {"fail"} and chip.endswith(str(rows.count()))
    page.locator('.chip[data-filter="all"]').click()
    assert page.locator("#overview tbody tr:visible").count() == page.locator("#overview tbody tr").count()


def test_no_script_errors_and_nothing_fetched(page: Any) -> None:
    assert page.problems == []
