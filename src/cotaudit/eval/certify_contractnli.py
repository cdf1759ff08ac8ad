"""``cotaudit eval certify contractnli``: the paper's fixed-trace source-recheck ablation.

Every (document, hypothesis) pair of a ContractNLI split is served by certify under several
policies **over the same recorded votes** (each vote is asked once and reused, so the policies
differ only in what they do with the votes):

- ``gold spans (k=2)``: the gold annotation as two identical votes, source-checked by ``match/1``
  — the pipeline's reference, needs no model and must serve every pair correctly;
- ``solver_1vote``: the first model vote alone, no source check;
- ``agreement_only``: two votes must agree, no source check (paper: "Agreement only");
- ``agreement+match``: … and the evidence quote must be the text of the cited clause span;
- ``agreement+match+recheck``: … and a model rechecker (``nli-recheck/1``) must say the fact
  holds (paper: "Agreement + recheck").

The report is the C/W/A table (C-93), the wrong and correct answers the recheck withholds
relative to agreement only, the break-even cost ratio (C-89), the checker identities and the
caveat. Without a model only the gold row runs and the model rows say why they did not.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cotaudit.certify.adapters import contractnli as cnli
from cotaudit.certify.interface.model import Interface
from cotaudit.certify.serve.serving import serve
from cotaudit.certify.serve.votes import ParserGrounder, ProposedFact, QueryInput, Vote
from cotaudit.certify.sources.checkers import LIMITATIONS
from cotaudit.certify.sources.records import CheckerConfig
from cotaudit.certify.state.config import CertifyConfig
from cotaudit.certify.state.history import recheck_all
from cotaudit.eval.certify.metrics import (
    CAVEAT,
    Counts,
    break_even_ratio,
    count,
    cwa_table,
)
from cotaudit.stats import holm_adjusted as holm
from cotaudit.stats import mcnemar_exact

GOLD_ROW = "gold spans (k=2)"
MODEL_ROWS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("solver_1vote", "solver_1vote", ("match/1",)),
    ("agreement_only", "agreement_only", ("match/1",)),
    ("agreement+match", "native", ("match/1",)),
    ("agreement+match+recheck", "native", ("match/1", "nli-recheck/1")),
)
# (base, new): what each added check withholds; the middle one isolates the model recheck
COMPARISONS = (
    ("agreement_only", "agreement+match"),
    ("agreement+match", "agreement+match+recheck"),
    ("agreement_only", "agreement+match+recheck"),
)
RECHECK_LIMIT = "reads the cited clause with 300 characters of context, not the whole contract"


def _clock() -> str:
    return "1970-01-01T00:00:00Z"


class FixedVotes:
    """Asks the inner grounder once per (query, vote) and replays that vote to every policy."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.id = inner.id
        self.votes: dict[tuple[str, int], Vote] = {}

    def ground(self, q: QueryInput, interface: Interface, vote: int) -> Vote:
        key = (q.query_id, vote)
        if key not in self.votes:
            self.votes[key] = self.inner.ground(q, interface, vote)
        return self.votes[key]


@dataclass
class _Row:
    name: str
    outcomes: list[bool | None] = field(default_factory=list)
    answers: dict[str, str | None] = field(default_factory=dict)
    reasons: dict[str, int] = field(default_factory=dict)
    recheck_failures: list[str] = field(default_factory=list)

    def add(self, pair: cnli.Pair, result: Any) -> None:
        self.answers[pair.query_id] = result.answer
        self.outcomes.append(None if result.answer is None else result.answer == pair.gold)
        if result.answer is None:
            why = result.abstain_reason.value if result.abstain_reason is not None else "?"
            self.reasons[why] = self.reasons.get(why, 0) + 1


def _serve_doc(
    row: _Row,
    doc_pairs: Sequence[cnli.Pair],
    grounder: Any,
    policy: str,
    checkers: tuple[str, ...],
    extra_checkers: Sequence[Any],
) -> None:
    config = CertifyConfig(checkers=CheckerConfig(kernel="match/1", query=checkers))
    state = cnli.state(config, clock=_clock, checkers=extra_checkers)
    try:
        for pair in doc_pairs:
            row.add(pair, serve(state, cnli.query(pair), grounder, policy=policy))
        row.recheck_failures += recheck_all(state)
    finally:
        state.close()


