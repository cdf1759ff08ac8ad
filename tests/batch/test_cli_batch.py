"""``cotaudit batch`` on the command line: exit codes, one-line errors, the resume hint."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from batch.slow_engine import register, write_items
from cotaudit import cli
from cotaudit.errors import install_hint


@pytest.fixture(autouse=True)
def slow_engine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    register()
    monkeypatch.chdir(tmp_path)
    yield


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_all_pass_exits_0_and_prints_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    write_items(Path("in.jsonl"), ["ok", "fine"])
    code, out, err = _main(capsys, "batch", "in.jsonl", "-o", "out.jsonl")
    assert code == 0 and out == ""
    assert err.startswith("batch: 2 items checked in ") and "pass: 2" in err


def test_findings_exit_1_and_quiet_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    write_items(Path("in.jsonl"), ["ok", "BAD"])
    code, out, err = _main(capsys, "batch", "in.jsonl", "-o", "out.jsonl", "--quiet", "--workers", "2")
    assert (code, out, err) == (1, "", "")


def test_engine_flag_fills_missing_engine_fields(capsys: pytest.CaptureFixture[str]) -> None:
    Path("in.jsonl").write_text('{"id": "a", "text": "fine"}\n', encoding="utf-8")
    assert _main(capsys, "batch", "in.jsonl", "-o", "out.jsonl", "--engine", "fake")[0] == 0
    assert '"engine":"fake"' in Path("out.jsonl").read_text()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["batch", "in.jsonl"], "the following arguments are required: -o/--output"),
        (["batch", "missing.jsonl", "-o", "out.jsonl"], "missing.jsonl: no such file"),
        (["batch", "in.jsonl", "-o", "out.jsonl", "--workers", "0"], "--workers must be at least 1, got 0"),
        (["batch", "in.jsonl", "-o", "out.jsonl", "--timeout", "-1"], "--timeout must not be negative"),
        (
            ["batch", "in.jsonl", "-o", "out.jsonl", "--ray-address", "auto"],
            "--ray-address needs --backend ray",
        ),
        (["batch", "in.jsonl", "-o", "in.jsonl"], "the output must not be the input file"),
    ],
)
def test_usage_errors_exit_2_on_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    write_items(Path("in.jsonl"), ["ok"])
    code, _, err = _main(capsys, *argv)
    assert code == 2
    assert err.splitlines() == [err.strip()] and message in err and "Traceback" not in err


def test_existing_output_without_resume(capsys: pytest.CaptureFixture[str]) -> None:
    write_items(Path("in.jsonl"), ["ok"])
    assert _main(capsys, "batch", "in.jsonl", "-o", "out.jsonl")[0] == 0
    code, _, err = _main(capsys, "batch", "in.jsonl", "-o", "out.jsonl")
    assert code == 2 and err == "cotaudit: out.jsonl exists (give --resume to continue it, or remove it)\n"
    code, _, err = _main(capsys, "batch", "in.jsonl", "-o", "out.jsonl", "--resume")
    assert code == 0 and "0 items checked, 1 already done" in err


def test_resume_with_other_limits_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    write_items(Path("in.jsonl"), ["ok", "fine"])
    assert _main(capsys, "batch", "in.jsonl", "-o", "out.jsonl", "--memory-limit", "512")[0] == 0
    code, _, err = _main(capsys, "batch", "in.jsonl", "-o", "out.jsonl", "--resume", "--time-limit", "5")
    assert code == 2 and err == (
        "cotaudit: out.jsonl was written with --time-limit 60, not with --time-limit 5; "
        "resume with the same --time-limit\n"
    )
    code, _, err = _main(capsys, "batch", "in.jsonl", "-o", "out.jsonl", "--resume", "--memory-limit", "0")
    assert code == 2 and "with --memory-limit 512, not with --memory-limit none" in err
    # near miss: the same limits, given as they were
    code, _, err = _main(capsys, "batch", "in.jsonl", "-o", "out.jsonl", "--resume", "--memory-limit", "512")
    assert code == 0 and "0 items checked, 2 already done" in err


def test_ray_missing_is_exit_3_with_the_install_hint(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    write_items(Path("in.jsonl"), ["ok"])
    code, _, err = _main(capsys, "batch", "in.jsonl", "-o", "out.jsonl", "--backend", "ray")
    assert code == 3 and err == f"cotaudit: missing optional dependency 'ray': {install_hint('ray')}\n"


def test_interrupt_says_how_to_resume(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import cotaudit.batch.runner as runner

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "run_batch", interrupted)
    write_items(Path("in.jsonl"), ["ok"])
    code, _, err = _main(capsys, "batch", "in.jsonl", "-o", "out.jsonl")
    assert code == 130
    assert err == "cotaudit: interrupted; continue with: cotaudit batch in.jsonl -o out.jsonl --resume\n"


def test_the_resume_hint_repeats_the_options_a_resume_must_match(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import cotaudit.batch.runner as runner

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "run_batch", interrupted)
    write_items(Path("in file.jsonl"), ["ok"])
    code, _, err = _main(
        capsys, "batch", "in file.jsonl", "-o", "out.jsonl", "--ignore", "TE_E006", "--resume"
    )
    assert code == 130
    hint = "cotaudit batch 'in file.jsonl' -o out.jsonl --ignore TE_E006 --resume"
    assert err == f"cotaudit: interrupted; continue with: {hint}\n"  # --resume once, quoted path
