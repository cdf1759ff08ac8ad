"""C-29 … C-35: certificates, the independent checker, every failure code with a near miss."""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cotaudit.certify.engine.closure import build_closure
from cotaudit.certify.engine.evaluation import evaluate
from cotaudit.certify.lang.parse import parse_literal, parse_program
from cotaudit.certify.lang.syntax import Fact
from cotaudit.certify.proof.format import seal
from cotaudit.certify.proof.kernelview import KernelView
from cotaudit.certify.proof.recheck import recheck

LEGAL = """
[ji_art6]  is_preliminary_contract(X) :- subscription_order_or_booking_form(X), agrees_future_conclusion(X), determinable_parties_and_subject(X).
[ji_art7]  fails_conclusion_duty(P, X) :- is_preliminary_contract(X), refuses_to_conclude_main_contract(P, X).
[art495]   may_claim_preliminary_breach_liability(P, X) :- is_preliminary_contract(X), fails_conclusion_duty(P, X).
agrees_future_conclusion(x1).
determinable_parties_and_subject(x1).
refuses_to_conclude_main_contract(p1, x1).
subscription_order_or_booking_form(x1).
"""
TARGET = "may_claim_preliminary_breach_liability(p1,x1)"
UNITS = parse_program(LEGAL)
KERNEL = KernelView(1, {i + 1: u for i, u in enumerate(UNITS)})


def legal_cert() -> dict[str, Any]:
    cert = evaluate(UNITS).certificate(parse_literal(TARGET), 6, kernel_version=1)
    assert recheck(cert, KERNEL).ok
    return cert


def test_x1_certificate_shape() -> None:
    cert = legal_cert()
    nodes = cert["nodes"]
    assert [n["fact"] for n in nodes[:4]] == [
        "agrees_future_conclusion(x1)",
        "determinable_parties_and_subject(x1)",
        "refuses_to_conclude_main_contract(p1,x1)",
        "subscription_order_or_booking_form(x1)",
    ]
    assert [n["leaf"]["unit_id"] for n in nodes[:4]] == [4, 5, 6, 7]
    assert nodes[4]["edge"]["rule"] == "ji_art6" and nodes[4]["edge"]["subst"] == {"V0": "x1"}
    assert nodes[4]["edge"]["premises"] == [0, 1, 3]
    assert nodes[5]["edge"]["premises"] == [4, 2] and nodes[5]["edge"]["subst"] == {"V0": "p1", "V1": "x1"}
    assert nodes[6]["edge"]["premises"] == [5, 4] and nodes[6]["depth"] == 3
    assert cert["root"] == 6 and cert["deps"] == [1, 2, 3, 4, 5, 6, 7] and cert["depth"] == 3
    assert cert["verifier"] == {"id": "certify.recheck", "version": "1"}
    report = recheck(cert, KERNEL)
    assert report.ok and report.depth == 3 and report.conclusion == TARGET


def mutate(fn: Callable[[dict[str, Any]], None], reseal: bool = True) -> dict[str, Any]:
    cert = copy.deepcopy(legal_cert())
    fn(cert)
    return seal(cert) if reseal else cert


def _set(path: list[Any], value: Any) -> Callable[[dict[str, Any]], None]:
    def go(c: dict[str, Any]) -> None:
        obj: Any = c
        for p in path[:-1]:
            obj = obj[p]
        obj[path[-1]] = value

    return go


CASES: list[tuple[str, Callable[[dict[str, Any]], None]]] = [
    ("MALFORMED_DERIVATION", _set(["nodes"], [])),
    ("MALFORMED_DERIVATION", _set(["nodes", 0, "fact"], "not a fact(")),
    ("CYCLIC", _set(["nodes", 4, "edge", "premises"], [0, 1, 5])),
    ("CYCLIC", _set(["nodes", 1, "id"], 7)),
    ("DUPLICATE_NODE", _set(["nodes", 1, "fact"], "agrees_future_conclusion(x1)")),
    ("ROOT_MISMATCH", _set(["root"], 5)),
    ("ROOT_MISMATCH", _set(["root"], 99)),
    ("UNLINKED_CONCLUSION", _set(["nodes", 4, "edge", "premises"], [0, 1, 30])),
    ("UNLINKED_CONCLUSION", lambda c: c["nodes"][2].pop("leaf")),
    ("UNREACHABLE_NODE", lambda c: c["nodes"][5]["edge"].update(premises=[4])),
    ("UNSUPPORTED_LEAF", _set(["nodes", 0, "leaf", "unit_id"], 5)),
    ("UNSUPPORTED_LEAF", _set(["nodes", 0, "leaf", "scope"], "query")),
    ("RULE_NOT_IN_KERNEL", _set(["nodes", 4, "edge", "rule_unit_id"], 2)),
    ("RULE_NOT_IN_KERNEL", _set(["nodes", 4, "edge", "rule_key"], "r:other")),
    ("BAD_SUBSTITUTION", _set(["nodes", 5, "edge", "subst"], {"V0": "p1"})),
    ("BAD_SUBSTITUTION", _set(["nodes", 5, "edge", "subst"], {"V0": "p1", "V1": "X("})),
    ("HEAD_MISMATCH", _set(["nodes", 5, "edge", "subst"], {"V0": "p2", "V1": "x1"})),
    ("BODY_MISMATCH", _set(["nodes", 6, "edge", "premises"], [4, 5])),
    ("DEPTH_MISMATCH", _set(["nodes", 4, "depth"], 2)),
    ("DEPTH_MISMATCH", _set(["depth"], 2)),
    ("DEPTH_BUDGET_EXCEEDED", _set(["delta"], 2)),
    ("DEPS_MISMATCH", _set(["deps"], [1, 2, 3])),
    ("NAF_VIOLATED", _set(["nodes", 4, "edge", "naf"], ["p(q)"])),
]


