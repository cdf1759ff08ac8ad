"""Issue 14, class 4: hostile trace text is a diagnostic (VC_E005 or a step status), never an
"internal error" report.

``json.loads`` raised ``RecursionError`` on 100,000 nested brackets and ``ValueError`` on a
5,000-digit integer, and measuring a text with a lone surrogate raised ``UnicodeEncodeError``.
The last part is a small seeded fuzz loop over mutations of ``examples/vericot`` that looks for
more of the class.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cotaudit import api, cli
from cotaudit.boundedjson import JSONRejected, decode, nesting_depth
from cotaudit.report import Report
from cotaudit.report.jsonout import render_json

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples" / "vericot").glob("*.vcot.json"))
VALID = (ROOT / "examples" / "vericot" / "A_sara_valid.vcot.json").read_text(encoding="utf-8")
HUGE = "9" * 5000
VERDICTS = {"pass", "fail", "abstain", "invalid"}


def _check(text: str) -> Report:
    r = api.check(text, "vericot")
    assert r.verdict in VERDICTS
    assert "internal error" not in json.dumps(r.to_dict(), ensure_ascii=True), r.details
    render_json([r], single=True, timing=False)  # the JSON writer takes it too
    return r


def _invalid(text: str, *words: str) -> str:
    r = _check(text)
    assert r.verdict == "invalid" and [f.code for f in r.findings] == ["VC_E005"]
    error = str(r.details["error"])
    for w in words:
        assert w in error, error
    return error


def _with(path: list[str | int], value: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(VALID)
    node: Any = data
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return data


# --------------------------------------------------------------------------- nesting


@pytest.mark.parametrize("opening,closing", [("[", "]"), ('{"a":', "}")])
@pytest.mark.parametrize("where", ["top", "meta"])
def test_deep_json_is_invalid_input(opening: str, closing: str, where: str) -> None:
    deep = opening * 100_000 + "1" + closing * 100_000
    text = deep if where == "top" else VALID.rstrip()[:-1] + ', "meta": {"x": ' + deep + "}}"
    _invalid(text, "nested 100", "at most 64")


def _depth(value: Any) -> int:
    """The reference: nesting of a decoded value (a scalar is 0)."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def test_near_miss_brackets_inside_strings_do_not_count() -> None:
    text = json.dumps(_with(["context", "documents", 0, "title"], '[\\"' * 5000 + "{" * 5000))
    assert nesting_depth(text) == _depth(json.loads(text)) == 6
    assert _check(text).verdict == "pass"


def test_near_miss_ordinary_nesting_is_accepted() -> None:
    for p in EXAMPLES:
        text = p.read_text(encoding="utf-8")
        assert nesting_depth(text) == _depth(json.loads(text))
    assert decode("[" * 64 + "]" * 64) is not None
    with pytest.raises(JSONRejected, match="nested 65"):
        decode("[" * 65 + "]" * 65)


@pytest.mark.parametrize(
    "text",
    [
        '"' + '\\"' * 2_000_000 + "\\",  # every quote escaped, unterminated
        '"' * 4_000_000,
        "[" + "[]," * 1_000_000 + "[]]",
        '["' + '","'.join(["ab"] * 500_000) + '"]',
    ],
)
def test_the_nesting_scan_is_linear(text: str) -> None:
    start = time.monotonic()
    nesting_depth(text)
    assert time.monotonic() - start < 10  # ~0.3 s here; quadratic would be hours


# --------------------------------------------------------------------------- numbers


def test_a_5000_digit_integer_is_invalid_input() -> None:
    _invalid(json.dumps(_with(["meta"], {"n": 0})).replace('"n": 0', '"n": ' + HUGE), "5000 characters")


