"""The type6 baseline comparison: Type-6 (on the model's annotation), the LLM judge and Trivial.

For each raw chain of thought: annotate it (:mod:`~cotaudit.frontends.type6_annotate`) and run
the type6 verifier on the result; ask the 4-axis judge; compute the model-free Trivial
baseline. Then, as in the paper's Table 3, pairwise Cohen's κ on hard-fail and Spearman's ρ on
the 0–5 scalars, each over the traces both methods decided; and the corpus-level Type-6
tables (:mod:`cotaudit.eval.type6_tables`) over the annotations that parsed. An annotation or
a judgement that failed leaves that method's cell empty (``None``) — it is never guessed. With
no model configured, only Trivial runs; Type-6 and the judge are reported as not run, with the
reason.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cotaudit import api
from cotaudit.errors import CotauditError
from cotaudit.eval.baselines import MethodScores, agreement, trivial
from cotaudit.eval.type6_corpus import TraceFacts, aggregate, facts_from_report
from cotaudit.eval.type6_tables import render as render_corpus
from cotaudit.frontends.type6_annotate import annotate
from cotaudit.frontends.type6_judge import judge_type6
from cotaudit.llm.client import LLMClient


@dataclass(frozen=True, slots=True)
class RawTrace:
    id: str
    text: str
    question: str | None = None


class TraceInputError(CotauditError, ValueError):
    """The raw traces could not be read (the message names the file and the line)."""


def load_traces(path: Path) -> list[RawTrace]:
    """Raw traces from a directory of ``*.txt`` files (id = file stem, sorted by name) or from
    a JSONL file of ``{"id", "text", "question"?}`` objects."""
    if path.is_dir():
        files = sorted(path.glob("*.txt"))
        if not files:
            raise TraceInputError(f"{path}: no *.txt raw traces (nor *.t6 annotated ones) in this directory")
        return [RawTrace(f.stem, _read(f)) for f in files]
    traces = []
    for n, line in enumerate(_read(path).splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise TraceInputError(f"{path}:{n}: not JSON ({exc.msg})") from None
        if not isinstance(obj, dict) or not isinstance(obj.get("text"), str) or not obj["text"].strip():
            raise TraceInputError(f'{path}:{n}: expected an object with a non-empty "text" string')
        question = obj.get("question")
        if question is not None and not isinstance(question, str):
            raise TraceInputError(f'{path}:{n}: "question" must be a string')
        traces.append(RawTrace(str(obj.get("id", f"{path.stem}-{n}")), obj["text"], question))
    if not traces:
        raise TraceInputError(f"{path}: no traces")
    return traces


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TraceInputError(f"{path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise TraceInputError(f"{path}: not UTF-8 text") from None


def compare(
    client: LLMClient | None, traces: Sequence[RawTrace], not_configured: str | None = None
) -> dict[str, Any]:
    """Every method on every trace, and their agreement (see the module doc). ``client=None``:
    only Trivial runs and ``not_configured`` says why the model's methods did not."""
    if client is None:
        return _trivial_only(traces, not_configured or "no model configured")
    rows: list[dict[str, Any]] = []
    corpus: list[TraceFacts] = []
    for t in traces:
        ann = annotate(client, t.text, question=t.question, trace_id=t.id)
        t6_fail: bool | None = None
        t6_score: float | None = None
        if ann.status == "ok":
            # api.check: the per-input budget; an overrun leaves the cells empty, never guessed
            report = api.check(ann.t6, "type6", item_id=t.id)
            facts = facts_from_report(report, t.id)
            if facts.status == "ok":
                t6_fail, t6_score = report.details["summary"]["hard_fail"], report.details["summary"]["score"]
        else:
            facts = TraceFacts(
                t.id, "invalid" if ann.status == "invalid" else "unchecked", f"annotation {ann.status}"
            )
        corpus.append(facts)
        judged = judge_type6(client, t.text, tag=f"judge {t.id}")
        base = trivial(t.text)
        rows.append(
            {
                "id": t.id,
                "annotation": {
                    "status": ann.status,
                    "reason": ann.reason,
                    "statements": ann.statements,
                    "symbols": ann.symbols,
                    "reasks": ann.reasks,
                    "repairs": ann.repairs,
                    "notes": list(ann.notes),
                    "t6": ann.t6,
                },
                "type6": {"hard_fail": t6_fail, "score": t6_score},
                "llm_judge": judged.to_dict(),
                "trivial": base.to_dict(),
            }
        )
    methods = {
        "type6": MethodScores([r["type6"]["hard_fail"] for r in rows], [r["type6"]["score"] for r in rows]),
        "llm_judge": MethodScores(
            [r["llm_judge"]["hard_fail"] for r in rows], [r["llm_judge"]["score"] for r in rows]
        ),
        "trivial": MethodScores(
            [r["trivial"]["hard_fail"] for r in rows], [r["trivial"]["score"] for r in rows]
        ),
    }
    summary = {}
    for name, scores in methods.items():
        decided = [f for f in scores.hard_fail if f is not None]
        scored = [s for s in scores.score if s is not None]
        summary[name] = {
            "decided": len(decided),
            "hard_fail_rate": round(sum(decided) / len(decided), 6) if decided else None,
            "mean_score": round(sum(scored) / len(scored), 6) if scored else None,
        }
    annotations = [r["annotation"]["status"] for r in rows]
    return {
        "client": client.describe(),
        "traces": len(rows),
        "annotation": {s: annotations.count(s) for s in ("ok", "invalid", "abstain")},
        "methods": summary,
        "agreement": agreement(methods),
        "corpus": aggregate(corpus),
        "items": rows,
        "calls": client.log.summary(),
    }


