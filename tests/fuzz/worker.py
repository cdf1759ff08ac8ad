"""The fuzz worker process: runs one input at a time under the per-input budget and reports back.

Started by :mod:`tests.fuzz.guard` as ``python -m tests.fuzz.worker SETTINGS_JSON`` in its own
session (so the guard can kill it with its children, te's SymPy worker included). Protocol:
length-prefixed pickles on the inherited stdin/stdout (stdout is moved to a private file
descriptor first, so a stray ``print`` in an engine cannot corrupt it).

worker → parent: ``("ready", info)`` once warm; then per job ``("checked", r)`` when the call
itself returned (only the call is timed; the guard's limit for the check ends here),
``("writing", step)`` as the fingerprint, each writer and the diagnosis start (each gets a
limit of its own), and ``("done", r)`` at the end.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import pickle
import struct
import sys
import time
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

import cotaudit
from cotaudit.report import Report

_HEADER = struct.Struct(">Q")
PKG_ROOT = Path(cotaudit.__file__).resolve().parent
CANON_PREFIX = 256 * 1024  # how much of a canonical output travels back for a diff
# Codes that mean "a bound was hit": their reports are always rechecked for determinism.
BUDGET_CODES = frozenset({"COTAUDIT_W001", "COTAUDIT_W002"})
NEAR_LIMIT_CODES = BUDGET_CODES | {
    "CERTIFY_E012",
    "CERTIFY_W002",
    "TE_E014",
    "T6_W007",
    "T6_W009",
    "VC_W001",
}


def send(out: IO[bytes], obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:  # a raw pipe may take part of a large message per write
        n = out.write(view)
        view = view[n or 0 :]
    out.flush()


def recv(inp: IO[bytes]) -> Any:
    """The next message, or ``None`` at end of input."""
    head = _read_exact(inp, _HEADER.size)
    if head is None:
        return None
    (size,) = _HEADER.unpack(head)
    body = _read_exact(inp, size)
    if body is None:
        return None
    return pickle.loads(body)  # our own parent/child pipe, never untrusted bytes


def _read_exact(inp: IO[bytes], n: int) -> bytes | None:
    parts: list[bytes] = []
    while n:
        chunk = inp.read(n)
        if not chunk:
            return None
        parts.append(chunk)
        n -= len(chunk)
    return b"".join(parts)


# --------------------------------------------------------------------------- signatures


def top_frame(tb: Any) -> str:
    """``cotaudit/<path>:<function>`` of the innermost frame inside cotaudit (else the innermost)."""
    frames = traceback.extract_tb(tb)
    if not frames:
        return "?"
    ours = [f for f in frames if Path(f.filename).is_relative_to(PKG_ROOT)]
    frame = (ours or frames)[-1]
    where = Path(frame.filename)
    rel = where.relative_to(PKG_ROOT.parent).as_posix() if ours else where.name
    return f"{rel}:{frame.name}"


def describe(exc: BaseException) -> dict[str, str]:
    """Type, top frame, one-line message and the formatted traceback of ``exc``."""
    message = " ".join(_safe_str(exc).split())[:500]
    return {
        "type": type(exc).__name__,
        "frame": top_frame(exc.__traceback__),
        "message": message,
        "traceback": "".join(traceback.format_exception(exc))[-20_000:],
    }


def _safe_str(value: object) -> str:
    try:
        return str(value).encode("utf-8", "backslashreplace").decode("utf-8")
    except Exception:  # a hostile __str__
        return f"<unprintable {type(value).__name__}>"


def canonical_text(value: Any) -> str:
    """Canonical JSON (sorted keys, ASCII, lone surrogates escaped): the determinism fingerprint."""
    return json.dumps(value, sort_keys=True, ensure_ascii=True, separators=(",", ":"), allow_nan=True)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


# --------------------------------------------------------------------------- running one input


class Runner:
    """Everything a worker needs loaded once: the engines, the writers, the rechecker's kernel."""

    def __init__(self, budget_s: float, memory_mb: int) -> None:
        from cotaudit import __version__, api
        from cotaudit.limits import Limits

        self.api = api
        self.version = __version__
        self.limits = Limits(wall_s=budget_s, memory_mb=memory_mb)
        self._kernel: Any = None

    # -- the check (phase 1): only the call itself is timed
    def check(self, target: Any, text: str) -> tuple[dict[str, Any], Any]:
        """Run ``text`` through ``target``; returns the result for the parent and the outcome
        (the report, the recheck result, the parsed document, or what stopped it)."""
        result: dict[str, Any] = {"escaped": None, "internal_error": None, "budget": None, "codes": []}
        outcome: Any = None
        start = time.perf_counter()
        try:
            if target.kind == "engine":
                outcome = self.api.check(
                    text, target.engine, path=target.path, item_id="fuzz", limits=self.limits
                )
            elif target.kind == "recheck":
                outcome = self._recheck(text, result)
            else:
                outcome = self._kb_parse(text)
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            result["escaped"] = describe(exc)
            outcome = {"escaped": type(exc).__name__, "frame": result["escaped"]["frame"]}
        result["elapsed_s"] = time.perf_counter() - start
        if isinstance(outcome, Report):
            self._describe_report(outcome, result)
        elif hasattr(outcome, "codes"):
            result["codes"] = outcome.codes()
        return result, outcome

    def _describe_report(self, report: Any, result: dict[str, Any]) -> None:
        codes = sorted({f.code for f in report.findings})
        result["codes"] = codes
        result["verdict"] = report.verdict
        budget = [c for c in codes if c in BUDGET_CODES]
        result["budget"] = budget[0] if budget else None
        error = report.details.get("error") if isinstance(report.details, dict) else None
        if isinstance(error, str) and error.startswith("internal error"):
            result["internal_error"] = {
                "type": str(report.details.get("exception", "?")),
                "message": " ".join(_safe_str(error).split())[:500],
            }

    def _recheck(self, text: str, result: dict[str, Any]) -> Any:
        from cotaudit.certify.proof.recheck import recheck
        from cotaudit.limits import BudgetExceeded, budget

        kernel, overlay, delta = self.kernel()
        try:
            with budget(self.limits):
                return recheck(text, kernel, delta=delta, overlay=overlay)
        except BudgetExceeded as exc:  # what api.check turns into COTAUDIT_W001/W002
            result["budget"] = "COTAUDIT_W001" if exc.kind == "time" else "COTAUDIT_W002"
            return {"budget": exc.kind}
        except MemoryError:
            result["budget"] = "COTAUDIT_W002"
            return {"budget": "memory"}

    def kernel(self) -> tuple[Any, Any, Any]:
        if self._kernel is None:
            from cotaudit.certify.kb.bundle import load_bundle

            from .targets import RECHECK_BUNDLE

            _, kernel, overlay, delta = load_bundle(RECHECK_BUNDLE.read_text(encoding="utf-8"))
            self._kernel = (kernel, overlay, delta)
        return self._kernel  # type: ignore[no-any-return]

    def _kb_parse(self, text: str) -> Any:
        from cotaudit.certify.core.errors import KbError
        from cotaudit.certify.kb.file import parse_kb

        try:
            return parse_kb(text)
        except KbError as exc:  # the parser's one diagnostic
            return {"KbError": _safe_str(exc)}

    # -- the fingerprint, the writers and the diagnosis (phase 2)
    def write(
        self, target: Any, text: str, outcome: Any, result: dict[str, Any], tell: Any = None
    ) -> dict[str, Any]:
        """The canonical form of ``outcome`` (the determinism fingerprint); for a report, every
        writer's output (an exception there counts as escaped); for an internal-error report, a
        second run of the engine outside ``api.check`` to get its traceback."""
        from cotaudit.report import report_dict

        done: dict[str, Any] = {"writer_escaped": None, "writer_digests": {}, "diagnosis": None}
        if tell is not None:
            tell("fingerprint")
        report = outcome if isinstance(outcome, Report) else None
        canon = canonical_text(report_dict(report, timing=False) if report is not None else plain(outcome))
        done["digest"] = digest(canon)
        done["canonical"] = canon[:CANON_PREFIX]
        if report is not None:
            for name, render in self._writers(text):
                if tell is not None:
                    tell(name)  # so a writer the guard kills is named
                try:
                    out = render(report)
                except Exception as exc:
                    done["writer_escaped"] = {"writer": name, **describe(exc)}
                    break
                try:
                    data = out.encode("utf-8")  # what the CLI and the service write (strict)
                    _parses(name, data)
                except Exception as exc:
                    info = describe(exc)
                    if isinstance(exc, UnicodeEncodeError):  # say where the lone surrogate came from
                        info["what"] = f"output is not UTF-8: {surrogate_source(report)}"
                    else:
                        info["what"] = f"output does not parse: {info['type']}: {info['message'][:80]}"
                    done["writer_escaped"] = {"writer": name, **info}
                    break
                done["writer_digests"][name] = hashlib.sha256(data).hexdigest()
        if result.get("internal_error") and target.kind == "engine":
            if tell is not None:
                tell("diagnosis")
            done["diagnosis"] = self._diagnose(target, text)
        return done

    def _writers(self, text: str) -> list[tuple[str, Any]]:
        from cotaudit.cli import html as cli_html
        from cotaudit.report import render_json, render_run_log, render_sarif, render_summary, render_text

        v = self.version
        return [
            ("json", lambda r: render_json([r], single=True, timing=False)),
            ("jsonl", lambda r: render_run_log([r], {"fuzz": True}, version=v, timing=False)),
            ("text", lambda r: render_text([r]) + render_summary([r], timing=False)),
            ("sarif", lambda r: render_sarif([r], version=v)),
            ("html", lambda r: cli_html.render([r], sources=[text], timing=False)),
        ]

    def _diagnose(self, target: Any, text: str) -> dict[str, str] | None:
        from cotaudit.limits import BudgetExceeded, budget

        fn = self.api.get_engine(target.engine)
        try:
            with budget(self.limits):
                fn(text, path=target.path, item_id="fuzz")
        except BudgetExceeded:
            return None
        except Exception as exc:
            return describe(exc)
        return None


