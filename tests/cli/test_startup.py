"""Start-up (issue 18): a te check imports only what the trace needs.

Each case runs a fresh interpreter (``python -m cotaudit check FILE`` through ``cli.main``) and
looks at ``sys.modules`` afterwards: a trace in dollars, plain counts or physical units loads none
of the heavy libraries (no pint: te reads unit factors from a table generated from pint); only a
symbolic trace reaches SymPy, and then in its worker process, not in the CLI's. Time itself is
measured by ``benchmarks/cli_startup.py``, never asserted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("pint", "sympy", "numpy", "scipy", "networkx", "z3", "lark", "pydantic", "rich", "mpmath", "yaml")

PROBE = """
import io, json, sys, contextlib
from cotaudit.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[1:])
heavy = sorted({m.split('.')[0] for m in sys.modules} & set(json.loads(sys.stdin.read())))
print(json.dumps({"code": code, "heavy": heavy}))
"""


def _heavy_after(*argv: str) -> tuple[int, list[str]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env.pop("COTAUDIT_DEBUG", None)
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        input=json.dumps(HEAVY), cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    out = json.loads(proc.stdout)
    return out["code"], out["heavy"]


@pytest.mark.parametrize(
    ("example", "verdict_code"),
    [
        ("A_janet.te", 0),  # [USD]: currency never needs pint
        ("C_arithmetic_slip.te", 1),
        ("D_wrong_unit.te", 1),  # [m/s], [s], [miles]: physical units need no pint either
        ("N_composite_units.te", 1),  # [m], [s], [m^2]
        ("M_contradiction.te", 1),
        ("K_hedging.te", 1),
        ("T_gsm8k_janet.te", 0),
    ],
)
def test_a_te_check_without_symbols_imports_nothing_heavy(example: str, verdict_code: int) -> None:
    code, heavy = _heavy_after("check", f"examples/te/{example}")
    assert code == verdict_code
    assert heavy == []


def test_a_symbolic_trace_keeps_sympy_out_of_the_cli_process() -> None:
    code, heavy = _heavy_after("check", "examples/te/O_parametric.te")
    assert code == 0
    assert heavy == []  # SymPy runs in the te worker process


ARGVS = [
    ["check", "x.te"],
    ["-q", "check", "--ignore", "TE_W001", "x.te"],
    ["--color", "always", "audit", "--strict", "x"],
    ["batch", "in.jsonl", "-o", "out.jsonl", "--workers", "2"],
    ["te", "convert", "g.jsonl", "-o", "o.jsonl"],
    ["type6", "render", "t.t6", "--columns", "3"],
    ["certify", "query", "--db", "s.sqlite", "goal(x)"],
    ["eval", "te", "--runs", "1"],
    ["report", "r.jsonl", "-o", "d"],
    ["explain", "TE_E006"],
    ["config", "-v"],
]


@pytest.mark.parametrize("argv", ARGVS, ids=lambda a: " ".join(a))
def test_the_partial_parser_parses_like_the_whole_one(argv: list[str]) -> None:
    from cotaudit.cli.entry import build_parser

    def plain(ns: object) -> dict[str, object]:
        return {k: v for k, v in vars(ns).items() if not callable(v)}

    whole = build_parser().parse_args(argv)
    part = build_parser(argv).parse_args(argv)
    assert plain(part) == plain(whole)
    assert getattr(part.handler, "__qualname__", None) == getattr(whole.handler, "__qualname__", None)


def test_an_unknown_command_builds_the_whole_parser_for_did_you_mean() -> None:
    from cotaudit.cli.entry import _commands, build_parser

    assert len(_commands(build_parser(["chek"]))) == len(_commands(build_parser()))
    assert _commands(build_parser(["check", "x.te"])) == ["check"]  # near miss: a known command


def test_a_short_check_asks_the_sympy_worker_to_skip_its_warm_up(monkeypatch: pytest.MonkeyPatch) -> None:
    from cotaudit.cli.check import WARMUP_ENV, _short_run
    from cotaudit.te import worker

    assert WARMUP_ENV == worker.WARMUP_ENV
    monkeypatch.delenv(WARMUP_ENV, raising=False)
    with _short_run(1):
        assert os.environ[WARMUP_ENV] == "0"
    assert WARMUP_ENV not in os.environ  # put back
    with _short_run(50):
        assert WARMUP_ENV not in os.environ  # near miss: a long run keeps the warm-up
    monkeypatch.setenv(WARMUP_ENV, "1")
    with _short_run(1):
        assert os.environ[WARMUP_ENV] == "1"  # the caller's own setting wins