def evaluate(
    path: Path,
    *,
    client: Any = None,
    not_configured: str | None = None,
    documents: int | None = None,
    doc_ids: Sequence[str] = (),
    clauses: int = 12,
    temperature: float = 0.7,
) -> tuple[dict[str, Any], str]:
    """The report for the split at ``path``; model rows only with ``client``."""
    hyps, docs = cnli.load(path)
    if doc_ids:
        wanted = set(doc_ids)
        missing = sorted(wanted - {d.doc_id for d in docs})
        if missing:
            raise cnli.ContractNLIError(f"{path}: no document(s) {', '.join(missing)}")
        docs = [d for d in docs if d.doc_id in wanted]
    if documents is not None:
        docs = docs[:documents]
    all_pairs = list(cnli.pairs(hyps, docs))
    rows = {GOLD_ROW: _Row(GOLD_ROW)}
    grounder: FixedVotes | None = None
    recheck: Any = None
    if client is not None:
        from cotaudit.frontends.certify_llm import ContractNLIGrounder, recheck_ask

        grounder = FixedVotes(
            ContractNLIGrounder(client, all_pairs, clauses=clauses, temperature=temperature)
        )
        recheck = cnli.NLIRecheck(recheck_ask(client), hyps)
        rows.update({name: _Row(name) for name, _, _ in MODEL_ROWS})
    by_id = {p.query_id: p for p in all_pairs}

    def gold_vote(q: QueryInput) -> list[ProposedFact]:
        return cnli.gold_facts(by_id[q.query_id])

    gold = ParserGrounder(gold_vote, id="gold-spans/1")
    for document in docs:
        doc_pairs = [p for p in all_pairs if p.document is document]
        _serve_doc(rows[GOLD_ROW], doc_pairs, gold, "native", ("match/1",), ())
        if grounder is not None:
            for name, policy, checkers in MODEL_ROWS:
                extra = (recheck,) if "nli-recheck/1" in checkers else ()
                _serve_doc(rows[name], doc_pairs, grounder, policy, checkers, extra)
    counts = [count(r.name, r.outcomes) for r in rows.values()]
    report = _report(
        path, docs, all_pairs, rows, counts, client, not_configured, grounder, clauses, temperature
    )
    return report, _text(report, counts)


def _withheld(base: _Row, new: _Row, pairs: Sequence[cnli.Pair]) -> dict[str, int]:
    """Answers ``base`` served that ``new`` withholds, split by whether they were correct."""
    wrong = correct = only_base = only_new = 0
    for p in pairs:
        ok_base, ok_new = base.answers.get(p.query_id) == p.gold, new.answers.get(p.query_id) == p.gold
        only_base += ok_base and not ok_new
        only_new += ok_new and not ok_base
        a, b = base.answers.get(p.query_id), new.answers.get(p.query_id)
        if a is not None and b is None:
            if a == p.gold:
                correct += 1
            else:
                wrong += 1
    base_wrong = sum(1 for p in pairs if base.answers.get(p.query_id) not in (None, p.gold))
    return {
        "wrong_withheld": wrong,
        "wrong_served_by_base": base_wrong,
        "correct_withheld": correct,
        "correct_only_base": only_base,
        "correct_only_new": only_new,
    }


def _votes_summary(grounder: FixedVotes) -> dict[str, Any]:
    labels: dict[str, int] = {}
    invalid: dict[str, int] = {}
    for vote in grounder.votes.values():
        if vote.valid:
            try:
                label = json.loads(vote.raw).get("label", "?")
            except (ValueError, AttributeError):
                label = "?"
            labels[label] = labels.get(label, 0) + 1
        else:
            why = (vote.error or "?").split(":", 1)[0]
            invalid[why] = invalid.get(why, 0) + 1
    return {
        "asked": len(grounder.votes),
        "valid_by_label": dict(sorted(labels.items())),
        "invalid_by_reason": dict(sorted(invalid.items())),
    }


