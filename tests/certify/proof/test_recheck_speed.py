"""C-115: recheck stays linear in the certificate size, and its fast paths change no verdict.

Behaviour, not absolute speed: the rechecker's own literal reader gives exactly the grammar's
literals, the canonical-JSON walk it skips for plain nodes still catches floats and odd keys,
and the work (counted, and timed with a generous factor) grows linearly from n to 10n nodes.
"""

from __future__ import annotations

import copy
import json
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cotaudit.certify.core.canon import NotCanonical, canonical_json, sha256_hex
from cotaudit.certify.core.errors import ProgramError
from cotaudit.certify.engine.evaluation import evaluate
from cotaudit.certify.lang.grammar import Limits
from cotaudit.certify.lang.parse import parse_literal, parse_program
from cotaudit.certify.proof import recheck_edges
from cotaudit.certify.proof.derivation import DerivationCheck, _plain_node, _plain_node_json, canonical_body
from cotaudit.certify.proof.kernelview import KernelView
from cotaudit.certify.proof.recheck import recheck
from cotaudit.certify.proof.recheck_edges import LiteralReader


def chain_certificate(n: int) -> tuple[dict[str, Any], KernelView]:
    """``reach(n<n>)`` over a chain of n edges: a certificate of 2n + 1 nodes."""
    text = "\n".join(
        ["reach(n0).", *(f"e(n{i}, n{i + 1})." for i in range(n)), "[step] reach(Y) :- reach(X), e(X, Y)."]
    )
    units = parse_program(text, Limits(max_bytes=1 << 24, max_units=100_000))
    cert = evaluate(units).certificate(parse_literal(f"reach(n{n})"), 10**9)
    return cert, KernelView(0, {i + 1: u for i, u in enumerate(units)})


def shared_certificate(n: int) -> tuple[dict[str, Any], KernelView]:
    """d(i) :- prev(i, i-1, i-2), d(i-1), d(i-2): every node has two parents."""
    text = "\n".join(
        ["d(w0).", "d(w1).", "[fib] d(X) :- prev(X, A, B), d(A), d(B)."]
        + [f"prev(w{i}, w{i - 1}, w{i - 2})." for i in range(2, n)]
    )
    units = parse_program(text, Limits(max_bytes=1 << 24, max_units=100_000))
    cert = evaluate(units).certificate(parse_literal(f"d(w{n - 1})"), 10**9)
    return cert, KernelView(0, {i + 1: u for i, u in enumerate(units)})


READER_CASES = [
    "p",
    "-p",
    "p(a)",
    "-p(a,b)",
    "p(a,1.50,-0,007,2.0,-3.25)",
    "p(0,-0.0,10)",
    "q(aB_9,x)",
    "not(a)",
    "-not(a)",
    "p( a )",
    "p(a, b)",
    " p(a)",
    'p("str",a)',
    "p(#sk0)",
    "p(X)",
    "p(_)",
    "p()",
    "p(a)(b)",
    "p(a,)",
    "p(,a)",
    "p((a))",
    "P(a)",
    "p(a",
    "",
    "-",
    "--p(a)",
    "p.q(a)",
    "p(1e5)",
    "p(a" + "b" * 130 + ")",
    "q" * 129 + "(a)",
    "q" * 128 + "(a)",
    "p(" + ",".join(["a"] * 65) + ")",
    "p(" + ",".join(["a"] * 64) + ")",
]


@pytest.mark.parametrize("text", READER_CASES)
def test_literal_reader_gives_the_grammars_literal(text: str) -> None:
    reader = LiteralReader()
    try:
        want: Any = parse_literal(text, skolem=True)
    except ProgramError as exc:
        want = ("error", exc.reason, str(exc))
    for _ in range(2):  # the second read goes through the reader's memo
        try:
            lit, ground = reader.literal(text)
            got: Any = lit
            assert ground == lit.ground
            assert type(lit) is type(want)
        except ProgramError as exc:
            got = ("error", exc.reason, str(exc))
        assert got == want


