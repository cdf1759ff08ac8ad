"""The recorded fixture sets: what ``scripts/record-llm-fixtures`` records and the replay tests replay.

Each set has a directory of cache entries (``tests/fixtures/llm/<set>/``, one JSON file per
request, recorded from a real model) and ``<set>.expected.json``: what the front end made of
those answers when they were recorded. Inputs that come from ../shared/data are copied next to
the recordings at record time, so replay needs nothing outside the repository.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cotaudit.llm.client import LLMClient

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "llm"
MODEL = "smollm2-135m-instruct-q4_1"
JSON_MODE = "json_object"
SUBSET_SIZE = 20  # te corpus items replayed by `eval te --methods M1,M2,M3,M4`
EMIT_PROBLEMS = {"gsm8k": 6, "math500": 2}


def replay_client(name: str) -> LLMClient:
    """A client that answers only from the recordings of set ``name`` (never a network call)."""
    return LLMClient(None, model=MODEL, json_mode=JSON_MODE, mode="replay", cache_dir=FIXTURES / name)


def _data_dir() -> Path:
    from cotaudit.cli.io import data_dir as default_data_dir

    return default_data_dir()


# --------------------------------------------------------------------------- te emission


def emit_problems(record: bool) -> list[Any]:
    from cotaudit.eval.te_emit import Problem, load_problems

    path = FIXTURES / "te_emit.problems.jsonl"
    if record:
        problems = []
        for name, n in EMIT_PROBLEMS.items():
            problems += load_problems(name, _data_dir() / name / "test.jsonl", limit=n)
        path.write_text(
            "".join(json.dumps(p.__dict__ if hasattr(p, "__dict__") else _row(p)) + "\n" for p in problems)
        )
    return [Problem(**json.loads(line)) for line in path.read_text().splitlines() if line.strip()]


def _row(p: Any) -> dict[str, str]:
    return {"id": p.id, "dataset": p.dataset, "question": p.question, "gold": p.gold}


def run_te_emit(client: LLMClient, record: bool) -> dict[str, Any]:
    from cotaudit.eval.te_emit import evaluate

    report = evaluate(client, emit_problems(record))
    keep = ("id", "status", "reason", "verdict", "answer", "value", "correct", "structural_errors")
    return {
        "datasets": report["datasets"],
        "items": [{k: item[k] for k in keep} for item in report["items"]],
        "calls": report["calls"],
    }


# --------------------------------------------------------------------------- te M3 / M4


def subset_path() -> Path:
    return FIXTURES / "te_subset.jsonl"


def write_subset() -> None:
    """A stratified 20-item subset of the paper-scale te corpus: both strata, every part."""
    from cotaudit.te.corpus.adversarial import PAPER_SEED, build_corpus, write_jsonl

    items = build_corpus(_data_dir() / "gsm8k" / "test.jsonl", PAPER_SEED, "paper")
    picked = []
    for part, n in (("seed", 5), ("perturbation", 7), ("clean", 5), ("hard_clean", 3)):
        pool = [i for i in items if i.part == part]
        step = max(1, len(pool) // n)
        picked += pool[::step][:n]
    write_jsonl(picked[:SUBSET_SIZE], subset_path())


def run_eval_te(client: LLMClient, record: bool) -> dict[str, Any]:
    from cotaudit.eval import te as te_eval

    if record:
        write_subset()
    items = te_eval.load_corpus(str(subset_path()), ".")
    report = te_eval.evaluate(
        items, ["M1", "M2", "M3", "M4"], runs=3, ablate=False, determinism=False, iterations=1000, llm=client
    )
    keep = ("tpr", "fpr", "loc3", "kappa_mean", "flips", "counts")
    methods = {name: {k: m.get(k) for k in keep} for name, m in report["methods"].items()}
    llm = {name: {k: v for k, v in m.items() if k != "abstentions"} for name, m in report["llm"].items()}
    return {"methods": methods, "llm": {k: llm[k] for k in ("M3", "M4")}, "calls": report["llm"]["calls"]}


# --------------------------------------------------------------------------- type6


def run_type6(client: LLMClient, record: bool) -> dict[str, Any]:
    from cotaudit.frontends.type6_compare import RawTrace, compare

    traces = [RawTrace(p.stem, p.read_text()) for p in sorted((FIXTURES / "type6_raw").glob("*.txt"))]
    report = compare(client, traces)
    return {k: report[k] for k in ("traces", "annotation", "methods", "agreement", "items", "calls")}


# --------------------------------------------------------------------------- vericot

VERICOT_EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "vericot"
VERICOT_INPUTS = FIXTURES / "vericot.inputs.jsonl"  # not under a set directory: those hold cache entries only

# One case per LLM stage, each a derived copy of an examples/vericot trace:
# (case, example file, steps kept, what is removed, config, per-trace call budget, max premises).
VERICOT_CASES: tuple[tuple[str, str, int, str, dict[str, Any], int, int], ...] = (
    (
        "formalize_sara", "A_sara_valid.vcot.json", 2, "step_formulas",
        {"formalizer": "llm", "premise_providers": ("pool",)}, 16, 6,
    ),
    (
        "formalize_prontoqa", "F_prontoqa_1_chain.vcot.json", 3, "step_formulas",
        {"formalizer": "llm", "premise_providers": ("pool",)}, 16, 6,
    ),
    (
        "premises_sara", "C_sara_ungrounded.vcot.json", 4, "step_premises",
        {"premise_providers": ("llm",), "judge": "llm"}, 20, 2,
    ),
    (
        "judge_sara", "A_sara_valid.vcot.json", 4, "nothing",
        {"premise_providers": ("input",), "judge": "llm"}, 16, 6,
    ),
)  # fmt: skip


def _vericot_input(example: str, steps: int, remove: str) -> dict[str, Any]:
    """The example trace cut to ``steps`` steps, minus what the LLM stage under test must supply."""
    trace = json.loads((VERICOT_EXAMPLES / example).read_text(encoding="utf-8"))
    trace["steps"] = trace["steps"][:steps]
    kept = {s["id"] for s in trace["steps"]}
    form = trace.get("formalization") or {}
    form["steps"] = [sf for sf in form.get("steps", []) if sf["step_id"] in kept]
    if remove == "step_formulas":
        form["steps"] = []
    elif remove == "step_premises":
        for sf in form["steps"]:
            sf.pop("premises", None)
    trace["formalization"] = form
    for key in ("answer", "gold_answer", "answer_options"):
        trace.pop(key, None)
    return trace


def vericot_inputs(record: bool) -> dict[str, dict[str, Any]]:
    if record:
        rows = [
            json.dumps({"case": case, "trace": _vericot_input(example, steps, remove)}, ensure_ascii=False)
            for case, example, steps, remove, *_ in VERICOT_CASES
        ]
        VERICOT_INPUTS.write_text("".join(r + "\n" for r in rows), encoding="utf-8")
    rows = [
        json.loads(line) for line in VERICOT_INPUTS.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    return {row["case"]: row["trace"] for row in rows}


def _short(text: str | None, n: int = 160) -> str | None:
    return None if text is None else " ".join(text.split())[:n]


def run_vericot(client: LLMClient, record: bool) -> dict[str, Any]:
    """Formalisation (V-33), premise generation (V-34) and the LLM judge (V-35) on real answers."""
    from cotaudit import vericot
    from cotaudit.frontends.vericot_llm import VericotLLM
    from cotaudit.vericot.config import VerifierConfig

    tally: dict[str, dict[str, int]] = {}

    class Tallied(VericotLLM):
        """The real stages, counting per stage how many answers validated and how many re-asks."""

        def call(self, stage: str, payload: Any, response: Any, budget: Any) -> tuple[Any, int]:
            value, spent = super().call(stage, payload, response, budget)
            t = tally.setdefault(stage, {"asked": 0, "valid": 0, "invalid": 0, "reasks": 0})
            t["asked"] += 1
            t["valid" if value is not None else "invalid"] += 1
            t["reasks"] += spent - 1
            return value, spent

    inputs = vericot_inputs(record)
    traces = []
    for case, _example, _steps, _remove, options, budget, max_premises in VERICOT_CASES:
        stages = Tallied(client, max_calls_per_trace=budget, max_premises=max_premises)
        # no trace budget of its own: on one thread against a slow model a recording can take
        # minutes per trace, and a cut there would record steps the instant replay decides
        config = VerifierConfig(llm=stages, trace_budget_ms=None, **options)
        report = vericot.verify(inputs[case], config=config)
        steps = [
            {
                "step_id": s["step_id"],
                "status": s["status"],
                "path": s["path"],
                "reason": s["reason"],
                "detail": _short(s["detail"]),
                "origin": (s.get("formula") or {}).get("origin"),
                "smt": (s.get("formula") or {}).get("smt"),
                "accepted": s["premises"]["accepted"] if s.get("premises") else [],
                "rejected": s["premises"]["rejected"] if s.get("premises") else [],
            }
            for s in report.details["steps"]
        ]
        traces.append({"case": case, "id": inputs[case]["id"], "verdict": report.verdict, "steps": steps})
    statuses: dict[str, int] = {}
    for t in traces:
        for s in t["steps"]:
            statuses[s["status"]] = statuses.get(s["status"], 0) + 1
    asked = sum(t["asked"] for t in tally.values())
    valid = sum(t["valid"] for t in tally.values())
    return {
        "traces": traces,
        "stages": dict(sorted(tally.items())),
        "validity": {"answers": asked, "valid": valid, "reasks": sum(t["reasks"] for t in tally.values())},
        "step_statuses": dict(sorted(statuses.items())),
        "calls": client.log.summary(),
    }


# --------------------------------------------------------------------------- certify ContractNLI

CNLI_SPLIT = FIXTURES / "certify_cnli.split.json"  # the two documents, copied at record time
CNLI_DOCS = ("456", "71")  # the two shortest dev documents (2,270 and 3,312 characters)
CNLI_CLAUSES = 8


def cnli_split(record: bool) -> Path:
    if record:
        data = json.loads((_data_dir() / "contractnli" / "dev.json").read_text(encoding="utf-8"))
        docs = [d for d in data["documents"] if str(d["id"]) in CNLI_DOCS]
        mini = {
            "source": "ContractNLI dev.json (Koreeda & Manning 2021), CC BY 4.0; two documents copied "
            "for the replay test, see ../shared/data/contractnli/README.md",
            "documents": docs,
            "labels": data["labels"],
        }
        CNLI_SPLIT.write_text(
            json.dumps(mini, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    return CNLI_SPLIT


def run_certify_cnli(client: LLMClient, record: bool) -> dict[str, Any]:
    """Grounding votes (C-75) and the source recheck (C-77) on two real dev documents."""
    from cotaudit.eval.certify_contractnli import evaluate

    doc, _text = evaluate(cnli_split(record), client=client, clauses=CNLI_CLAUSES)
    doc["model"] = doc["model"]["model"]  # not the cache mode: record and replay differ there
    return doc


SETS: dict[str, Callable[[LLMClient, bool], dict[str, Any]]] = {
    "te_emit": run_te_emit,
    "eval_te": run_eval_te,
    "type6": run_type6,
    "vericot": run_vericot,
    "certify_cnli": run_certify_cnli,
}


def expected_path(name: str) -> Path:
    return FIXTURES / f"{name}.expected.json"


def without_calls(summary: dict[str, Any]) -> dict[str, Any]:
    """The summary minus the call log (cache hits and latencies differ between record and replay)."""
    return {k: v for k, v in summary.items() if k != "calls"}


def record_set(
    name: str, *, base_url: str, model: str, json_mode: str, cache_dir: Path, timeout_s: float
) -> dict[str, Any]:
    """Record set ``name`` against a live server and write its expected summary."""
    from cotaudit.llm.config import LLMSettings, build_client

    settings = LLMSettings().merged(
        base_url=base_url,
        model=model,
        mode="record",
        cache=str(cache_dir),
        json_mode=json_mode,
        timeout_s=timeout_s,
        retries=2,
        concurrency=1,
    )
    client = build_client(settings)
    summary = SETS[name](client, True)
    body = json.dumps(without_calls(summary), indent=1, sort_keys=True, ensure_ascii=False, default=str)
    expected_path(name).write_text(body + "\n", encoding="utf-8")
    return summary
