"""A lone surrogate in an item (valid JSON: ``"\\ud800"``) is reported, never a stopped run.

A model output cut in the middle of an emoji arrives as a JSON string holding half a UTF-16
pair. UTF-8 cannot encode it, so each output path must escape it (``\\ud800``: valid JSON that
reads back as the same string; the same six characters in text and HTML). One test per path:
batch, resume, ``check`` in every format, ``audit`` (text, JSON, HTML), and the other commands'
writer (``cotaudit.cli.io.emit``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cotaudit import cli
from cotaudit.cli.io import emit
from cotaudit.report import RunLogWriter, read_run_log, render_text, sha256_text

ITEMS = [
    {"id": "cut\ud800", "engine": "fake", "text": "x BAD \ud83d"},  # half an emoji, as models emit
    {"id": "lo\udc80w", "engine": "fake", "text": "fine \udc80 WARN"},
    {"id": "plain", "engine": "fake", "text": "fine"},
]
IDS = [item["id"] for item in ITEMS]


@pytest.fixture
def items(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    path = Path("items.jsonl")
    # json.dumps escapes the surrogates (ensure_ascii): the file is plain ASCII, valid JSON
    path.write_text("".join(json.dumps(item) + "\n" for item in ITEMS), encoding="ascii")
    return path


def _run(capsysbinary: pytest.CaptureFixture[bytes], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsysbinary.readouterr()
    return code, out.decode("utf-8"), err.decode("utf-8")  # strict: the output is UTF-8


def _log_ids(data: bytes) -> list[str]:
    lines = [json.loads(line) for line in data.decode("utf-8").splitlines()]
    assert lines[0]["kind"] == "header"
    return [obj["input"]["id"] for obj in lines[1:]]


def test_batch_writes_every_item_and_the_log_reads_back(
    items: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    code, _, err = _run(capsysbinary, "batch", str(items), "-o", "run.jsonl", "--no-timing", "--quiet")
    assert code == 1, err  # one item fails: exit 1, as for any finding
    data = Path("run.jsonl").read_bytes()
    assert _log_ids(data) == IDS
    assert b"\\ud800" in data  # a JSON escape, not a raw byte sequence
    log = read_run_log("run.jsonl")
    assert [r.input.id for r in log.reports] == IDS
    assert [r.input.sha256 for r in log.reports] == [sha256_text(i["text"]) for i in ITEMS]
    assert [r.verdict for r in log.reports] == ["fail", "pass", "pass"]


def test_resume_reads_back_what_it_wrote(items: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    assert _run(capsysbinary, "batch", str(items), "-o", "whole.jsonl", "--no-timing")[0] == 1
    whole = Path("whole.jsonl").read_bytes()
    lines = whole.split(b"\n")
    Path("part.jsonl").write_bytes(b"\n".join(lines[:2]) + b"\n" + lines[2][:20])  # cut mid-line
    code, _, err = _run(capsysbinary, "batch", str(items), "-o", "part.jsonl", "--no-timing", "--resume")
    assert code == 1 and "1 already done" in err, err
    assert Path("part.jsonl").read_bytes() == whole
    code, _, err = _run(capsysbinary, "batch", str(items), "-o", "part.jsonl", "--no-timing", "--resume")
    assert code == 1 and "0 items checked, 3 already done" in err, err


@pytest.mark.parametrize("fmt", ["json", "jsonl", "sarif"])
def test_check_json_formats_are_valid_json_with_escapes(
    items: Path, capsysbinary: pytest.CaptureFixture[bytes], fmt: str
) -> None:
    code, out, err = _run(capsysbinary, "check", "--format", fmt, "--no-timing", str(items))
    assert code == 1 and err == "", err
    assert "\\ud800" in out and "\\udc80" in out
    if fmt == "json":
        assert [r["input"]["id"] for r in json.loads(out)] == IDS
    elif fmt == "jsonl":
        assert _log_ids(out.encode("utf-8")) == IDS
    else:
        results = json.loads(out)["runs"][0]["results"]
        assert {r["ruleId"] for r in results} == {"FAKE_E001", "FAKE_W001"}


def test_check_text_escapes_the_surrogate(items: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    code, out, err = _run(capsysbinary, "check", "--no-timing", str(items))
    assert code == 1 and err == ""
    assert out.splitlines()[:2] == [
        "items.jsonl#cut\\ud800:1:3: FAKE_E001 line contains BAD",
        "items.jsonl#cut\\ud800: fail (1 error, 0 warnings)",
    ]


def test_check_html_shows_the_trace(items: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    code, out, _ = _run(
        capsysbinary, "check", "--format", "html", "--no-timing", "-o", "page.html", str(items)
    )
    page = Path("page.html").read_bytes().decode("utf-8")
    assert code == 1 and out == ""
    assert "cut\\ud800" in page and "\\ud83d" in page and "\\udc80" in page  # ids and trace texts


def test_audit_text_json_and_html(items: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    code, out, _ = _run(capsysbinary, "audit", "--no-timing", "--html-dir", "report", str(items))
    assert code == 0
    assert "items.jsonl#cut\\ud800" in out and "3 items (1 file)" in out
    page = Path("report/index.html").read_bytes().decode("utf-8")
    assert "cut\\ud800" in page and "\\ud83d" in page
    code, out, _ = _run(capsysbinary, "audit", "--format", "json", "--no-html", "--no-timing", str(items))
    assert code == 0 and [r["input"]["id"] for r in json.loads(out)] == IDS


def test_other_commands_writer_escapes(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    emit("half \ud800 of it\n", None)
    emit("half \udfff of it\n", str(tmp_path / "out.txt"))
    assert capsysbinary.readouterr().out == b"half \\ud800 of it\n"
    assert (tmp_path / "out.txt").read_bytes() == b"half \\udfff of it\n"


def test_near_miss_valid_text_is_written_unchanged(tmp_path: Path, make_report) -> None:  # type: ignore[no-untyped-def]
    from cotaudit.report.encoding import escape_surrogates, utf8_bytes

    text = "naïve ∑ 😀 \\ud800 (an escaped backslash, not a surrogate)"
    assert escape_surrogates(text) is text
    assert utf8_bytes(text) == text.encode("utf-8")
    report = make_report(details={"note": text})
    with RunLogWriter(tmp_path / "log.jsonl", {}, version="0") as writer:
        writer.write(report)
    (back,) = read_run_log(tmp_path / "log.jsonl").reports
    assert back.details["note"] == text  # the literal backslash survives, no surrogate appears
    assert "😀".encode() in (tmp_path / "log.jsonl").read_bytes()  # UTF-8 kept as is
    assert render_text([report]) == render_text([report]).encode("utf-8").decode("utf-8")


def test_output_sites_never_encode_strictly() -> None:
    """Every place in the writers and the CLI that turns text into bytes says what to do with a
    surrogate: a new ``.encode("utf-8")`` or ``encoding="utf-8"`` writer without it fails here."""
    src = Path(cli.__file__).parent.parent
    strict = re.compile(r'\.encode\("utf-8"\)|(write_text|open)\([^)]*encoding="utf-8"(?![^)]*errors=)')
    offenders = []
    paths = [*(src / "cli").glob("*.py"), *(src / "report").glob("*.py"), *(src / "batch").glob("*.py")]
    for path in sorted(p for p in paths if p.name != "encoding.py"):  # the helper itself
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if strict.search(line) and "read_text" not in line and '"r"' not in line:
                offenders.append(f"{path.name}:{lineno}: {line.strip()}")
    assert offenders == []
