"""ContractNLI (Koreeda & Manning 2021) as certified serving: 17 fixed hypotheses as schema
predicates over clause spans.

Each of the 17 hypotheses (``nda-1`` … ``nda-20``) becomes a source predicate ``<slug>_src(D)``
that a grounder may write for document ``D`` — positive when a clause of the document states
the hypothesis, strongly negated (``-<slug>_src(D)``) when a clause contradicts it — and a query
predicate ``<slug>(D)`` that only the two copy rules can derive::

    [nda_11]     no_reverse_engineering(D) :- no_reverse_engineering_src(D).
    [nda_11_neg] -no_reverse_engineering(D) :- -no_reverse_engineering_src(D).

A query asks for ``<slug>(d<id>)`` in the ``tfu`` answer space: ``true`` ↔ Entailment, ``false``
↔ Contradiction, ``unknown`` (neither derived from the agreed facts) ↔ NotMentioned; both derived
is a conflict and abstains (``INCONSISTENT``). The target is fixed by the pair (document,
hypothesis); the model never chooses it (C-74), and Ω holds only the ``_src`` predicates, so a
vote that writes the answer predicate itself is rejected by the gate.

Evidence is a character span of the document (the ``match/1`` span mode checks that the quote is
the text of the span). The learned source recheck of the paper is :class:`NLIRecheck`
(``nli-recheck/1``): a model is asked whether the quoted clause supports the fact; its ``ask``
callable is pluggable so the engine never imports the LLM layer (the model-backed ``ask`` is in
:mod:`cotaudit.frontends.certify_llm`).

:func:`gold_votes` turns the gold annotation into votes (the first gold span as evidence): the
pipeline's reference run, which needs no model and must serve every pair correctly.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cotaudit.certify.core.canon import sha256_hex
from cotaudit.certify.interface.load import interface_from_dict
from cotaudit.certify.interface.model import Interface
from cotaudit.certify.lang.syntax import Fact, Unit
from cotaudit.certify.sources.checkers import recheck_verdict
from cotaudit.certify.sources.records import CheckResult, Evidence, RecordStore, SourceRecord
from cotaudit.errors import CotauditError

if TYPE_CHECKING:
    from cotaudit.certify.serve.votes import ProposedFact, QueryInput, Vote
    from cotaudit.certify.sources.checkers import LLMReply
    from cotaudit.certify.state.config import CertifyConfig
    from cotaudit.certify.state.machine import CertState

# The 17 hypotheses in the order of the dataset's label ids; slugs are fixed here (not derived
# from the short descriptions at run time) so that predicates never change with the data file.
SLUGS: dict[str, str] = {
    "nda-1": "explicit_identification",
    "nda-2": "only_technical_information",
    "nda-3": "verbal_information_included",
    "nda-4": "limited_use",
    "nda-5": "sharing_with_employees",
    "nda-7": "sharing_with_third_parties",
    "nda-8": "notice_on_compelled_disclosure",
    "nda-10": "confidentiality_of_agreement",
    "nda-11": "no_reverse_engineering",
    "nda-12": "independent_development",
    "nda-13": "acquirement_from_third_party",
    "nda-15": "no_licensing",
    "nda-16": "return_of_information",
    "nda-17": "permissible_copy",
    "nda-18": "no_solicitation",
    "nda-19": "survival_of_obligations",
    "nda-20": "post_agreement_possession",
}
ANSWER_OF = {"Entailment": "true", "Contradiction": "false", "NotMentioned": "unknown"}
LABEL_OF = {v: k for k, v in ANSWER_OF.items()}
_DOC_ID = re.compile(r"^[0-9]{1,9}$")


class ContractNLIError(CotauditError, ValueError):
    """The data file is not the ContractNLI release format."""


@dataclass(frozen=True)
class Hypothesis:
    key: str  # nda-k
    slug: str
    text: str
    short: str


@dataclass(frozen=True)
class Document:
    doc_id: str
    text: str
    spans: tuple[tuple[int, int], ...]
    labels: Mapping[str, str]  # nda-k → Entailment | Contradiction | NotMentioned
    gold_spans: Mapping[str, tuple[int, ...]]  # nda-k → indices into spans

    @property
    def constant(self) -> str:
        return f"d{self.doc_id}"

    @property
    def record_id(self) -> str:
        return f"contractnli/{self.doc_id}"


@dataclass(frozen=True)
class Pair:
    document: Document
    hypothesis: Hypothesis

    @property
    def query_id(self) -> str:
        return f"cnli-{self.document.doc_id}-{self.hypothesis.key}"

    @property
    def gold(self) -> str:
        return ANSWER_OF[self.document.labels[self.hypothesis.key]]

    @property
    def target(self) -> str:
        return f"{self.hypothesis.slug}({self.document.constant})"


def load(path: str | Path) -> tuple[list[Hypothesis], list[Document]]:
    """The hypotheses and documents of one split file (``dev.json`` / ``test.json``)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        labels = data["labels"]
        hyps = [
            Hypothesis(k, SLUGS[k], str(labels[k]["hypothesis"]), str(labels[k]["short_description"]))
            for k in SLUGS
        ]
        docs = [_document(d) for d in data["documents"]]
    except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise ContractNLIError(
            f"{path}: not a ContractNLI split file ({type(exc).__name__}: {exc})"
        ) from None
    return hyps, docs


