"""Hostile input never hangs a certify parser (issue 14, class 1).

* Every regular expression in ``src/cotaudit/certify`` is a module-level ``re.compile`` listed
  in :data:`PATTERNS` with the method the code calls it with (a test reads the sources, so a
  new pattern, or an inline ``re.match(r"…")``, fails until it is listed here and swept).
  The sweep runs each pattern, and each of lark's terminals, on many adversarial strings; the
  slowest few per pattern are then rerun at 1 MiB, where a quadratic pattern needs minutes.
* Every certify parser gets adversarial inputs of about 1 MiB (or the size limit).
* Role patterns are matched by RE2: the exponential ``(a+)+`` is answered at once, a
  backreference is refused when the interface loads, an ordinary pattern still works.

All timed work runs in a forked child under a generous bound (:mod:`tests.certify.bounded`),
so a regression fails the test instead of hanging the suite.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from cotaudit.certify import check
from cotaudit.certify.core.errors import CertifyError, InterfaceError
from cotaudit.certify.lang.syntax import Const

from .bounded import run_bounded

SRC = Path(__file__).resolve().parents[2] / "src" / "cotaudit" / "certify"
MIB = 1 << 20

# module.NAME -> how the code uses it
PATTERNS = {
    "adapters.contractnli._DOC_ID": "fullmatch",
    "adapters.depdag._SYMBOL": "match",
    "adapters.proofwriter._BARE_ADJ": "match",
    "adapters.proofwriter._COND_IS": "match",
    "adapters.proofwriter._COND_NOTVERB": "match",
    "adapters.proofwriter._COND_VERB": "match",
    "adapters.proofwriter._GENERIC": "match",
    "sources.checkers._NUMBER": "finditer",
    "sources.checkers._RUNS": "sub",
    "sources.checkers._UNIT_TOKEN": "match",
    "lang.parse._BLANK": "fullmatch",
    "lang.parse._FAST_FACT": "fullmatch",
    "lang.parse._FAST_LINES": "findall",
    "kb.file._EVIDENCE": "fullmatch",
    "kb.file._KV": "fullmatch",
    "kb.file._QUERY_START": "match",
    "proof.recheck_edges._ARGUMENT": "fullmatch",
    "proof.recheck_edges._SYMBOL": "fullmatch",
    "lang.syntax.LABEL_RE": "fullmatch",
    "lang.syntax.NAME_RE": "fullmatch",
    "lang.syntax.NUMBER_RE": "fullmatch",
    "lang.syntax.VAR_RE": "fullmatch",
}

PIECES = [" ", "\t", "\n", "a", "A", "0", "1.", ",", ".", '"', "\\", '\\"', "@", "(", ")", "[", "]"]
PIECES += [":", "-", "%", "_", "a,", "a ", "a, ", "0:0,", " and ", " then ", "#1, ", "is big"]
PREFIXES = ["", "@a", "@a[", '@a "', "a(", "a(b,", "[a] ", "If ", "All big", "1. p <- [r] ", "the "]
SUFFIXES = ["", "!", "\n!", '"']


def _source_patterns() -> tuple[set[str], list[str]]:
    """(module-level ``NAME = re.compile(...)`` names, every other call into ``re``)."""
    found: set[str] = set()
    inline: list[str] = []
    for path in sorted(SRC.rglob("*.py")):
        mod = ".".join(path.relative_to(SRC).with_suffix("").parts)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top: set[int] = set()
        for node in tree.body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                fn = node.value.func
                if isinstance(fn, ast.Attribute) and fn.attr == "compile" and _is_re(fn.value):
                    top.add(id(node.value))
                    found.update(f"{mod}.{t.id}" for t in node.targets if isinstance(t, ast.Name))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if _is_re(node.func.value) and node.func.attr != "escape" and id(node) not in top:
                inline.append(f"{mod}:{node.lineno}: re.{node.func.attr}")
    return found, inline


def _is_re(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "re"


def _pattern(name: str) -> re.Pattern[str]:
    mod, attr = name.rsplit(".", 1)
    pattern: re.Pattern[str] = getattr(importlib.import_module(f"cotaudit.certify.{mod}"), attr)
    return pattern


def _apply(pattern: re.Pattern[str], how: str, text: str) -> None:
    if how == "sub":
        pattern.sub(" ", text)
    elif how == "finditer":
        list(pattern.finditer(text))
    else:
        getattr(pattern, how)(text)


def _shapes() -> list[tuple[str, str, str]]:
    return [(pre, piece, suf) for piece in PIECES for pre in PREFIXES for suf in SUFFIXES]


def _text(shape: tuple[str, str, str], n: int) -> str:
    pre, piece, suf = shape
    return pre + piece * (n // len(piece)) + suf


def _lark_terminals() -> dict[str, str]:
    from cotaudit.certify.lang.grammar import _parser

    return {f"lark.{t.name}": t.pattern.to_regexp() for t in _parser("program").terminals}


def test_every_regex_of_certify_is_listed_and_module_level() -> None:
    found, inline = _source_patterns()
    assert not inline, f"regexes built inline (make them module-level patterns listed here): {inline}"
    assert found == set(PATTERNS), (sorted(found - set(PATTERNS)), sorted(set(PATTERNS) - found))


def _worst_then_large(pattern: re.Pattern[str], how: str) -> float:
    """Time the slowest three small inputs again at 1 MiB; the slowest of those (seconds)."""
    timed = []
    for shape in _shapes():
        start = time.perf_counter()
        _apply(pattern, how, _text(shape, 2000))
        timed.append((time.perf_counter() - start, shape))
    worst = [shape for _, shape in sorted(timed, key=lambda t: t[0], reverse=True)[:3]]
    slowest = 0.0
    for shape in worst:
        big = _text(shape, MIB)
        start = time.perf_counter()
        _apply(pattern, how, big)
        slowest = max(slowest, time.perf_counter() - start)
    return slowest


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_certify_regex_is_linear_on_adversarial_text(name: str) -> None:
    # linear patterns take milliseconds on 1 MiB; a quadratic one takes minutes to hours
    run_bounded(_worst_then_large, _pattern(name), PATTERNS[name], timeout=30)


@pytest.mark.parametrize("name", sorted(_lark_terminals()))
def test_lark_terminal_is_linear_on_adversarial_text(name: str) -> None:
    run_bounded(_worst_then_large, re.compile(_lark_terminals()[name]), "match", timeout=30)


# ----------------------------------------------------------------------------- parsers at 1 MiB

IFACE = (Path(__file__).resolve().parents[2] / "examples" / "certify" / "legal_prelim.kb").read_text()
IFACE = IFACE.split("%% record rules")[0] + "%% record story kind=document\nChen refuses.\n"


def _outcome(fn: Any, *args: Any) -> str:
    """``ok`` or the diagnostic's class: any other exception fails the child (and the test)."""
    from cotaudit.certify.adapters.proofwriter import PWParseError
    from cotaudit.certify.serve.votes import VoteFormatError

    try:
        fn(*args)
    except (CertifyError, PWParseError, VoteFormatError) as exc:
        return type(exc).__name__
    return "ok"


