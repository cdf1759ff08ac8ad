"""Known-bad inputs of issue 14, one small input per class, run through the fuzz harness's guard.

Every case must pass the harness's four checks — nothing escapes ``cotaudit.check`` or a writer,
no ``internal error`` report, no check past its budget + slack, and the same ``--no-timing``
bytes in a second process with another ``PYTHONHASHSEED`` — and, where the case says so, end
with one of the verdicts it allows. Several fail on the code the engine fixes start from; they
are those fixes' acceptance tests (docs/fuzz.md). The clean cases are the near misses: inputs
of the same shape without the hostile part, which must pass.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from .runner import RunConfig, RunResult, run
from .targets import EXAMPLES, SEEDS, FuzzInput

NOT_PASS = ("fail", "abstain", "invalid")
DIGITS = "7" * 5000  # past Python's 4,300-digit int/str conversion limit

TE = "GIVEN:\n  total := 16\n  eaten := 3\nGOAL: left\nEQ[e1]: left = total - eaten = 13\nANS: left\n"
T6 = "T  K p1     : I know the bridge is open.\nT  THEN a   : So the bridge is open.\n"
KB = """%% interface
{"format": "cotaudit.certify.interface/1", "name": "mini", "version": "1", "negation": "none",
 "roles": {"party": {"type": "symbol", "pattern": "^p[0-9]+$"}},
 "predicates": {"signed": {"args": ["party"]}, "bound": {"args": ["party"]}},
 "source_whitelist": ["signed"], "query_predicates": ["bound"]}