def _document(d: Mapping[str, Any]) -> Document:
    doc_id = str(d["id"])
    if not _DOC_ID.fullmatch(doc_id):
        raise ValueError(f"document id {doc_id!r} is not numeric")
    text = str(d["text"])
    spans = tuple((int(a), int(b)) for a, b in d["spans"])
    if any(not 0 <= a <= b <= len(text) for a, b in spans):
        raise ValueError(f"document {doc_id}: a span lies outside the text")
    annotations = d["annotation_sets"][0]["annotations"]
    labels = {k: str(annotations[k]["choice"]) for k in SLUGS}
    if any(v not in ANSWER_OF for v in labels.values()):
        raise ValueError(f"document {doc_id}: unknown label")
    gold = {k: tuple(int(i) for i in annotations[k]["spans"]) for k in SLUGS}
    return Document(doc_id, text, spans, labels, gold)


def pairs(hypotheses: Sequence[Hypothesis], documents: Sequence[Document]) -> Iterator[Pair]:
    """Every (document, hypothesis) pair, documents in file order, hypotheses in label order."""
    for d in documents:
        for h in hypotheses:
            yield Pair(d, h)


def interface(hypotheses: Sequence[Hypothesis] | None = None) -> Interface:
    """Σ: ``<slug>_src/1`` (Ω) and ``<slug>/1`` (queries) over role ``document``; strong negation."""
    slugs = [h.slug for h in hypotheses] if hypotheses is not None else list(SLUGS.values())
    preds: dict[str, Any] = {}
    for s in slugs:
        preds[s] = {"args": ["document"]}
        preds[s + "_src"] = {"args": ["document"]}
    doc = {
        "format": "cotaudit.certify.interface/1",
        "name": "contractnli",
        "version": "1",
        "negation": "strong",
        "roles": {"document": {"type": "symbol", "pattern": "^d[0-9]+$"}},
        "predicates": dict(sorted(preds.items())),
        "source_whitelist": sorted(s + "_src" for s in slugs),
        "query_predicates": sorted(slugs),
    }
    return interface_from_dict(doc)


def rules() -> str:
    """The 34 copy rules, one per line, labelled by the hypothesis id."""
    out = []
    for key, slug in SLUGS.items():
        label = key.replace("-", "_")
        out.append(f"[{label}] {slug}(D) :- {slug}_src(D).")
        out.append(f"[{label}_neg] -{slug}(D) :- -{slug}_src(D).")
    return "\n".join(out) + "\n"


def document_record(doc: Document) -> SourceRecord:
    return SourceRecord(doc.record_id, "document", doc.text)


def query(pair: Pair) -> QueryInput:
    """C-74: the hypothesis as the question, the target fixed by the pair, tfu answers."""
    from cotaudit.certify.serve.votes import QueryInput

    return QueryInput(
        pair.query_id,
        pair.hypothesis.text,
        pair.target,
        "tfu",
        (document_record(pair.document),),
        (pair.document.constant,),
    )


def state(
    config: CertifyConfig | None = None, clock: object = None, checkers: Sequence[Any] = ()
) -> CertState:
    """A fresh in-memory state with the 34 copy rules admitted (writer deploy, record mode);
    ``checkers`` are registered (e.g. :class:`NLIRecheck`) so the config can name them."""
    from cotaudit.certify.state.machine import CertState

    kwargs = {} if clock is None else {"clock": clock}
    st = CertState.open(":memory:", interface(), config, **kwargs)  # type: ignore[arg-type]
    for c in checkers:
        st.checkers.register(c)
    text = rules()
    st.add_record(SourceRecord("contractnli-rules", "rules", text))
    decisions = st.admit_batch(
        [(line, Evidence("contractnli-rules"), "deploy", None) for line in text.splitlines()]
    )
    bad = [d for d in decisions if d.reason is not None]
    if bad:  # the shipped rules must admit: anything else is an engine defect
        raise RuntimeError(f"contractnli rules rejected: {bad[0].reason}")
    return st


def fact_text(pair: Pair, label: str) -> str | None:
    """The source fact a vote writes for ``label`` (None for NotMentioned: no fact)."""
    if label == "Entailment":
        return f"{pair.hypothesis.slug}_src({pair.document.constant})"
    if label == "Contradiction":
        return f"-{pair.hypothesis.slug}_src({pair.document.constant})"
    return None


