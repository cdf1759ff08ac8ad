"""Recheck of closure certificates (C-35): the target is not in the least model.

With the model embedded (and no NAF): the model contains every kernel and overlay fact, one
pass of every rule over it adds nothing (so it is closed, hence a superset of the least model),
its hash matches, and neither the target nor its complement is in it. Otherwise the model is
recomputed with the reference evaluator and compared by hash. Codes: ``CLOSURE_NOT_A_MODEL``,
``CLOSURE_TARGET_DERIVED``, ``HASH_MISMATCH``, ``UNSUPPORTED_LEAF`` (an overlay fact the
checker was not given), ``MALFORMED_DERIVATION``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from cotaudit.certify.core.canon import canonical_json, sha256_hex, sha256_json
from cotaudit.certify.core.errors import ComputationCap, ProgramError, ResourceCap
from cotaudit.certify.lang.parse import parse_literal
from cotaudit.certify.lang.syntax import Const, Fact, Literal, Rule, Unit, Var, substitute
from cotaudit.certify.proof.kernelview import KernelView
from cotaudit.certify.proof.naive import naive_evaluate
from cotaudit.certify.proof.report import RecheckFailure
from cotaudit.limits import checkpoint


def _model_hash(texts: list[str]) -> str:
    return sha256_hex(canonical_json(sorted(texts)))


def _one_pass(
    rule: Rule, model: set[Literal], by_sig: dict[tuple[str, bool, int], list[Literal]]
) -> Iterator[Literal]:
    """Heads of every instance of a NAF-free, calc-free rule over ``model`` (hash-join on bound args)."""
    index: dict[tuple[tuple[str, bool, int], tuple[int, ...]], dict[tuple[Const, ...], list[Literal]]] = {}
    positive = rule.positive
    steps = [0]

    def candidates(lit: Literal, theta: dict[str, Const]) -> list[Literal]:
        bound = tuple(i for i, a in enumerate(lit.args) if isinstance(a, Const) or a.name in theta)
        facts = by_sig.get(lit.signature, [])
        if not bound:
            return facts
        key_idx = index.get((lit.signature, bound))
        if key_idx is None:
            key_idx = {}
            for f in facts:
                key_idx.setdefault(tuple(f.args[i] for i in bound), []).append(f)  # type: ignore[misc]
            index[(lit.signature, bound)] = key_idx
        key = tuple(a if isinstance(a, Const) else theta[a.name] for a in (lit.args[i] for i in bound))
        return key_idx.get(key, [])

    def extend(i: int, theta: dict[str, Const]) -> Iterator[Literal]:
        if i == len(positive):
            yield substitute(rule.head, theta)
            return
        lit = positive[i]
        for f in candidates(lit, theta):
            steps[0] += 1
            if steps[0] % 4096 == 0:
                checkpoint()  # one pass can still meet |model|^body instances
            t = dict(theta)
            ok = True
            for a, v in zip(lit.args, f.args, strict=True):
                if isinstance(a, Var) and t.setdefault(a.name, v) != v:  # type: ignore[arg-type]
                    ok = False
                    break
            if ok:
                yield from extend(i + 1, t)

    yield from extend(0, {})


def recheck_closure(
    cert: Mapping[str, Any], kernel: KernelView, overlay: Mapping[int, Unit]
) -> tuple[list[RecheckFailure], str | None]:
    """The failed checks, and why the model could not be recomputed within the reference
    evaluator's fact bound (``None``: it could). Such a certificate is undecided — not shown
    wrong. A time or memory bound raises :class:`ResourceCap`."""
    fails: list[RecheckFailure] = []

    def fail(code: str, message: str, **detail: Any) -> None:
        fails.append(RecheckFailure(code, None, message, detail))

    try:
        target = parse_literal(str(cert.get("target")))
        comp_text = cert.get("complement")
        complement = parse_literal(comp_text) if isinstance(comp_text, str) else None
    except ProgramError as exc:
        return [RecheckFailure("MALFORMED_DERIVATION", None, f"target does not parse: {exc.bare}")], None
    over_facts: list[Fact] = []
    rows = cert.get("overlay")
    if not isinstance(rows, list):
        return [RecheckFailure("MALFORMED_DERIVATION", None, "'overlay' must be a list")], None
    for row in rows:
        uid = row.get("unit_id") if isinstance(row, dict) else None
        unit = overlay.get(uid) if isinstance(uid, int) else None
        if not isinstance(unit, Fact) or unit.key != row.get("key"):
            fail("UNSUPPORTED_LEAF", f"overlay fact {row!r} is not in the query overlay")
        else:
            over_facts.append(unit)
    raw_flags = cert.get("flags")
    flags: list[Any] = raw_flags if isinstance(raw_flags, list) else []
    model_texts = cert.get("model")
    rules = [r for _, r in kernel.rules()]
    needs_recompute = model_texts is None or "naf" in flags or any(r.negative or r.calc for r in rules)
    if needs_recompute:
        try:
            model = naive_evaluate([u for _, u in sorted(kernel.units.items())], over_facts)
        except ResourceCap:
            raise
        except ComputationCap as exc:  # could not check: the certificate is not shown wrong
            return fails, f"cannot recompute the least model: {exc.what}"
        except ProgramError as exc:
            return [
                *fails,
                RecheckFailure("CLOSURE_NOT_A_MODEL", None, f"cannot recompute the model: {exc}"),
            ], None
        texts = model.texts()
        if _model_hash(texts) != cert.get("model_sha256"):
            fail("HASH_MISMATCH", "model_sha256 differs from the recomputed least model")
        members = set(model.depth)
    else:
        if not isinstance(model_texts, list) or not all(isinstance(t, str) for t in model_texts):
            return [
                *fails,
                RecheckFailure("MALFORMED_DERIVATION", None, "'model' must be a list of facts"),
            ], None
        if _model_hash(model_texts) != cert.get("model_sha256") or cert.get("model_size") != len(model_texts):
            fail("HASH_MISMATCH", "model_sha256/model_size do not match the embedded model")
        try:
            members = {parse_literal(t) for t in model_texts}
        except ProgramError as exc:
            return [
                *fails,
                RecheckFailure("MALFORMED_DERIVATION", None, f"model fact does not parse: {exc.bare}"),
            ], None
        for _, f in kernel.facts():
            if f.lit not in members:
                fail("CLOSURE_NOT_A_MODEL", f"kernel fact {f.lit.text()} is missing from the model")
        for f in over_facts:
            if f.lit not in members:
                fail("CLOSURE_NOT_A_MODEL", f"overlay fact {f.lit.text()} is missing from the model")
        by_sig: dict[tuple[str, bool, int], list[Literal]] = {}
        for m in sorted(members, key=Literal.text):
            by_sig.setdefault(m.signature, []).append(m)
        for rule in rules:
            for head in _one_pass(rule, members, by_sig):
                if head not in members:
                    fail(
                        "CLOSURE_NOT_A_MODEL", f"[{rule.label}] derives {head.text()}, which the model lacks"
                    )
                    break
    if target in members:
        fail("CLOSURE_TARGET_DERIVED", f"the target {target.text()} is in the model")
    if complement is not None and complement in members:
        fail("CLOSURE_TARGET_DERIVED", f"the complement {complement.text()} is in the model")
    body = {k: v for k, v in cert.items() if k != "sha256"}
    if sha256_json(body) != cert.get("sha256"):
        fail("HASH_MISMATCH", "sha256 does not match the canonical JSON")
    return fails, None
