"""The TE line model and grammar (TE-1 … TE-17): lines, kinds, and the shape of each body.

This module decides what each physical line *is* and splits bodies into their parts
(declaration name/value/unit, EQ parts and separators, CHECK kind and claim, ...). It never
evaluates anything; expressions are parsed later by :mod:`cotaudit.te.expr`. Every regex is
linear-time (no nested quantifiers), and shape errors are returned as :class:`Malformed`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum

HEADER_TAGS = ("GIVEN", "GOAL", "ANS")
BRACKET_TAGS = ("STEP", "EQ", "CHECK", "OPEN", "RESOLVE")
TAGS = HEADER_TAGS + BRACKET_TAGS
CHECK_KINDS = ("arith", "unit", "domain", "consistency", "bound")
ASSUMPTIONS = (
    "integer",
    "rational",
    "real",
    "positive",
    "negative",
    "nonnegative",
    "nonpositive",
    "nonzero",
    "even",
    "odd",
    "prime",
)

# TE-4 in one pass: a header, else a bracket line, else a tag attempt (alternatives in order).
_LINE = re.compile(
    r"\s*(?:(?P<h>GIVEN|GOAL|ANS):"
    r"|(?P<b>STEP|EQ|CHECK|OPEN|RESOLVE)\[(?P<id>[^\]\n]*)\]:"
    r"|(?P<a>GIVEN|GOAL|ANS|STEP|EQ|CHECK|OPEN|RESOLVE)\b)"
)
ID_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_COMMENT = re.compile(r"\s*(#|//|```|~~~)")


class Kind(Enum):
    BLANK = "blank"
    HEADER = "header"
    BRACKET = "bracket"
    ATTEMPT = "attempt"  # starts with a tag word but fits neither form (E013)
    DECL = "decl"
    UNTAGGED = "untagged"


@dataclass(slots=True)
class Line:
    """One physical line and what it is (TE-4)."""

    no: int  # 1-based
    text: str
    kind: Kind
    tag: str | None = None
    id: str | None = None  # a valid bracket ID
    raw_id: str | None = None  # the bracket text as written
    body: str = ""
    body_col: int = 0  # 0-based offset of ``body`` in ``text``
    skipped: bool = False  # over the line-length cap (TE-3a)
    in_given_block: bool = False
    block_path: tuple[str, ...] = field(default_factory=tuple)
    parsed: object = None  # the body's parse (Decl, EqBody, ... or Malformed), filled once


@dataclass(frozen=True, slots=True)
class Malformed:
    """A shape error (TE_E013) at a 0-based offset of the line."""

    reason: str
    col: int
    fragment: str = ""


def split_lines(text: str) -> list[str]:
    """TE-1: normalise newlines, strip one BOM, split on ``\\n`` only."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


def is_blank(line: str) -> bool:
    return line.strip() == ""


def classify(lines: list[str], max_line_chars: int) -> list[Line]:
    """TE-4: the kind of every line, in the order header, bracket, attempt, declaration, untagged."""
    out: list[Line] = []
    in_given = False
    for i, text in enumerate(lines, start=1):
        skipped = len(text) > max_line_chars
        # A skipped line keeps the kind and ID read from its start (TE-3a).
        probe = text[:200] if skipped else text
        if not text or text.isspace():
            out.append(Line(i, text, Kind.BLANK, in_given_block=in_given))
            continue
        m = _LINE.match(probe)
        if m is None:
            pass
        elif m.group("h"):
            tag = m.group("h")
            out.append(
                Line(i, text, Kind.HEADER, tag=tag, body=text[m.end() :], body_col=m.end(), skipped=skipped)
            )
            in_given = tag == "GIVEN"
            continue
        elif m.group("b"):
            raw = m.group("id")
            ident = raw if ID_RE.fullmatch(raw) else None
            out.append(
                Line(
                    i,
                    text,
                    Kind.BRACKET,
                    tag=m.group("b"),
                    id=ident,
                    raw_id=raw,
                    body=text[m.end() :],
                    body_col=m.end(),
                    skipped=skipped,
                )
            )
            in_given = False
            continue
        else:
            out.append(
                Line(i, text, Kind.ATTEMPT, tag=m.group("a"), skipped=skipped, in_given_block=in_given)
            )
            continue
        if in_given and not _COMMENT.match(probe) and ("=" in text):
            out.append(Line(i, text, Kind.DECL, body=text, skipped=skipped, in_given_block=True))
            continue
        out.append(Line(i, text, Kind.UNTAGGED, skipped=skipped, in_given_block=in_given))
    return out