@pytest.mark.parametrize(("code", "fn"), CASES, ids=[f"{c}-{i}" for i, (c, _) in enumerate(CASES)])
def test_every_failure_code_fires(code: str, fn: Callable[[dict[str, Any]], None]) -> None:
    report = recheck(mutate(fn), KERNEL)
    assert not report.ok
    assert code in report.codes(), report.failures


def test_near_miss_edits_that_keep_the_certificate_valid() -> None:
    cert = legal_cert()
    assert recheck(cert, KERNEL, delta=3).ok  # exactly at the budget
    same = mutate(_set(["nodes", 0, "leaf", "evidence_sha256"], "ab" * 32))  # not part of the checks
    assert recheck(same, KERNEL).ok


def test_an_edited_certificate_fails_on_its_hash() -> None:
    edited = mutate(_set(["nodes", 6, "fact"], "may_claim_preliminary_breach_liability(p2,x1)"), reseal=False)
    report = recheck(edited, KERNEL)
    assert {"HASH_MISMATCH", "ROOT_MISMATCH", "HEAD_MISMATCH"} <= set(report.codes())


def test_forged_derivation_of_an_underivable_fact_fails() -> None:
    kernel = KernelView(1, {u: x for u, x in KERNEL.units.items() if u != 4})  # no agreement fact
    report = recheck(legal_cert(), kernel)
    assert report.codes() == ["UNSUPPORTED_LEAF"]


def test_report_lists_every_failure_not_only_the_first() -> None:
    def two(c: dict[str, Any]) -> None:
        c["deps"] = [1]
        c["nodes"][4]["depth"] = 9

    assert {"DEPS_MISMATCH", "DEPTH_MISMATCH"} <= set(recheck(mutate(two), KERNEL).codes())


@pytest.mark.parametrize(
    "junk", ["", "{", "[]", '{"format": "x"}', '{"format": "cotaudit.certify.certificate/1", "kind": "?"}']
)
def test_junk_is_malformed_never_an_exception(junk: str) -> None:
    report = recheck(junk, KERNEL)
    assert not report.ok and report.codes() == ["MALFORMED_DERIVATION"]


def test_calc_mismatch() -> None:
    units = parse_program(
        "w(c1, 70). h(c1, 175).\n[calc:bmi] bmi(C, V) :- w(C, W), h(C, H) {V = bmi@1(W, H)}.\n"
    )
    kv = KernelView(0, {i + 1: u for i, u in enumerate(units)})
    cert = evaluate(units).certificate(parse_literal("bmi(c1,22.85714)"), 6)
    assert recheck(cert, kv).ok
    bad = copy.deepcopy(cert)
    bad["nodes"][-1]["edge"]["output"] = "22.9"
    assert "CALC_MISMATCH" in recheck(seal(bad), kv).codes()
    bad = copy.deepcopy(cert)
    bad["nodes"][-1]["edge"]["kind"] = "rule"
    assert "CALC_MISMATCH" in recheck(seal(bad), kv).codes()


def test_naf_violated_after_the_kernel_changes() -> None:
    units = parse_program("big(bob).\n[r1] kind(X) :- big(X), not red(X).\n")
    kv = KernelView(1, {1: units[0], 2: units[1]})
    cert = evaluate(units).certificate(parse_literal("kind(bob)"), 6)
    assert cert["flags"] == ["naf"] and cert["nodes"][-1]["edge"]["naf"] == ["red(bob)"]
    assert recheck(cert, kv).ok
    kv2 = KernelView(2, {1: units[0], 2: units[1], 3: Fact("f", parse_literal("red(bob)"))})
    assert recheck(cert, kv2).codes() == ["NAF_VIOLATED"]
    # the rule gone as well: both are reported; with red(bob) absent, only the rule
    kv3 = KernelView(3, {1: units[0], 3: Fact("f", parse_literal("red(bob)"))})
    assert recheck(cert, kv3).codes() == ["NAF_VIOLATED", "RULE_NOT_IN_KERNEL"]
    kv4 = KernelView(4, {1: units[0]})
    assert recheck(cert, kv4).codes() == ["RULE_NOT_IN_KERNEL"]