@pytest.mark.parametrize(
    "text", ["a", "w5", "1.50", "-0", "007", "not", '"s"', "#sk1", "X", "a,b", "", "b" * 129, "p(a)", 3, None]
)
def test_reader_constants_match_the_grammar(text: Any) -> None:
    def reference(value: Any) -> Any:
        if not isinstance(value, str):
            return None
        try:
            lit = parse_literal(f"c({value})", skolem=True)
        except ProgramError:
            return None
        arg = lit.args[0] if lit.arity == 1 else None
        return arg if arg is not None and arg.__class__.__name__ == "Const" else None

    reader = LiteralReader()
    reader.literal("p(a,1.5)")  # shares the argument memo
    assert reader.constant(text) == reference(text)
    assert reader.constant(text) == reference(text)


def _reseal_raw(cert: dict[str, Any]) -> dict[str, Any]:
    """Re-hash with plain ``json`` (which accepts floats): a forger's consistent certificate."""
    body = {k: v for k, v in cert.items() if k != "sha256"}
    cert["sha256"] = sha256_hex(json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False))
    return cert


@pytest.mark.parametrize(
    "where",
    ["depth", "id", "premise", "subst", "leaf_unit", "subst_key", "extra_field", "top_level"],
)
def test_hash_stage_still_rejects_non_canonical_values(where: str) -> None:
    cert, kernel = chain_certificate(4)
    assert recheck(cert, kernel, delta=10**9).ok
    bad = copy.deepcopy(cert)
    edge_node = next(n for n in bad["nodes"] if "edge" in n)
    leaf_node = next(n for n in bad["nodes"] if "leaf" in n)
    if where == "depth":
        edge_node["depth"] = float(edge_node["depth"])
    elif where == "id":
        leaf_node["id"] = float(leaf_node["id"])
    elif where == "premise":
        edge_node["edge"]["premises"][0] = float(edge_node["edge"]["premises"][0])
    elif where == "subst":
        edge_node["edge"]["intermediates"] = {"x": 1.5}
    elif where == "leaf_unit":
        leaf_node["leaf"]["evidence_sha256"] = 2.5
    elif where == "subst_key":
        edge_node["edge"]["subst"][7] = "a"
    elif where == "extra_field":
        leaf_node["note"] = [1, {"k": 0.5}]
    else:
        bad["delta"] = 1e9
    if where == "subst_key":
        bad["sha256"] = cert["sha256"]  # json would turn the key into "7"; no consistent forgery
    else:
        _reseal_raw(bad)
    report = recheck(bad, kernel, delta=10**9)
    assert not report.ok and "MALFORMED_DERIVATION" in report.codes()


def test_canonical_json_rejects_cycles_and_floats_without_recursion() -> None:
    loop: list[Any] = [1]
    loop.append({"again": loop})
    with pytest.raises(NotCanonical):
        canonical_json(loop)
    shared = [1, 2]
    assert canonical_json({"a": shared, "b": [shared, shared]}) == '{"a":[1,2],"b":[[1,2],[1,2]]}'
    deep: Any = 1.5
    for _ in range(5000):  # deeper than the recursion limit: the walk is iterative
        deep = [deep]
    with pytest.raises(NotCanonical):
        canonical_json(deep)


def test_recheck_reads_canonical_facts_without_the_grammar(monkeypatch: pytest.MonkeyPatch) -> None:
    """Operation count: canonical certificates never fall back to the (much slower) parser."""
    cert, kernel = shared_certificate(300)
    calls = {"n": 0}
    original = parse_literal

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(recheck_edges, "parse_literal", counting)
    assert recheck(cert, kernel, delta=10**9).ok
    assert calls["n"] == 0


def _best_time(cert: dict[str, Any], kernel: KernelView, runs: int = 5) -> float:
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        report = recheck(cert, kernel, delta=10**9)
        best = min(best, time.perf_counter() - t0)
        assert report.ok
    return best


@pytest.mark.parametrize("make", [chain_certificate, shared_certificate])
def test_recheck_time_grows_linearly(make: Any) -> None:
    """n → 10n nodes: linear work takes ~10× as long, quadratic ~100×; allow up to 35×."""
    small, k_small = make(300)
    large, k_large = make(3000)
    assert len(large["nodes"]) >= 9 * len(small["nodes"])
    ratio = _best_time(large, k_large) / _best_time(small, k_small)
    assert ratio < 35, f"recheck time grew {ratio:.1f}× for 10× the nodes"


