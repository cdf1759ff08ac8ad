"""The shared AST of the deterministic formalisers (V-37) and its SMT-LIB rendering.

``Atom(pred, args, positive, noun)``, ``Fact(atom)``, ``Rule(conditions, conclusion)``; at most
one variable, ``x``. ``to_smt`` renders either semantics (V-38) and either encoding.

Predicates and entity keys are words as the text has them (``natural number``, ``six-legged``,
``31``, any Unicode); :func:`symbol_part` turns them into SMT-LIB symbol characters.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

VAR = "x"
MAX_SYMBOL_PART = 58
"""``p_not_`` (the longest prefix) plus this stays within the 64 characters of a declared symbol."""


@dataclass(frozen=True, slots=True)
class Atom:
    pred: str  # adjective / class noun (unary) or verb (binary), lower-case base form
    args: tuple[str, ...]  # entity keys (``bob``, ``the_bald_eagle``, ``31``) or ``x``
    positive: bool = True
    noun: bool = False  # the text used the predicate as a class noun ("a cat"), not an adjective


@dataclass(frozen=True, slots=True)
class Fact:
    atom: Atom


@dataclass(frozen=True, slots=True)
class Rule:
    conditions: tuple[Atom, ...]
    conclusion: Atom


Sentence = Fact | Rule


@dataclass(frozen=True, slots=True)
class ParseFailure:
    """Why a sentence is not in the lexicon: the first unusable token."""

    sentence: str
    token: str
    message: str


@dataclass(frozen=True, slots=True)
class Smt:
    decls: str
    smt: str
    negation_smt: str | None


def symbol_part(text: str) -> str:
    """``text`` as symbol characters, injectively: ``a-z``, ``0-9`` and ``_`` stay, a space or
    hyphen becomes ``_`` (*cold-blooded* and *cold blooded* are one predicate), any other
    character ``X<hex>X`` (upper case never occurs otherwise). Longer than
    :data:`MAX_SYMBOL_PART`: a prefix plus a sha256 digest of the whole."""
    out: list[str] = []
    for ch in text:
        if ("a" <= ch <= "z") or ("0" <= ch <= "9") or ch == "_":
            out.append(ch)
        elif ch in " -":
            out.append("_")
        else:
            out.append(f"X{ord(ch):X}X")
    part = "".join(out)
    if len(part) > MAX_SYMBOL_PART:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        part = f"{part[: MAX_SYMBOL_PART - 17]}_{digest}"
    return part


def _pred_symbol(atom: Atom, semantics: str) -> str:
    prefix = "p_" if len(atom.args) == 1 else "r_"
    if semantics == "proofwriter" and not atom.positive:
        return f"{prefix}not_{symbol_part(atom.pred)}"
    return f"{prefix}{symbol_part(atom.pred)}"


def _ent(arg: str) -> str:
    return arg if arg == VAR else f"e_{symbol_part(arg)}"


def _literal(atom: Atom, semantics: str, subst: str | None = None) -> str:
    args = " ".join(_ent(subst) if a == VAR and subst is not None else _ent(a) for a in atom.args)
    core = f"({_pred_symbol(atom, semantics)} {args})"
    if atom.positive or semantics == "proofwriter":
        return core
    return f"(not {core})"


def _complement(atom: Atom) -> Atom:
    return Atom(atom.pred, atom.args, not atom.positive, atom.noun)


def atoms_of(s: Sentence) -> tuple[Atom, ...]:
    return (s.atom,) if isinstance(s, Fact) else (*s.conditions, s.conclusion)


def declarations(
    sentences: list[Sentence], semantics: str, extra_entities: tuple[str, ...] = ()
) -> list[str]:
    """Canonical declarations for every symbol the sentences use (sorted, deterministic)."""
    ents: set[str] = set(extra_entities)
    preds: dict[str, int] = {}
    for s in sentences:
        for a in atoms_of(s):
            ents.update(x for x in a.args if x != VAR)
            preds[_pred_symbol(a, semantics)] = len(a.args)
            if semantics == "proofwriter":
                preds[_pred_symbol(_complement(a), semantics)] = len(a.args)
    out = ["(declare-sort Ent 0)"]
    out += sorted(f"(declare-const {_ent(e)} Ent)" for e in ents)
    out += [f"(declare-fun {p} ({' '.join(['Ent'] * n)}) Bool)" for p, n in sorted(preds.items())]
    return out


def to_smt(
    sentence: Sentence, semantics: str = "classical", encoding: str = "forall", entities: tuple[str, ...] = ()
) -> Smt:
    """``(decls, smt, negation_smt)``; facts carry the complementary literal under ``proofwriter``."""
    decls = " ".join(declarations([sentence], semantics, entities))
    if isinstance(sentence, Fact):
        neg = None
        if semantics == "proofwriter":
            neg = f"(assert {_literal(_complement(sentence.atom), semantics)})"
        return Smt(decls, f"(assert {_literal(sentence.atom, semantics)})", neg)
    has_var = any(VAR in a.args for a in (*sentence.conditions, sentence.conclusion))

    def body(subst: str | None) -> str:
        conds = [_literal(a, semantics, subst) for a in sentence.conditions]
        cond = conds[0] if len(conds) == 1 else f"(and {' '.join(conds)})"
        return f"(=> {cond} {_literal(sentence.conclusion, semantics, subst)})"

    if not has_var:
        return Smt(decls, f"(assert {body(None)})", None)
    if encoding == "ground":
        ents = sorted(set(entities) | {a for at in atoms_of(sentence) for a in at.args if a != VAR})
        if not ents:
            return Smt(decls, f"(assert (forall ((x Ent)) {body(None)}))", None)
        return Smt(decls, " ".join(f"(assert {body(e)})" for e in ents), None)
    return Smt(decls, f"(assert (forall ((x Ent)) {body(None)}))", None)
