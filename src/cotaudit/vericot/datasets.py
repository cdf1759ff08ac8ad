"""The logic corpora under ``../shared/data/logic`` (``COTAUDIT_DATA`` replaces the
``../shared/data`` prefix) and label agreement in question mode (V-40, V-41)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cotaudit.errors import CotauditError
from cotaudit.vericot.config import VerifierConfig
from cotaudit.vericot.formalizers import formalize_item
from cotaudit.vericot.pipeline import TraceResult, Verifier

LABEL_OF_STATUS = {"entailed": "A", "contradicted": "B", "ungrounded": "C"}


class DataMissing(CotauditError, FileNotFoundError):
    """A corpus folder is absent; the message names the path."""


def data_root() -> Path:
    env = os.environ.get("COTAUDIT_DATA")
    if env:
        return Path(env)
    here = Path(__file__).resolve().parents[3]
    return (here.parent / "shared" / "data").resolve()


def logic_dir(name: str) -> Path:
    path = data_root() / "logic" / name
    if not path.is_dir():
        raise DataMissing(f"data folder {path} is absent (set COTAUDIT_DATA)")
    return path


class DataInvalid(CotauditError, ValueError):
    """A corpus file is not a list of items of the expected shape; the message says where."""


ITEM_FIELDS = {"id": (str, int), "context": (str,), "question": (str,), "answer": (str,)}


def load_items(dataset: str, split: str) -> list[dict[str, Any]]:
    """The items of ``<data>/logic/<dataset>/<split>.json`` (``real_ontologies`` is a split too)."""
    path = logic_dir(dataset) / f"{split}.json"
    if not path.exists():
        raise DataMissing(f"{path} is absent")
    return load_items_file(path)


def load_items_file(path: str | Path) -> list[dict[str, Any]]:
    """Items from any JSON file in the corpus shape: a list of objects with ``id``, ``context``,
    ``question``, ``answer`` and, for chain mode, ``explanation`` (a list of sentences)."""
    from cotaudit.vericot.boundedjson import JSONRejected, decode

    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataMissing(f"{path} is absent") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DataInvalid(f"{path}: cannot read ({exc})") from None
    try:
        data = decode(text)
    except JSONRejected as exc:
        raise DataInvalid(f"{path}: {exc.message}") from None
    if not isinstance(data, list):
        raise DataInvalid(f"{path}: expected a JSON list of items")
    for n, item in enumerate(data):
        if not isinstance(item, dict):
            raise DataInvalid(f"{path}: item {n} is not an object")
        for key, types in ITEM_FIELDS.items():
            if not isinstance(item.get(key), types):
                raise DataInvalid(f"{path}: item {n} has no string '{key}'")
        chain = item.get("explanation")
        if chain is not None and not (isinstance(chain, list) and all(isinstance(x, str) for x in chain)):
            raise DataInvalid(f"{path}: item {n}: 'explanation' must be a list of strings")
    return data


def predicted_label(result: TraceResult) -> str | None:
    """Question mode: entailed → A, contradicted → B, neither → C; ``unknown`` → no label."""
    status = result.steps[0].status if result.steps else None
    return LABEL_OF_STATUS.get(status or "")


@dataclass
class LabelRow:
    id: str
    gold: str
    predicted: str | None
    status: str
    kb_consistent: bool | None
    solver_ms: float


@dataclass
class LabelRun:
    dataset: str
    split: str
    semantics: str
    rows: list[LabelRow] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def agree(self) -> int:
        return sum(r.predicted == r.gold for r in self.rows)

    def misses(self) -> list[LabelRow]:
        return [r for r in self.rows if r.predicted != r.gold]

    def inconsistent(self) -> list[str]:
        return [r.id for r in self.rows if r.kb_consistent is False]


def run_labels(
    dataset: str,
    split: str,
    semantics: str,
    *,
    encoding: str = "forall",
    config: VerifierConfig | None = None,
    items: list[dict[str, Any]] | None = None,
) -> LabelRun:
    """Formalise every item in question mode and compare the label with gold. ``items`` (from
    :func:`load_items_file`) replaces the split's file; ``split`` then only labels the run."""
    cfg = (config or VerifierConfig()).with_options(semantics=semantics, premise_providers=())
    verifier = Verifier(cfg)
    run = LabelRun(dataset, split, semantics)
    start = time.perf_counter()
    for item in items if items is not None else load_items(dataset, split):
        trace = formalize_item(item, dataset=dataset, semantics=semantics, encoding=encoding, mode="question")
        result = verifier.run(trace)
        step = result.steps[0]
        run.rows.append(
            LabelRow(
                str(item["id"]),
                item["answer"],
                predicted_label(result),
                step.status,
                result.kb["consistent"],
                step.solver_ms,
            )
        )
    run.seconds = time.perf_counter() - start
    return run


