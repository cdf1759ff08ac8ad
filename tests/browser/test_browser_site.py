"""The report at scale and at 800 px, in headless Chromium (issue 18).

A 10,000-item run log is made from real reports (every bundled example checked once, then
repeated under new ids and long names, with spread-out timings), ``cotaudit report`` turns it
into a site, and the test opens it: the summary plots are drawn, the list is paged, an item
opens from its link, and the page loads in under 2 s (the one time-bound assertion of the
suite, asked for by the issue; the figure is printed). At 800 px the single-page report opens an
item over the list and scrolls long trace lines. Screenshots go to ``tests/browser/artifacts/``.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from cotaudit import __version__, api
from cotaudit.report import InputRef
from cotaudit.report.runlog import render_run_log

from .test_browser_report import ARTIFACTS, CHROMIUM, FLAGS, ROOT, _unavailable

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ITEMS = 10_000
OPEN_BUDGET_MS = 2000
MAX_INDEX_BYTES = 30 * 1024 * 1024


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "COTAUDIT_DEBUG"}
    env["PYTHONPATH"] = str(ROOT / "src")
    return env


def _big_run_log(path: Path) -> None:
    base = []
    for file in sorted((ROOT / "examples").rglob("*")):
        if file.is_file() and api.engine_for_path(file) is not None:
            try:
                base += api.check_file(file)
            except Exception:  # an engine this checkout cannot run
                continue
    rng = random.Random(18)
    reports = []
    for i in range(ITEMS):
        r = base[i % len(base)]
        name = f"runs/{r.engine}/{Path(r.input.path or 'x').stem}_{i:05d}_with_a_rather_long_descriptive_name.jsonl"
        reports.append(
            replace(
                r, input=InputRef(name, f"item-{i:05d}", r.input.sha256), timing_ms=rng.lognormvariate(0, 1.5)
            )
        )
    path.write_text(render_run_log(reports, {"command": "batch"}, version=__version__), encoding="utf-8")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("site")
    log = where / "run.jsonl"
    _big_run_log(log)
    proc = subprocess.run(
        [sys.executable, "-m", "cotaudit", "report", str(log), "-o", str(where / "report")],
        cwd=ROOT, env=_env(), capture_output=True, timeout=1200, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr.decode()
    return where / "report" / "index.html"


@pytest.fixture(scope="module")
def narrow_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The single-page report of a small tree with a long file name and a long trace line."""
    tree = tmp_path_factory.mktemp("tree")
    shutil.copy(ROOT / "examples/te/C_arithmetic_slip.te", tree / "C_arithmetic_slip.te")
    long_line = "EQ[e9]: padding = " + " + ".join(["1"] * 120) + " = 120\n"
    text = (ROOT / "examples/te/A_janet.te").read_text(encoding="utf-8").replace("ANS:", long_line + "ANS:")
    (tree / "a_very_long_file_name_that_has_to_wrap_somewhere_sensible_in_a_narrow_window.te").write_text(
        text
    )
    out = tree / "report"
    proc = subprocess.run(
        [sys.executable, "-m", "cotaudit", "audit", "--no-timing", "--html-dir", str(out), str(tree)],
        cwd=ROOT, env=_env(), capture_output=True, timeout=600, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr.decode()
    return out / "index.html"


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed (pip install -e '.[dev]')")
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        _unavailable(f"{CHROMIUM} not found (apt-get install -y chromium chromium-driver)")
    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield instance
        instance.close()


def _page(browser: Any, width: int) -> Any:
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.problems = []
    page.on("pageerror", lambda e: page.problems.append(f"page error: {e}"))
    page.on("console", lambda m: m.type == "error" and page.problems.append(f"console: {m.text}"))
    page.on("request", lambda r: r.url.startswith("file:") or page.problems.append(f"request: {r.url}"))
    return page


def _shot(page: Any, name: str, *, full: bool = False) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=full)


def _open(page: Any, url: str) -> float:
    """Milliseconds from navigation to the plots and the first page of rows being there."""
    start = time.perf_counter()
    page.goto(url, wait_until="load")
    page.wait_for_selector("#overview tbody tr")
    page.wait_for_selector("#plot-verdicts svg rect")
    return (time.perf_counter() - start) * 1000.0


