"""``cotaudit eval te-emit``: how well a model writes TE when shown the 5-shot prompt.

For each problem of GSM8K's test split and MATH500, :func:`cotaudit.frontends.te_emit.emit`
asks for a trace; this module counts *structural compliance* (a ``GIVEN:`` … ``ANS:`` span
that passes the structural preset M1), the full linter's CLEAN rate among compliant traces,
and *answer accuracy* (the ANS value, or text, equals the gold answer), each with its Wilson
95% interval. Abstentions (the server failed) are counted apart and excluded from neither
denominator: a problem without a trace is a problem the model did not solve.

Beside each dataset stands the paper's matching row, R5: the same 5-shot prompt-only condition
(:data:`PAPER_5SHOT`, quoted with where it comes from). The paper's fine-tuned 2B model
(:data:`PAPER_SFT_2B`) is printed below the table as context, never as the comparison.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cotaudit import stats
from cotaudit.frontends.answers import gsm8k_gold, same_answer
from cotaudit.frontends.te_emit import Emission, emit
from cotaudit.llm.client import LLMClient

DATASETS = ("gsm8k", "math500")


@dataclass(frozen=True, slots=True)
class PaperRow:
    """One condition of the Telegraph paper (shared/spec/papers/telegraph-reasoning.txt), its
    figures per dataset, and the sentences they are quoted from."""

    condition: str
    compliance: dict[str, float]
    accuracy: dict[str, float]
    quotes: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "condition": self.condition,
            "compliance": dict(self.compliance),
            "accuracy": dict(self.accuracy),
            "quotes": list(self.quotes),
        }


# What ``eval te-emit`` does: the 5-shot TE prompt, no fine-tuning. The paper's matching row is
# R5 (prompt-only, 5 in-context examples, Claude Sonnet 4.6), so that is the comparison.
PAPER_5SHOT = PaperRow(
    "R5 (TE), prompt-only 5-shot, Claude Sonnet 4.6",
    compliance={"gsm8k": 1.0, "math500": 0.964},
    accuracy={"gsm8k": 0.964, "math500": 0.626},
    quotes=(
        "§5.1: “Structural compliance is 100% on GSM8K and 96.4% on MATH500”",
        "Table 1 (prompt-only accuracy, GSM8K n = 1,319, MATH500 n = 500): “R5 (TE)” 96.4% / 62.6%",
        "§4: “R5 (TE scratchpad with 5 in-context examples)”; “temperature 0.2 for generation”",
    ),
)
# Context only: a 2B model fine-tuned on TE traces, not what this command measures.
PAPER_SFT_2B = PaperRow(
    "R5-SFT, Qwen3.5-2B + TE-SFT on 1,562 traces (context)",
    compliance={"gsm8k": 0.992, "math500": 0.818},
    accuracy={"gsm8k": 0.721, "math500": 0.366},
    quotes=(
        "Appendix I: “The SFT model (R5 sft : Qwen3.5-2B + TE-SFT on 1,562 traces) achieves 72.1% on "
        "GSM8K and 36.6% on MATH500”; “Structural compliance is 99.2% / 81.8%.”",
    ),
)


@dataclass(frozen=True, slots=True)
class Problem:
    id: str
    dataset: str
    question: str
    gold: str


def load_problems(
    dataset: str, path: str | Path, *, limit: int | None = None, offset: int = 0
) -> list[Problem]:
    """Problems ``offset`` … ``offset + limit`` of a GSM8K or MATH500 ``test.jsonl``."""
    out: list[Problem] = []
    with Path(path).open(encoding="utf-8") as fh:
        for index, line in enumerate(fh):
            if index < offset or not line.strip():
                continue
            if limit is not None and len(out) >= limit:
                break
            d = json.loads(line)
            if dataset == "gsm8k":
                out.append(Problem(f"gsm8k-{index}", dataset, d["question"], gsm8k_gold(d["answer"])))
            else:
                pid = str(d.get("unique_id", index)).replace("/", "-").removesuffix(".json")
                out.append(Problem(f"math500-{pid}", dataset, d["problem"], str(d["answer"])))
    return out


def _reason_kind(e: Emission) -> str:
    """A short bucket for a non-compliance reason (``no TE trace``, ``structural error(s)``, …)."""
    if e.reason is None:
        return "compliant"
    if e.status == "abstain":
        return "no answer (server)"
    head = e.reason.split(":")[0]
    return head.split(" ", 1)[1] if head[:1].isdigit() else head


def evaluate(client: LLMClient, problems: Sequence[Problem]) -> dict[str, Any]:
    """Emit a trace per problem (on the client's threads) and compute the figures per dataset."""
    emissions = client.map(lambda p: emit(client, p.question, tag=p.id), list(problems))
    report: dict[str, Any] = {"client": client.describe(), "datasets": {}, "items": []}
    for dataset in DATASETS:
        rows = [(p, e) for p, e in zip(problems, emissions, strict=True) if p.dataset == dataset]
        if not rows:
            continue
        n = len(rows)
        compliant = [(p, e) for p, e in rows if e.status == "compliant"]
        correct = sum(1 for p, e in rows if same_answer(e.answer, e.value, p.gold))
        clean = sum(1 for _, e in compliant if e.verdict == "CLEAN")
        report["datasets"][dataset] = {
            "problems": n,
            "compliant": len(compliant),
            "compliance": round(len(compliant) / n, 6),
            "compliance_ci": stats.wilson(len(compliant), n).to_list(),
            "clean_among_compliant": clean,
            "correct": correct,
            "accuracy": round(correct / n, 6),
            "accuracy_ci": stats.wilson(correct, n).to_list(),
            "abstained": sum(1 for _, e in rows if e.status == "abstain"),
            "reasons": dict(sorted(Counter(_reason_kind(e) for _, e in rows).items())),
            "paper_5shot": {
                "compliance": PAPER_5SHOT.compliance[dataset],
                "accuracy": PAPER_5SHOT.accuracy[dataset],
            },
            "paper_sft_2b": {
                "compliance": PAPER_SFT_2B.compliance[dataset],
                "accuracy": PAPER_SFT_2B.accuracy[dataset],
            },
        }
        for p, e in rows:
            item = {"id": p.id, "gold": p.gold, "correct": same_answer(e.answer, e.value, p.gold)}
            item.update(e.to_dict())
            report["items"].append(item)
    report["paper"] = {"5-shot": PAPER_5SHOT.to_dict(), "sft-2b": PAPER_SFT_2B.to_dict()}
    report["calls"] = client.log.summary()
    return report


def render(report: dict[str, Any]) -> str:
    """The figures as Markdown."""

    def pct(x: float) -> str:
        return f"{100 * x:.1f}%"

    client = report["client"]
    lines = [
        "# te emission",
        "",
        f"Model `{client['model']}` (cache mode `{client['mode']}`), the 5-shot TE prompt, temperature 0.",
        "",
        "| dataset | problems | structural compliance [95% Wilson] | CLEAN (full linter) | answer accuracy "
        "[95% Wilson] | abstained | paper 5-shot compliance / accuracy |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, d in report["datasets"].items():
        lo, hi = d["compliance_ci"]
        alo, ahi = d["accuracy_ci"]
        paper = d["paper_5shot"]
        lines.append(
            f"| {name} | {d['problems']} | {pct(d['compliance'])} [{pct(lo)}, {pct(hi)}] "
            f"| {d['clean_among_compliant']} of {d['compliant']} "
            f"| {pct(d['accuracy'])} [{pct(alo)}, {pct(ahi)}] "
            f"| {d['abstained']} | {pct(paper['compliance'])} / {pct(paper['accuracy'])} |"
        )
    lines += ["", f"Paper row compared: {PAPER_5SHOT.condition}. Quoted from the paper:", ""]
    lines += [f"- {q}" for q in PAPER_5SHOT.quotes]
    sft = PAPER_SFT_2B
    lines += [
        "",
        f"For context only (a fine-tuned model, not this prompt): {sft.condition}: compliance "
        + ", ".join(f"{k} {pct(v)}" for k, v in sft.compliance.items())
        + "; accuracy "
        + ", ".join(f"{k} {pct(v)}" for k, v in sft.accuracy.items())
        + ".",
    ]
    lines += ["", "Why traces were not compliant:", ""]
    for name, d in report["datasets"].items():
        reasons = ", ".join(f"{k} {v}" for k, v in d["reasons"].items())
        lines.append(f"- {name}: {reasons}")
    c = report["calls"]
    lines += [
        "",
        f"Calls: {c['calls']} ({c['cache_hits']} from the cache), {c['errors']} failed, "
        f"{c['prompt_tokens']} prompt and {c['completion_tokens']} completion tokens.",
    ]
    return "\n".join(lines) + "\n"
