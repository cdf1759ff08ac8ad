"""A test engine whose items take time, hang, crash or kill their worker, on request.

Per line of the text: ``SLEEP s`` sleeps ``s`` seconds; ``HANG`` sleeps forever; ``SPIN``
burns the CPU forever; ``WORK s`` works ``s`` seconds the way a real engine does, calling
``limits.checkpoint()`` (so a budget stops it); ``EXIT`` ends the worker process
(``os._exit(3)``); ``CRASH`` raises; ``ALLOC m`` maps ``m`` MiB for the item, ``LEAK m`` maps
``m`` MiB and keeps them (both untouched: no resident memory), ``TOUCH m`` fills ``m`` MiB
for the rest of the item (resident); ``PID`` and ``ENV NAME`` put the worker's pid and
``$NAME`` in ``details``; ``ORPHAN`` starts a ``sleep 600`` in a session of its own, which
outlives the worker (its pid in ``details.orphan``: a leftover for the tests that look for
leftovers); ``BIG n`` adds ``n`` info findings with a little evidence each (``BIG 150000``: a
report of about 30 MB, some millions of objects once parsed). ``BAD`` anywhere makes the
verdict ``fail``.
Subprocess tests run the CLI through :data:`LAUNCHER`, which loads this file, registers the
engine (with ``planned``, an engine that is known but not implemented, and a write endpoint for
the service) and calls ``cotaudit.cli.main``.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cotaudit import api, limits
from cotaudit.report import Finding, InputRef, Location, Report

HERE = Path(__file__).resolve()
_KEPT: list[bytes] = []  # what LEAK keeps
_ORPHANS: list[subprocess.Popen[bytes]] = []  # what ORPHAN started (kept: no ResourceWarning)


def slow_check(text: str, *, path: str | None = None, item_id: str | None = None) -> Report:
    details: dict[str, Any] = {}
    big: list[Finding] = []
    for line in text.split("\n"):
        word = line.strip()
        if word.startswith("SLEEP "):
            time.sleep(float(word.split()[1]))
        elif word.startswith("WORK "):
            until = time.monotonic() + float(word.split()[1])
            while time.monotonic() < until:
                limits.checkpoint()
                time.sleep(0.005)
        elif word.startswith("ALLOC "):
            block = bytes(int(word.split()[1]) << 20)  # calloc: mapped, not touched
            details["allocated"] = len(block) >> 20
            del block
        elif word.startswith("TOUCH "):
            details.setdefault("touched", []).append(bytearray(b"x" * (int(word.split()[1]) << 20)))
        elif word.startswith("LEAK "):
            _KEPT.append(bytes(int(word.split()[1]) << 20))
        elif word.startswith("BIG "):
            big.extend(
                Finding("SLOW_I002", "info", Location(step=f"s{k}"), f"node {k}", {"path": [k, k + 1, k + 2]})
                for k in range(int(word.split()[1]))
            )
        elif word == "ORPHAN":
            _ORPHANS.append(subprocess.Popen(["sleep", "600"], start_new_session=True))
            details["orphan"] = _ORPHANS[-1].pid
        elif word == "PID":
            details["pid"] = os.getpid()
        elif word.startswith("ENV "):
            details["env"] = os.environ.get(word.split()[1])
        elif word == "HANG":
            while True:
                time.sleep(0.05)
        elif word == "SPIN":
            while True:
                pass
        elif word == "EXIT":
            os._exit(3)
        elif word == "CRASH":
            raise RuntimeError("slow engine crashed")
    details.pop("touched", None)
    findings = tuple(
        Finding("SLOW_E001", "error", Location(line=n), "BAD line", {"column": line.find("BAD") + 1})
        for n, line in enumerate(text.split("\n"), start=1)
        if "BAD" in line
    ) + tuple(big)
    return Report(
        engine="slow",
        engine_version="slow/1",
        input=InputRef.for_text(text, path, item_id),
        verdict="fail" if findings else "pass",
        findings=findings,
        details=details,
    )


def echo(body: Mapping[str, Any]) -> Mapping[str, Any]:
    """A write endpoint for the service tests: echoes the body, or refuses ``{"bad": ...}``."""
    if "bad" in body:
        raise ValueError("bad body")
    return {"echo": dict(body)}


def register() -> None:
    api.register_engine("slow", slow_check, (".slow",))
    # a known engine with no implementation, whatever real engines this checkout has
    api.register_engine("planned", None, (".planned",))
    from cotaudit.service.config import register_route

    register_route("slow", "echo", echo, write=True, summary="echo (test)")


LAUNCHER = (
    "import importlib.util, sys\n"
    f"spec = importlib.util.spec_from_file_location('cotaudit_test_slow_engine', {str(HERE)!r})\n"
    "mod = importlib.util.module_from_spec(spec)\n"
    "spec.loader.exec_module(mod)\n"
    "mod.register()\n"
    "from cotaudit.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def write_items(path: Path, texts: list[str], *, engine: str = "slow", prefix: str = "i") -> list[str]:
    """A JSONL file with one item per text; returns the ids."""
    import json

    ids = [f"{prefix}{n:04d}" for n in range(len(texts))]
    with path.open("w", encoding="utf-8") as fh:
        for item_id, text in zip(ids, texts, strict=True):
            fh.write(json.dumps({"id": item_id, "engine": engine, "text": text}) + "\n")
    return ids


def descendants(pid: int) -> set[int]:
    """Live processes below ``pid`` (children, their children ...), from /proc (Linux)."""
    parent: dict[int, int] = {}
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                parent[int(proc.name)] = int(fields[1])
    below, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, pp in parent.items() if pp in frontier} - below
        below |= frontier
    return below


def alive(pids: set[int]) -> set[int]:
    """Those of ``pids`` that are still running (zombies count as gone)."""
    left = set()
    for pid in pids:
        try:
            state = (Path(f"/proc/{pid}") / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            left.add(pid)
    return left


def processes_mentioning(token: str) -> list[int]:
    """Pids of live processes whose command line contains ``token`` (Linux /proc)."""
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            state = next(
                (ln for ln in (proc / "status").read_text().splitlines() if ln.startswith("State:")), ""
            )
        except OSError:
            continue
        if token in cmdline and "Z" not in state.split()[1:2]:
            pids.append(int(proc.name))
    return pids