def iter_results(
    dataset: str, split: str, semantics: str, mode: str
) -> Iterator[tuple[dict[str, Any], TraceResult]]:
    providers: tuple[str, ...] = () if mode == "question" else ("pool",)
    verifier = Verifier(VerifierConfig(semantics=semantics, premise_providers=providers))
    for item in load_items(dataset, split):
        yield item, verifier.run(formalize_item(item, dataset=dataset, semantics=semantics, mode=mode))


# --------------------------------------------------------------------------- FOLIO gold FOL

FOLIO_LABEL = {"entailed": "True", "contradicted": "False", "ungrounded": "Uncertain"}


@dataclass
class FolioRow:
    index: int
    gold: str
    predicted: str | None
    status: str | None
    problems: list[str]
    reason: str | None = None  # why the row disagrees (or cannot be scored)


def load_folio_validation() -> list[dict[str, Any]]:
    path = logic_dir("folio") / "yale-lily-v0.0" / "folio-validation.jsonl"
    if not path.exists():
        raise DataMissing(f"{path} is absent")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def folio_trace(row: dict[str, Any], index: int) -> tuple[Any, list[str]]:
    """A question-mode trace for one FOLIO row, or ``None`` with the annotation problems."""
    from cotaudit.vericot.formalizers.folio import FolError, Signature, to_smt
    from cotaudit.vericot.schema import (
        Context,
        Formalization,
        PremiseIn,
        StepFormalization,
        StepIn,
        TraceInput,
    )

    problems: list[str] = []
    nl = list(row.get("premises", []))
    fol = list(row.get("premises-FOL", []))
    if len(nl) != len(fol):
        problems.append(f"{len(nl)} premises but {len(fol)} FOL premises (texts paired by position)")
    sig = Signature()
    premises = []
    for j, f in enumerate(fol):
        try:
            smt = to_smt(f, sig)
        except FolError as exc:
            problems.append(f"premise {j + 1} does not parse: {exc} in {f.strip()!r}")
            continue
        text = nl[j] if j < len(nl) else f
        premises.append(
            PremiseIn(id=f"c{j + 1}", text=text, source="context", smt=smt, use="given", evidence=text)
        )
    try:
        goal = to_smt(row.get("conclusion-FOL", ""), sig)
    except FolError as exc:
        problems.append(f"conclusion does not parse: {exc} in {row.get('conclusion-FOL', '').strip()!r}")
        return None, problems
    if any("does not parse" in p for p in problems):
        return None, problems
    by_stem: dict[str, list[str]] = {}
    for name in sorted(sig.preds):
        by_stem.setdefault(name.lower().rstrip("s"), []).append(name)
    for names in by_stem.values():
        if len(names) > 1:
            problems.append(f"predicates {' and '.join(names)} look like one concept spelled two ways")
    trace = TraceInput(
        id=f"folio-validation-{index}",
        context=Context(question="\n".join(nl) + "\n" + row.get("conclusion", "")),
        steps=[StepIn(id="s1", text=row.get("conclusion", ""))],
        formalization=Formalization(
            vocabulary=" ".join(sig.decls()),
            premises=premises,
            steps=[StepFormalization(step_id="s1", smt=goal)],
        ),
    )
    return trace, problems


