"""The fuzz run: schedule inputs over guarded workers, classify outcomes, recheck determinism.

Per input the four checks of issue 14: no exception escapes ``cotaudit.check`` or a writer, no
report says ``internal error``, the check stays within its budget (plus slack; the guard kills
it otherwise), and, for a sample, a second process with another ``PYTHONHASHSEED`` produces
byte-identical ``--no-timing`` output (the canonical report and every writer's bytes).

Sampled for determinism: every ``det_every``-th input, every input that ran for more than half
its budget, and every input whose report carries a code that says a bound was hit
(:data:`tests.fuzz.worker.NEAR_LIMIT_CODES`). A difference where either run abstained with
``COTAUDIT_W001``/``W002`` is counted as budget-dependent, not as a failure: the per-input
budget is wall time, so whether an input near it finishes depends on the machine by design.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from .guard import Event, GuardSettings, Worker, wait_any
from .targets import REPO, TARGETS, FuzzInput, make_input, target
from .worker import BUDGET_CODES, NEAR_LIMIT_CODES

CRASH_DIR = REPO / "tests" / "fuzz" / "crashes"
KINDS = ("escaped", "internal", "over_budget", "nondeterministic")
FILES_PER_SIGNATURE = 3
SHADOW_HASH_OFFSET = 1_000_000_000  # the determinism worker's PYTHONHASHSEED is above this


@dataclass
class RunConfig:
    """What to run: ``inputs`` per target (a fixed, fully deterministic set) or ``minutes`` in all."""

    seed: int = 0
    targets: tuple[str, ...] = tuple(t.name for t in TARGETS)
    inputs: int | None = None
    minutes: float | None = None
    jobs: int = 1
    det_every: int = 10
    guard: GuardSettings = field(default_factory=GuardSettings)
    crash_dir: Path | None = CRASH_DIR
    progress: TextIO | None = None
    progress_every_s: float = 30.0
    plugins: tuple[str, ...] = ()  # modules the workers import first (they may register targets)


@dataclass
class TargetStats:
    inputs: int = 0
    escaped: int = 0
    internal: int = 0
    over_budget: int = 0
    nondeterministic: int = 0
    det_checked: int = 0
    budget_abstain: int = 0
    budget_dependent: int = 0
    busy_s: float = 0.0
    slowest_s: float = 0.0  # the longest check that finished

    def failures(self) -> int:
        return self.escaped + self.internal + self.over_budget + self.nondeterministic


@dataclass
class Signature:
    """One distinct failure: how often it occurred and the smallest input that showed it."""

    target: str
    kind: str
    text: str
    count: int = 0
    reproducer: str | None = None
    smallest: int = -1
    first_index: int = -1
    detail: str = ""


@dataclass
class Summary:
    config: RunConfig
    stats: dict[str, TargetStats]
    signatures: dict[tuple[str, str, str], Signature]
    elapsed_s: float = 0.0
    restarts: int = 0

    @property
    def ok(self) -> bool:
        return all(s.failures() == 0 for s in self.stats.values())

    def total(self) -> TargetStats:
        out = TargetStats()
        for s in self.stats.values():
            for name in out.__dataclass_fields__:
                setattr(out, name, getattr(out, name) + getattr(s, name))
        out.slowest_s = max((s.slowest_s for s in self.stats.values()), default=0.0)
        return out

    def render(self, per_target: int = 5) -> str:
        gs = self.config.guard
        lines = [
            f"cotaudit fuzz: seed {self.config.seed}, budget {gs.budget_s:g} s (+{gs.slack_s:g} s slack), "
            f"{gs.memory_mb} MiB (+{gs.memory_slack_mb} MiB), {self.config.jobs} job(s), "
            f"{self.elapsed_s:.0f} s, {self.restarts} worker restart(s)",
            "",
            f"{'target':<14}{'inputs':>8}{'escaped':>9}{'internal':>10}{'over budget':>13}"
            f"{'nondeterministic':>18}   {'det. checked':>12}{'budget abstain':>16}{'slowest s':>11}",
        ]
        rows = [*self.stats.items(), ("all", self.total())]
        for name, s in rows:
            lines.append(
                f"{name:<14}{s.inputs:>8}{s.escaped:>9}{s.internal:>10}{s.over_budget:>13}"
                f"{s.nondeterministic:>18}   {s.det_checked:>12}{s.budget_abstain:>16}{s.slowest_s:>11.2f}"
            )
        dependent = self.total().budget_dependent
        if dependent:
            lines.append(
                f"({dependent} budget-dependent difference(s) not counted: a run abstained W001/W002)"
            )
        if self.signatures:
            lines += ["", "failure signatures (first few per target, most frequent first):"]
            for t in self.stats:
                sigs = sorted(
                    (g for g in self.signatures.values() if g.target == t),
                    key=lambda g: (-g.count, g.first_index),
                )
                for g in sigs[:per_target]:
                    lines.append(f"  {t:<13} {g.kind:<17} x{g.count:<5} {g.text}")
                    if g.reproducer:
                        lines.append(f"  {'':<13} replay: python -m tests.fuzz --replay {g.reproducer}")
                if len(sigs) > per_target:
                    lines.append(f"  {t:<13} … and {len(sigs) - per_target} more signature(s)")
        lines.append("")
        lines.append("PASS: no failures" if self.ok else f"FAIL: {self.total().failures()} failure(s)")
        return "\n".join(lines) + "\n"


@dataclass
class _Pending:
    """One input in flight: its primary outcome so far, then (maybe) its determinism rerun."""

    inp: FuzzInput
    role: str = "primary"  # or "shadow"
    checked: dict[str, Any] | None = None
    done: dict[str, Any] | None = None
    submitted: float = 0.0
    primary: _Pending | None = None  # for a shadow job: the primary's record


class Run:
    def __init__(self, config: RunConfig, inputs: Iterator[FuzzInput] | None = None) -> None:
        for name in config.targets:
            target(name)  # unknown names fail before any worker starts
        self.config = config
        self.explicit = inputs
        self.stats = {name: TargetStats() for name in config.targets}
        self.signatures: dict[tuple[str, str, str], Signature] = {}
        self.next_index = dict.fromkeys(config.targets, 0)
        self.det_queue: deque[_Pending] = deque()
        self.log_dir = Path(tempfile.mkdtemp(prefix="cotaudit-fuzz-"))
        self.failed_inputs: dict[tuple[str, int], set[str]] = {}
        self.outcomes: dict[tuple[str, int], list[tuple[str, str]]] = {}
        self.verdicts: dict[tuple[str, int], str | None] = {}
        self.tracebacks: list[str] = []

    # ------------------------------------------------------------------ scheduling
    def _next_input(self, deadline: float | None) -> FuzzInput | None:
        if self.explicit is not None:
            return next(self.explicit, None)
        if deadline is not None:
            if time.monotonic() >= deadline:
                return None
            name = min(self.config.targets, key=lambda t: (self.stats[t].busy_s, self.next_index[t]))
        else:
            open_targets = [t for t in self.config.targets if self.next_index[t] < (self.config.inputs or 0)]
            if not open_targets:
                return None
            name = min(open_targets, key=lambda t: self.next_index[t])
        index = self.next_index[name]
        self.next_index[name] = index + 1
        return make_input(name, self.config.seed, index)

    def run(self) -> Summary:
        cfg = self.config
        hash_primary = 1 + cfg.seed % SHADOW_HASH_OFFSET
        hash_shadow = hash_primary + SHADOW_HASH_OFFSET  # always a different PYTHONHASHSEED
        start = time.monotonic()
        workers: list[Worker] = []
        try:
            for i in range(cfg.jobs):
                workers.append(
                    Worker(f"p{i}", hash_primary, list(cfg.targets), cfg.guard, self.log_dir, cfg.plugins)
                )
            primaries = list(workers)
            shadow = Worker("shadow", hash_shadow, list(cfg.targets), cfg.guard, self.log_dir, cfg.plugins)
            workers.append(shadow)
            # the time budget starts once every worker is warm
            deadline = time.monotonic() + cfg.minutes * 60 if cfg.minutes is not None else None
            last_progress = time.monotonic()
            exhausted = False
            while True:
                for w in primaries:
                    if w.busy or exhausted or len(self.det_queue) > 2 * cfg.jobs + 2:
                        continue
                    inp = self._next_input(deadline)
                    if inp is None:
                        exhausted = True
                        continue
                    w.recycle_if_bloated()
                    job = _Pending(inp, submitted=time.monotonic())
                    w.submit(job, inp.text, inp.target)
                if not shadow.busy and self.det_queue:
                    job = self.det_queue.popleft()
                    job.submitted = time.monotonic()
                    shadow.recycle_if_bloated()
                    shadow.submit(job, job.inp.text, job.inp.target)
                if exhausted and not self.det_queue and not any(w.busy for w in workers):
                    break
                for w in wait_any(workers):
                    self._handle(w.on_readable())
                for w in workers:
                    event = w.check_limits()
                    if event is not None:
                        self._handle(event)
                if cfg.progress is not None and time.monotonic() - last_progress >= cfg.progress_every_s:
                    last_progress = time.monotonic()
                    t = self.total_now()
                    cfg.progress.write(
                        f"fuzz: {time.monotonic() - start:.0f} s, {t.inputs} inputs, {t.failures()} failures\n"
                    )
                    cfg.progress.flush()
        finally:
            restarts = sum(w.restarts for w in workers)
            for w in workers:
                w.close()
            shutil.rmtree(self.log_dir, ignore_errors=True)  # what mattered is in the events
        return Summary(cfg, self.stats, self.signatures, time.monotonic() - start, restarts)

    def total_now(self) -> TargetStats:
        return Summary(self.config, self.stats, {}).total()

    # ------------------------------------------------------------------ outcomes
    def _handle(self, event: Event) -> None:
        job: _Pending = event.job
        if job is None:
            return
        if event.kind == "checked":
            job.checked = event.payload
            return
        if event.kind == "writing":
            return
        if event.kind == "done":
            job.done = event.payload
            self._finish(job, None)
        else:
            self._finish(job, event)

    def _finish(self, job: _Pending, abnormal: Event | None) -> None:
        inp = job.inp
        stats = self.stats[inp.target]
        stats.busy_s += time.monotonic() - job.submitted
        if job.role == "shadow":
            self._compare(job, abnormal)
            return
        stats.inputs += 1
        checked, done = job.checked, job.done
        if abnormal is not None:
            self._abnormal(job, abnormal)
        self.verdicts[(inp.target, inp.index)] = checked.get("verdict") if checked else None
        if checked is not None:
            stats.slowest_s = max(stats.slowest_s, checked["elapsed_s"])
            if checked.get("budget"):
                stats.budget_abstain += 1
            if checked["escaped"]:
                e = checked["escaped"]
                self._fail(job, "escaped", f"{e['type']} at {e['frame']}", e["message"], e["traceback"])
            if checked["internal_error"]:
                ie = checked["internal_error"]
                diag = (done or {}).get("diagnosis")
                frame = diag["frame"] if diag else "? (the engine did not raise again outside api.check)"
                self._fail(
                    job,
                    "internal",
                    f"{ie['type']} at {frame}",
                    ie["message"],
                    diag["traceback"] if diag else "",
                )
            if checked["elapsed_s"] > self.config.guard.kill_after_s:
                self._fail(
                    job,
                    "over_budget",
                    "time: finished past budget + slack",
                    f"{checked['elapsed_s']:.1f} s",
                    "",
                )
        if done is not None and done.get("writer_escaped"):
            e = done["writer_escaped"]
            what = e.get("what") or f"{e['type']} at {e['frame']}"
            self._fail(job, "escaped", f"writer {e['writer']}: {what}", e["message"], e["traceback"])
        if abnormal is None and checked is not None and done is not None and self._sample(inp, checked):
            self.det_queue.append(_Pending(inp, role="shadow", primary=job))

    def _sample(self, inp: FuzzInput, checked: dict[str, Any]) -> bool:
        if inp.index % max(1, self.config.det_every) == 0:
            return True
        if checked["elapsed_s"] >= self.config.guard.budget_s / 2:
            return True
        return bool(set(checked.get("codes") or ()) & NEAR_LIMIT_CODES)

    def _abnormal(self, job: _Pending, event: Event, *, second: bool = False) -> None:
        where = " (determinism rerun)" if second else ""
        phase = {
            "check": "check",
            "write": "writers",
            "fingerprint": "canonical report (report_dict)",
            "diagnosis": "second run for the traceback",
        }.get(event.phase, f"{event.phase} writer")
        if event.kind == "killed":
            p = event.payload
            what = (
                f"time: killed after {p['after_s']:g} s"
                if p["kind"] == "time"
                else f"memory: killed at +{p['grown_mb']} MiB RSS"
            )
            self._fail(job, "over_budget", f"{what} in the {phase}{where}", "", "")
        else:
            p = event.payload
            self._fail(
                job, "escaped", f"worker process died ({p['how']}) in the {phase}{where}", "", p["log"]
            )

    def _compare(self, shadow: _Pending, abnormal: Event | None) -> None:
        primary = shadow.primary
        assert primary is not None and primary.checked is not None
        stats = self.stats[shadow.inp.target]
        stats.det_checked += 1
        if abnormal is not None:
            self._abnormal(primary, abnormal, second=True)
            return
        a, b = primary.checked, shadow.checked
        assert b is not None and primary.done is not None and shadow.done is not None
        fa, fb = primary.done, shadow.done
        da, db = fa["writer_digests"], fb["writer_digests"]
        if fa["digest"] == fb["digest"] and da == db:
            return
        if a.get("budget") in BUDGET_CODES or b.get("budget") in BUDGET_CODES:
            stats.budget_dependent += 1
            return
        if fa["digest"] != fb["digest"]:
            where = diff_path(fa["canonical"], fb["canonical"])
            sig = f"report differs at {where}"
            detail = f"first run vs second: {excerpt(fa['canonical'], fb['canonical'])}"
        else:
            names = sorted(k for k in set(da) | set(db) if da.get(k) != db.get(k))
            sig = f"writer output differs: {', '.join(names)}"
            detail = ""
        self._fail(primary, "nondeterministic", sig, detail, "")

    def _fail(self, job: _Pending, kind: str, signature: str, message: str, tb: str) -> None:
        inp = job.inp
        key = (inp.target, inp.index)
        kinds = self.failed_inputs.setdefault(key, set())
        if kind in kinds:
            return  # one input counts once per kind
        kinds.add(kind)
        self.outcomes.setdefault(key, []).append((kind, signature))
        stats = self.stats[inp.target]
        setattr(stats, kind, getattr(stats, kind) + 1)
        sig = self.signatures.setdefault(
            (inp.target, kind, signature), Signature(inp.target, kind, signature)
        )
        sig.count += 1
        if sig.first_index < 0:
            sig.first_index = inp.index
            sig.detail = message
        if tb and sig.count <= FILES_PER_SIGNATURE:  # a long run sees thousands of the same one
            self.tracebacks.append(f"--- {inp.target} #{inp.index} {kind}: {signature}\n{tb}")
        size = len(inp.text)
        if self.config.crash_dir is not None and (sig.count <= FILES_PER_SIGNATURE or size < sig.smallest):
            path = save_reproducer(self.config.crash_dir, inp, kind, signature, message, tb)
            if sig.smallest < 0 or size < sig.smallest:
                sig.smallest = size
                sig.reproducer = _display(path)


def _display(path: Path) -> str:
    try:
        return path.relative_to(REPO).as_posix()
    except ValueError:
        return path.as_posix()


def encode_input(text: str) -> bytes:
    """The reproducer's bytes: UTF-8, lone surrogates kept (``surrogatepass``)."""
    return text.encode("utf-8", "surrogatepass")