# --- bodies -------------------------------------------------------------------------------


def split_unit(body: str) -> tuple[str, str | None, int]:
    """Split a trailing ``[unit]``; return (rest, unit text or None, offset of unit text)."""
    stripped = body.rstrip()
    if not stripped.endswith("]"):
        return body, None, -1
    start = stripped.rfind("[")
    if start < 0:
        return body, None, -1
    return body[:start], stripped[start + 1 : -1], start + 1


# Linear-time patterns (issue 14): no two whitespace runs may compete for the same spaces, so
# an optional part carries its own trailing ``\s*`` instead of sitting between two of them
# (``\s*(?:X)?\s*`` backtracks quadratically, ``\s*\)?\s*\.?\s*`` cubically, on a long run of
# spaces before a character that does not match).
_DECL_HEAD = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\(([^()]*)\)\s*)?(:=|=(?!=))")
_STRING = re.compile(r"\s*(\"[^\"]*\"|'[^']*')\s*")
_PARAM = re.compile(r"\s*param\s*(?:\(([^()]*)\)\s*)?")


@dataclass(frozen=True, slots=True)
class Decl:
    """A GIVEN declaration (TE-8): expression, param, STRING or user function."""

    name: str
    name_col: int
    kind: str  # expr | param | doc | function
    value: str  # expression text (expr/function) or the STRING
    value_col: int
    unit: str | None
    unit_col: int
    params: tuple[str, ...] = ()  # function parameters
    assumptions: tuple[str, ...] = ()  # param assumptions


def parse_decl(body: str, col: int) -> Decl | Malformed:
    """Parse one declaration; ``col`` is the offset of ``body`` in its line."""
    m = _DECL_HEAD.match(body)
    if not m:
        return Malformed(
            "a declaration is `name := value [unit]`", col + len(body) - len(body.lstrip()), body.strip()[:40]
        )
    name, fparams, _sep = m.group(1), m.group(2), m.group(3)
    name_col = col + m.start(1)
    rest = body[m.end() :]
    rest_col = col + m.end()
    if fparams is not None:
        params = tuple(p.strip() for p in fparams.split(","))
        for p in params:
            if not ID_RE.fullmatch(p):
                return Malformed(f"function parameter {p!r} is not a name", col + m.start(2), fparams)
        if len(set(params)) != len(params):
            return Malformed("function parameters must be distinct", col + m.start(2), fparams)
        value, unit, ucol = split_unit(rest)
        return Decl(name, name_col, "function", value, rest_col, unit, rest_col + ucol, params=params)
    sm = _STRING.fullmatch(rest)
    if sm:
        return Decl(name, name_col, "doc", sm.group(1), rest_col + sm.start(1), None, -1)
    value, unit, ucol = split_unit(rest)
    pm = _PARAM.fullmatch(value)
    if pm:
        assumptions: tuple[str, ...] = ()
        if pm.group(1) is not None:
            assumptions = tuple(a.strip() for a in pm.group(1).split(","))
            for a in assumptions:
                if a not in ASSUMPTIONS:
                    return Malformed(f"unknown assumption {a!r}", rest_col + pm.start(1), a)
        return Decl(
            name,
            name_col,
            "param",
            "",
            rest_col,
            unit,
            rest_col + ucol if unit is not None else -1,
            assumptions=assumptions,
        )
    if rest.lstrip().startswith(('"', "'")):
        return Malformed(
            "a STRING value must be the whole value, in one pair of quotes", rest_col, rest.strip()[:40]
        )
    return Decl(name, name_col, "expr", value, rest_col, unit, rest_col + ucol if unit is not None else -1)


@dataclass(frozen=True, slots=True)
class Part:
    text: str
    col: int  # 0-based offset of the stripped part in the line