def _trivial_only(traces: Sequence[RawTrace], reason: str) -> dict[str, Any]:
    rows: list[dict[str, Any]] = [{"id": t.id, "trivial": trivial(t.text).to_dict()} for t in traces]
    decided = [r["trivial"]["hard_fail"] for r in rows if r["trivial"]["hard_fail"] is not None]
    scored = [r["trivial"]["score"] for r in rows if r["trivial"]["score"] is not None]
    return {
        "client": None,
        "not_configured": reason,
        "traces": len(rows),
        "annotation": None,
        "methods": {
            "type6": {"not_run": reason},
            "llm_judge": {"not_run": reason},
            "trivial": {
                "decided": len(decided),
                "hard_fail_rate": round(sum(decided) / len(decided), 6) if decided else None,
                "mean_score": round(sum(scored) / len(scored), 6) if scored else None,
            },
        },
        "agreement": [],
        "items": rows,
        "calls": None,
    }


def render(report: dict[str, Any]) -> str:
    """The comparison as Markdown: per-method summary, pairwise agreement, one row per trace."""

    def cell(value: Any) -> str:
        if value is None:
            return "—"
        if isinstance(value, bool):
            return "fail" if value else "pass"
        return f"{value:.3f}" if isinstance(value, float) else str(value)

    out = ["# type6 baseline comparison", ""]
    if report.get("not_configured"):
        out += [f"**Not configured:** {report['not_configured']}.", ""]
        out += [
            "Only the model-free Trivial baseline ran. Type-6 (which verifies a model's annotation)"
            " and the LLM judge were not run, and no figure is given for them.",
            "",
        ]
    else:
        out += [
            f"Model: `{_model(report['client'])}` · traces: {report['traces']}"
            f" · annotations: {report['annotation']}",
            "",
        ]
    out += ["| method | decided | hard-fail rate | mean score (0–5) |", "|---|---|---|---|"]
    for name, m in report["methods"].items():
        if "not_run" in m:
            out.append(f"| {name} | not run | — | — |")
        else:
            out.append(f"| {name} | {m['decided']} | {cell(m['hard_fail_rate'])} | {cell(m['mean_score'])} |")
    if report["agreement"]:
        out += ["", "| pair | Cohen's κ (hard-fail) | Spearman ρ (score) | items |", "|---|---|---|---|"]
        for a in report["agreement"]:
            out.append(
                f"| {a['pair']} | {cell(a['kappa_hard_fail'])} | {cell(a['spearman_score'])} | {a['items']} |"
            )
    out += [
        "",
        "| trace | annotation | type6 | type6 score | judge | judge score | trivial | trivial score |",
    ]
    out.append("|---|---|---|---|---|---|---|---|")
    for r in report["items"]:
        ann = r.get("annotation", {}).get("status", "not run") if r.get("annotation") else "not run"
        t6, jd, tv = r.get("type6", {}), r.get("llm_judge", {}), r["trivial"]
        out.append(
            f"| {r['id']} | {ann} | {cell(t6.get('hard_fail'))} | {cell(t6.get('score'))} "
            f"| {cell(jd.get('hard_fail'))} | {cell(jd.get('score'))} "
            f"| {cell(tv.get('hard_fail'))} | {cell(tv.get('score'))} |"
        )
    if report.get("corpus"):  # the model's annotations, aggregated like an annotated corpus
        tables = render_corpus(report["corpus"], title="the model's annotations")
        out += [
            "",
            tables.replace("# type6 corpus", "## type6 corpus", 1).replace("\n## ", "\n### ").rstrip("\n"),
        ]
    return "\n".join(out) + "\n"


def _model(client: Any) -> str:
    if isinstance(client, dict):
        return f"{client.get('model')} ({client.get('mode')})"
    return str(client)