def surrogate_source(report: Any) -> str:
    """The first report field whose text holds a lone surrogate (else: the input text the page shows)."""
    from cotaudit.report import report_dict

    stack: list[tuple[str, Any]] = [("", report_dict(report, timing=False))]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            if any("\ud800" <= ch <= "\udfff" for ch in value):
                return f"lone surrogate in {path or 'the report'}"
        elif isinstance(value, dict):
            stack.extend((f"{path}.{k}".lstrip("."), v) for k, v in sorted(value.items(), reverse=True))
        elif isinstance(value, list):
            stack.extend((f"{path}[*]", v) for v in reversed(value))
    return "lone surrogate from the input text"


def _parses(writer: str, data: bytes) -> None:
    """JSON writers must write JSON: every line of the run log, the whole of json and sarif."""
    if writer in ("json", "sarif"):
        json.loads(data)
    elif writer == "jsonl":
        for line in data.splitlines():
            json.loads(line)


def plain(value: Any) -> Any:
    """``value`` (dataclasses, mappings, sequences, sets …) as JSON data in one pass, mapping keys
    and set elements sorted: the fingerprint of a recheck result or a parsed ``.kb``."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in sorted((str(k), v) for k, v in value.items())}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((plain(v) for v in value), key=canonical_text)
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    return str(value)


# --------------------------------------------------------------------------- main loop


def _rss() -> int:
    with open("/proc/self/statm", "rb") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def main(argv: list[str]) -> int:
    settings = json.loads(argv[0])
    proto_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # engines never print; if one does, it goes to the log, not into the protocol
    sys.stdout = sys.stderr
    proto_in = sys.stdin.buffer

    from cotaudit.limits import limit_process_memory

    from .targets import load_plugin, seeds, target

    for plugin in settings.get("plugins", ()):
        load_plugin(plugin, worker=True)  # extra targets and their engines, before the warm-up
    runner = Runner(settings["budget_s"], settings["memory_mb"])
    for name in settings["targets"]:  # warm up: imports, caches, te's SymPy worker
        t = target(name)
        for _, text in seeds(name):
            result, outcome = runner.check(t, text)
            runner.write(t, text, outcome, result)
    limit_process_memory(settings.get("address_space_mb"))
    send(proto_out, ("ready", {"pid": os.getpid(), "rss": _rss()}))
    while True:
        job = recv(proto_in)
        if job is None:
            return 0
        t = target(job["target"])
        result, outcome = runner.check(t, job["text"])
        send(proto_out, ("checked", result))
        done = runner.write(t, job["text"], outcome, result, lambda step: send(proto_out, ("writing", step)))
        outcome = None
        send(proto_out, ("done", done))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