def test_a_huge_number_anywhere_is_invalid_input() -> None:
    text = VALID.replace('"s1"', HUGE, 1)  # in the place of a string: still rejected as a number
    _invalid(text, "JSON number")


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400", "-1e999"])
def test_non_finite_numbers_are_invalid_input(literal: str) -> None:
    _invalid(json.dumps(_with(["meta"], {"n": 0})).replace('"n": 0', '"n": ' + literal), literal.lstrip("-"))


def test_near_miss_ordinary_numbers_are_accepted() -> None:
    n = "1" + "0" * 40
    r = _check(json.dumps(_with(["meta"], {"n": 0, "f": 0.25})).replace('"n": 0', '"n": ' + n))
    assert r.verdict == "pass"


def test_huge_numerals_in_smt_reach_a_status() -> None:
    text = json.dumps(_with(["formalization", "steps", 0, "smt"], f"(assert (= (birthYear charlie) {HUGE}))"))
    r = _check(text)
    assert r.details["steps"][0]["status"] in ("ungrounded", "contradicted", "unknown")


# --------------------------------------------------------------------------- odd characters


@pytest.mark.parametrize("char", ["\ud800", "\udfff", "\x00", "\u2028", "\u2029", "\ufeff"])
@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_odd_characters_in_text_fields_are_accepted(char: str, ensure_ascii: bool) -> None:
    data = _with(["steps", 1, "text"], "So Charlie" + char + " is at most 18 in 2023.")
    data["context"]["question"] += char
    data["id"] = "t" + char
    r = _check(json.dumps(data, ensure_ascii=ensure_ascii))
    assert r.verdict == "pass"


@pytest.mark.parametrize("char", ["\ud800", "\x00", "\U0001f600"])
def test_odd_characters_in_smt_are_untranslatable(char: str) -> None:
    r = _check(
        json.dumps(
            _with(["formalization", "steps", 3, "smt"], f"(assert (qualifies charlie{char} bob 2023))")
        )
    )
    s4 = r.details["steps"][3]
    assert (s4["status"], s4["reason"]) == ("untranslatable", "parse_error")


def test_a_lone_surrogate_in_an_smt_field_counts_against_the_byte_limit() -> None:
    _invalid(json.dumps(_with(["formalization", "vocabulary"], "\ud800" * 6000)), "16384 bytes")


def test_megabyte_strings() -> None:
    big = "x" * (1 << 20)
    _invalid(json.dumps(_with(["steps", 0, "text"], big)), "20000 characters")
    r = _check(json.dumps(_with(["context", "documents", 0, "title"], big)))
    assert r.verdict == "pass"
    _invalid(json.dumps(_with([big], 1)), "Extra inputs")  # a megabyte key: named, but cut short
    assert len(str(_check(json.dumps(_with([big], 1))).details["error"])) < 1000


# --------------------------------------------------------------------------- the tools' JSONL reader