def decode_input(data: bytes) -> str:
    return data.decode("utf-8", "surrogatepass")


def save_reproducer(
    crash_dir: Path, inp: FuzzInput, kind: str, signature: str, message: str, tb: str
) -> Path:
    """Write ``<crash_dir>/<target>/<sha>.bin`` (the input) and ``<sha>.json`` (what it did)."""
    data = encode_input(inp.text)
    sha = hashlib.sha256(data).hexdigest()[:16]
    folder = crash_dir / inp.target
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{sha}.bin"
    path.write_bytes(data)
    meta_path = folder / f"{sha}.json"
    meta: dict[str, Any] = {}
    if meta_path.exists():
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except ValueError:
            meta = {}
    meta.update(
        {
            "target": inp.target,
            "seed": inp.seed,
            "index": inp.index,
            "seed_file": inp.seed_file,
            "mutators": list(inp.mutators),
            "replay": f"python -m tests.fuzz --replay {_display(path)}",
        }
    )
    failures = [f for f in meta.get("failures", []) if f.get("signature") != signature]
    failures.append({"kind": kind, "signature": signature, "message": message, "traceback": tb})
    meta["failures"] = failures
    meta_path.write_text(json.dumps(meta, indent=1, ensure_ascii=True) + "\n", encoding="utf-8")
    return path


