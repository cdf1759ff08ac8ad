"""The HTML report: self-contained, escaped, every finding on its line, engine pictures through
the registration hook, byte-identical without timings; and its CLI wiring (check, audit)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cotaudit import cli
from cotaudit.cli import html as cli_html
from cotaudit.report import Finding, InputRef, Location, Report, sha256_text
from cotaudit.report import html as html_mod
from cotaudit.report.html import namespace_ids, register_visual, render_html, unregister_visual
from cotaudit.report.html_dag import certificate_svg, find_certificates

TRACE = "line one\nx = <b>2</b> & BAD\nline three\n"


def _report(text: str = TRACE, **overrides: object) -> Report:
    fields: dict[str, object] = {
        "engine": "fake",
        "engine_version": "fake/1",
        "input": InputRef(path="t.fake", id="t", sha256=sha256_text(text)),
        "verdict": "fail",
        "findings": (
            Finding(
                "FAKE_E001",
                "error",
                Location(line=2),
                "claims <script>alert(1)</script>",
                {"column": 16, "expected": "9"},
            ),
            Finding("FAKE_W001", "warning", Location(line=3), "hm", {}),
            Finding("FAKE_I001", "info", Location(step="s2"), "a step note", {}),
        ),
        "details": {"verdict": "FLAG", "note": "</pre><script>x()</script>"},
        "timing_ms": 1.25,
    }
    fields.update(overrides)
    return Report(**fields)  # type: ignore[arg-type]


@pytest.fixture(autouse=True)
def no_visuals() -> Iterator[None]:
    saved = dict(html_mod._VISUALS)
    html_mod._VISUALS.clear()
    yield
    html_mod._VISUALS.clear()
    html_mod._VISUALS.update(saved)


def _flagged(page: str, item: int) -> list[tuple[str, str]]:
    section = page.split(f'<section class="item" id="item-{item}"', 1)[1].split("</section>", 1)[0]
    return re.findall(r'<div class="line flagged sev-(\w+)" id="item-\d+-L(\d+)"', section)


def test_each_finding_is_on_its_line() -> None:
    page = render_html([_report()], sources=[TRACE])
    assert _flagged(page, 0) == [("error", "2"), ("warning", "3")]
    assert 'title="FAKE_E001 claims &lt;script&gt;alert(1)&lt;/script&gt;"' in page
    # the caret sits under column 16, in the trace's own monospace column
    assert '<code>               <span class="caret">^</span> </code>' in page
    assert '<li class="finding sev-error" data-target="item-0-L2">' in page
    assert "<dt>expected</dt><dd>9</dd>" in page


def test_everything_is_escaped_and_nothing_is_fetched() -> None:
    page = render_html([_report()], sources=[TRACE])
    assert "<script>alert" not in page and "<script>x()" not in page and "<b>2</b>" not in page
    assert "x = &lt;b&gt;2&lt;/b&gt; &amp; BAD" in page
    assert page.count("<script>") == 1  # the report's own inline script
    assert (
        not re.search(r'(src|href)\s*=\s*"(https?:)?//', page)
        and "<link" not in page
        and "@import" not in page
    )


def test_byte_identical_without_timing() -> None:
    one = render_html([_report(), _report(verdict="pass", findings=())], sources=[TRACE, TRACE], timing=False)
    two = render_html([_report(), _report(verdict="pass", findings=())], sources=[TRACE, TRACE], timing=False)
    assert one == two and '<td class="num">1.2</td>' not in one and "s checking" not in one
    assert '<td class="num">1.2</td>' in render_html([_report()], sources=[TRACE])  # 1.25 ms, to 0.1


def test_a_changed_or_missing_source_is_not_shown() -> None:
    changed = render_html([_report()], sources=["other text\n"])
    assert "The file changed after it was checked" in changed and _flagged(changed, 0) == []
    missing = render_html([_report()])
    assert 'class="trace"' not in missing and "FAKE_E001" in missing


def test_overview_counts_and_filters() -> None:
    reports = [
        _report(),
        _report(verdict="pass", findings=(), score=3.5),
        _report(verdict="invalid", findings=()),
    ]
    page = render_html(reports, sources=[TRACE, TRACE, None], title="my <run>")
    assert "<title>my &lt;run&gt;</title>" in page
    rows = re.findall(r'<tr data-item="(item-\d)" data-verdict="(\w+)"', page)
    assert rows == [("item-0", "fail"), ("item-1", "pass"), ("item-2", "invalid")]
    assert '<button class="chip" data-filter="fail"><span class="badge v-fail">fail</span> 1</button>' in page
    assert "3 items · 1 errors · 1 warnings" in page
    assert '<td class="num">3.5</td>' in page


def test_step_table_flags_the_steps_findings_name() -> None:
    steps = [
        {"index": 1, "step_id": "s1", "text": "a", "status": "entailed", "support": [{"id": "p1"}]},
        {"index": 2, "step_id": "s2", "text": "b <i>", "status": "ungrounded", "reason": "no premise"},
    ]
    page = render_html([_report(details={"steps": steps})], sources=[TRACE])
    assert '<tr id="item-0-S1" class="sev-error flagged-step">' in page
    assert "b &lt;i&gt;" in page and "<td>p1</td>" in page
    assert '<li class="finding sev-info" data-target="item-0-S1">' in page


CERT = {
    "format": "cotaudit.certify.certificate/1",
    "kind": "derivation",
    "conclusion": "c(x1)",
    "depth": 2,
    "root": 2,
    "nodes": [
        {"id": 0, "fact": "a(x1)", "depth": 0, "leaf": {"unit_id": 4, "scope": "kernel"}},
        {"id": 1, "fact": "b(x1)", "depth": 1, "edge": {"kind": "rule", "rule": "r1", "premises": [0]}},
        {
            "id": 2,
            "fact": "c(x1) <&>",
            "depth": 2,
            "edge": {"kind": "rule", "rule": "r2", "premises": [0, 1]},
        },
    ],
}


def test_certificate_dag_is_drawn_with_failures_marked() -> None:
    assert find_certificates({"queries": [{"certificate": CERT}, {"other": 1}]}) == [
        ("details.queries[0].certificate", CERT)
    ]
    svg = certificate_svg(CERT, {1})
    assert svg is not None and svg.count("<rect") == 3 and svg.count("<path") == 3
    assert '<g class="dag-node bad">' in svg and "✗ b(x1)" in svg and "c(x1) &lt;&amp;&gt;" in svg
    assert certificate_svg({"format": "cotaudit.certify.certificate/1", "kind": "closure"}) is None
    report = _report(
        details={"served": {"certificate": CERT}},
        findings=(Finding("X", "error", Location(), "m", {"node": 1}),),
    )
    page = render_html([report])
    assert "Certificate <span class='muted'>(details.served.certificate)</span>" in page
    assert "derivation · conclusion c(x1) · depth 2" in page and "dag-node bad" in page


def test_registered_visual_is_embedded_with_ids_namespaced() -> None:
    svg = '<svg><defs><marker id="arrow"/></defs><path marker-end="url(#arrow)" fill="#fff"/></svg>'
    register_visual("fake", lambda r: svg, "picture")
    page = render_html([_report(), _report()], sources=[TRACE, TRACE])
    assert 'id="item-0-arrow"' in page and "url(#item-1-arrow)" in page and 'fill="#fff"' in page
    unregister_visual("fake")
    register_visual("fake", lambda r: 1 / 0, "broken picture")  # type: ignore[arg-type,return-value]
    assert "broken picture unavailable (ZeroDivisionError)" in render_html([_report()])
    assert namespace_ids("<g/>", "p") == "<g/>"
    assert namespace_ids('<g id="a" data-id="b"/>', "p") == '<g id="p-a" data-id="b"/>'


def test_items_past_the_cap_keep_their_row(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(html_mod, "MAX_DETAILED", 1)
    page = render_html([_report(), _report()], sources=[TRACE, TRACE])
    assert page.count('<tr data-item="') == 2 and "past the first 1 are left out" in page


def test_type6_picture_comes_from_the_engine() -> None:
    from cotaudit import api

    text = (Path(__file__).resolve().parents[2] / "examples" / "type6" / "memories.t6").read_text(
        encoding="utf-8"
    )
    report = api.check(text, "type6")
    page = cli_html.render([report], sources=[text])
    assert "<h3>reasoning graph</h3>" in page and page.count("<svg") == 1
    assert cli_html.type6_picture(_report(details={})) is None


# --------------------------------------------------------------------------- the CLI


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "fail.fake").write_text("ok\nx BAD\n", encoding="utf-8")
    (tmp_path / "pass.fake").write_text("fine\n", encoding="utf-8")
    (tmp_path / "items.jsonl").write_text('{"id": "q1", "engine": "fake", "text": "BAD"}\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


Main = Callable[..., tuple[int, str, str]]


@pytest.fixture
def main(capsys: pytest.CaptureFixture[str]) -> Main:
    def run(*argv: str) -> tuple[int, str, str]:
        code = cli.main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


def test_check_format_html(tree: Path, main: Main) -> None:
    code, out, _ = main("check", "--format", "html", "--no-timing", "fail.fake", "items.jsonl")
    assert code == 1 and out.startswith("<!DOCTYPE html>")
    assert _flagged(out, 0) == [("error", "2")] and _flagged(out, 1) == [("error", "1")]
    assert main("check", "--format", "html", "-o", "r.html", "pass.fake")[0] == 0
    assert (tree / "r.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_audit_writes_the_html_report_by_default(tree: Path, main: Main) -> None:
    code, plain, _ = main("audit", "--no-timing", "--no-html", "--html-dir", "elsewhere", ".")
    assert code == 0 and not (tree / "elsewhere").exists() and not (tree / "cotaudit-report").exists()
    code, out, err = main("audit", "--no-timing", ".")
    assert (code, out, err) == (0, plain, "")  # stdout as before; on a terminal stderr names the file
    page = (tree / "cotaudit-report" / "index.html").read_text(encoding="utf-8")
    assert _flagged(page, 0) == [("error", "2")]  # fail.fake, walk order
    assert main("audit", "--html-dir", "deep/er", "pass.fake")[0] == 0
    assert (tree / "deep" / "er" / "index.html").exists()


def test_audit_html_dir_that_cannot_be_written(tree: Path, main: Main) -> None:
    (tree / "blocker").write_text("a file, not a directory")
    code, _, err = main("audit", "--html-dir", "blocker", ".")
    assert code == 2 and err.startswith("cotaudit: blocker/index.html: cannot write")


def test_sources_for_reads_files_and_jsonl_items(tree: Path) -> None:
    reports = [
        _report(input=InputRef("fail.fake", "fail", "")),
        _report(input=InputRef("items.jsonl", "q1", "")),
        _report(input=InputRef("missing.fake", "m", "")),
        _report(input=InputRef(None, "mem", "")),
    ]
    assert cli_html.sources_for(reports) == ["ok\nx BAD\n", "BAD", None, None]
