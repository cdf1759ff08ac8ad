"""``cotaudit eval type6`` on an annotated corpus: the paper's corpus-level findings, aggregated.

The seed paper reports, over its corpus, which hard-fail categories occur (Table 17), how few
propositions lie on the direct implication chain (Table 18, "about 3%"), how often residuals
are elevated, and it describes per-trace path sets. This module verifies every trace of any
annotated corpus (a folder of ``.t6`` files, one ``.t6``/``.json`` trace, or a type6 JSONL) with
``api.check`` (so each trace has the per-input time and memory budget), keeps a few numbers per
trace (:class:`TraceFacts`), and aggregates them beside the paper's figures
(:mod:`cotaudit.eval.type6_paper`). Invalid traces and traces that overran their budget are
counted apart, never as passes or failures.

Everything is read from the type6 result document, whose counts are exact whatever it lists:
``summary.event_counts`` counts every event, and the first event of each code and severity is
always listed, so "this trace has a hard R02" is exact too (docs/type6.md, decision 15).
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cotaudit import api
from cotaudit.errors import CotauditError
from cotaudit.limits import Limits
from cotaudit.report import Report
from cotaudit.type6.config import Config
from cotaudit.type6.events import CATALOGUE

MAX_INPUT_BYTES = Config().max_input_bytes  # one trace (Y-13); a longer one is not read
ANNOTATED_SUFFIXES = (".t6", ".json", ".jsonl")
HARD = "hard"
RESIDUALS = ("T6_R01", "T6_R02")


class CorpusError(CotauditError, ValueError):
    """The corpus cannot be read at all (the message names the path)."""


@dataclass(frozen=True, slots=True)
class TraceFacts:
    """What the corpus tables need from one trace. ``status``: ``ok``, ``invalid`` (the trace
    could not be read or parsed) or ``unchecked`` (it overran its budget: nothing decided)."""

    id: str
    status: str
    reason: str | None = None
    hard_fail: bool | None = None
    graded: float | None = None
    n_statements: int = 0
    n_propositions: int = 0
    chain_length: int = 0
    on_chain_fraction: float = 0.0
    elevated_residuals: int = 0
    event_counts: Mapping[str, int] = field(default_factory=dict)
    hard_codes: tuple[str, ...] = ()  # codes with at least one event of effective severity hard
    elevated: Mapping[str, int] = field(default_factory=dict)  # listed elevated residuals per code
    elevated_cut: bool = False  # some residual listing was cut: ``elevated`` is a lower bound
    path_mode: str | None = None
    paths: int = 0
    coherent: int = 0
    consistent: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status,
            "reason": self.reason,
            "hard_fail": self.hard_fail,
            "graded": self.graded,
            "hard_codes": list(self.hard_codes),
            "chain_length": self.chain_length,
            "on_chain_fraction": self.on_chain_fraction,
            "elevated_residuals": self.elevated_residuals,
            "path_mode": self.path_mode,
            "paths": self.paths,
        }


def facts_from_document(doc: Mapping[str, Any], trace_id: str | None = None) -> TraceFacts:
    """The facts of one type6 result document (``Type6Result.document`` or R-1 ``details``)."""
    tid = trace_id or str(doc.get("trace_id") or "")
    if doc.get("status") != "ok":
        first = (doc.get("diagnostics") or [{}])[0]
        return TraceFacts(tid, "invalid", str(first.get("code") or "invalid"))
    s = doc["summary"]
    events = doc["sequential"]["events"]
    cut = doc.get("truncated", {}).get("sequential.events", {})
    elevated = {code: 0 for code in RESIDUALS}
    for e in events:
        if e["code"] in RESIDUALS and e["data"].get("elevated"):
            elevated[e["code"]] += 1
    paths = s["paths"]
    return TraceFacts(
        id=tid,
        status="ok",
        hard_fail=bool(s["hard_fail"]),
        graded=float(s["scores"]["graded"]),
        n_statements=int(s["n_statements"]),
        n_propositions=int(s["n_propositions"]),
        chain_length=int(s["chain"]["length"]),
        on_chain_fraction=float(s["chain"]["on_chain_fraction"]),
        elevated_residuals=int(s["chain"]["elevated_residuals"]),
        event_counts=dict(s["event_counts"]),
        hard_codes=tuple(sorted({e["code"] for e in events if e["severity"] == HARD})),
        elevated=elevated,
        elevated_cut=any(code in cut for code in RESIDUALS),
        path_mode=str(paths["mode"]),
        paths=int(paths["count"]),
        coherent=int(paths["coherent"]),
        consistent=int(paths["consistent"]),
    )


def facts_from_report(report: Report, trace_id: str) -> TraceFacts:
    """The facts of ``api.check``'s R-1 report for one type6 trace."""
    details = report.details
    if report.verdict == "abstain" and str(details.get("reason", "")).endswith("_budget"):
        return TraceFacts(trace_id, "unchecked", str(details["reason"]))
    if "summary" not in details:  # unreadable input or an engine crash: an invalid report
        return TraceFacts(trace_id, "invalid", str(details.get("error") or "invalid"))
    return facts_from_document(details, trace_id)


