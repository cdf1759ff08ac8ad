"""The report site (issue 18): summary plots from the reports, a compact paged list, detail in
part files, byte-identical without timings; 'cotaudit report' on a run log."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from cotaudit import cli
from cotaudit.report import Finding, InputRef, Location, Report
from cotaudit.report.html_site import render_index, summary_plots, write_site
from cotaudit.report.html_site.site import CHUNK, detail_href
from cotaudit.report.runlog import render_run_log


def _many(make_report: Callable[..., Report], n: int) -> list[Report]:
    out = []
    for i in range(n):
        line = 1 + i % 7
        findings = (Finding("TE_E006", "error", Location(line=line), "m", {}),) if i % 3 else ()
        out.append(
            make_report(
                input=InputRef("run.jsonl", f"q{i}", ""),
                verdict="fail" if findings else "pass",
                findings=findings,
                engine="te" if i % 2 else "type6",
                timing_ms=0.05 * (i + 1),
            )
        )
    return out


def _data(page: str) -> dict[str, object]:
    match = re.search(r'<script id="data" type="application/json">(.*?)</script>', page, re.S)
    assert match
    return json.loads(match.group(1).replace("<\\/", "</"))  # type: ignore[no-any-return]


def test_plots(make_report: Callable[..., Report]) -> None:
    plots = {pid: (heading, svg) for pid, heading, svg in summary_plots(_many(make_report, 30))}
    assert list(plots) == ["plot-verdicts", "plot-codes", "plot-first-error", "plot-latency"]
    assert "<title>te: 10 fail</title>" in plots["plot-verdicts"][1]  # odd i not divisible by 3: 10 of 30
    assert "<title>TE_E006: 20</title>" in plots["plot-codes"][1]
    assert plots["plot-first-error"][0].startswith("Where the first error is (20 of 20")
    assert "<script" not in "".join(svg for _, svg in plots.values())  # inline SVG only
    no_timing = [pid for pid, _, _ in summary_plots(_many(make_report, 5), timing=False)]
    assert "plot-latency" not in no_timing  # near miss: no timings, no latency plot


def test_index_is_compact_and_names_every_item(make_report: Callable[..., Report]) -> None:
    reports = _many(make_report, 450)
    page = render_index(reports, title="t", page_size=200)
    data = _data(page)
    rows = data["rows"]
    assert isinstance(rows, list) and len(rows) == 450 and data["pageSize"] == 200 and data["chunk"] == CHUNK
    assert rows[1] == [1, "run.jsonl#q1", "te", "fail", 1, 0, "TE_E006", "2 TE_E006", 0.1]
    assert '<section class="item"' not in page and "http" not in page.replace(
        "http://www.w3.org/2000/svg", ""
    )
    assert len(page.encode()) < 450 * 400  # a few hundred bytes an item, not the item's detail


def test_detail_parts_and_links(make_report: Callable[..., Report], tmp_path: Path) -> None:
    reports = _many(make_report, 250)
    index = write_site(reports, tmp_path / "site", title="run", timing=False)
    parts = sorted(p.name for p in (tmp_path / "site" / "detail").iterdir())
    assert parts == ["part-0001.html", "part-0002.html", "part-0003.html"]
    assert detail_href(0) == "detail/part-0001.html#item-0"
    assert detail_href(249) == "detail/part-0003.html#item-49"
    third = (tmp_path / "site" / "detail" / "part-0003.html").read_text(encoding="utf-8")
    assert third.count('<section class="item"') == 50 and 'href="../index.html"' in third
    again = write_site(reports, tmp_path / "again", title="run", timing=False)
    assert index.read_bytes() == again.read_bytes()  # byte-identical without timings


def test_cotaudit_report(
    make_report: Callable[..., Report], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "run.jsonl"
    log.write_text(
        render_run_log(_many(make_report, 12), {"command": "batch"}, version="0"), encoding="utf-8"
    )
    assert cli.main(["report", str(log), "-o", str(tmp_path / "out")]) == 0
    out, _ = capsys.readouterr()
    assert out == f"{(tmp_path / 'out' / 'index.html').as_posix()}\n"
    assert len(_data((tmp_path / "out" / "index.html").read_text(encoding="utf-8"))["rows"]) == 12  # type: ignore[arg-type]
    assert cli.main(["report", str(tmp_path / "missing.jsonl"), "-o", str(tmp_path / "x")]) == 2
    empty = tmp_path / "empty.jsonl"
    empty.write_text(render_run_log([], {"command": "batch"}, version="0"), encoding="utf-8")
    assert cli.main(["report", str(empty), "-o", str(tmp_path / "y")]) == 2
    _, err = capsys.readouterr()
    assert "missing.jsonl: no such file" in err and "the run log holds no reports" in err


def test_a_name_that_closes_the_script_cannot_break_the_page(make_report: Callable[..., Report]) -> None:
    report = replace(make_report(), input=InputRef("</script><b>x", None, ""))
    page = render_index([report], title="t", page_size=10)
    assert page.count("</script>") == 2  # the data block's and the code's own
