"""SFT and DPO export from verified traces (V-50, V-51).

The user message is rendered by a fixed template: the documents (``[id] title\\ntext``), then
the history turns (``role: content``), then ``Question: <question>`` and, when present, the
answer options one per line. The assistant message is the steps joined by newlines followed by
``\\nAnswer: <answer>``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from cotaudit.vericot.schema import TraceInput


def user_message(trace: TraceInput) -> str:
    parts: list[str] = []
    for d in trace.context.documents:
        parts.append(f"[{d.id}] {d.title}\n{d.text}" if d.title else f"[{d.id}]\n{d.text}")
    for t in trace.context.history:
        parts.append(f"{t.role}: {t.content}")
    parts.append(f"Question: {trace.context.question}")
    if trace.answer_options:
        parts.append("\n".join(trace.answer_options))
    return "\n\n".join(parts)


def assistant_message(trace: TraceInput) -> str:
    steps = "\n".join(s.text for s in trace.step_list())
    return f"{steps}\nAnswer: {trace.answer or ''}"


def _details(report: Mapping[str, Any]) -> Mapping[str, Any]:
    d: Mapping[str, Any] = report.get("details", {})
    return d


def _ok(report: Mapping[str, Any], require_correct: bool) -> bool:
    d = _details(report)
    return d.get("verdict") == "valid" and (
        not require_correct or (d.get("answer") or {}).get("correct") is True
    )


def export_sft(
    reports: Iterable[Mapping[str, Any]], traces: Iterable[TraceInput], require_correct: bool = False
) -> list[dict[str, Any]]:
    """Valid (and, if asked, correct) traces as chat examples, input order, no duplicates."""
    out: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for report, trace in zip(reports, traces, strict=True):
        if not _ok(report, require_correct):
            continue
        assistant = assistant_message(trace)
        key = (trace.id, assistant)
        if key in seen:
            continue
        seen.add(key)
        d = _details(report)
        out.append(
            {
                "id": trace.id,
                "messages": [
                    {"role": "user", "content": user_message(trace)},
                    {"role": "assistant", "content": assistant},
                ],
                "meta": {
                    "verdict": d.get("verdict"),
                    "n_steps": len(trace.step_list()),
                    "premises": [
                        {"id": p["id"], "source": p["source"], "text": p["text"]}
                        for p in d.get("premises", [])
                    ],
                },
            }
        )
    return out


def group_key(trace: TraceInput) -> str:
    g = trace.meta.get("group")
    if g is not None:
        return str(g)
    canon = json.dumps(
        trace.context.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return hashlib.sha256(canon.encode("utf-8")).hexdigest()


def export_dpo(
    reports: Iterable[Mapping[str, Any]],
    traces: Iterable[TraceInput],
    *,
    require_correct: bool = False,
    max_pairs_per_group: int = 4,
) -> list[dict[str, Any]]:
    """Chosen = valid (and correct if asked), rejected = invalid; ``unknown`` never used.
    Pairs are formed round-robin in input order: (c0,r0), (c1,r1), …, then (c0,r1), …"""
    groups: dict[
        str, tuple[list[tuple[TraceInput, Mapping[str, Any]]], list[tuple[TraceInput, Mapping[str, Any]]]]
    ] = {}
    order: list[str] = []
    for report, trace in zip(reports, traces, strict=True):
        key = group_key(trace)
        if key not in groups:
            groups[key] = ([], [])
            order.append(key)
        verdict = _details(report).get("verdict")
        if _ok(report, require_correct):
            groups[key][0].append((trace, report))
        elif verdict == "invalid":
            groups[key][1].append((trace, report))
    out: list[dict[str, Any]] = []
    for key in order:
        chosen, rejected = groups[key]
        if not chosen or not rejected:
            continue
        pairs: list[tuple[int, int]] = []
        for shift in range(len(rejected)):
            for i in range(len(chosen)):
                pairs.append((i, (i + shift) % len(rejected)))
        seen: set[tuple[int, int]] = set()
        n = 0
        for ci, ri in pairs:
            if (ci, ri) in seen or n >= max_pairs_per_group:
                continue
            seen.add((ci, ri))
            n += 1
            c, _ = chosen[ci]
            r, rrep = rejected[ri]
            ff = _details(rrep).get("first_failure")
            out.append(
                {
                    "prompt": user_message(c),
                    "chosen": assistant_message(c),
                    "rejected": assistant_message(r),
                    "meta": {
                        "group": key,
                        "chosen_id": c.id,
                        "rejected_id": r.id,
                        "rejected_first_failure": ff,
                    },
                }
            )
    return out


def why_no_rows(
    reports: Iterable[Mapping[str, Any]],
    traces: Iterable[TraceInput],
    *,
    require_correct: bool = False,
    pairs: bool = True,
) -> str:
    """Why :func:`export_dpo` (``pairs``) or :func:`export_sft` wrote nothing, in one line."""
    rows = list(zip(reports, traces, strict=True))
    if not rows:
        return "there are no vericot reports"
    verdicts: dict[str, int] = {}
    for report, _trace in rows:
        v = str(_details(report).get("verdict"))
        verdicts[v] = verdicts.get(v, 0) + 1
    shown = ", ".join(f"{k} {n}" for k, n in sorted(verdicts.items()))
    usable = sum(1 for report, _trace in rows if _ok(report, require_correct))
    unknown_correct = sum(
        1
        for report, _trace in rows
        if _details(report).get("verdict") == "valid"
        and (_details(report).get("answer") or {}).get("correct") is None
    )
    chosen = "valid and correct" if require_correct else "valid"
    why = f"{len(rows)} reports ({shown}); {usable} {chosen}"
    if require_correct and unknown_correct:
        why += f" ({unknown_correct} valid with correctness unknown: no predicted or gold answer)"
    if not pairs:
        return why + "; an SFT example needs a " + chosen + " trace"
    groups: dict[str, tuple[int, int]] = {}
    for report, trace in rows:
        c, r = groups.get(group_key(trace), (0, 0))
        ok = _ok(report, require_correct)
        bad = not ok and _details(report).get("verdict") == "invalid"
        groups[group_key(trace)] = (c + ok, r + bad)
    both = sum(1 for c, r in groups.values() if c and r)
    return (
        f"{why}; {len(groups)} questions, {both} with both a {chosen} and an invalid trace "
        "(a DPO pair needs both for the same question; 'unknown' traces are never used)"
    )