%% record rules kind=rules
[r1] bound(X) :- signed(X).
%% record story kind=document
p1 signed the form.
%% units writer=deploy evidence=rules
[r1] bound(X) :- signed(X).
%% query q1 writer=grounder
signed(p1). @story "p1 signed the form"
?- bound(p1) => yes.
"""
VCOT = {
    "id": "mini",
    "context": {"question": "Is Bob tall?", "documents": [{"id": "d1", "text": "Bob is tall."}]},
    "steps": [{"id": "s1", "text": "Bob is tall."}],
    "formalization": {
        "vocabulary": "(declare-sort Person 0) (declare-const bob Person) (declare-fun tall (Person) Bool)",
        "steps": [
            {
                "step_id": "s1",
                "smt": "(assert (tall bob))",
                "premises": [
                    {
                        "id": "p1",
                        "text": "Bob is tall.",
                        "source": "context",
                        "smt": "(assert (tall bob))",
                        "evidence": "Bob is tall",
                    }
                ],
            }
        ],
    },
}


def _vcot(text: str = "Bob is tall.", **top: object) -> str:
    trace = json.loads(json.dumps(VCOT))
    trace["steps"][0]["text"] = text
    trace.update(top)
    return json.dumps(trace, ensure_ascii=False)


def _vcot_step_id(step_id: str) -> str:
    trace = json.loads(_vcot())
    trace["steps"][0]["id"] = step_id
    trace["formalization"] = None  # no formaliser here: the step is unknown and the finding names it
    return json.dumps(trace, ensure_ascii=False)


def _bundle() -> dict[str, object]:
    bundle: dict[str, object] = json.loads(
        (EXAMPLES / "certify" / "legal_prelim.cert.json").read_text("utf-8")
    )
    return bundle


def _cert_text(**changes: object) -> str:
    bundle = _bundle()
    bundle.update(changes)
    return json.dumps(bundle, ensure_ascii=False)


def _cert_manifest_pi_src(value: object) -> str:
    bundle = _bundle()
    bundle["kernel"]["manifest"]["units"][0]["pi_src"] = value  # type: ignore[index]
    return json.dumps(bundle, ensure_ascii=False)


def _certificate(**changes: object) -> str:
    cert = dict(_bundle()["certificate"])  # type: ignore[call-overload]
    cert.update(changes)
    return json.dumps(cert, ensure_ascii=False)


def _kb_story(story: str) -> str:
    return KB.replace("p1 signed the form.\n", story + "\n")


def _kb_evidence(evidence: str) -> str:
    return KB.replace('@story "p1 signed the form"', evidence)


def _sort_record() -> str:
    return (
        (SEEDS / "wordsort.cot.json")
        .read_text(encoding="utf-8")
        .replace("Sort the following words alphabetically: List: ", "")
    )


@dataclass(frozen=True)
class Case:
    id: str
    target: str
    text: str
    verdicts: tuple[str, ...] | None = None  # the verdicts allowed (None: any)


CASES = (
    # near misses: the shapes below without their hostile part
    Case("te-clean", "te", TE, ("pass",)),
    Case("type6-clean", "type6", T6, ("pass",)),
    Case("vericot-clean", "vericot", _vcot(), ("pass",)),
    Case("kb-clean", "certify-kb", KB, ("pass",)),
    Case("cert-clean", "certify-cert", _cert_text(), ("pass",)),
    Case("kb-parser-clean", "kb-parser", KB),
    Case("recheck-clean", "recheck", _certificate()),
    # a lone surrogate in each format (the service and the API take any str)
    Case(
        "te-surrogate",
        "te",
        TE.replace("GOAL: left", "STEP[s1]: eat\ud800 three\nGOAL: left").replace(
            "eaten = 13", "eaten\ud800 = 13"
        ),
    ),
    Case("type6-surrogate", "type6", T6.replace("bridge is open.\nT", "bridge\udfff is open.\nT")),
    Case("vericot-surrogate", "vericot", _vcot("Bob is\ud800 tall.")),
    # ... in a step id the audit table's "first" column names (found by the 30-minute run)
    Case("vericot-surrogate-step-id", "vericot", _vcot_step_id("s1\udbff")),
    Case("kb-surrogate", "certify-kb", _kb_story("p1 signed the form\ud800.")),
    Case(
        "cert-surrogate",
        "certify-cert",
        _cert_text().replace("may_claim_preliminary_breach_liability(p1,x1)", "may_claim\ud800(p1,x1)", 1),
    ),
    Case("recheck-surrogate", "recheck", _certificate(conclusion="may_claim\udc80(p1,x1)")),
    Case("kb-parser-surrogate", "kb-parser", _kb_evidence('@story "p1 signed\ud800 the form"')),
    # huge numbers
    Case(
        "te-tower-power", "te", TE.replace("left = total - eaten = 13", "left = 10**10**10.10 = 5"), NOT_PASS
    ),
    Case("te-5000-digits", "te", TE.replace("total := 16", f"total := {DIGITS}")),
    Case("vericot-5000-digits", "vericot", _vcot().replace('"id": "mini"', f'"id": {DIGITS}'), ("invalid",)),
    Case(
        "cert-5000-digits",
        "certify-cert",
        _cert_text().replace('"format"', f'"delta": {DIGITS}, "format"', 1),
        ("invalid",),
    ),
    Case("recheck-5000-digits", "recheck", _certificate().replace('"root":', f'"root": {DIGITS}, "x":', 1)),
    # a regex over untrusted text that backtracks: evidence with 40k spaces and no quote
    Case("kb-evidence-spaces", "certify-kb", _kb_evidence("@story" + " " * 40_000 + "!"), NOT_PASS),
    Case("kb-parser-evidence-spaces", "kb-parser", _kb_evidence("@story" + " " * 40_000 + "!")),
    # a catastrophic pattern in an interface role, matched against a long constant
    Case(
        "kb-role-pattern-redos",
        "certify-kb",
        KB.replace('"^p[0-9]+$"', '"^(p[0-9]+|(a+)+)$"').replace(
            "signed(p1). @story", "signed(" + "a" * 40 + "b). @story"
        ),
        NOT_PASS,
    ),
    # deep nesting
    Case("vericot-100k-deep", "vericot", "[" * 100_000 + "]" * 100_000, ("invalid",)),
    Case(
        "vericot-100k-deep-inside",
        "vericot",
        _vcot().replace('"id": "mini"', '"id": ' + "[" * 100_000 + "]" * 100_000),
        ("invalid",),
    ),
    Case(
        "recheck-100k-deep",
        "recheck",
        _certificate().replace('"nodes":', '"nodes": ' + "[" * 100_000 + "]" * 100_000 + ', "x":', 1),
    ),
    # wrong JSON types in a certificate bundle
    Case("cert-overlay-int", "certify-cert", _cert_text(overlay=5), ("invalid",)),
    Case("cert-kernel-list", "certify-cert", _cert_text(kernel=[1, 2]), ("invalid",)),
    Case("cert-overlay-float", "certify-cert", _cert_text(overlay=2.5), ("invalid",)),
    Case(
        "cert-overlay-unit-id-infinity",
        "certify-cert",
        _cert_text(overlay=[{"unit_id": float("inf"), "fact": "agrees_future_conclusion(x1)"}]),
        ("invalid",),
    ),
    Case("cert-manifest-pi-src-int", "certify-cert", _cert_manifest_pi_src(5), ("invalid",)),
    # found by the fuzzer: a tower power in a GIVEN line, and one with a unit
    Case(
        "te-tower-power-given",
        "te",
        "GIVEN:\n  a := 10**10**10.10\n  b := 7\nGOAL: c\nEQ[e1]: c = a + b = 12\nANS: c\n",
        NOT_PASS,
    ),
    Case(
        "te-tower-power-unit",
        "te",
        "GIVEN:\n  v := 12 [m/s]\n  t := 600 [s]\nGOAL: d [mi]\nEQ[e1]: d = v * t = 10**10**10.10 [mi]\nANS: d [mi]\n",
        NOT_PASS,
    ),
    # found by the fuzzer: an unknown writer in a section header
    Case(
        "kb-unknown-writer",
        "certify-kb",
        KB.replace("%% query q1 writer=grounder", "%% query q1 writer=nobody"),
        NOT_PASS,
    ),
    # a lone surrogate inside an SMT formula
    Case(
        "vericot-surrogate-in-smt",
        "vericot",
        _vcot().replace("(assert (tall bob))", "(assert (tall bob\udbff))", 1),
    ),
    # a .kb that reuses a query id
    Case(
        "kb-duplicate-query-id",
        "certify-kb",
        KB + "%% queries\n[q2] ?- bound(p1) => yes.\n[q2] ?- bound(p2) => no.\n",
        ("invalid", "fail"),
    ),
    # a control character inside an evidence quote
    Case("kb-control-char-in-quote", "certify-kb", _kb_evidence('@story "p1\x07 signed the form"'), NOT_PASS),
    Case("kb-parser-control-char-in-quote", "kb-parser", _kb_evidence('@story "p1\x07 signed the form"')),
    # found by the fuzzer: many units on one line (the splitter copies the rest of the line per
    # unit), in a text that is not ASCII; and an interface that is not JSON, so YAML, 100k lines
    Case(
        "kb-parser-units-on-one-line",
        "kb-parser",
        _kb_story("p1 signed the form → ł.").replace(
            "[r1] bound(X) :- signed(X).\n%% query", "a. " * 349_000 + "\n%% query"
        ),
    ),
    Case(
        "kb-interface-100k-yaml-lines",
        "certify-kb",
        KB.replace(
            "%% interface\n{", "%% interface\n" + '"signed": {"args": ["party"]}\n' * 100_000 + "x: {", 1
        ),
        ("invalid",),
    ),
    # found by the fuzzer (cot): digit runs past int()'s 4,300-digit limit read as numbers — a
    # JSON number in a record, a letter position and a bucket number in a word-sorting trace (a
    # bucket list it cannot read is not judged, so the rest of the trace may still pass)
    Case("cot-clean", "cot-record", _sort_record(), ("pass",)),
    Case(
        "cot-record-5000-digits",
        "cot-record",
        _sort_record().replace('"task"', f'"n": {DIGITS}, "task"'),
        ("invalid",),
    ),
    Case("cot-letter-5000-digits", "cot-record", _sort_record().replace("(16)", f"({DIGITS})"), NOT_PASS),
    Case(
        "cot-bucket-5000-digits",
        "cot-record",
        _sort_record().replace("(13) ", f"({DIGITS}) "),
        ("pass", "abstain"),
    ),
    Case(
        "cot-fraction-5000-digits", "cot", f"So 1 {DIGITS}/{DIGITS}7 = 2 and 2 + 2 = 4.", ("pass", "abstain")
    ),
    # size: 100k statements for type6 (its limit), and a report that size through the writers
    Case("type6-100k-lines", "type6", "T  p1 : The bridge is open.\n" * 100_000),
)


@pytest.fixture(scope="module")
def results() -> RunResult:
    inputs = [FuzzInput(c.target, 0, i, c.id, (), c.text) for i, c in enumerate(CASES)]
    targets = tuple(dict.fromkeys(c.target for c in CASES))
    return run(RunConfig(targets=targets, det_every=1, crash_dir=None), inputs)


def test_case_ids_are_unique() -> None:
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_known_bad_input_is_handled(case: Case, results: RunResult) -> None:
    key = (case.target, CASES.index(case))
    failures = results.outcomes.get(key, [])
    assert not failures, f"{case.id}: " + "; ".join(f"{kind}: {signature}" for kind, signature in failures)
    if case.verdicts is not None:
        assert results.verdicts[key] in case.verdicts, f"{case.id}: verdict {results.verdicts[key]}"
