"""Terminal behaviour (issue 18): colour, --quiet/--verbose, the totals line, did-you-mean, a bare
'cotaudit', a closed pipe, the progress bar on a terminal's stderr only."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cotaudit import cli, progress
from cotaudit.cli.color import use_color
from cotaudit.cli.progress import reporter_for

ROOT = Path(__file__).resolve().parents[2]
SLIP = str(ROOT / "examples" / "te" / "C_arithmetic_slip.te")
JANET = str(ROOT / "examples" / "te" / "A_janet.te")
ESC = "\x1b["


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_rules() -> None:
    tty, pipe = _Tty(), io.StringIO()
    assert use_color("auto", tty, {}) and not use_color("auto", pipe, {})
    assert not use_color("auto", tty, {"NO_COLOR": "1"})  # NO_COLOR respected
    assert use_color("auto", tty, {"NO_COLOR": ""})  # ... only when non-empty
    assert not use_color("auto", tty, {"TERM": "dumb"})
    assert use_color("always", pipe, {"NO_COLOR": "1"}) and not use_color("never", tty, {})


def test_color_always_and_never(capsys: pytest.CaptureFixture[str]) -> None:
    _, plain, _ = _run(capsys, "check", SLIP)
    assert ESC not in plain  # a pipe (the capture) gets no colour by default
    _, coloured, _ = _run(capsys, "check", "--color", "always", SLIP)
    assert f"{ESC}1;31mTE_E006{ESC}0m" in coloured
    _, before, _ = _run(capsys, "--color", "always", "check", SLIP)  # before the command works too
    assert before == coloured
    assert _run(capsys, "check", "--color", "never", SLIP)[1] == plain


def test_color_in_a_real_terminal_and_no_color() -> None:
    import pty

    def run(env: dict[str, str]) -> str:
        primary, secondary = pty.openpty()
        full = {**os.environ, "PYTHONPATH": str(ROOT / "src"), **env}
        full.pop("COTAUDIT_DEBUG", None)
        proc = subprocess.run(
            [sys.executable, "-m", "cotaudit", "check", SLIP],
            stdout=secondary, stderr=subprocess.DEVNULL, env=full, timeout=120, check=False,
        )  # fmt: skip
        os.close(secondary)
        data = os.read(primary, 65536).decode()
        os.close(primary)
        assert proc.returncode == 1
        return data

    assert ESC in run({"NO_COLOR": ""})
    assert ESC not in run({"NO_COLOR": "1"})


def test_quiet_verbose_and_totals(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = _run(capsys, "check", "--no-timing", SLIP, JANET)
    assert out.splitlines() == [
        f"{SLIP}:5:26: TE_E006 EQ[e3] claims 8 but 16-3-4 = 9",
        f"{SLIP}: fail (1 error, 0 warnings)",
        "Found 1 error in 1 of 2 items (1 pass, 1 fail).",
    ]
    _, quiet, _ = _run(capsys, "check", "-q", SLIP, JANET)
    assert quiet.splitlines() == [f"{SLIP}:5:26: TE_E006 EQ[e3] claims 8 but 16-3-4 = 9"]
    _, verbose, _ = _run(capsys, "check", "-v", SLIP, JANET)
    assert f"{JANET}: pass (0 errors, 0 warnings) [" in verbose  # every verdict, with its time
    _, clean, _ = _run(capsys, "check", JANET)
    assert clean == "The item passed.\n"


def test_many_clean_items_print_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = Path(JANET).read_text(encoding="utf-8")
    items = tmp_path / "items.jsonl"
    import json

    items.write_text(
        "".join(json.dumps({"id": f"q{i}", "engine": "te", "text": text}) + "\n" for i in range(200))
    )
    code, out, _ = _run(capsys, "check", str(items))
    assert code == 0 and out == "All 200 items passed.\n"


def test_quiet_and_verbose_everywhere() -> None:
    from cotaudit.cli.entry import build_parser

    parser = build_parser()
    for argv in (
        ["check", "x.te"],
        ["audit", "x"],
        ["batch", "in.jsonl", "-o", "o.jsonl"],
        ["codes"],
        ["te", "np", "x.te"],
        ["type6", "verify", "x.t6"],
        ["eval", "te"],
        ["report", "r.jsonl", "-o", "d"],
    ):
        for flag, attr in (("-q", "quiet"), ("--verbose", "verbose")):
            assert getattr(parser.parse_args([*argv, flag]), attr) is True, (argv, flag)
            assert getattr(parser.parse_args([flag, *argv]), attr) is True, (flag, argv)
        assert parser.parse_args(argv).quiet is False  # near miss: not given


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["chek", "x.te"], "did you mean 'check'?"),
        (["check", "--selct", "TE", "x.te"], "did you mean '--select'? (see 'cotaudit check --help')"),
        (["check", "--format", "jsn", "x.te"], "did you mean 'json'"),
        (["te", "covert", "x"], "did you mean 'convert'"),
        (["type6", "verify", "--max-path", "3", "x.t6"], None),  # argparse takes the unique prefix
    ],
)
def test_did_you_mean(capsys: pytest.CaptureFixture[str], argv: list[str], expected: str | None) -> None:
    code, _, err = _run(capsys, *argv)
    if expected is None:
        assert "did you mean" not in err
        return
    assert code == 2 and expected in err and len(err.splitlines()) == 1


def test_no_suggestion_when_nothing_is_close(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "zzzzzz")
    assert code == 2 and "invalid choice" in err and "did you mean" not in err


def test_bare_cotaudit_names_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    from cotaudit.cli.entry import _commands, build_parser

    code, _, err = _run(capsys)
    names = _commands(build_parser())
    assert code == 2 and len(names) >= 13
    assert all(f" {name}" in err for name in names)


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    import json

    text = Path(SLIP).read_text(encoding="utf-8")
    items = tmp_path / "items.jsonl"
    items.write_text(
        "".join(json.dumps({"id": f"q{i}", "engine": "te", "text": text}) + "\n" for i in range(3000))
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env.pop("COTAUDIT_DEBUG", None)
    for argv in (["check", str(items)], ["codes"], ["explain", "TE_E006"], ["check", "--help"]):
        proc = subprocess.Popen(
            [sys.executable, "-m", "cotaudit", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.readline()
        proc.stdout.close()  # what `| head -1` does
        err = proc.stderr.read().decode()
        proc.wait(timeout=120)
        assert "Traceback" not in err and "internal error" not in err and "BrokenPipe" not in err, (argv, err)


def test_help_into_a_closed_pipe_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    class Closed(io.StringIO):
        def write(self, s: str) -> int:
            raise BrokenPipeError

    monkeypatch.setattr(sys, "stdout", Closed())
    assert cli.main(["--help"]) in (0, 141)  # argparse drops the help quietly; no exception either way
    assert cli.main(["codes"]) in (0, 141)


def test_progress_bar_only_on_a_terminal_and_never_when_quiet() -> None:
    assert reporter_for(False, False, io.StringIO()) is None  # not a terminal: no bar
    assert reporter_for(True, False, _Tty()) is None  # --quiet: no bar
    tty = _Tty()
    bar = reporter_for(False, False, tty)
    assert bar is not None
    with progress.reporting(bar), progress.task("work", 3) as task:
        assert progress.active()
        for _ in range(3):
            task.advance()
    drawn = tty.getvalue()
    assert "work" in drawn and "3/3" in drawn and "items/s" in drawn and "ETA" in drawn
    assert not progress.active()


def test_batch_draws_its_bar_on_stderr_only(tmp_path: Path) -> None:
    import json
    import pty

    text = Path(SLIP).read_text(encoding="utf-8")
    items = tmp_path / "in.jsonl"
    items.write_text(
        "".join(json.dumps({"id": f"q{i}", "engine": "te", "text": text}) + "\n" for i in range(50))
    )
    primary, secondary = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "120"}
    env.pop("COTAUDIT_DEBUG", None)
    proc = subprocess.run(
        [sys.executable, "-m", "cotaudit", "batch", str(items), "-o", str(tmp_path / "out.jsonl")],
        stdout=subprocess.PIPE, stderr=secondary, env=env, timeout=300, check=False,
    )  # fmt: skip
    os.close(secondary)
    chunks = []
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(primary)
    drawn = b"".join(chunks).decode(errors="replace")
    assert proc.returncode == 1 and proc.stdout == b""
    assert "50/50" in drawn and "items/s" in drawn and "batch: 50 items checked" in drawn


def test_audit_quiet_and_verbose(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    html = str(tmp_path / "html")
    _, quiet, err = _run(capsys, "audit", "-q", "--html-dir", html, SLIP, JANET)
    assert quiet == f"{SLIP}:5:26: TE_E006 EQ[e3] claims 8 but 16-3-4 = 9\n" and err == ""
    _, normal, err = _run(capsys, "audit", "--html-dir", html, SLIP, JANET)
    assert "2 items (2 files)" in normal and err == ""  # near miss: the summary is back
    _, _, err = _run(capsys, "audit", "-v", "--html-dir", html, SLIP, JANET)
    assert err == f"cotaudit: HTML report: {html}/index.html\n"