@dataclass(frozen=True, slots=True)
class EqBody:
    """An EQ body split at top-level separators (TE-11)."""

    parts: tuple[Part, ...]
    seps: tuple[str, ...]  # len(parts) - 1 separators: '=', ':=', '≈', '~='
    target: str | None  # the bare NAME of target form, else None (relation form)
    unit: str | None
    unit_col: int


_EQ_TOKENS = re.compile(r"[()]|==|<=|>=|!=|:=|~=|[=<>\u2248]")


def split_eq(body: str, col: int) -> EqBody | Malformed:
    rest, unit, ucol = split_unit(body)
    parts: list[Part] = []
    seps: list[str] = []
    depth = 0
    start = 0
    for m in _EQ_TOKENS.finditer(rest):
        tok, i = m.group(), m.start()
        if tok == "(":
            depth += 1
        elif tok == ")":
            depth -= 1
        elif depth == 0:
            if tok in ("==", "<=", ">=", "!=", "<", ">"):
                return Malformed(
                    f"top-level comparison '{tok}' in an EQ; comparisons belong in CHECK", col + i, tok
                )
            parts.append(_part(rest, start, i, col))
            seps.append(tok)
            start = m.end()
    parts.append(_part(rest, start, len(rest), col))
    if not seps:
        return Malformed(
            "an EQ needs '=' between its parts", col + len(body) - len(body.lstrip()), body.strip()[:40]
        )
    for p in parts:
        if not p.text:
            return Malformed("empty part in EQ", p.col, "")
    target = parts[0].text if ID_RE.fullmatch(parts[0].text) else None
    for k, sep in enumerate(seps):
        if sep == ":=" and (k != 0 or target is None):
            return Malformed("':=' may only follow the target name", parts[k + 1].col, ":=")
    for k, sep in enumerate(seps):
        if sep in ("\u2248", "~=") and not _NUMERIC_LITERAL.fullmatch(parts[k + 1].text):
            return Malformed(
                "'≈' must be followed by a numeric literal", parts[k + 1].col, parts[k + 1].text[:20]
            )
    return EqBody(tuple(parts), tuple(seps), target, unit, col + ucol if unit is not None else -1)


_NUMERIC_LITERAL = re.compile(
    r"[-+]?(?:[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
)


def _part(text: str, start: int, end: int, col: int) -> Part:
    raw = text[start:end]
    lead = len(raw) - len(raw.lstrip())
    return Part(raw.strip(), col + start + lead)


@dataclass(frozen=True, slots=True)
class CheckBody:
    kind: str
    claim: str
    claim_col: int


_CHECK = re.compile(r"\s*([A-Za-z_]+)\s*:")


def parse_check(body: str, col: int) -> CheckBody | Malformed:
    m = _CHECK.match(body)
    if not m:
        return Malformed("a CHECK is `CHECK[id]: kind: claim`", col, body.strip()[:40])
    kind = m.group(1)
    if kind not in CHECK_KINDS:
        return Malformed(
            f"unknown CHECK kind {kind!r} (use {', '.join(CHECK_KINDS)})", col + m.start(1), kind
        )
    claim = body[m.end() :]
    lead = len(claim) - len(claim.lstrip())
    if not claim.strip():
        return Malformed("empty CHECK claim", col + m.end(), "")
    return CheckBody(kind, claim.strip(), col + m.end() + lead)


_RESOLVE_ID = re.compile(r"\s*by\s+([A-Za-z_][A-Za-z0-9_]*)\s*(?:\.\s*)?")  # linear: see _DECL_HEAD


@dataclass(frozen=True, slots=True)
class ResolveBody:
    by: str
    by_col: int


def parse_resolve(body: str, col: int) -> ResolveBody | Malformed:
    m = _RESOLVE_ID.fullmatch(body)
    if not m:
        return Malformed(
            "a RESOLVE is `RESOLVE[id]: by <id>`", col + len(body) - len(body.lstrip()), body.strip()[:40]
        )
    return ResolveBody(m.group(1), col + m.start(1))


