"""ProofWriter chain synthesiser (V-42, SHOULD): a gold chain of thought for True / False items
under ProofWriter's reading (rules fire forward only; a negated literal is its own atom).

The target is the question statement (True) or its complement (False). Derivations are found by
breadth-first forward chaining (round r uses only what rounds < r derived), rules in theory
order, entities in sorted order; the first derivation found is kept. The chain lists the leaf
facts verbatim, then for each firing the rule verbatim followed by the derived fact (via
``realize``), and ends with the target. Unknown items give ``None``.
"""

from __future__ import annotations

from typing import Any

from cotaudit.vericot.formalizers import proofwriter
from cotaudit.vericot.formalizers.ast import VAR, Atom, Fact, ParseFailure, Rule


def _subst(a: Atom, e: str) -> Atom:
    return Atom(a.pred, tuple(e if x == VAR else x for x in a.args), a.positive)


def synthesize_chain(item: dict[str, Any]) -> list[str] | None:
    """The gold chain for a True/False ProofWriter item, or ``None`` (Unknown or underivable)."""
    answer = item.get("answer")
    if answer not in ("A", "B"):
        return None
    target_ast = proofwriter.parse_sentence(proofwriter.question_statement(item["question"]))
    if not isinstance(target_ast, Fact):
        return None
    target = (
        target_ast.atom
        if answer == "A"
        else Atom(target_ast.atom.pred, target_ast.atom.args, not target_ast.atom.positive)
    )
    facts: dict[Atom, str] = {}
    rules: list[tuple[str, Rule]] = []
    for sentence in proofwriter.split_sentences(item["context"]):
        ast = proofwriter.parse_sentence(sentence)
        if isinstance(ast, Fact):
            facts.setdefault(ast.atom, sentence)
        elif isinstance(ast, Rule):
            rules.append((sentence, ast))
        elif isinstance(ast, ParseFailure):
            return None
    entities = sorted(
        {x for a in facts for x in a.args}
        | {x for _, r in rules for a in (*r.conditions, r.conclusion) for x in a.args if x != VAR}
    )
    known: set[Atom] = set(facts)
    why: dict[Atom, tuple[int, tuple[Atom, ...]]] = {}
    while target not in known:
        new: dict[Atom, tuple[int, tuple[Atom, ...]]] = {}
        for ri, (_, rule) in enumerate(rules):
            has_var = any(VAR in a.args for a in (*rule.conditions, rule.conclusion))
            for e in entities if has_var else [""]:
                conds = tuple(_subst(a, e) for a in rule.conditions)
                concl = _subst(rule.conclusion, e)
                if concl in known or concl in new:
                    continue
                if all(c in known for c in conds):
                    new[concl] = (ri, conds)
        if not new:
            return None
        for atom, reason in new.items():
            why[atom] = reason
            known.add(atom)
    leaves: list[Atom] = []
    firings: list[Atom] = []

    def visit(atom: Atom) -> None:
        if atom in facts:
            if atom not in leaves:
                leaves.append(atom)
            return
        if atom in firings:
            return
        for c in why[atom][1]:
            visit(c)
        firings.append(atom)

    visit(target)
    chain = [facts[a] for a in sorted(leaves, key=lambda a: list(facts).index(a))]
    for atom in firings:
        chain.append(rules[why[atom][0]][0])
        chain.append(proofwriter.realize(Fact(atom)))
    return chain