def _kb(body: str) -> str:
    return IFACE + body


def _parsers() -> dict[str, tuple[Any, tuple[Any, ...]]]:
    from cotaudit.certify.adapters import proofwriter as pw
    from cotaudit.certify.gate.extract import extract_derivation
    from cotaudit.certify.interface.load import load_interface
    from cotaudit.certify.kb.bundle import load_bundle
    from cotaudit.certify.kb.file import parse_kb
    from cotaudit.certify.lang.parse import parse_literal, parse_program, parse_query
    from cotaudit.certify.serve.votes import parse_vote_lines

    sp = " " * (MIB - 4096)
    return {
        # the reproduction (56 s before), then the same at the section size limit
        "kb evidence 40k blanks": (parse_kb, (_kb("%% units\np(a). @story" + " " * 40_000 + "!\n"),)),
        "kb evidence 1 MiB blanks": (parse_kb, (_kb("%% units\np(a). @story" + sp + "!\n"),)),
        "kb evidence blanks + quote": (parse_kb, (_kb("%% units\np(a). @story [0:1]" + sp + '"x" !\n'),)),
        "kb units on one line": (parse_kb, (_kb("%% units\n" + "a." * 520_000 + "\n"),)),
        "kb unterminated quote": (parse_kb, (_kb('%% units\np(a). @story "' + "\\\\" * (MIB // 2 - 4096)),)),
        "kb spans": (parse_kb, (_kb("%% units\np(a). @story[" + "0:1," * (MIB // 4 - 1024) + "\n"),)),
        "check kb evidence blanks": (check, (_kb("%% units\np(a). @story" + sp + "!\n"),)),
        "program blanks": (parse_program, (sp,)),
        "program newlines": (parse_program, ("\n" * (MIB - 16),)),
        "program open args": (parse_program, ("p(" + "a," * (MIB // 8),)),
        "program open string": (parse_program, ('p("' + "\\\\" * (MIB // 4),)),
        "program label": (parse_program, ("[" + "a" * (MIB - 16),)),
        "literal": (parse_literal, ("p(" + "a " * (MIB // 4),)),
        "query": (parse_query, ("?- p(" + "a," * (MIB // 8),)),
        "pw no period": (pw.sentences, ("a" * MIB,)),
        "pw if then": (pw.parse_sentence, ("If " + "a then " * (MIB // 7) + "\nb.",)),
        "pw generic": (pw.parse_sentence, ("All " + "big, " * (MIB // 5) + ".",)),
        "pw theory": (pw.theory_units, ("Bob is big. " * (MIB // 12),)),
        "extract": (extract_derivation, ("1. p(a) <- [r] " + "#1, " * (MIB // 4), {})),
        "votes": (parse_vote_lines, ('{"fact": "' + "a" * (MIB - 64) + '"}',)),
        "bundle nesting": (load_bundle, ("[" * MIB,)),
        "interface json": (load_interface, ("{" + " " * MIB,)),
        "interface yaml nesting": (load_interface, ("a: " + "[" * 100_000,)),
        "interface yaml aliases": (
            load_interface,
            (
                "a: &a [x, x]\n"
                + "".join(
                    f"b{i}: &b{i} [*{'a' if i == 0 else f'b{i - 1}'}, *{'a' if i == 0 else f'b{i - 1}'}]\n"
                    for i in range(40)
                ),
            ),
        ),
    }


@pytest.mark.parametrize("name", sorted(_parsers()))
def test_parser_is_bounded_on_hostile_text(name: str) -> None:
    fn, args = _parsers()[name]
    # each takes well under 2 s here; a super-linear path takes minutes (bounded child: fails)
    got = run_bounded(_outcome, fn, *args, timeout=20)
    assert got.value in ("ok", "KbError", "ProgramError", "InterfaceError", "PWParseError", "VoteFormatError")


def test_kb_evidence_after_blanks_still_reads() -> None:
    from cotaudit.certify.kb.file import parse_kb

    doc = parse_kb(_kb('%% units\np(a). @story[0:5]   "Chen "   % a comment\nq(b). @story\n'))
    first, second = doc.sections[0].statements
    assert (
        first.evidence is not None and first.evidence.quote == "Chen " and first.evidence.spans == ((0, 5),)
    )
    assert second.evidence is not None and second.evidence.record_id == "story"
    assert first.evidence_error is None and second.evidence_error is None
    bad = parse_kb(_kb("%% units\np(a). @story" + " " * 40_000 + "!\n")).sections[0].statements[0]
    assert bad.evidence is None and bad.evidence_error is not None


def test_kb_units_on_one_line_keep_their_evidence() -> None:
    from cotaudit.certify.kb.file import parse_kb

    doc = parse_kb(_kb('%% units\na(x1). b(x1). @story "Chen"\n'))
    a, b = doc.sections[0].statements
    assert (a.text, a.evidence) == ("a(x1).", None)
    assert b.text == "b(x1)." and b.evidence is not None and b.evidence.quote == "Chen"


# ----------------------------------------------------------------------------- role patterns


def _iface_with(pattern: str) -> str:
    return json.dumps(
        {
            "format": "cotaudit.certify.interface/1",
            "roles": {"party": {"type": "symbol", "pattern": pattern}},
            "predicates": {"p": {"args": ["party"]}},
            "source_whitelist": ["p"],
        }
    )


def _evil_match() -> list[bool]:
    from cotaudit.certify.interface.load import load_interface

    role = load_interface(_iface_with("^(p[0-9]+|(a+)+)$")).roles["party"]
    return [role.accepts(Const("sym", "a" * n + "b")) for n in (30, 64, 127)] + [
        role.accepts(Const("sym", "aaaa")),
        role.accepts(Const("sym", "p12")),
    ]


def test_exponential_role_pattern_is_matched_in_linear_time() -> None:
    # Python's re needs > 60 s for 30 'a's and a 'b'; RE2 answers at once, and still correctly
    got = run_bounded(_evil_match, timeout=20)
    assert got.value == [False, False, False, True, True]


@pytest.mark.parametrize(
    "pattern",
    ["^(a)\\1$", "^(?=p)p[0-9]+$", "^p(?!x)[0-9]+$", "(?<=a)b", "^(?P<n>a)(?P=n)$", "[", "a" * 5000],
)
def test_role_pattern_outside_re2_is_refused_at_load(pattern: str) -> None:
    from cotaudit.certify.interface.load import load_interface

    with pytest.raises(InterfaceError) as err:
        load_interface(_iface_with(pattern))
    assert [p.code for p in err.value.problems] == ["BAD_ROLE"]


def test_ordinary_role_pattern_still_works() -> None:
    from cotaudit.certify.interface.load import load_interface

    role = load_interface(_iface_with("^p[0-9]+$")).roles["party"]
    assert role.accepts(Const("sym", "p12"))
    assert not role.accepts(Const("sym", "q12"))
    assert not role.accepts(Const("sym", "p12x"))
    report = check(
        (Path(__file__).resolve().parents[2] / "examples" / "certify" / "legal_prelim.kb").read_text()
    )
    assert report.verdict == "pass"


def test_kb_with_an_evil_pattern_is_checked_not_hung() -> None:
    kb = _kb("").replace('"^p[0-9]+$"', '"^(p[0-9]+|(a+)+)$"') + (
        "%% query q1 writer=grounder\n"
        "refuses_to_conclude_main_contract(" + "a" * 30 + 'b, x1). @story "Chen refuses"\n'
        "?- may_claim_preliminary_breach_liability(p1, x1).\n"
    )
    got = run_bounded(check, kb, timeout=30)
    codes = {f.evidence.get("reason") for f in got.value.findings}
    assert "ROLE_MISMATCH" in codes  # the 31-character constant is not a party: decided at once


# ----------------------------------------------------------------------------- edge extractor


def _permuted_trace(order: list[int]) -> tuple[str, dict[str, Any]]:
    from cotaudit.certify.lang.parse import parse_unit

    n = len(order)
    body = ", ".join(f"b(X{i})" for i in range(n)) + ", c(" + ", ".join(f"X{i}" for i in range(n)) + ")"
    rule = parse_unit(f"[r] h :- {body}.")
    prem = ", ".join(f"b(k{i})" for i in range(n)) + ", c(" + ", ".join(f"k{i}" for i in order) + ")"
    return f"1. h <- [r] {prem}", {"r": (1, rule)}


def _extract(order: list[int]) -> str:
    from cotaudit.certify.core.errors import ComputationCap
    from cotaudit.certify.gate.extract import extract_derivation

    text, rules = _permuted_trace(order)
    try:
        cand = extract_derivation(text, rules)
    except ComputationCap:
        return "cap"
    return str(cand["nodes"][-1]["edge"]["subst"]["V0"])


def test_extractor_body_matching_is_bounded() -> None:
    # the premises' order is the reverse of the body's: backtracking would try ~9! orders
    assert run_bounded(_extract, list(range(8, -1, -1)), timeout=30).value == "cap"
    # near miss: premises in body order are matched at the first try
    assert run_bounded(_extract, list(range(9)), timeout=30).value == "k0"