_FROM_WORD = re.compile(r"\bfrom\b")
_FROM_TAIL = re.compile(  # linear: see _DECL_HEAD (this one took 131 s on 4,000 spaces)
    r"from\s+([A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*)\s*(?:(\))\s*)?(?:\.\s*)?"
)
_REF = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True, slots=True)
class Ref:
    name: str
    col: int


def step_refs(body: str, col: int) -> tuple[Ref, ...]:
    """TE-10: the names of a trailing ``(from a, b)`` or bare ``from a, b`` clause."""
    last: re.Match[str] | None = None
    for found in _FROM_WORD.finditer(body):
        last = found
    if last is None:
        return ()
    m = _FROM_TAIL.fullmatch(body, last.start())
    if m is None:
        return ()
    closing = m.group(2) is not None
    before = body[: last.start()].rstrip()
    opened = before.endswith("(")
    if closing != opened:
        return ()
    names_start = m.start(1)
    return tuple(Ref(r.group(), col + names_start + r.start()) for r in _REF.finditer(m.group(1)))


@dataclass(frozen=True, slots=True)
class AnsBody:
    label: str | None
    label_col: int
    approx: bool
    expr: str
    expr_col: int
    unit: str | None
    unit_col: int


_ANS_LABEL = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(?![=])")
_ANS_APPROX = re.compile(r"\s*(\u2248|~=)")


def parse_ans(body: str, col: int) -> AnsBody | Malformed:
    rest, unit, ucol = split_unit(body)
    label: str | None = None
    label_col = -1
    offset = 0
    m = _ANS_LABEL.match(rest)
    if m:
        label, label_col = m.group(1), col + m.start(1)
        offset = m.end()
    am = _ANS_APPROX.match(rest, offset)
    approx = bool(am)
    if am:
        offset = am.end()
    expr = rest[offset:]
    lead = len(expr) - len(expr.lstrip())
    if not expr.strip():
        return Malformed("ANS needs a value", col + offset, "")
    if approx:
        for piece in expr.split(","):
            if not _NUMERIC_LITERAL.fullmatch(piece.strip()) and not _NUMERIC_LITERAL.fullmatch(expr.strip()):
                return Malformed(
                    "'≈' in ANS must be followed by numeric literals", col + offset + lead, expr.strip()[:20]
                )
    return AnsBody(
        label,
        label_col,
        approx,
        expr.strip(),
        col + offset + lead,
        unit,
        col + ucol if unit is not None else -1,
    )


def leading_binding(body: str) -> str | None:
    """TE-3a: the name a skipped declaration or EQ body would bind (NAME before ':=' or '=')."""
    m = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?::=|=(?!=))", body[:200])
    return m.group(1) if m else None


_FENCE = re.compile(r"\s*(```|~~~)")
_STARTS_GIVEN = re.compile(r"\s*GIVEN:")
_STARTS_ANS = re.compile(r"\s*ANS:")


@dataclass(frozen=True, slots=True)
class Extracted:
    """A trace cut out of a raw completion (TE-5); add ``line_offset`` to its line numbers."""

    trace: str
    line_offset: int
    found: bool = True  # False: no GIVEN line, the whole text came back as it was


def extract_trace(text: str) -> Extracted:
    """TE-5: the span from the first ``GIVEN:`` line to the last ``ANS:`` line, fences removed.

    Lines of ``trace`` are lines ``line_offset + 1 …`` of ``text``; fence lines inside the span
    (a model that wrapped the trace in ```` ``` ````) are blanked, not dropped, so the offset
    stays exact. Without a GIVEN line the whole text is returned (the linter then reports it)
    with ``found`` False. Chat messages and reasoning blocks are handled one level up, by
    :func:`cotaudit.completions.find_trace`, which calls this for the te engine.
    """
    lines = split_lines(text)
    start = next((i for i, ln in enumerate(lines) if _STARTS_GIVEN.match(ln)), None)
    if start is None:
        return Extracted("\n".join(lines) + ("\n" if lines else ""), 0, found=False)
    end = max((i for i, ln in enumerate(lines) if _STARTS_ANS.match(ln)), default=len(lines) - 1)
    end = max(end, start)
    span = ["" if _FENCE.match(ln) else ln for ln in lines[start : end + 1]]
    return Extracted("\n".join(span) + "\n", start)
