"""Turning checked SMT-LIB fields into Z3 terms against the current vocabulary (V-8, V-9)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cotaudit.vericot.smt import Z3ParseError, Z3Session
from cotaudit.vericot.smtlib import Decl, SmtError, Vocabulary, parse_field


@dataclass(frozen=True, slots=True)
class Compiled:
    """A formula ready for the solver: new declarations, canonical asserts, terms."""

    new_decls: tuple[Decl, ...]
    smt: str  # canonical asserts, space-joined
    term: Any
    negation_smt: str | None = None
    negation: Any = None


@dataclass(frozen=True, slots=True)
class CompileError:
    reason: str  # parse_error | forbidden_command | vocabulary_conflict
    detail: str


def compile_formula(
    z3s: Z3Session,
    vocab: Vocabulary,
    smt: str,
    *,
    decls: str = "",
    negation_smt: str | None = None,
    vocab_text: str | None = None,
) -> Compiled | CompileError:
    """Split, filter, merge declarations and parse ``smt`` (and its denial) with Z3."""
    try:
        d_field = parse_field(decls, assertions=False)
        main = parse_field(smt, assertions=True)
        neg = parse_field(negation_smt, assertions=True) if negation_smt is not None else None
        all_decls = [*d_field.decls, *main.decls, *(neg.decls if neg else ())]
        new = tuple(vocab.new_decls(all_decls))
    except SmtError as exc:
        return CompileError(exc.reason, exc.message)
    prefix = (
        (vocab_text if vocab_text is not None else vocab.canon()) + " " + " ".join(d.canon() for d in new)
    )
    try:
        terms = z3s.parse(prefix + " " + " ".join(main.asserts))
        neg_term = None
        if neg is not None:
            neg_term = z3s.conj(z3s.parse(prefix + " " + " ".join(neg.asserts)))
    except Z3ParseError as exc:
        return CompileError("parse_error", str(exc))
    return Compiled(
        new,
        " ".join(main.asserts),
        z3s.conj(terms),
        " ".join(neg.asserts) if neg is not None else None,
        neg_term,
    )


def compile_many(z3s: Z3Session, vocab: Vocabulary, smts: list[str]) -> list[Compiled | CompileError]:
    """Compile several assertion fields with one Z3 parse (loading a context's premises).

    Each field's declarations must be new or identical to V's. On a Z3 error the fields are
    compiled one by one so that the error is attributed to the right field.
    """
    fields_: list[tuple[list[Decl], tuple[str, ...]] | CompileError] = []
    work = vocab.copy()
    all_new: list[Decl] = []
    for smt in smts:
        try:
            parsed = parse_field(smt, assertions=True)
            new = work.new_decls(list(parsed.decls))
        except SmtError as exc:
            fields_.append(CompileError(exc.reason, exc.message))
            continue
        work.extend(new)
        all_new.extend(new)
        fields_.append((new, parsed.asserts))
    asserts = [a for item in fields_ if not isinstance(item, CompileError) for a in item[1]]
    script = " ".join([vocab.canon(), *(d.canon() for d in all_new), *asserts])
    try:
        terms = z3s.parse(script) if asserts else []
    except Z3ParseError:
        return [compile_formula(z3s, vocab, s) for s in smts]
    out: list[Compiled | CompileError] = []
    pos = 0
    for item in fields_:
        if isinstance(item, CompileError):
            out.append(item)
            continue
        n = len(item[1])
        out.append(Compiled(tuple(item[0]), " ".join(item[1]), z3s.conj(terms[pos : pos + n])))
        pos += n
    return out