# --------------------------------------------------------------------------- reading a corpus


def is_annotated(path: Path) -> bool:
    """Does ``path`` hold annotated (type6) traces rather than raw chains of thought? A folder
    with a ``.t6`` file anywhere below it, a ``.t6`` or ``.json`` file, or a JSONL whose first
    object has ``statements``."""
    if path.is_dir():
        return next(iter(sorted(path.rglob("*.t6"))), None) is not None
    if path.suffix in (".t6", ".json"):
        return True
    if path.suffix == ".jsonl" and path.is_file():
        for _, line, _ in _jsonl_lines(path):
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                return False
            return isinstance(obj, dict) and "statements" in obj
    return False


def iter_traces(path: Path) -> Iterator[tuple[str, str | None, str | None]]:
    """``(trace id, text, problem)`` for every trace, one at a time (a large corpus is never
    held whole): a folder's ``*.t6`` files in path order (id = the path below the folder), one
    ``.t6``/``.json`` file, or a type6 JSONL, one trace object per line. ``text`` is None when
    the trace could not be read, and ``problem`` says why."""
    if path.is_dir():
        files = sorted(path.rglob("*.t6"), key=lambda p: p.relative_to(path).as_posix())
        if not files:
            raise CorpusError(f"{path}: no *.t6 annotated traces below this folder")
        for f in files:
            yield (f.relative_to(path).with_suffix("").as_posix(), *_read_one(f))
        return
    if not path.is_file():
        raise CorpusError(f"{path}: no such file or folder")
    if path.suffix == ".jsonl":
        for n, line, problem in _jsonl_lines(path):
            yield f"{path.stem}-{n}", (None if problem else line), problem
        return
    yield (path.stem, *_read_one(path))


def _read_one(path: Path) -> tuple[str | None, str | None]:
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_INPUT_BYTES + 1)
    except OSError as exc:
        return None, f"unreadable ({exc.strerror or exc})"
    if len(data) > MAX_INPUT_BYTES:
        return None, f"larger than {MAX_INPUT_BYTES} bytes (T6_E05)"
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})"


def _jsonl_lines(path: Path) -> Iterator[tuple[int, str, str | None]]:
    """Non-blank lines, each read with a bound (a line past the input limit is not kept)."""
    try:
        with path.open("rb") as fh:
            n = 0
            while True:
                raw = fh.readline(MAX_INPUT_BYTES + 1)
                if not raw:
                    return
                n += 1
                if len(raw) > MAX_INPUT_BYTES:
                    while raw and not raw.endswith(b"\n"):  # skip the rest of the line
                        raw = fh.readline(MAX_INPUT_BYTES + 1)
                    yield n, "", f"line longer than {MAX_INPUT_BYTES} bytes (T6_E05)"
                    continue
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    yield n, "", f"not UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})"
                    continue
                if line.strip():
                    yield n, line, None
    except OSError as exc:
        raise CorpusError(f"{path}: {exc.strerror or exc}") from None


def verify_corpus(path: Path, limits: Limits | None = api.DEFAULT_LIMITS) -> list[TraceFacts]:
    """Verify every trace of the corpus at ``path`` under ``limits`` each."""
    out: list[TraceFacts] = []
    for trace_id, text, problem in iter_traces(path):
        if text is None:
            out.append(TraceFacts(trace_id, "invalid", problem))
            continue
        report = api.check(text, "type6", item_id=trace_id, limits=limits)
        out.append(facts_from_report(report, trace_id))
    return out


# --------------------------------------------------------------------------- aggregation


def five_numbers(values: Sequence[float]) -> list[float] | None:
    """min, Q1, median, Q3, max (linear interpolation between order statistics, as NumPy's
    default and the paper's Table 18), six decimals; None for no value."""
    if not values:
        return None
    ordered = sorted(values)
    if len(ordered) == 1:
        q1 = med = q3 = ordered[0]
    else:
        q1, med, q3 = statistics.quantiles(ordered, n=4, method="inclusive")
    return [round(float(v), 6) for v in (ordered[0], q1, med, q3, ordered[-1])]