def test_10000_items_open_in_under_2_s_with_the_plots(browser: Any, site: Path) -> None:
    size = site.stat().st_size
    assert size < MAX_INDEX_BYTES
    timings = []
    for _ in range(3):  # a shared machine: the best of three cold opens, each in a fresh page
        page = _page(browser, 1400)
        timings.append(_open(page, site.as_uri()))
        if timings[-1] < OPEN_BUDGET_MS:
            break
        page.close()
    print(
        f"\n10,000-item report: index.html {size / 1e6:.2f} MB, opened in {', '.join(f'{t:.0f}' for t in timings)} ms"
    )
    assert min(timings) < OPEN_BUDGET_MS
    for plot in ("plot-verdicts", "plot-codes", "plot-first-error", "plot-latency"):
        assert page.locator(f"#{plot} svg").is_visible(), plot
    assert page.locator("#plot-codes svg rect").count() == 15
    assert page.locator("#overview tbody tr").count() == 200  # one page of the list
    assert "1–200 of 10,000 items" in page.locator("#pager").inner_text()
    _shot(page, "site-1400.png")
    assert page.problems == []
    page.close()


def test_the_list_pages_filters_and_links_to_the_detail(browser: Any, site: Path) -> None:
    page = _page(browser, 1400)
    _open(page, site.as_uri())
    page.locator("#pager button", has_text="next").click()
    assert page.locator("#overview tbody tr").first.locator("td").first.inner_text() == "201"
    page.locator('.chip[data-filter="fail"]').click()
    verdicts = {page.locator("#overview tbody tr").nth(i).get_attribute("data-verdict") for i in range(20)}
    assert verdicts == {"fail"}
    page.locator("#search").fill("TE_E006")
    first = page.locator("#overview tbody tr").first
    assert "TE_E006" in first.inner_text()
    first.locator("a").click()
    page.wait_for_load_state("load")
    assert "/detail/part-" in page.url and "#item-" in page.url
    shown = page.locator("section.item:visible")
    assert shown.count() == 1 and "TE_E006" in shown.inner_text()
    assert page.problems == []
    page.close()


def test_the_summary_at_800_px(browser: Any, site: Path) -> None:
    page = _page(browser, 800)
    _open(page, site.as_uri())
    one = page.locator("#plot-verdicts").bounding_box()
    two = page.locator("#plot-codes").bounding_box()
    assert two["y"] > one["y"] + one["height"] - 1  # stacked, not squeezed side by side
    assert page.evaluate("document.documentElement.scrollWidth") <= 800  # nothing sticks out sideways
    _shot(page, "site-800.png", full=True)
    page.locator("#overview tbody tr a").first.click()
    page.wait_for_load_state("load")
    item = page.locator("section.item:visible")
    assert item.count() == 1 and item.is_visible()  # a linked item opens over the list
    _shot(page, "site-detail-800.png")
    assert page.problems == []
    page.close()


def test_the_single_page_report_at_800_px(browser: Any, narrow_report: Path) -> None:
    page = _page(browser, 800)
    page.goto(narrow_report.as_uri())
    assert not page.locator("#items").is_visible()  # the list has the page
    row = page.locator("#overview tbody tr", has_text="a_very_long_file_name")
    cell = row.locator("td").nth(1)
    assert cell.bounding_box()["height"] > 30  # wrapped onto several lines ...
    assert "<wbr>" in cell.inner_html()  # ... at the separators, not mid-word
    assert page.evaluate("document.documentElement.scrollWidth") <= 800  # nothing sticks out
    _shot(page, "report-800-list.png")
    row.click()
    shown = page.locator("section.item:visible")
    assert page.locator("#items").is_visible() and shown.count() == 1
    box = page.locator("#items").bounding_box()
    assert box["x"] == 0 and box["width"] == 800  # over the list, the whole window
    trace = shown.locator(".trace")
    long_line = shown.locator('.line[data-line="12"]')
    assert trace.evaluate("t => t.scrollWidth > t.clientWidth")  # the long line scrolls ...
    assert long_line.locator("code.src").inner_text().endswith("= 120")  # ... and is all there
    assert long_line.evaluate("l => l.scrollWidth <= l.getBoundingClientRect().width + 1")
    _shot(page, "report-800-item.png")
    page.locator("#close-detail").click()
    assert not page.locator("#items").is_visible()
    row.click()
    page.keyboard.press("Escape")
    assert not page.locator("#items").is_visible()
    assert page.problems == []
    page.close()


def test_the_single_page_report_at_1400_px_keeps_its_side_by_side_layout(
    browser: Any, narrow_report: Path
) -> None:
    page = _page(browser, 1400)
    page.goto(narrow_report.as_uri())
    items = page.locator("#items").bounding_box()
    overview = page.locator("#overview").bounding_box()
    assert items["x"] > overview["x"] + overview["width"] - 1  # the detail beside the list
    assert not page.locator("#close-detail").is_visible()
    _shot(page, "report-1400.png")
    page.close()
