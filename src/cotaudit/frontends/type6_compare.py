"""The type6 baseline comparison: Type-6 (on the model's annotation), the LLM judge and Trivial.

For each raw chain of thought: annotate it (:mod:`~cotaudit.frontends.type6_annotate`) and run
the type6 verifier on the result; ask the 4-axis judge; compute the model-free Trivial
baseline. Then, as in the paper's Table 3, pairwise Cohen's κ on hard-fail and Spearman's ρ on
the 0–5 scalars, each over the traces both methods decided. An annotation or a judgement that
failed leaves that method's cell empty (``None``) — it is never guessed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cotaudit import type6
from cotaudit.eval.baselines import MethodScores, agreement, trivial
from cotaudit.frontends.type6_annotate import annotate
from cotaudit.frontends.type6_judge import judge_type6
from cotaudit.llm.client import LLMClient


@dataclass(frozen=True, slots=True)
class RawTrace:
    id: str
    text: str
    question: str | None = None


def compare(client: LLMClient, traces: Sequence[RawTrace]) -> dict[str, Any]:
    """Every method on every trace, and their agreement (see the module doc)."""
    rows: list[dict[str, Any]] = []
    for t in traces:
        ann = annotate(client, t.text, question=t.question, trace_id=t.id)
        t6_fail: bool | None = None
        t6_score: float | None = None
        if ann.status == "ok":
            result = type6.verify(type6.parse_t6(ann.t6, t.id))
            t6_fail, t6_score = result.hard_fail, result.score
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
        "items": rows,
        "calls": client.log.summary(),
    }
