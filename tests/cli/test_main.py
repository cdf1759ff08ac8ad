"""The CLI (R-4): exit codes 0/1/2/3, one-line errors, formats, determinism, audit output.

In-process tests call ``cli.main(argv)``; subprocess tests run a fresh interpreter (with the
fake engine registered by the conftest launcher, or the plain ``python -m cotaudit``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from cotaudit import __version__, api, cli
from cotaudit.cli import entry
from cotaudit.errors import install_hint

RunCli = Callable[..., subprocess.CompletedProcess[bytes]]


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("cotaudit: ")
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture(autouse=True)
def _unavailable_engine(fake_engine: str) -> None:
    """A made-up engine that is known but not implemented (``.ng.json``): the example of an
    unavailable engine now that vericot exists. conftest's ``fake_engine`` undoes it."""
    api.register_engine("nextgen", None, (".ng.json",))


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    files = {
        "pass.fake": "fine\n",
        "fail.fake": "x BAD\nWARN\n",
        "abstain.fake": "UNSURE\n",
        "crash.fake": "CRASH\n",
        "dep.fake": "NEEDZ3\n",
        "sub/deep/ok.fake": "fine\n",
        "sub/skip.ng.json": "x\n",
        "sub/README.md": "hello\n",
        "items.jsonl": '{"id": "q1", "engine": "fake", "text": "fine"}\n{"id": "q2", "text": "BAD"}\n',
        "notes.md": "BAD\n",
        "x.ng.json": "x\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    (tmp_path / "latin.fake").write_bytes(b"ok\ncaf\xe9\n")
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


# --------------------------------------------------------------------------- exit codes in process


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["check", "pass.fake"], 0),
        (["check", "pass.fake", "sub/deep/ok.fake"], 0),
        (["check", "fail.fake"], 1),
        (["check", "pass.fake", "abstain.fake"], 1),
        (["check", "crash.fake"], 1),
        (["check", "--engine", "fake", "notes.md"], 1),
        (["check", "items.jsonl", "--engine", "fake"], 1),
        (["audit", "sub"], 0),
        (["audit", "sub", "fail.fake"], 0),  # audit reports; it exits 0 once it ran
        (["audit", "--strict", "sub"], 0),
        (["audit", "--strict", "sub", "fail.fake"], 1),
    ],
)
def test_exit_codes_0_and_1(
    tree: Path, capsys: pytest.CaptureFixture[str], argv: list[str], code: int
) -> None:
    got, _, err = _main(capsys, *argv)
    assert got == code, err
    if argv[0] == "check":
        assert err == ""


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["check", "missing.fake"], "cotaudit: missing.fake: no such file"),
        (["check", "sub"], "cotaudit: sub: is a directory (use 'cotaudit audit' to check a tree)"),
        (["check", "latin.fake"], "cotaudit: latin.fake: not UTF-8 text (byte 0xe9 at offset 6)"),
        (["check", "x.ng.json"], "cotaudit: engine 'nextgen' is not available in this version of cotaudit"),
        (["check", "--engine", "nextgen", "pass.fake"], None),
        (["check", "notes.md"], None),
        (["check", "-"], "cotaudit: reading stdin ('-') needs --engine"),
        (["check", "--engine", "fake", "-", "-"], "cotaudit: stdin ('-') can be given only once"),
        (["check", "--format", "xml", "pass.fake"], None),
        (["check", "--engine", "nope", "pass.fake"], None),
        (["check"], None),
        (["check", "pass.fake", "missing.fake"], "cotaudit: missing.fake: no such file"),
        (["audit", "empty"], "cotaudit: no supported files found in empty"),
        (["audit", "nope"], "cotaudit: nope: no such file or directory"),
        (
            [],
            "cotaudit: missing command: check, audit, batch, serve, report, export, codes, explain, "
            "config, te, type6, vericot, certify, eval (see 'cotaudit --help')",
        ),
        (["frobnicate"], None),
        (["te"], "cotaudit: 'cotaudit te' needs a tool: convert, corrupt, emit, extract, np"),
    ],
)
def test_exit_code_2(
    tree: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str | None
) -> None:
    code, out, err = _main(capsys, *argv)
    assert code == 2
    assert out == ""
    line = _one_error_line(err)
    if message is not None:
        assert line == message


