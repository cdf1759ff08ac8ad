"""Structural rules: E001 order, E002 IDs, E003 references, E008 blocks, E010, E013 tags, E012 hedging.

Also the prescan the semantic pass needs (first definitions of IDs and symbols, names the
trace binds) and the block path of every line (TE-34).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from cotaudit.te import hedges
from cotaudit.te.config import Diagnostic, LintConfig
from cotaudit.te.grammar import (
    Decl,
    EqBody,
    Kind,
    Line,
    Malformed,
    ResolveBody,
    parse_ans,
    parse_check,
    parse_decl,
    parse_resolve,
    split_eq,
    step_refs,
)
from cotaudit.te.semantic import Prescan

Emit = Callable[[Diagnostic], None]
_INDEX_BINDING = re.compile(r"\(\s*([eEiI])\s*,")


def diag(emit: Emit, code: str, ln: Line, col: int | None, message: str, **evidence: Any) -> None:
    column = None if col is None else col + 1
    ev = {"column": column, **evidence}
    emit(Diagnostic(code, ln.no, column, message, tag=ln.tag, id=ln.id, evidence=tuple(ev.items())))


def parse_bodies(lines: list[Line]) -> Prescan:
    """Parse every body once (kept on the line) and collect the whole-trace facts."""
    pre = Prescan()
    for ln in lines:
        if ln.skipped:
            continue
        parsed: object = None
        if ln.kind is Kind.DECL or (ln.kind is Kind.HEADER and ln.tag == "GIVEN" and ln.body.strip()):
            parsed = parse_decl(ln.body, ln.body_col)
            if isinstance(parsed, Decl):
                pre.symbol_lines.setdefault(parsed.name, ln.no)
                pre.bound_names.add(parsed.name)
                pre.bound_names.update(parsed.params)
        elif ln.kind is Kind.BRACKET and ln.tag == "EQ":
            parsed = split_eq(ln.body, ln.body_col)
            if isinstance(parsed, EqBody) and parsed.target is not None:
                pre.symbol_lines.setdefault(parsed.target, ln.no)
                pre.bound_names.add(parsed.target)
        elif ln.kind is Kind.BRACKET and ln.tag == "CHECK":
            parsed = parse_check(ln.body, ln.body_col)
        elif ln.kind is Kind.BRACKET and ln.tag == "RESOLVE":
            parsed = parse_resolve(ln.body, ln.body_col)
        elif ln.kind is Kind.HEADER and ln.tag == "ANS":
            parsed = parse_ans(ln.body, ln.body_col)
        ln.parsed = parsed
        if ("Sum" in ln.text or "Product" in ln.text) and ln.kind is not Kind.UNTAGGED:
            pre.bound_names.update(m.group(1) for m in _INDEX_BINDING.finditer(ln.text))
    pre.has_units = any(
        getattr(ln.parsed, "unit", None) is not None
        or (ln.tag == "GOAL" and ln.kind is Kind.HEADER and ln.body.rstrip().endswith("]"))
        for ln in lines
    )
    for ln in lines:
        if ln.kind is Kind.BRACKET and ln.id is not None and ln.tag in ("STEP", "EQ", "CHECK", "OPEN"):
            pre.ids.setdefault(ln.id, (ln.no, ln.tag))
        elif ln.kind is Kind.BRACKET and ln.skipped and ln.id is not None and ln.tag != "RESOLVE":
            pre.ids.setdefault(ln.id, (ln.no, ln.tag or ""))
    return pre


def structural(lines: list[Line], pre: Prescan, config: LintConfig, emit: Emit) -> None:
    _shape(lines, emit)
    _order(lines, emit)
    _ids(lines, pre, emit)
    _blocks_and_refs(lines, pre, emit)


def _shape(lines: list[Line], emit: Emit) -> None:
    """E010 untagged lines, E013 tag attempts and invalid bracket IDs."""
    for ln in lines:
        if ln.kind is Kind.UNTAGGED and not ln.skipped:
            diag(emit, "TE_E010", ln, None, "line has no TE tag", text=ln.text.strip()[:80])
        elif ln.kind is Kind.ATTEMPT and not ln.skipped:
            col = len(ln.text) - len(ln.text.lstrip())
            shape = f"{ln.tag}:" if ln.tag in ("GIVEN", "GOAL", "ANS") else f"{ln.tag}[id]:"
            diag(
                emit,
                "TE_E013",
                ln,
                col,
                f"malformed {ln.tag} line: expected `{shape} ...`",
                reason="tag",
                fragment=ln.text.strip()[:40],
            )
        elif ln.kind is Kind.BRACKET and ln.id is None:
            col = ln.text.index("[") + 1
            diag(
                emit,
                "TE_E013",
                ln,
                col,
                f"invalid ID {ln.raw_id!r}: IDs look like e1 or step_2",
                reason="id",
                fragment=ln.raw_id or "",
            )


def _order(lines: list[Line], emit: Emit) -> None:
    """E001: at most one per line, the first rule that applies (TE_E001's order)."""
    non_blank = [ln for ln in lines if ln.kind is not Kind.BLANK]
    first_nb = non_blank[0].no if non_blank else 1
    last_nb = non_blank[-1].no if non_blank else 1
    heads: dict[str, list[int]] = {"GIVEN": [], "GOAL": [], "ANS": []}
    for ln in lines:
        if ln.kind is Kind.HEADER and ln.tag is not None:
            heads[ln.tag].append(ln.no)
    g = heads["GIVEN"][0] if heads["GIVEN"] else None
    o = heads["GOAL"][0] if heads["GOAL"] else None
    a = heads["ANS"][0] if heads["ANS"] else None
    found: dict[int, tuple[str, str, str]] = {}

    def add(line: int, message: str, expected: str, got: str) -> None:
        found.setdefault(line, (message, expected, got))

    if g is None:
        add(first_nb, "missing GIVEN: a trace starts with `GIVEN:`", "GIVEN", "none")
    if o is None:
        if g is None:
            anchor = first_nb
        else:
            after = [
                ln.no for ln in lines if ln.no > g and ln.kind is not Kind.BLANK and not ln.in_given_block
            ]
            after = [n for n in after if lines[n - 1].kind is not Kind.DECL]
            anchor = after[0] if after else last_nb
        add(anchor, "missing GOAL: declare the goal after the GIVEN block", "GOAL", "none")
    if a is None:
        add(last_nb, "missing ANS: a trace ends with `ANS:`", "ANS", "none")
    if o is not None and g is not None and o < g:
        add(o, "GOAL before GIVEN", "GIVEN first", "GOAL")
    if a is not None and ((o is not None and a < o) or (g is not None and a < g)):
        add(a, "ANS before the header is complete", "ANS last", "ANS")
    for tag, nos in heads.items():
        for n in nos[1:]:
            add(n, f"second {tag} line (the first is at line {nos[0]})", f"one {tag}", tag)
    header_end = max(x for x in (g, o) if x is not None) if (g is not None or o is not None) else None
    for ln in lines:
        if ln.kind is Kind.BRACKET and header_end is not None and ln.no < header_end:
            add(
                ln.no,
                "body line inside header (before GIVEN and GOAL are complete)",
                "GIVEN, GOAL, then body",
                ln.tag or "",
            )
        if a is not None and ln.no > a and ln.kind in (Kind.BRACKET, Kind.HEADER):
            add(
                ln.no,
                "content after ANS (ANS must be the last tagged line)",
                "nothing after ANS",
                ln.tag or "",
            )
    for line_no in sorted(found):
        message, expected, got = found[line_no]
        diag(
            emit,
            "TE_E001",
            lines[line_no - 1] if line_no <= len(lines) else lines[-1],
            None,
            message,
            expected=expected,
            found=got,
        )


def _ids(lines: list[Line], pre: Prescan, emit: Emit) -> None:
    """E002: STEP, EQ, CHECK and OPEN share one ID namespace; the first definition wins."""
    for ln in lines:
        if ln.kind is Kind.BRACKET and ln.id is not None and ln.tag in ("STEP", "EQ", "CHECK", "OPEN"):
            first = pre.ids.get(ln.id)
            if first is not None and first[0] != ln.no:
                col = ln.text.index("[") + 1
                diag(
                    emit,
                    "TE_E002",
                    ln,
                    col,
                    f"ID '{ln.id}' is already defined at line {first[0]}",
                    first_line=first[0],
                )


def _ref_problem(name: str, line: int, pre: Prescan) -> dict[str, Any] | None:
    first = pre.ids.get(name)
    sym_line = pre.symbol_lines.get(name)
    if (first is not None and first[0] < line) or (sym_line is not None and sym_line < line):
        return None
    later = [x for x in (first[0] if first else None, sym_line) if x is not None]
    if later:
        return {"ref": name, "reason": "forward", "defined_at": min(later)}
    return {"ref": name, "reason": "undefined"}


def _cite(emit: Emit, ln: Line, name: str, col: int, pre: Prescan, what: str) -> None:
    """E003 for a reference (a `from` name or a RESOLVE's `by`) that points nowhere or forward."""
    problem = _ref_problem(name, ln.no, pre)
    if problem is None:
        return
    if problem["reason"] == "forward":
        message = f"{what} '{name}' is defined only later, at line {problem['defined_at']}"
    else:
        message = f"{what} '{name}' is not defined"
    diag(emit, "TE_E003", ln, col, message, **problem)


def _blocks_and_refs(lines: list[Line], pre: Prescan, emit: Emit) -> None:
    """Block paths (TE-34), E003 for `from` clauses and RESOLVE, E002 for a second RESOLVE, E008."""
    stack: list[tuple[str, int]] = []
    resolved_at: dict[str, int] = {}
    opens: dict[str, int] = {}
    ans_line: int | None = None
    reported: set[int] = set()
    for ln in lines:
        ln.block_path = tuple(o for o, _ in stack)
        if ln.kind is Kind.HEADER and ln.tag == "ANS" and ans_line is None:
            ans_line = ln.no
            for oid, open_line in stack:
                _e008(emit, lines[open_line - 1], oid, reported, ans_line=ln.no)
        if ln.kind is not Kind.BRACKET or (ln.skipped and ln.tag not in ("OPEN", "RESOLVE")):
            continue
        if ln.tag == "STEP" and not ln.skipped:
            for ref in step_refs(ln.body, ln.body_col):
                _cite(emit, ln, ref.name, ref.col, pre, "the cited name")
        elif ln.tag == "OPEN" and ln.id is not None:
            if ln.id not in opens:
                opens[ln.id] = ln.no
            stack.append((ln.id, ln.no))
        elif ln.tag == "RESOLVE" and ln.id is not None:
            _resolve(ln, pre, stack, resolved_at, opens, reported, lines, emit)
    for oid, open_line in stack:
        _e008(emit, lines[open_line - 1], oid, reported, ans_line=ans_line)


def _resolve(
    ln: Line,
    pre: Prescan,
    stack: list[tuple[str, int]],
    resolved_at: dict[str, int],
    opens: dict[str, int],
    reported: set[int],
    lines: list[Line],
    emit: Emit,
) -> None:
    assert ln.id is not None
    open_ids = [o for o, _ in stack]
    col = ln.text.index("[") + 1
    if ln.id in open_ids:
        k = open_ids.index(ln.id)
        for inner_id, inner_line in stack[k + 1 :]:
            _e008(emit, lines[inner_line - 1], inner_id, reported, closed_by_line=ln.no)
        del stack[k:]
        resolved_at.setdefault(ln.id, ln.no)
    elif ln.id in resolved_at:
        diag(
            emit,
            "TE_E002",
            ln,
            col,
            f"OPEN '{ln.id}' was already resolved at line {resolved_at[ln.id]}",
            first_line=resolved_at[ln.id],
        )
    else:
        first = pre.ids.get(ln.id)
        if first is None:
            ev: dict[str, Any] = {"ref": ln.id, "reason": "undefined"}
            msg = f"RESOLVE names no OPEN '{ln.id}'"
        elif first[0] > ln.no:
            ev = {"ref": ln.id, "reason": "forward", "defined_at": first[0]}
            msg = f"RESOLVE names OPEN '{ln.id}' before it is opened (line {first[0]})"
        else:
            ev = {"ref": ln.id, "reason": "wrong-kind"}
            msg = f"'{ln.id}' is a {first[1]}, not an OPEN"
        diag(emit, "TE_E003", ln, col, msg, **ev)
    if ln.skipped:
        return
    body = ln.parsed
    if isinstance(body, Malformed):
        diag(emit, "TE_E013", ln, body.col, body.reason, reason=body.reason, fragment=body.fragment)
        return
    if not isinstance(body, ResolveBody):
        return
    _cite(emit, ln, body.by, body.by_col, pre, "RESOLVE by")


def _e008(emit: Emit, open_ln: Line, oid: str, reported: set[int], **where: Any) -> None:
    if open_ln.no in reported:
        return
    reported.add(open_ln.no)
    if "closed_by_line" in where:
        closed = where["closed_by_line"]
        msg = f"OPEN '{oid}' is still open when an enclosing block is resolved at line {closed}"
    elif where.get("ans_line") is not None:
        msg = f"OPEN '{oid}' is not resolved before ANS (line {where['ans_line']})"
    else:
        msg = f"OPEN '{oid}' is never resolved"
    diag(emit, "TE_E008", open_ln, None, msg, open_id=oid, **where)


def hedging(lines: list[Line], config: LintConfig, emit: Emit, text: str) -> None:
    """E012: a hedge on a tagged or declaration line, outside STRING values.

    ``wait`` and ``actually`` count only as a self-correction in free text
    (:mod:`cotaudit.te.hedges`); the other tokens count wherever they stand.
    """
    pattern = config.hedge_regex()
    if not pattern.search(text):
        return  # the common case: one scan of the whole trace
    for ln in lines:
        if ln.skipped or ln.kind not in (Kind.HEADER, Kind.BRACKET, Kind.DECL):
            continue
        text = ln.text
        if isinstance(ln.parsed, Decl) and ln.parsed.kind == "doc":
            start = ln.parsed.value_col
            text = text[:start] + " " * len(ln.parsed.value) + text[start + len(ln.parsed.value) :]
        prose = _free_text(ln)
        matches = [
            m
            for m in pattern.finditer(text)
            if not hedges.is_contextual(m.group())
            or (prose and hedges.is_marker(text, m.start(), m.end(), ln.body_col))
        ]
        if matches:
            tokens = [m.group() for m in matches]
            diag(
                emit,
                "TE_E012",
                ln,
                matches[0].start(),
                f"hedging word '{tokens[0]}': state what you computed",
                tokens=tokens,
            )


_BARE_GOAL = re.compile(r"[ \t]*[A-Za-z_]\w*[ \t]*(?:\[[^\]]*\][ \t]*)?")


def _free_text(ln: Line) -> bool:
    """Is the body prose (STEP, OPEN, a GOAL in words) rather than an expression or a name?"""
    if ln.kind is Kind.BRACKET:
        return ln.tag in ("STEP", "OPEN")
    return ln.kind is Kind.HEADER and ln.tag == "GOAL" and _BARE_GOAL.fullmatch(ln.body) is None