def _share(k: int, n: int) -> float | None:
    return round(k / n, 6) if n else None


def _argmax(codes: Sequence[str], key: Callable[[str], int]) -> list[str]:
    top = max((key(c) for c in codes), default=0)
    return [c for c in codes if key(c) == top] if top else []


def aggregate(facts: Sequence[TraceFacts]) -> dict[str, Any]:
    """The corpus-level figures (JSON data, deterministic order); see :func:`render`."""
    ok = [f for f in facts if f.status == "ok"]
    failing = [f for f in ok if f.hard_fail]
    n = len(ok)
    incidence: dict[str, dict[str, Any]] = {}
    for code in CATALOGUE:
        hit = [f for f in ok if f.event_counts.get(code, 0) > 0]
        events = sum(f.event_counts.get(code, 0) for f in hit)
        incidence[code] = {
            "traces": len(hit),
            "share": _share(len(hit), n),
            "events": events,
            "avg_events": round(events / len(hit), 6) if hit else None,
        }
    hard: dict[str, dict[str, Any]] = {}
    for code in CATALOGUE:
        if CATALOGUE[code].severity != HARD and code not in RESIDUALS:
            continue
        hit = [f for f in failing if code in f.hard_codes]
        if code in RESIDUALS:
            events = sum(f.elevated.get(code, 0) for f in hit)
            lower_bound = any(f.elevated_cut for f in hit)
        else:
            events, lower_bound = sum(f.event_counts.get(code, 0) for f in hit), False
        hard[code] = {
            "traces": len(hit),
            "share_of_hard_fail": _share(len(hit), len(failing)),
            "events": events,
            "events_lower_bound": lower_bound,
        }
    ranked = [c for c in hard if hard[c]["traces"]]
    residual_events = sum(f.event_counts.get(c, 0) for f in ok for c in RESIDUALS)
    elevated = sum(f.elevated_residuals for f in ok)
    with_paths = [f for f in ok if f.path_mode not in ("off", "skipped")]
    all_paths = sum(f.paths for f in with_paths)
    props = sum(f.n_propositions for f in ok)
    modes = sorted({str(f.path_mode) for f in ok})
    return {
        "traces": {
            "read": len(facts),
            "verified": n,
            "invalid": sum(1 for f in facts if f.status == "invalid"),
            "unchecked": sum(1 for f in facts if f.status == "unchecked"),
        },
        "hard_fail": {
            "traces": len(failing),
            "rate": _share(len(failing), n),
            "mean_graded": round(statistics.fmean(f.graded or 0.0 for f in ok), 6) if ok else None,
        },
        "hard_fail_categories": hard,
        "most_common_hard_fail": {  # every category at the maximum (ties kept, catalogue order)
            "by_traces": _argmax(ranked, lambda c: hard[c]["traces"]),
            "by_events": _argmax(ranked, lambda c: hard[c]["events"]),
        },
        "incidence": incidence,
        "chain": {
            "chain_length": five_numbers([f.chain_length for f in ok]),
            "on_chain_fraction": five_numbers([f.on_chain_fraction for f in ok]),
            "elevated_residuals": five_numbers([f.elevated_residuals for f in ok]),
            "propositions_on_chain": _share(sum(f.chain_length for f in ok), props),
            "propositions_on_chain_per_trace": five_numbers(
                [f.chain_length / f.n_propositions for f in ok if f.n_propositions]
            ),
        },
        "residuals": {
            "events": residual_events,
            "elevated": elevated,
            "elevated_share": _share(elevated, residual_events),
            "traces_with_elevated": sum(1 for f in ok if f.elevated_residuals),
        },
        "paths": {
            "traces": len(with_paths),
            "modes": {m: sum(1 for f in ok if f.path_mode == m) for m in modes},
            "per_trace": five_numbers([f.paths for f in with_paths]),
            "coherent_per_trace": five_numbers([f.coherent for f in with_paths]),
            "consistent_per_trace": five_numbers([f.consistent for f in with_paths]),
            "coherent_share": _share(sum(f.coherent for f in with_paths), all_paths),
            "consistent_share": _share(sum(f.consistent for f in with_paths), all_paths),
        },
        "not_verified": [
            {"id": f.id, "status": f.status, "reason": f.reason} for f in facts if f.status != "ok"
        ],
        "items": [f.to_dict() for f in facts],
    }