def test_unknown_extension_message(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, _, err = _main(capsys, "check", "notes.md")
    line = _one_error_line(err)
    assert line.startswith("cotaudit: notes.md: cannot tell the engine from the file name")
    assert ".te" in line and ".vcot.json" in line and line.endswith("give --engine")


def test_audit_with_only_unsupported_files(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _main(capsys, "audit", "x.ng.json", "notes.md")
    assert code == 2
    assert _one_error_line(err) == (
        "cotaudit: no supported files found in x.ng.json notes.md"
        " (skipped: 1 engine not available, 1 not a trace file)"
    )


def test_exit_code_3_missing_dependency(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _main(capsys, "check", "pass.fake", "dep.fake")
    assert code == 3 and out == ""
    assert _one_error_line(err) == f"cotaudit: missing optional dependency 'z3': {install_hint('z3')}"
    code, _, err = _main(capsys, "audit", ".")
    assert code == 3
    _one_error_line(err)


def test_version_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _main(capsys, "--version")
    assert code == 0 and out == f"cotaudit {__version__}\n"
    code, out, _ = _main(capsys, "check", "--help")
    assert code == 0 and "--no-timing" in out and "--engine" in out


def test_internal_error_is_one_line(
    tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("unexpected\nproblem")

    monkeypatch.setattr(api, "audit", boom)
    code, _, err = _main(capsys, "audit", ".")
    assert code == 2
    line = _one_error_line(err)
    assert line.startswith("cotaudit: internal error: RuntimeError: unexpected\\nproblem")
    monkeypatch.setenv("COTAUDIT_DEBUG", "1")
    with pytest.raises(RuntimeError):
        cli.main(["audit", "."])


def test_te_group_is_extensible(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def add(subparsers: object) -> None:
        tool = subparsers.add_parser("hello")  # type: ignore[attr-defined]
        tool.add_argument("--name", default="te")
        tool.set_defaults(handler=lambda args: print(f"hello {args.name}") or 0)

    groups = [(name, add if name == "te" else register) for name, register in entry.ENGINE_GROUPS]
    monkeypatch.setattr(entry, "ENGINE_GROUPS", tuple(groups))
    code, out, _ = _main(capsys, "te", "hello", "--name", "x")
    assert (code, out) == (0, "hello x\n")
    code, _, err = _main(capsys, "te")
    assert code == 2 and _one_error_line(err) == "cotaudit: 'cotaudit te' needs a tool: hello"


# --------------------------------------------------------------------------- formats


def test_text_format(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _main(capsys, "check", "fail.fake", "pass.fake", "crash.fake")
    assert code == 1
    assert out == (
        "fail.fake:1:3: FAKE_E001 line contains BAD\n"
        "fail.fake:2: FAKE_W001 line contains WARN\n"
        "fail.fake: fail (1 error, 1 warning)\n"
        "crash.fake: invalid (internal error in engine 'fake': RuntimeError: fake engine crashed on line 1)\n"
        "Found 1 error and 1 warning in 2 of 3 items (1 pass, 1 fail, 1 invalid).\n"
    )
    code, out, _ = _main(capsys, "check", "--verbose", "--no-timing", "fail.fake", "pass.fake")
    assert "pass.fake: pass (0 errors, 0 warnings)\n" in out  # --verbose: every item's verdict


def test_json_object_for_one_input_list_for_several(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = _main(capsys, "check", "--format", "json", "fail.fake")
    one = json.loads(out)
    assert isinstance(one, dict) and one["input"]["path"] == "fail.fake" and "timing_ms" in one
    _, out, _ = _main(capsys, "check", "--format", "json", "--no-timing", "fail.fake", "pass.fake")
    several = json.loads(out)
    assert [r["verdict"] for r in several] == ["fail", "pass"]
    assert all("timing_ms" not in r for r in several)
    _, out, _ = _main(capsys, "check", "--format", "json", "items.jsonl", "--engine", "fake")
    assert [r["input"]["id"] for r in json.loads(out)] == ["q1", "q2"]


def test_jsonl_format_is_a_run_log(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = _main(capsys, "check", "--format", "jsonl", "--no-timing", "fail.fake", "pass.fake")
    lines = out.splitlines()
    assert json.loads(lines[0]) == {
        "schema_version": 1,
        "kind": "header",
        "cotaudit_version": __version__,
        "config": {"command": "check", "engine": None, "inputs": ["fail.fake", "pass.fake"]},
    }
    assert [json.loads(line)["verdict"] for line in lines[1:]] == ["fail", "pass"]


def test_sarif_format(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _main(capsys, "check", "--format", "sarif", "fail.fake", "pass.fake")
    assert code == 1
    log = json.loads(out)
    assert log["version"] == "2.1.0"
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["FAKE_E001", "FAKE_W001"]


def test_output_file(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _main(capsys, "check", "--format", "json", "-o", "out.json", "fail.fake")
    assert code == 1 and out == ""
    assert json.loads((tree / "out.json").read_text(encoding="utf-8"))["verdict"] == "fail"
    code, _, err = _main(capsys, "check", "-o", "no/such/dir/out.txt", "fail.fake")
    assert code == 2 and _one_error_line(err).startswith("cotaudit: no/such/dir/out.txt: cannot write")


def test_stdin(tree: Path, run_cli: RunCli) -> None:
    proc = run_cli(["check", "--engine", "fake", "-"], cwd=tree, stdin=b"ok\nBAD\n")
    assert proc.returncode == 1, proc.stderr
    assert (
        proc.stdout.decode()
        == "<stdin>:2:1: FAKE_E001 line contains BAD\n<stdin>: fail (1 error, 0 warnings)\n"
        "Found 1 error in 1 of 1 item (1 fail).\n"
    )
    proc = run_cli(["check", "--engine", "fake", "-"], cwd=tree, stdin=b"\xff")
    assert proc.returncode == 2
    assert proc.stderr.decode() == "cotaudit: <stdin>: not UTF-8 text (byte 0xff at offset 0)\n"


# --------------------------------------------------------------------------- audit


def test_audit_text(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "dep.fake").unlink()
    code, out, err = _main(capsys, "audit", "--no-timing", ".")
    assert code == 0 and err == ""
    assert out == (
        "fail.fake:1:3: FAKE_E001 line contains BAD\n"
        "fail.fake:2: FAKE_W001 line contains WARN\n"
        "crash.fake: invalid (internal error in engine 'fake': RuntimeError: fake engine crashed on line 1)\n"
        "latin.fake: invalid (not UTF-8 text (byte 0xe9 at offset 6))\n"
        "sub/skip.ng.json: skipped (engine 'nextgen' is not available in this version of cotaudit)\n"
        "x.ng.json: skipped (engine 'nextgen' is not available in this version of cotaudit)\n"
        "\n"
        "engine  verdict  errors  warnings  first            ms  file\n"
        "fake    abstain       0         0  -                 -  abstain.fake\n"
        "fake    invalid       0         0  (invalid input)   -  crash.fake\n"
        "fake    fail          1         1  1 FAKE_E001       -  fail.fake\n"
        "fake    invalid       0         0  (invalid input)   -  latin.fake\n"
        "fake    pass          0         0  -                 -  pass.fake\n"
        "fake    pass          0         0  -                 -  sub/deep/ok.fake\n"
        "\n"
        "6 items (6 files)  pass: 2  fail: 1  abstain: 1  invalid: 2\n"
        "findings: 2 (1 error, 1 warning)\n"
        "time: -\n"
        "skipped: 5 files (1 .jsonl not named explicitly, 2 engine not available, 2 not a trace file)\n"
    )
    assert all(len(line) <= 100 for line in out.splitlines())


def test_audit_json(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _main(capsys, "audit", "--format", "json", "--no-timing", "sub")
    assert code == 0
    assert [r["input"]["path"] for r in json.loads(out)] == ["sub/deep/ok.fake"]


# --------------------------------------------------------------------------- fresh processes


@pytest.mark.parametrize(
    "argv",
    [
        [
            "check",
            "--no-timing",
            "--format",
            "json",
            "fail.fake",
            "pass.fake",
            "items.jsonl",
            "--engine",
            "fake",
        ],
        ["check", "--no-timing", "--format", "jsonl", "fail.fake", "crash.fake"],
        ["check", "--no-timing", "--format", "sarif", "fail.fake", "latin.fake"],
        ["audit", "--no-timing", "sub", "fail.fake", "abstain.fake", "crash.fake"],
        ["audit", "--no-timing", "--format", "json", "."],
    ],
)
def test_no_timing_is_byte_identical_across_processes(tree: Path, run_cli: RunCli, argv: list[str]) -> None:
    (tree / "dep.fake").unlink()
    (tree / "latin.fake").write_text("BAD ü\n", encoding="utf-8")
    first = run_cli(argv, cwd=tree, env={"PYTHONHASHSEED": "1"})
    second = run_cli(argv, cwd=tree, env={"PYTHONHASHSEED": "4242"})
    assert first.returncode in (0, 1), first.stderr
    assert first.stdout == second.stdout
    assert first.returncode == second.returncode
    assert b"timing_ms" not in first.stdout


def test_subprocess_exit_codes(tree: Path, run_cli: RunCli) -> None:
    assert run_cli(["check", "pass.fake"], cwd=tree).returncode == 0
    assert run_cli(["check", "fail.fake"], cwd=tree).returncode == 1
    proc = run_cli(["check", "missing.fake"], cwd=tree)
    assert proc.returncode == 2 and proc.stderr == b"cotaudit: missing.fake: no such file\n"
    proc = run_cli(["check", "dep.fake"], cwd=tree)
    assert proc.returncode == 3
    assert proc.stderr.decode() == f"cotaudit: missing optional dependency 'z3': {install_hint('z3')}\n"


def test_closed_pipe_keeps_the_exit_code(tree: Path, fake_launcher: str) -> None:
    (tree / "big.fake").write_text("BAD\n" * 20000, encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-c", fake_launcher, "check", "big.fake"],
        cwd=tree,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.read(10) == b"big.fake:1"
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 1
    assert err == b""


def test_python_dash_m_without_fake_engine(tree: Path, run_cli: RunCli) -> None:
    proc = run_cli(["--version"], cwd=tree, fake=False)
    assert proc.returncode == 0 and proc.stdout.decode() == f"cotaudit {__version__}\n"
    (tree / "y.vcot.json").write_text("x\n", encoding="utf-8")
    proc = run_cli(["check", "y.vcot.json"], cwd=tree, fake=False)  # the real vericot engine
    assert proc.returncode == 1 and b"VC_E005" in proc.stdout
    proc = run_cli(["check", "x.ng.json"], cwd=tree, fake=False)
    assert proc.returncode == 2 and proc.stderr.startswith(b"cotaudit: x.ng.json: cannot tell the engine")
    proc = run_cli(["check", "pass.fake"], cwd=tree, fake=False)
    assert proc.returncode == 2 and proc.stderr.startswith(b"cotaudit: pass.fake: cannot tell the engine")


def test_cli_import_is_light() -> None:
    code = (
        "import sys, cotaudit.cli\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('sympy', 'pint', 'z3', 'openai', 'ray')"
        " or m.startswith(('cotaudit.te', 'cotaudit.type6', 'cotaudit.vericot', 'cotaudit.certify')))\n"
        "print(bad)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