def _staged(cert: Any, kernel: KernelView, delta: int | None) -> list[tuple[str, int | None, str]]:
    """The stages one by one, as the gate runs them (the reference for run_all's one pass)."""
    check = DerivationCheck(cert, kernel, {})
    if check.structure():
        check.leaves()
        check.check_edges()
        check.depths(delta)
        check.deps()
        check.hash()
    return [(f.code, f.node, f.message) for f in check.failures]


def _tampered() -> list[dict[str, Any]]:
    from . import test_recheck as tr

    out = [tr.mutate(fn) for _, fn in tr.CASES]
    out += [tr.mutate(fn, reseal=False) for _, fn in tr.CASES]

    def both(c: dict[str, Any]) -> None:  # a node with a leaf and an edge: its edge checked late
        c["nodes"][5]["leaf"] = {"unit_id": 4, "scope": "kernel", "evidence_sha256": None}
        c["nodes"][5]["edge"]["premises"] = [4, 6]

    def many(c: dict[str, Any]) -> None:
        c["deps"] = [1]
        c["nodes"][4]["depth"] = 9
        c["nodes"][0]["leaf"]["unit_id"] = 5
        c["nodes"][5]["edge"]["subst"] = {"V0": "p2", "V1": "x1"}
        c["nodes"][6]["edge"]["premises"] = [4, 5]

    out += [tr.mutate(both), tr.mutate(many), tr.mutate(many, reseal=False), tr.legal_cert()]
    return out


def test_one_pass_reports_what_the_stages_report() -> None:
    from . import test_recheck as tr

    for cert in _tampered():
        for delta in (None, 2, 6):
            got = [(f.code, f.node, f.message) for f in recheck(cert, tr.KERNEL, delta=delta).failures]
            assert got == _staged(cert, tr.KERNEL, delta)


# --------------------------------------------------------------------------- hash of plain nodes

_TEXT = st.text(min_size=0, max_size=12)  # any code point: quotes, backslashes, controls, non-BMP
_INT = st.integers(min_value=-(2**70), max_value=2**70)


@st.composite
def _plain_nodes(draw: st.DrawFn) -> dict[str, Any]:
    node: dict[str, Any] = {"id": draw(_INT), "fact": draw(_TEXT), "depth": draw(_INT)}
    if draw(st.booleans()):
        sha = draw(st.none() | _TEXT)
        node["leaf"] = {"unit_id": draw(_INT), "scope": draw(_TEXT), "evidence_sha256": sha}
    else:
        node["edge"] = {
            "kind": draw(_TEXT),
            "rule": draw(_TEXT),
            "rule_unit_id": draw(_INT),
            "rule_key": draw(_TEXT),
            "subst": draw(st.dictionaries(_TEXT, _TEXT, max_size=4)),
            "premises": draw(st.lists(_INT, max_size=4)),
            "naf": draw(st.lists(_TEXT, max_size=3)),
        }
    return node


@given(_plain_nodes())
@settings(max_examples=300, deadline=None)
def test_plain_node_json_is_byte_identical_to_canonical_json(node: dict[str, Any]) -> None:
    """The hash stage writes builder-shaped nodes itself; it must give canonical_json's bytes."""
    assert _plain_node(node)
    assert _plain_node_json(node) == canonical_json(node)


def test_the_hash_of_a_large_certificate_is_the_builders() -> None:
    for make in (chain_certificate, shared_certificate):
        cert, kernel = make(300)
        assert recheck(cert, kernel, delta=10**9).ok
        body = {k: v for k, v in cert.items() if k != "sha256"}
        plain = [int(_plain_node(n)) for n in body["nodes"]]
        assert all(plain)
        assert sha256_hex(canonical_body(body, plain)) == cert["sha256"]
        plain[0] = 0  # a node the generic encoder writes: the same text
        assert canonical_body(body, plain) == canonical_json(body)
