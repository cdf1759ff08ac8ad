"""Bad input is a diagnostic, never an engine exception (issue 14, class 4).

Each of these came back from ``api.check`` as an ``invalid`` "internal error" report (or hung):
a bundle with ``"overlay": 5`` or ``unit_id: 1e400``, a duplicate ``.kb`` query id (sqlite
IntegrityError), a control character inside an evidence quote (JSONDecodeError), pint asked to
convert ``9**9**9``, an unknown writer in a ``%% query`` section, a lone surrogate. A seeded
mutation loop over the shipped examples keeps the class closed.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from cotaudit import api
from cotaudit.certify.gate.decision import Outcome
from cotaudit.certify.interface.load import interface_from_dict
from cotaudit.certify.sources.records import CheckerConfig, Evidence, SourceRecord
from cotaudit.certify.state.config import CertifyConfig
from cotaudit.certify.state.machine import CertState
from cotaudit.limits import Limits

from .bounded import run_bounded

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "certify"
BUNDLE = json.loads((EXAMPLES / "legal_prelim.cert.json").read_text())
LEGAL = (EXAMPLES / "legal_prelim.kb").read_text()


def _check(text: str, path: str) -> Any:
    report = api.check(text, "certify", path=path)
    assert "internal error" not in str(report.details.get("error", "")), report.details
    return report


def _reasons(report: Any) -> list[str]:
    return [str(f.evidence.get("reason")) for f in report.findings]


def _bundle(**changes: Any) -> str:
    data = json.loads(json.dumps(BUNDLE))
    for key, value in changes.items():
        data[key] = value
    return json.dumps(data)


@pytest.mark.parametrize(
    "overlay",
    [
        5,
        "x",
        {"unit_id": 4},
        [5],
        [{"unit_id": 1e400, "fact": "agrees_future_conclusion(x1)"}],
        [{"unit_id": "4", "fact": "agrees_future_conclusion(x1)"}],
        [{"unit_id": 4, "fact": 5}],
        [{"unit_id": True, "fact": "agrees_future_conclusion(x1)"}],
    ],
)
def test_bad_bundle_overlay_is_input_malformed(overlay: Any) -> None:
    report = _check(_bundle(overlay=overlay), "x.cert.json")
    assert report.verdict == "invalid" and _reasons(report) == ["INPUT_MALFORMED"]


def test_bad_manifest_hashes_are_input_malformed() -> None:
    data = json.loads(json.dumps(BUNDLE))
    data["kernel"]["manifest"]["units"][0]["pi_src"] = 5
    report = _check(json.dumps(data), "x.cert.json")
    assert report.verdict == "invalid" and _reasons(report) == ["INPUT_MALFORMED"]


def test_the_shipped_bundle_still_rechecks() -> None:
    report = _check(json.dumps(BUNDLE), "x.cert.json")
    assert report.verdict == "pass" and _reasons(report) == ["RECHECKED"]


def test_duplicate_query_id_is_a_finding_not_an_integrity_error() -> None:
    kb = LEGAL.replace("%% query mid_link_break", "%% query positive")
    report = _check(kb, "x.kb")
    dup = [f for f in report.findings if f.evidence.get("reason") == "INPUT_MALFORMED"]
    assert len(dup) == 1 and "already used" in dup[0].message
    assert [q["query_id"] for q in report.details["queries"]] == ["positive"]
    # near miss: distinct ids are both answered
    assert [q["query_id"] for q in _check(LEGAL, "x.kb").details["queries"]] == ["positive", "mid_link_break"]


def test_control_character_in_a_quote_is_a_finding() -> None:
    kb = LEGAL.replace(
        '"the parties and the subject are determinable"', '"the parties\x01 and the subject"', 1
    )
    report = _check(kb, "x.kb")
    assert "INPUT_MALFORMED" in _reasons(report)
    # near miss: the same character written as a JSON escape is a quote like any other
    ok = LEGAL.replace(
        '"the parties and the subject are determinable"',
        '"the parties\\u0020and the subject are determinable"',
        1,
    )
    assert "INPUT_MALFORMED" not in _reasons(_check(ok, "x.kb"))


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("writer=grounder", "writer=robot"),
        ("%% query positive writer=grounder", "%% query positive space=maybe"),
    ],
)
def test_unknown_section_option_is_input_malformed(old: str, new: str) -> None:
    report = _check(LEGAL.replace(old, new, 1), "x.kb")
    assert report.verdict == "invalid" and _reasons(report) == ["INPUT_MALFORMED"]


@pytest.mark.parametrize(
    "change",
    [
        ("Chen refuses without cause", "Chen refuses\ud800 without cause"),  # raw, in a record
        ('"sign a subscription form (ren\'gou shu)"', '"sign a \\ud800 form"'),  # escaped, in a quote
    ],
)
def test_lone_surrogates_are_diagnosed(change: tuple[str, str]) -> None:
    report = _check(LEGAL.replace(*change, 1), "x.kb")
    assert report.verdict in ("invalid", "fail", "abstain")
    assert "INPUT_MALFORMED" in _reasons(report)


def test_lone_surrogate_in_a_string_constant_is_a_parse_error() -> None:
    from cotaudit.certify.core.errors import ProgramError
    from cotaudit.certify.lang.parse import parse_literal

    with pytest.raises(ProgramError, match="lone surrogate"):
        parse_literal('p("a\\ud800")')
    assert parse_literal('p("a\\u00e9")').args[0].value == "aé"  # near miss: a real code point


# ----------------------------------------------------------------------------- pint, API only

IFACE = interface_from_dict(
    {
        "format": "cotaudit.certify.interface/1",
        "roles": {"c": {"type": "symbol"}, "mass": {"type": "decimal", "unit": "kg"}},
        "predicates": {"weight": {"args": ["c", "mass"]}},
        "source_whitelist": ["weight"],
    }
)


def _schema(unit_text: str) -> tuple[str, str | None]:
    cfg = CertifyConfig(checkers=CheckerConfig(kernel="schema/1"))
    state = CertState.open(":memory:", IFACE, cfg)
    state.add_record(SourceRecord("note", "document", "weighs 70"))
    d = state.admit("weight(c1, 70).", Evidence("note", extra={"units": {"2": unit_text}}))
    state.close()
    return d.outcome.value, d.reason


@pytest.mark.parametrize("unit_text", ["9**9**9", "2^99^99", "(9**9)**9", "kg**" + "9" * 40, "9" * 5000])
def test_unit_text_never_makes_pint_compute_unbounded_powers(unit_text: str) -> None:
    got = run_bounded(_schema, unit_text, timeout=20)  # pint evaluated 9**9**9 for hours
    assert got.value == (Outcome.REJECT.value, "UNSUPPORTED_BY_SOURCE")


@pytest.mark.parametrize("unit_text", ["kg", "lb", "g", "kg*m/m", "kilogram"])
def test_ordinary_unit_text_still_converts(unit_text: str) -> None:
    assert _schema(unit_text) == (Outcome.SOURCE_ADMIT.value, None)


def test_unit_text_that_does_not_convert_is_unsupported() -> None:
    assert _schema("m^2") == (Outcome.REJECT.value, "UNSUPPORTED_BY_SOURCE")


# ----------------------------------------------------------------------------- the class


SPECIAL = [
    "\x00",
    "\x01",
    "\t",
    "\ud800",
    "\u2028",
    '"',
    "\\",
    "%",
    "%%",
    "@",
    "[",
    "]",
    "(",
    ")",
    ",",
    ".",
    ":-",
    "?-",
    "=>",
    "#sk0",
    "not ",
    "{V = bmi@1(A, B)}",
    "1e400",
    "9**9**9",
    "NaN",
    "-0",
    "1.50",
    "\n",
    "\r\n",
    "\ufeff",
    "𝔸",
    " " * 40,
    "x" * 150,
    "writer=robot",
    "space=maybe",
    "%% query q1\n",
]
VALUES: list[Any] = [
    5,
    -1,
    0,
    1e400,
    True,
    None,
    "x",
    "",
    [],
    {},
    [1, 2],
    {"a": 1},
    "\ud800",
    2**70,
    [{"unit_id": 1e400, "fact": "p"}],
    [{"unit_id": 1, "fact": 5}],
    {"format": 1},
]


def _mutate_text(r: random.Random, text: str) -> str:
    t = list(text)
    for _ in range(r.randint(1, 4)):
        pos = r.randrange(len(t) + 1)
        op = r.random()
        if op < 0.4:
            t[pos:pos] = list(r.choice(SPECIAL))
        elif op < 0.65 and t:
            del t[pos : pos + r.randint(1, 20)]
        elif t:
            a = r.randrange(len(t))
            t[pos:pos] = t[a : a + r.randint(1, 120)]
    return "".join(t)


def _mutate_json(r: random.Random, value: Any, depth: int = 0) -> Any:
    if isinstance(value, dict) and value:
        k = r.choice(sorted(value))
        if isinstance(value[k], dict | list) and depth < 6 and r.random() < 0.6:
            value[k] = _mutate_json(r, value[k], depth + 1)
        else:
            value[k] = r.choice(VALUES)
    elif isinstance(value, list) and value:
        i = r.randrange(len(value))
        if isinstance(value[i], dict | list) and depth < 6 and r.random() < 0.6:
            value[i] = _mutate_json(r, value[i], depth + 1)
        else:
            value[i] = r.choice(VALUES)
    return value


def _fuzz(n: int, seed: int) -> list[str]:
    r = random.Random(seed)
    kbs = [p.read_text() for p in sorted(EXAMPLES.glob("*.kb"))]
    bad: list[str] = []
    for i in range(n):
        if i % 2:
            text, path = _mutate_text(r, r.choice(kbs)), "x.kb"
        else:
            data = _mutate_json(r, json.loads(json.dumps(BUNDLE)))
            text, path = json.dumps(data), "x.cert.json"
        report = api.check(text, "certify", path=path, limits=Limits(wall_s=30))
        if "internal error" in str(report.details.get("error", "")):
            bad.append(f"{i}: {report.details['error']}")
    return bad


@pytest.mark.slow
def test_mutations_of_the_examples_never_reach_an_engine_exception() -> None:
    got = run_bounded(_fuzz, 600, 20260101, timeout=600)
    assert got.value == []
