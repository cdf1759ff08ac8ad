"""The symbolic worker process (TE-25).

SymPy cannot be cancelled from inside its own thread, so traces that need it are linted in a
persistent child process: started lazily, SymPy imported once, address space capped at
2 GiB, every SymPy call under a ``setitimer`` deadline. The parent gives each trace a wall
budget; if the worker dies or overruns, the parent kills it (a new one starts on the next
symbolic trace) and the caller reports TE_E014 at the first symbolic line.

Protocol: one JSON object per line each way. Parent → worker ``{"text", "config"}``;
worker → parent ``{"ok": LintResult.to_dict()}`` or ``{"error": "..."}``. The first line the
worker prints is ``{"ready": true}``.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

import cotaudit.limits as budget
from cotaudit.te.config import LintConfig
from cotaudit.te.pipeline import run
from cotaudit.te.result import LintResult

_WARM_UP = """GIVEN:
  n := param(integer, positive)
  x := param(real)
  r := 3 [m]
  p := 2 [USD]
GOAL: s
EQ[e1]: s = Sum(k, (k, 1, n)) = n*(n + 1)/2
EQ[e2]: x**2 - 5*x + 6 = 0
EQ[e3]: x = 2
EQ[e4]: c = 2 * pi * r ≈ 18.85 [m]
EQ[e7]: z = exp(I*pi/4) * sqrt(2) = 1 + I
EQ[e8]: t = p * 3 = 6 [USD]
EQ[e5]: q = sqrt(8) * sqrt(2) = 4
EQ[e6]: l = log(8, 2) + exp(0) + sin(pi/6) = 9/2
CHECK[c1]: domain: is_positive(e1.value)
ANS: n*(n + 1)/2
"""
_START_TIMEOUT = 60.0  # importing SymPy on a cold, loaded machine
_MEMORY_LIMIT = 2 * 1024**3


class _Worker:
    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None
        self.lock = threading.Lock()

    def _start(self) -> subprocess.Popen[str] | None:
        env = dict(os.environ)
        src = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        try:
            proc = subprocess.Popen(
                [sys.executable, "-m", "cotaudit.te.worker"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                encoding="utf-8",
                env=env,
            )
        except OSError:
            return None
        assert proc.stdout is not None
        start_s = budget.remaining(_START_TIMEOUT)  # never past the caller's budget either
        assert start_s is not None
        line = _readline(proc.stdout, time.monotonic() + start_s)
        if line is None or '"ready"' not in line:
            _kill(proc)
            return None
        return proc

    def lint(self, text: str, config: LintConfig) -> dict[str, Any] | None:
        with self.lock:
            if self.proc is None or self.proc.poll() is not None:
                self.proc = self._start()
            proc = self.proc
            if proc is None:
                return None
            assert proc.stdin is not None and proc.stdout is not None
            request = json.dumps({"text": text, "config": config.to_dict()}, ensure_ascii=True)
            # The trace's budget runs from the moment it is handed over and never outlives the
            # caller's budget (cotaudit.limits).
            seconds = budget.remaining(config.limits.trace_timeout)
            assert seconds is not None
            if seconds <= 0:
                return None  # the caller's budget is spent already: keep the worker, send nothing
            deadline = time.monotonic() + seconds
            try:
                proc.stdin.write(request + "\n")
                proc.stdin.flush()
            except (BrokenPipeError, OSError):
                self._reset()
                return None
            line = _readline(proc.stdout, deadline)
            if line is None:
                self._reset()
                return None
            try:
                reply = json.loads(line)
            except json.JSONDecodeError:
                self._reset()
                return None
            ok = reply.get("ok")
            return ok if isinstance(ok, dict) else None

    def _reset(self) -> None:
        if self.proc is not None:
            _kill(self.proc)
        self.proc = None


def _kill(proc: subprocess.Popen[str]) -> None:
    try:
        proc.kill()
        proc.wait(timeout=5)
    except (OSError, subprocess.TimeoutExpired):  # pragma: no cover - best effort
        pass


def _readline(stream: IO[str], deadline: float) -> str | None:
    """One line from ``stream`` if it is there by ``deadline`` (``time.monotonic``). A line that
    is already waiting is always taken, even past the deadline: the work is done, and a parent
    that was kept off the CPU must not turn a finished trace into a timeout."""
    while True:
        remaining = max(0.0, deadline - time.monotonic())
        ready, _, _ = select.select([stream], [], [], remaining)
        if ready:
            line = stream.readline()
            return line if line else None
        if remaining == 0.0:
            return None


_worker = _Worker()


def lint_in_worker(text: str, config: LintConfig) -> LintResult | None:
    """Lint ``text`` symbolically in the worker; None if the worker failed or overran."""
    reply = _worker.lint(text, config)
    if reply is None:
        return None
    return LintResult.from_dict(reply)


def kill_worker() -> None:
    """Stop the worker (tests use this to exercise respawning)."""
    with _worker.lock:
        _worker._reset()


def worker_pid() -> int | None:
    proc = _worker.proc
    return proc.pid if proc is not None and proc.poll() is None else None


def main() -> None:  # pragma: no cover - runs in the child process; exercised by tests
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (_MEMORY_LIMIT, _MEMORY_LIMIT))
    except (ImportError, ValueError, OSError):
        pass
    from cotaudit.te import symbolic

    symbolic.sympy()
    # Warm SymPy's own caches and lazy imports on a trace that touches what traces use
    # (identities over params, sums, roots, constants, complex numbers, logarithms, units),
    # so the first real trace does not pay for them.
    run(_WARM_UP, LintConfig(), symbolic=True)
    out = sys.stdout
    out.write('{"ready": true}\n')
    out.flush()
    for line in sys.stdin:
        try:
            request = json.loads(line)
            config = LintConfig.from_dict(request["config"])
            result = run(request["text"], config, symbolic=True)
            reply: dict[str, Any] = {"ok": result.to_dict()}
        except MemoryError:
            reply = {"error": "MemoryError"}
        except Exception as exc:
            reply = {"error": type(exc).__name__}
        out.write(json.dumps(reply, ensure_ascii=True) + "\n")
        out.flush()


if __name__ == "__main__":  # pragma: no cover
    main()