def test_closure_certificates() -> None:
    units = [u for i, u in enumerate(UNITS) if i != 3]  # drop the agreement: X-4
    kv = KernelView(1, {i + 1: u for i, u in enumerate(UNITS) if i != 3})
    cl = evaluate([s for s in _sources(kv)])
    cert = build_closure(cl, parse_literal(TARGET), kernel_version=1)
    assert cert["kind"] == "closure" and cert["flags"] == ["closed_world"] and cert["model_size"] == 3
    assert recheck(cert, kv).ok
    full = build_closure(cl, parse_literal(TARGET), kernel_version=1, embed_max=0)
    assert full["model"] is None and recheck(full, kv).ok  # recomputed by the reference evaluator
    assert "CLOSURE_NOT_A_MODEL" in recheck(cert, KERNEL).codes()  # the full kernel derives more
    lie = copy.deepcopy(cert)
    lie["model"] = lie["model"][:-1]
    assert "CLOSURE_NOT_A_MODEL" in recheck(seal(lie), kv).codes()
    lie = copy.deepcopy(cert)
    lie["target"] = "subscription_order_or_booking_form(x1)"
    assert "CLOSURE_TARGET_DERIVED" in recheck(seal(lie), kv).codes()
    lie = copy.deepcopy(full)
    lie["model_sha256"] = "0" * 64
    assert "HASH_MISMATCH" in recheck(seal(lie), kv).codes()
    del units


def _sources(kv: KernelView) -> list[Any]:
    from cotaudit.certify.engine.facts import Source

    return [Source(uid, u) for uid, u in sorted(kv.units.items())]


def test_export_round_trip_rechecks() -> None:
    text, manifest = KERNEL.export()
    again = KernelView.from_export(text, manifest)
    assert again.units == KERNEL.units and recheck(legal_cert(), again).ok


# ---------------------------------------------------------------------- independence (C-34)

SRC = Path(__file__).resolve().parents[3] / "src" / "cotaudit" / "certify"
# The producers, by their module under certify: the executor, its fact store and closure (with the
# certificate builders), the gate, the state machine and its transitions, the kernel scan.
PRODUCERS = {
    "engine.executor",
    "engine.evaluation",
    "engine.facts",
    "engine.closure",
    "gate.source",
    "gate.decision",
    "gate.derived",
    "state.machine",
    "kernel.scan",
    "kernel.oracle",
    "state.admission",
    "state.query",
}


def _path(module: str) -> Path:
    """The file of ``module`` (dotted, relative to certify): a module or a package."""
    base = SRC.joinpath(*module.split("."))
    return base.with_suffix(".py") if base.with_suffix(".py").exists() else base / "__init__.py"


def _exists(module: str) -> bool:
    base = SRC.joinpath(*module.split("."))
    return base.with_suffix(".py").exists() or (base / "__init__.py").exists()


def _imports(module: str) -> set[str]:
    """The certify modules ``module`` imports (deferred imports included), relative to certify;
    importing ``a.b`` also runs the package ``a``."""
    tree = ast.parse(_path(module).read_text(encoding="utf-8"))
    out: set[str] = set()
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("cotaudit.certify"):
            base = node.module.removeprefix("cotaudit.certify").lstrip(".")
            names.append(base)
            names += [
                f"{base}.{a.name}".lstrip(".") for a in node.names if _exists(f"{base}.{a.name}".lstrip("."))
            ]
        elif isinstance(node, ast.Import):
            names += [
                a.name.removeprefix("cotaudit.certify.")
                for a in node.names
                if a.name.startswith("cotaudit.certify.")
            ]
    for name in names:
        parts = name.split(".") if name else []
        out.update(".".join(parts[:n]) for n in range(1, len(parts) + 1))
    return {m for m in out if m and _exists(m)}


def test_recheck_does_not_import_the_executor() -> None:
    seen: set[str] = set()
    todo = ["proof.recheck", "proof.recheck_edges", "proof.recheck_closure"]
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        todo.extend(_imports(m))
    assert not (seen & PRODUCERS), sorted(seen & PRODUCERS)
    assert "engine.executor" not in seen and "proof.naive" in seen
