"""Exit codes and messages of the cases issue 18 lists: an empty conversion, an extraction that
finds nothing, a busy port, a dead language-model server."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from cotaudit import cli

ROOT = Path(__file__).resolve().parents[2]
GSM8K_ITEM = {
    "question": "Janet has 16 eggs. She eats 3. How many are left?",
    "answer": "She has 16 - 3 = <<16-3=13>>13 eggs left.\n#### 13",
}


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_convert_with_nothing_converted_fails_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "not_gsm8k.jsonl"
    src.write_text('{"question": "q", "foo": 1}\n{"prompt": "x"}\n', encoding="utf-8")
    code, _, err = _run(capsys, "te", "convert", str(src), "-o", str(tmp_path / "out.jsonl"))
    assert code == 1
    assert "converted 0 of 2 items" in err and "nothing converted: no item is a GSM8K item" in err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    code, _, err = _run(capsys, "te", "convert", str(empty), "-o", str(tmp_path / "out2.jsonl"))
    assert code == 1 and "nothing converted: the file holds no items" in err


def test_convert_near_miss_one_real_item_is_success(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "gsm8k.jsonl"
    src.write_text(json.dumps(GSM8K_ITEM) + '\n{"question": "q", "foo": 1}\n', encoding="utf-8")
    code, _, err = _run(capsys, "te", "convert", str(src), "-o", str(tmp_path / "out.jsonl"))
    assert code == 0 and "converted 1 of 2 items" in err and "nothing converted" not in err


def test_extract_without_a_trace_fails_and_echoes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = tmp_path / "raw.txt"
    raw.write_text("The answer is 13 eggs.\n", encoding="utf-8")
    code, out, err = _run(capsys, "te", "extract", str(raw))
    assert (code, out) == (1, "")
    assert err == f"cotaudit: {raw}: no TE trace found (no line starts with GIVEN:)\n"
    raw.write_text("Sure! Here it is:\n```\n" + (ROOT / "examples/te/A_janet.te").read_text() + "```\n")
    code, out, err = _run(capsys, "te", "extract", str(raw))  # near miss: a trace is there
    assert code == 0 and out.startswith("GIVEN:") and "trace starts at line 3" in err


def test_serve_on_a_busy_port_is_one_line_exit_2() -> None:
    pytest.importorskip("fastapi")
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        env.pop("COTAUDIT_DEBUG", None)
        proc = subprocess.run(
            [sys.executable, "-m", "cotaudit", "serve", "--port", str(port)],
            capture_output=True, text=True, env=env, timeout=120, check=False,
        )  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == (
        f"cotaudit: cannot serve on 127.0.0.1:{port}: the port is in use (pick another with --port)\n"
    )


def test_the_port_probe_near_miss_a_free_port_passes() -> None:
    from cotaudit.cli.ports import ensure_bindable

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    ensure_bindable("127.0.0.1", port)  # free again: no error
    ensure_bindable("127.0.0.1", 0)


def test_a_dead_llm_server_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("openai")
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    problem = tmp_path / "p.txt"
    problem.write_text("Janet has 16 eggs. She eats 3. How many are left?\n", encoding="utf-8")
    code, _, err = _run(
        capsys, "te", "emit", str(problem), "--llm-base-url", url, "--llm-model", "m",
        "--llm-retries", "0", "--llm-mode", "off", "--llm-timeout", "5",
    )  # fmt: skip
    assert code == 1
    assert f"{url}: connection failed" in err
