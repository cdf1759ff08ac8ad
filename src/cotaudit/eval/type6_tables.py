"""The corpus-level Type-6 tables as Markdown, our figures beside the paper's (issue 19 item 5).

Input: :func:`cotaudit.eval.type6_corpus.aggregate`'s figures. Every paper figure is printed with
where it comes from (:mod:`cotaudit.eval.type6_paper`); a figure the paper does not report is
"not reported", never guessed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cotaudit.eval import type6_paper as paper
from cotaudit.type6.events import CATALOGUE

MAX_LISTED_PROBLEMS = 50
NOT_REPORTED = "not reported"


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def _num(x: float | None) -> str:
    if x is None:
        return "—"
    return f"{round(float(x), 3):.12g}"  # at most three decimals, no trailing zeros


def _five(values: Sequence[float] | None) -> str:
    return "—" if values is None else " / ".join(_num(v) for v in values)


def _name(code: str) -> str:
    return CATALOGUE[code].name


def render(figures: dict[str, Any], *, title: str) -> str:
    """The corpus tables: hard fail, hard-fail categories, incidence, chain, residuals, paths."""
    t = figures["traces"]
    out = [
        f"# type6 corpus — {title}",
        "",
        f"Traces: {t['read']} read, {t['verified']} verified, {t['invalid']} invalid, "
        f"{t['unchecked']} not checked (nothing decided: a budget ran out, or no annotation came "
        f"back). Only verified traces enter the figures. Paper: {paper.CORPUS_TRACES} traces, "
        f"{paper.SCORED_TRACES} scored by Type-6 (Table 5).",
    ]
    out += _hard_fail(figures)
    out += _categories(figures)
    out += _incidence(figures)
    out += _chain(figures)
    out += _residuals(figures)
    out += _paths(figures)
    problems = figures["not_verified"]
    if problems:
        out += ["", "## Not verified", ""]
        for p in problems[:MAX_LISTED_PROBLEMS]:
            out.append(f"- {p['id']}: {p['status']} ({p['reason']})")
        if len(problems) > MAX_LISTED_PROBLEMS:
            out.append(f"- … and {len(problems) - MAX_LISTED_PROBLEMS} more (all in the JSON)")
    return "\n".join(out) + "\n"


def _hard_fail(f: dict[str, Any]) -> list[str]:
    h = f["hard_fail"]
    n = f["traces"]["verified"]
    return [
        "",
        "## Hard fail",
        "",
        "| | ours | paper |",
        "|---|---|---|",
        f"| hard-fail rate | {_pct(h['rate'])} ({h['traces']} of {n}) "
        f"| {_pct(paper.HARD_FAIL_RATE)} of {paper.SCORED_TRACES} (Table 5) |",
        f"| mean graded score (0–5) | {_num(h['mean_graded'])} | {_num(paper.MEAN_GRADED)} (Table 6) |",
    ]


def _categories(f: dict[str, Any]) -> list[str]:
    out = [
        "",
        "## Hard-fail categories",
        "",
        "A trace counts under a category when it has a hard event of it; residuals count only when",
        "elevated (on the direct implication chain). The paper's Table 17 counts residuals",
        "whether elevated or not.",
        "",
        "| category | code | traces | share of hard-fail traces | events | paper traces (Table 17) |",
        "|---|---|---|---|---|---|",
    ]
    for code, c in f["hard_fail_categories"].items():
        name = _name(code) + (" (elevated)" if code in ("T6_R01", "T6_R02") else "")
        events = ("≥ " if c["events_lower_bound"] else "") + str(c["events"])
        row = paper.TABLE17.get(code)
        paper_cell = NOT_REPORTED
        if row is not None:
            paper_cell = str(row.traces) + (" (all, elevated or not)" if code in ("T6_R01", "T6_R02") else "")
        out.append(
            f"| {name} | {code} | {c['traces']} | {_pct(c['share_of_hard_fail'])} | {events} | {paper_cell} |"
        )
    top = f["most_common_hard_fail"]
    cats = f["hard_fail_categories"]
    by_t = _top(top["by_traces"], cats, "traces")
    by_e = _top(top["by_events"], cats, "events")
    q1, q2 = paper.QUOTES["most_common_hard_fail"], paper.QUOTES["most_common_detail"]
    out += [
        "",
        f"Most common hard-fail category here: by traces, {by_t}; by events, {by_e}.",
        "",
        f"Paper ({q1.where}): “{q1.text}”; ({q2.where}): “{q2.text}”. {paper.RANKING_NOTE}",
    ]
    return out


def _top(codes: list[str], cats: dict[str, Any], key: str) -> str:
    if not codes:
        return "none"
    names = ", ".join(f"{_name(c)} ({c})" for c in codes)
    tie = " (a tie)" if len(codes) > 1 else ""
    return f"{names}{tie}, {cats[codes[0]][key]} {key}" + (" each" if tie else "")


def _avg(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def _incidence(f: dict[str, Any]) -> list[str]:
    out = [
        "",
        f"## Event incidence (the paper's {paper.WHERE_TABLE17})",
        "",
        "| category | code | traces | share of traces | avg events per triggered trace "
        "| paper traces | paper avg |",
        "|---|---|---|---|---|---|---|",
    ]
    for code, c in f["incidence"].items():
        row = paper.TABLE17.get(code)
        if not c["traces"] and row is None:
            continue
        p_traces = str(row.traces) if row else NOT_REPORTED
        p_avg = _avg(row.avg_events) if row else NOT_REPORTED
        out.append(
            f"| {_name(code)} | {code} | {c['traces']} | {_pct(c['share'])} | {_avg(c['avg_events'])} "
            f"| {p_traces} | {p_avg} |"
        )
    return out


def _chain(f: dict[str, Any]) -> list[str]:
    c = f["chain"]
    t18 = paper.TABLE18
    q3, q4 = paper.QUOTES["three_percent"], paper.QUOTES["on_chain_median"]
    return [
        "",
        f"## Direct implication chain (the paper's {paper.WHERE_TABLE18})",
        "",
        "| statistic | ours: min / Q1 / median / Q3 / max | paper |",
        "|---|---|---|",
        f"| chain length (propositions on the chain, sink included) | {_five(c['chain_length'])} "
        f"| {_five(t18['chain_length'].values)} |",
        f"| on-chain fraction (chain length / statements) | {_five(c['on_chain_fraction'])} "
        f"| {_five(t18['on_chain_fraction'].values)} |",
        f"| elevated residuals per trace | {_five(c['elevated_residuals'])} "
        f"| {_five(t18['elevated_residuals'].values)} |",
        f"| chain length / propositions, per trace | {_five(c['propositions_on_chain_per_trace'])} "
        f"| {NOT_REPORTED} |",
        "",
        f"Share of all propositions on the chain (pooled): {_pct(c['propositions_on_chain'])}. "
        f"Paper ({q3.where}): “{q3.text}”; ({q4.where}): “{q4.text}”. The paper's fraction, like ours "
        "(Y-53), divides by the trace's statements, as Table 18 says.",
    ]


def _residuals(f: dict[str, Any]) -> list[str]:
    r = f["residuals"]
    q = paper.QUOTES["elevation"]
    t17 = paper.TABLE17
    inc = f["incidence"]
    return [
        "",
        "## Residual elevation",
        "",
        "| | ours | paper |",
        "|---|---|---|",
        f"| residual events (R01 + R02) | {r['events']} | {NOT_REPORTED} |",
        f"| elevated to hard | {r['elevated']} ({_pct(r['elevated_share'])}) | {NOT_REPORTED} |",
        f"| traces with an elevated residual | {r['traces_with_elevated']} | {NOT_REPORTED} |",
        f"| traces with R01 / R02 at all | {inc['T6_R01']['traces']} / {inc['T6_R02']['traces']} "
        f"| {t17['T6_R01'].traces} / {t17['T6_R02'].traces} (Table 17) |",
        "",
        f"Paper ({q.where}): “{q.text}”. Its per-trace distribution of elevated residuals is in the "
        "chain table above.",
    ]


def _paths(f: dict[str, Any]) -> list[str]:
    p = f["paths"]
    modes = ", ".join(f"{m} {k}" for m, k in p["modes"].items()) or "none"
    return [
        "",
        "## Paths",
        "",
        f"Traces with a path analysis: {p['traces']} (modes: {modes}).",
        "",
        "| statistic | min / Q1 / median / Q3 / max |",
        "|---|---|",
        f"| scored paths per trace | {_five(p['per_trace'])} |",
        f"| coherent paths per trace | {_five(p['coherent_per_trace'])} |",
        f"| consistent paths per trace | {_five(p['consistent_per_trace'])} |",
        "",
        f"Of all scored paths, {_pct(p['coherent_share'])} coherent and {_pct(p['consistent_share'])} "
        f"consistent. {paper.PATHS_NOTE}",
    ]