def span_evidence(doc: Document, index: int, quote: str | None = None) -> Evidence:
    """Evidence for clause ``index``: the model's quote located inside the clause when it is a
    substring of it (the span shrinks to the quote), otherwise the whole clause with the quote as
    given — which ``match/1`` then rejects unless the quote equals the clause text."""
    a, b = doc.spans[index]
    clause = doc.text[a:b]
    if quote is None:
        return Evidence(doc.record_id, ((a, b),), clause)
    at = clause.find(quote) if quote.strip() else -1
    if at >= 0:
        return Evidence(doc.record_id, ((a + at, a + at + len(quote)),), quote)
    return Evidence(doc.record_id, ((a, b),), quote)


def gold_facts(pair: Pair) -> list[ProposedFact]:
    """The gold annotation as a vote: the hypothesis fact with its first gold span as evidence."""
    from cotaudit.certify.serve.votes import ProposedFact

    fact = fact_text(pair, pair.document.labels[pair.hypothesis.key])
    spans = pair.document.gold_spans[pair.hypothesis.key]
    if fact is None:
        return []
    if not spans:
        raise ContractNLIError(f"{pair.query_id}: a decided label without a gold span")
    return [ProposedFact(fact, span_evidence(pair.document, spans[0]))]


def clause_window(text: str, spans: Sequence[tuple[int, int]], context: int = 300) -> str:
    """The evidence spans with ``context`` characters either side (what the rechecker reads)."""
    lo = max(0, min(a for a, _ in spans) - context)
    hi = min(len(text), max(b for _, b in spans) + context)
    return ("…" if lo > 0 else "") + text[lo:hi] + ("…" if hi < len(text) else "")


RECHECK_TEMPLATE = (
    "You check one fact extracted from a non-disclosure agreement against the contract text.\n"
    "Contract excerpt:\n{excerpt}\n\nQuoted clause: {quote}\n\nFact: {statement}\n\n"
    'Reply with a JSON object {{"verdict": "holds" | "does_not_hold" | "unclear"}}.'
)


class NLIRecheck:
    """``nli-recheck/1``: a model reads the quoted clause (with context) and says whether the
    fact holds — the hypothesis for a positive fact, its contradiction for a negated one. Only
    ``holds`` supports. What it cannot detect: the rechecker can share the grounder's bias, and
    it reads an excerpt, not the whole contract (a clause elsewhere may override it)."""

    id = "nli-recheck/1"
    inline = False

    def __init__(
        self,
        ask: Callable[[str], LLMReply],
        hypotheses: Sequence[Hypothesis],
        template: str = RECHECK_TEMPLATE,
        context: int = 300,
    ) -> None:
        self.ask = ask
        self.by_slug = {h.slug: h for h in hypotheses}
        self.template = template
        self.context = context
        self.version = "1+" + sha256_hex(template)[:8]

    def statement(self, unit: Fact) -> str | None:
        pred = unit.lit.pred.removesuffix("_src")
        h = self.by_slug.get(pred)
        if h is None or not unit.lit.pred.endswith("_src"):
            return None
        if unit.lit.neg:
            return f"The contract contradicts this statement: {h.text}"
        return h.text

    def check(
        self, unit: Unit, evidence: Evidence, records: RecordStore, interface: Interface
    ) -> CheckResult:
        if not isinstance(unit, Fact):
            return CheckResult("UNSUPPORTED", "nli-recheck checks facts only")
        statement = self.statement(unit)
        if statement is None:
            return CheckResult("UNSUPPORTED", f"'{unit.lit.pred}' is not a hypothesis predicate")
        record = records.record(evidence.record_id) if evidence.record_id else None
        if record is None or not evidence.spans:
            return CheckResult("UNSUPPORTED", "no evidence record or span")
        if any(not 0 <= a < b <= len(record.body) for a, b in evidence.spans):
            return CheckResult("UNSUPPORTED", "a span lies outside the record")
        quote = (
            evidence.quote
            if evidence.quote is not None
            else "".join(record.body[a:b] for a, b in evidence.spans)
        )
        prompt = self.template.format(
            excerpt=clause_window(record.body, evidence.spans, self.context), quote=quote, statement=statement
        )
        return recheck_verdict(prompt, self.ask(prompt))


def vote_from_label(pair: Pair, label: str, clause: int | None, quote: str | None, **cost: Any) -> Vote:
    """A structured grounding answer (label, clause number, quote) as a vote. NotMentioned is a
    valid vote with no facts; a decided label needs a clause number that exists."""
    from cotaudit.certify.serve.votes import ProposedFact, Vote

    fact = fact_text(pair, label)
    raw = json.dumps({"label": label, "clause": clause, "quote": quote}, ensure_ascii=False, sort_keys=True)
    if fact is None:
        return Vote((), None, raw, **cost)
    if clause is None or not 0 <= clause < len(pair.document.spans):
        return Vote(None, f"parse failure: clause {clause!r} is not a clause of the document", raw, **cost)
    return Vote((ProposedFact(fact, span_evidence(pair.document, clause, quote)),), None, raw, **cost)