def run_folio(config: VerifierConfig | None = None) -> list[FolioRow]:
    """Every validation row: derived label vs gold, with the reason of each disagreement."""
    from cotaudit.vericot.formalizers.folio import FolError

    cfg = (config or VerifierConfig()).with_options(premise_providers=())
    verifier = Verifier(cfg)
    rows: list[FolioRow] = []
    for i, row in enumerate(load_folio_validation()):
        gold = "Uncertain" if row.get("label") == "Unknown" else str(row.get("label"))
        try:
            trace, problems = folio_trace(row, i)
        except FolError as exc:  # an arity clash surfaces while building the signature
            trace, problems = None, [f"annotation error: {exc}"]
        if trace is None:
            rows.append(
                FolioRow(i, gold, None, None, problems, "gold FOL does not parse: " + "; ".join(problems))
            )
            continue
        result = verifier.run(trace)
        status = result.steps[0].status
        predicted = FOLIO_LABEL.get(status)
        reason = None
        if predicted != gold:
            if result.kb["consistent"] is False:
                reason = "the gold premises are inconsistent (VC_E004), so everything is entailed"
            elif status == "unknown":
                reason = f"solver could not decide ({result.steps[0].reason}: {result.steps[0].detail})"
            elif status == "untranslatable":
                reason = f"gold FOL rejected by the core ({result.steps[0].reason}: {result.steps[0].detail})"
            else:
                reason = f"gold FOL gives {predicted}, label says {gold}"
                if problems:
                    reason += " (" + "; ".join(problems) + ")"
        rows.append(FolioRow(i, gold, predicted, status, problems, reason))
    return rows


# --------------------------------------------------------------------------- stepwise workload


def proofwriter_theories() -> list[tuple[str, str]]:
    """The distinct ProofWriter theories of dev + test, as (first item id, context), in order."""
    seen: dict[str, str] = {}
    for split in ("dev", "test"):
        for item in load_items("proofwriter", split):
            seen.setdefault(item["context"], str(item["id"]))
    return [(i, c) for c, i in seen.items()]


def stepwise_trace(theory_id: str, context: str, semantics: str = "classical") -> Any:
    """V-53 stepwise: every sentence of a theory is a step, checked against the earlier ones."""
    from cotaudit.vericot.formalizers import formalize_step, proofwriter
    from cotaudit.vericot.formalizers.ast import ParseFailure, declarations
    from cotaudit.vericot.schema import Context, Formalization, StepIn, TraceInput

    sentences = proofwriter.split_sentences(context)
    asts = [a for a in (proofwriter.parse_sentence(s) for s in sentences) if not isinstance(a, ParseFailure)]
    entities = proofwriter.entities_of(asts)
    steps = [StepIn(id=f"s{i}", text=s) for i, s in enumerate(sentences, start=1)]
    forms = [formalize_step(proofwriter, s.id, s.text, semantics, "forall", entities) for s in steps]
    return TraceInput(
        id=theory_id,
        context=Context(question=context),
        steps=steps,
        formalization=Formalization(
            semantics=semantics,  # type: ignore[arg-type]
            vocabulary=" ".join(declarations(asts, semantics, entities)),
            steps=forms,
        ),
    )


@dataclass
class SynthRun:
    semantics: str
    items: int = 0
    no_chain: list[str] = field(default_factory=list)
    statuses: dict[str, int] = field(default_factory=dict)
    pool_inconsistent: list[str] = field(default_factory=list)
    not_entailed: list[tuple[str, int, str]] = field(default_factory=list)


def run_synth(semantics: str, splits: tuple[str, ...] = ("dev", "test")) -> SynthRun:
    """V-42: synthesised gold chains of the True/False ProofWriter items, checked in chain mode."""
    from cotaudit.vericot.formalizers.synth import synthesize_chain

    verifier = Verifier(VerifierConfig(semantics=semantics, premise_providers=("pool",)))
    out = SynthRun(semantics)
    for split in splits:
        for item in load_items("proofwriter", split):
            if item.get("answer") not in ("A", "B"):
                continue
            out.items += 1
            chain = synthesize_chain(item)
            if chain is None:
                out.no_chain.append(str(item["id"]))
                continue
            result = verifier.run(
                formalize_item(item, dataset="proofwriter", semantics=semantics, mode="chain", steps=chain)
            )
            if result.kb["pool_consistent"] is False:
                out.pool_inconsistent.append(str(item["id"]))
            for s in result.steps:
                out.statuses[s.status] = out.statuses.get(s.status, 0) + 1
                if s.status != "entailed":
                    out.not_entailed.append((str(item["id"]), s.index, s.status))
    return out