def diff_path(a: str, b: str) -> str:
    """The JSON path of the first difference between two canonical outputs (``?`` if truncated)."""
    try:
        x, y = json.loads(a), json.loads(b)
    except ValueError:
        return "? (output longer than the kept prefix)"
    path = ""
    while True:
        if isinstance(x, dict) and isinstance(y, dict):
            keys = sorted(set(x) | set(y))
            k = next((k for k in keys if x.get(k, ...) != y.get(k, ...)), None)
            if k is None:
                return path or "(root)"
            path = f"{path}.{k}" if path else str(k)
            if k not in x or k not in y:
                return path
            x, y = x[k], y[k]
        elif isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
            i = next((i for i, (p, q) in enumerate(zip(x, y, strict=True)) if p != q), None)
            if i is None:
                return path or "(root)"
            path += f"[{i}]"
            x, y = x[i], y[i]
        else:
            return path or "(root)"


def excerpt(a: str, b: str, width: int = 120) -> str:
    at = next((i for i, (p, q) in enumerate(zip(a, b, strict=False)) if p != q), min(len(a), len(b)))
    lo = max(0, at - width // 2)
    return f"{a[lo : at + width // 2]!r} vs {b[lo : at + width // 2]!r}"


@dataclass
class RunResult:
    """A finished run: the summary, every failure's traceback, and the failures of each input."""

    summary: Summary
    tracebacks: list[str]
    outcomes: dict[tuple[str, int], list[tuple[str, str]]]  # (target, index) → [(kind, signature)]
    verdicts: dict[tuple[str, int], str | None]


def run(config: RunConfig, inputs: Iterable[FuzzInput] | None = None) -> RunResult:
    """Run the fuzzer over generated inputs (``config.inputs``/``minutes``) or the given ones."""
    r = Run(config, iter(inputs) if inputs is not None else None)
    summary = r.run()
    return RunResult(summary, r.tracebacks, r.outcomes, r.verdicts)