def _report(
    path: Path,
    docs: Sequence[cnli.Document],
    pairs: Sequence[cnli.Pair],
    rows: dict[str, _Row],
    counts: list[Counts],
    client: Any,
    not_configured: str | None,
    grounder: FixedVotes | None,
    clauses: int,
    temperature: float,
) -> dict[str, Any]:
    gold_labels: dict[str, int] = {}
    for p in pairs:
        label = p.document.labels[p.hypothesis.key]
        gold_labels[label] = gold_labels.get(label, 0) + 1
    doc: dict[str, Any] = {
        "format": "cotaudit.certify.eval.contractnli/1",
        "caveat": CAVEAT,
        "data": path.name,
        "documents": len(docs),
        "pairs": len(pairs),
        "gold_labels": dict(sorted(gold_labels.items())),
        "answer_map": {"true": "Entailment", "false": "Contradiction", "unknown": "NotMentioned"},
        "counts": [c.to_json() for c in counts],
        "abstentions": {name: dict(sorted(r.reasons.items())) for name, r in rows.items()},
        "recheck_failures": {name: r.recheck_failures for name, r in rows.items()},
        "checkers": {
            "match/1": LIMITATIONS["match/1"],
            "nli-recheck/1": f"{LIMITATIONS['llm_recheck/1']}; {RECHECK_LIMIT}",
        },
    }
    if client is None:
        doc["model"] = None
        doc["not_run"] = {name: not_configured or "no model configured" for name, _, _ in MODEL_ROWS}
        return doc
    assert grounder is not None
    doc["model"] = client.describe()
    doc["grounding"] = {"clauses_shown": clauses, "temperature": temperature, **_votes_summary(grounder)}
    by_name = {c.policy: c for c in counts}
    comparisons = []
    for base, new in COMPARISONS:
        w: dict[str, Any] = {"base": base, "new": new, **_withheld(rows[base], rows[new], pairs)}
        ratio = break_even_ratio(by_name[base], by_name[new])
        w["break_even_cw_over_ca"] = None if ratio is None else f"{ratio.numerator}/{ratio.denominator}"
        w["mcnemar_p"] = round(mcnemar_exact(w["correct_only_base"], w["correct_only_new"]), 6)
        comparisons.append(w)
    for w, adj in zip(comparisons, holm([w["mcnemar_p"] for w in comparisons]), strict=True):
        w["mcnemar_p_holm"] = round(adj, 6)
    doc["withheld"] = comparisons
    doc["calls"] = {k: v for k, v in client.log.summary().items() if not k.startswith("latency")}
    return doc


def _text(doc: dict[str, Any], counts: list[Counts]) -> str:
    gold = ", ".join(f"{k} {v}" for k, v in doc["gold_labels"].items())
    lines = [
        f"ContractNLI {doc['data']}: {doc['documents']} documents, "
        f"{doc['pairs']} (document, hypothesis) pairs (gold {gold})",
        "answers: true = Entailment, false = Contradiction, unknown = NotMentioned; "
        "one set of votes for every policy",
        "",
        cwa_table(counts),
        "",
    ]
    if doc["model"] is None:
        for name, why in doc["not_run"].items():
            lines.append(f"{name}: not run ({why})")
    else:
        g = doc["grounding"]
        lines.append(
            f"model {doc['model']['model']} ({doc['model']['mode']}): {g['asked']} votes, valid by label "
            f"{g['valid_by_label']}, invalid {g['invalid_by_reason']}; {g['clauses_shown']} clauses shown, "
            f"temperature {g['temperature']}"
        )
        for w in doc["withheld"]:
            lines.append(
                f"{w['new']} vs {w['base']}: withholds {w['wrong_withheld']}/{w['wrong_served_by_base']} "
                f"wrong answers and {w['correct_withheld']} correct ones; "
                f"break-even c_W/c_A = {w['break_even_cw_over_ca']}; paired correctness "
                f"{w['correct_only_base']}:{w['correct_only_new']}, McNemar p = {w['mcnemar_p']:.4g} "
                f"(Holm {w['mcnemar_p_holm']:.4g})"
            )
    for name, reasons in doc["abstentions"].items():
        if reasons:
            lines.append(f"abstentions, {name}: {reasons}")
    failures = sum(len(v) for v in doc["recheck_failures"].values())
    lines += [f"certificate recheck failures: {failures}", "", "checkers:"]
    lines += [f"  {k}: {v}" for k, v in doc["checkers"].items()]
    lines += ["", CAVEAT]
    return "\n".join(lines) + "\n"