@pytest.mark.parametrize(
    "line,words",
    [
        ("[" * 100_000 + "]" * 100_000, "nested"),
        ('{"a": ' + HUGE + "}", "5000 characters"),
        ("[1, 2]", "not a JSON object"),
    ],
)
def test_vericot_tools_reject_hostile_jsonl(
    line: str, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "reports.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    code = cli.main(["vericot", "metrics", str(path)])
    _, err = capsys.readouterr()
    assert code == 2 and "line 1" in err and words in err and "internal error" not in err


# --------------------------------------------------------------------------- fuzz loop


def _string_paths(obj: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _string_paths(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _string_paths(v, (*path, i))
    elif isinstance(obj, str):
        yield path


def _set(obj: Any, path: tuple[Any, ...], value: Any) -> None:
    for k in path[:-1]:
        obj = obj[k]
    obj[path[-1]] = value


_SMT_TOKENS = [
    *("(", ")", "(", ")", "assert", "and", "or", "not", "=>", "forall", "exists", "((x Person))"),
    *("x", "charlie", "bob", "age", "birthYear", "livesWith", "qualifies", "2023", "18", "-1"),
    *("<=", "=", "+", "*", "true", "false", "ite", "let", "0.5", "(check-sat)", "k", "|q|", '"s"', ";c"),
    "(declare-const k Int)",
    HUGE[:60],
]
_ODD = ["\ud800", "\udfff", "\x00", "\u2028", "\U0001f600", '"', "\\", "(", ")", "|", ";"]


def _mutate(rng: random.Random, text: str) -> str:
    data = json.loads(text)
    paths = list(_string_paths(data))
    target = rng.choice(paths)
    node: Any = data
    for k in target:
        node = node[k]
    original: str = node
    kind = rng.randrange(9)
    if kind == 0:  # flip characters of the JSON text itself
        chars = list(text)
        for _ in range(rng.randint(1, 4)):
            chars[rng.randrange(len(chars))] = rng.choice('{}[]",:0123456789\\ -eE.')
        return "".join(chars)
    if kind == 1:  # odd characters inside a string
        chars = list(original) or ["x"]
        for _ in range(rng.randint(1, 4)):
            chars[rng.randrange(len(chars))] = rng.choice(_ODD)
        _set(data, target, "".join(chars))
        return json.dumps(data, ensure_ascii=rng.random() < 0.5)
    if kind == 2:  # a random formula
        smt_paths = [p for p in paths if p[-1] in ("smt", "negation_smt", "decls", "vocabulary")] or paths
        body = " ".join(rng.choice(_SMT_TOKENS) for _ in range(rng.randint(1, 30)))
        _set(data, rng.choice(smt_paths), f"(assert {body})")
        return json.dumps(data)
    if kind == 3:  # deep nesting in the JSON
        n = rng.choice([63, 65, 1000, 100_000])
        _set(data, target, 0)
        return json.dumps(data).replace(": 0", ": " + "[" * n + "]" * n, 1)
    if kind == 4:  # deep nesting in a formula
        n = rng.choice([150, 199, 201, 3000])
        _set(data, target, "(assert " + "(not " * n + "a" + ")" * n + ")")
        return json.dumps(data)
    if kind == 5:  # numbers: huge, non-finite, in place of a string
        _set(data, target, 0)
        literal = rng.choice([HUGE, "-" + HUGE, "1e400", "NaN", "1" + "0" * 200 + ".5", "12"])
        return json.dumps(data).replace(": 0", ": " + literal, 1)
    if kind == 6:  # a megabyte string
        _set(data, target, rng.choice(["x", "(", "a. "]) * (1 << 20))
        return json.dumps(data)
    if kind == 7:  # wrong types
        _set(data, target, rng.choice([None, 1, [], {}, True, 1.5, [original], {"k": original}]))
        return json.dumps(data)
    chars = list(original)  # kind 8: delete or duplicate a slice
    i, j = sorted(rng.randrange(len(chars) + 1) for _ in range(2))
    _set(data, target, "".join(chars[:i] + chars[j:] if rng.random() < 0.5 else chars[:j] + chars[i:]))
    return json.dumps(data)


def _fuzz(n: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    seeds = [p.read_text(encoding="utf-8") for p in EXAMPLES]
    verdicts: dict[str, int] = {}
    for _ in range(n):
        text = _mutate(rng, rng.choice(seeds))
        if rng.random() < 0.3:
            try:
                json.loads(text)
            except (ValueError, RecursionError):  # not JSON any more: mutate it no further
                pass
            else:
                text = _mutate(rng, text)
        r = _check(text)
        verdicts[r.verdict] = verdicts.get(r.verdict, 0) + 1
    return verdicts


def test_fuzz_examples_never_give_an_internal_error() -> None:
    verdicts = _fuzz(150, seed=14)
    # the loop reaches the solver, not only the reader
    assert verdicts.get("invalid", 0) < 150 and verdicts.get("fail", 0) > 0


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fuzz_examples_longer(seed: int) -> None:
    _fuzz(1000, seed=seed)
