"""Natural Program (NP) rendering of a TE trace (TE-49): the input of the M3 baseline.

``render_np`` rewrites each TE line into one plain-English NP line with a fixed table, so a
reader (or an LLM asked to self-verify) sees the same reasoning without the TE syntax, and a
finding on NP line *i* is a finding on TE line *i*. It is deterministic and purely textual:
nothing is evaluated, parsed as an expression, or repaired.

    >>> print(render_np("GIVEN:\\n  a := 4\\nGOAL: b\\nEQ[e1]: b = 2 * a = 8\\n"
    ...                 "CHECK[c1]: arith: e1.value == 8\\nANS: b\\n").text, end="")
    Given:
    - a = 4
    Find: b
    Step 1: b = 2 * a = 8
    Verify: step 1 result == 8
    Final answer: b

Table (TE-49) and the choices this module makes where the spec is silent:

- Lines are TE-1 lines (``split_lines``: ``\\r\\n``/``\\r`` become ``\\n``, one BOM is dropped,
  only ``\\n`` splits). The NP text joins them with ``\\n`` and ends with ``\\n`` iff the
  normalised input did. Count NP lines the same way, never with ``str.splitlines()``: a line
  copied verbatim may contain ``\\v``, ``\\x1c`` or U+2028.
- Tagged lines lose their indentation, and the body is stripped. GIVEN-block declarations
  are rendered as ``- name = v [u]`` without indentation, whatever the original indentation.
- A declaration keeps its value and unit text as written (``:=`` and ``=`` both become ``=``);
  a param keeps its unit after the assumptions (``- x: free parameter (real) [m]``); a STRING
  keeps its own quotes (single or double), so no escaping is ever needed.
- ``Step N`` numbers only the EQ lines that are rendered (valid ID, well-formed body, not over
  the TE-3 line cap). An ID becomes ``step N`` only if its first definition (the linter's
  rule: the first STEP/EQ/CHECK/OPEN line with that ID) is such an EQ; references to it are
  rewritten wherever they are, forward ones included, so an out-of-order citation stays
  visible. Every other name, undefined or not, stays as written.
- ``ID.value`` / ``ID.unit`` become ``step N result`` / ``step N unit`` in EQ bodies, CHECK
  claims and ANS (all expressions); free text (STEP text outside its ``from`` clause, OPEN,
  GOAL) is left alone. In a STEP only the names of the trailing ``from`` clause are rewritten.
- ``Resolved by …`` ends with one period, whether or not the TE line had one.
- Copied verbatim: untagged lines, tag attempts, bracket lines with an invalid ID, bodies the
  grammar returns :class:`~cotaudit.te.grammar.Malformed` for, and lines over the TE-3 line
  cap (the linter reads nothing on them). Errors only the expression parser finds (say
  ``b = 2 +* 3``) are not shape errors here: such lines go through the table unchanged.
- Blank lines are copied verbatim, whitespace included: a last line of only spaces with no
  final newline must stay a line, so blank lines cannot be emptied.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cotaudit.te.grammar import (
    Decl,
    Kind,
    Line,
    Malformed,
    classify,
    parse_ans,
    parse_check,
    parse_decl,
    parse_resolve,
    split_eq,
    split_lines,
    step_refs,
)
from cotaudit.te.pipeline import MAX_LINE_CHARS

__all__ = ["NPRendering", "render_np"]

_CHECK_LABELS = {
    "arith": "Verify",
    "unit": "Verify (units)",
    "domain": "Verify (domain)",
    "consistency": "Verify (consistency)",
    "bound": "Verify (bound)",
}
# ``e1.value`` / ``e1.unit`` on word boundaries; the ID is looked up, never evaluated.
_ATTR_REF = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\.(value|unit)\b")
_ATTR_WORD = {"value": "result", "unit": "unit"}
_ID_DEFINING_TAGS = ("STEP", "EQ", "CHECK", "OPEN")


@dataclass(frozen=True, slots=True)
class NPRendering:
    """An NP rendering: the text and, per NP line, the 1-based TE line it comes from.

    ``line_map[i]`` is the TE line of NP line ``i + 1``. The map is 1:1, so it is the identity
    ``(1, 2, …, n)``; it is returned so consumers never have to rely on that.
    """

    text: str
    line_map: tuple[int, ...]


def render_np(trace: str) -> NPRendering:
    """Render a TE trace as a Natural Program, one NP line per TE line (TE-49). Never raises."""
    normalised = trace.replace("\r\n", "\n").replace("\r", "\n")
    raw_lines = split_lines(trace)
    lines = classify(raw_lines, MAX_LINE_CHARS)
    steps = _number_steps(lines)
    out = [_render_line(ln, steps) for ln in lines]
    text = "\n".join(out)
    if normalised.endswith("\n"):
        text += "\n"
    return NPRendering(text, tuple(range(1, len(out) + 1)))


@dataclass(frozen=True, slots=True)
class _Steps:
    """Step numbers: per rendered EQ line, and per ID whose first definition is such a line."""

    by_line: dict[int, int]
    by_id: dict[str, int]


def _number_steps(lines: list[Line]) -> _Steps:
    first_def: dict[str, int] = {}
    for ln in lines:
        if ln.kind is Kind.BRACKET and ln.id is not None and ln.tag in _ID_DEFINING_TAGS:
            first_def.setdefault(ln.id, ln.no)
    by_line: dict[int, int] = {}
    by_id: dict[str, int] = {}
    for ln in lines:
        if (
            ln.kind is Kind.BRACKET
            and ln.tag == "EQ"
            and ln.id is not None
            and not ln.skipped
            and not isinstance(split_eq(ln.body, 0), Malformed)
        ):
            by_line[ln.no] = len(by_line) + 1
            if first_def[ln.id] == ln.no:
                by_id[ln.id] = by_line[ln.no]
    return _Steps(by_line, by_id)


def _labelled(label: str, rest: str) -> str:
    rest = rest.strip()
    return f"{label} {rest}" if rest else label


def _cite_results(text: str, steps: _Steps) -> str:
    """``e1.value`` → ``step 1 result``, ``e1.unit`` → ``step 1 unit``, for EQ IDs only."""

    def sub(m: re.Match[str]) -> str:
        n = steps.by_id.get(m.group(1))
        return m.group(0) if n is None else f"step {n} {_ATTR_WORD[m.group(2)]}"

    return _ATTR_REF.sub(sub, text)


def _unit_suffix(unit: str | None) -> str:
    return "" if unit is None else f" [{unit}]"


def _render_decl(decl: Decl) -> str:
    """The declaration without its ``- `` prefix: ``name = v [u]``, ``f(x) = body``, …"""
    if decl.kind == "param":
        assumptions = f" ({', '.join(decl.assumptions)})" if decl.assumptions else ""
        return f"{decl.name}: free parameter{assumptions}{_unit_suffix(decl.unit)}"
    if decl.kind == "doc":
        return f"{decl.name}: {decl.value}"
    head = f"{decl.name}({', '.join(decl.params)})" if decl.kind == "function" else decl.name
    return f"{head} = {decl.value.strip()}{_unit_suffix(decl.unit)}"


def _render_line(ln: Line, steps: _Steps) -> str:
    """One TE line → one NP line; anything the table does not cover is copied verbatim."""
    if ln.kind is Kind.BLANK or ln.skipped:
        return ln.text
    if ln.kind is Kind.DECL:
        decl = parse_decl(ln.body, 0)
        return ln.text if isinstance(decl, Malformed) else f"- {_render_decl(decl)}"
    if ln.kind is Kind.HEADER:
        return _render_header(ln, steps)
    if ln.kind is Kind.BRACKET and ln.id is not None:
        return _render_bracket(ln, steps)
    return ln.text  # UNTAGGED, ATTEMPT, or a bracket line with an invalid ID


def _render_header(ln: Line, steps: _Steps) -> str:
    if ln.tag == "GIVEN":
        if not ln.body.strip():
            return "Given:"
        decl = parse_decl(ln.body, 0)
        return ln.text if isinstance(decl, Malformed) else f"Given: {_render_decl(decl)}"
    if ln.tag == "GOAL":
        return _labelled("Find:", ln.body)
    if isinstance(parse_ans(ln.body, 0), Malformed):
        return ln.text
    return _labelled("Final answer:", _cite_results(ln.body, steps))


def _render_bracket(ln: Line, steps: _Steps) -> str:
    body = ln.body
    if ln.tag == "STEP":
        return _labelled("Reasoning:", _cite_from_clause(body, steps))
    if ln.tag == "EQ":
        n = steps.by_line.get(ln.no)
        if n is None:  # malformed body
            return ln.text
        return _labelled(f"Step {n}:", _cite_results(body, steps))
    if ln.tag == "CHECK":
        check = parse_check(body, 0)
        if isinstance(check, Malformed):
            return ln.text
        return _labelled(f"{_CHECK_LABELS[check.kind]}:", _cite_results(check.claim, steps))
    if ln.tag == "OPEN":
        return _labelled("Sub-goal:", body)
    resolve = parse_resolve(body, 0)
    if isinstance(resolve, Malformed):
        return ln.text
    n = steps.by_id.get(resolve.by)
    return f"Resolved by step {n}." if n is not None else f"Resolved by {resolve.by}."


def _cite_from_clause(body: str, steps: _Steps) -> str:
    """Rewrite the EQ IDs of a trailing ``from`` clause as ``step N``; the text stays as written."""
    for ref in reversed(step_refs(body, 0)):
        n = steps.by_id.get(ref.name)
        if n is not None:
            body = f"{body[: ref.col]}step {n}{body[ref.col + len(ref.name) :]}"
    return body
